// bench/client/kdamond.mjs: ttft-error's --idle-kdamond finds DAMON's kernel
// threads, puts them at SCHED_IDLE and always gives them their policy back.
// The live test runs only where such a thread exists and we may change it
// (root on Linux); it restores the thread before it ends.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { describe, expect, test } from 'vitest';

const MODULE = pathToFileURL(join(__dirname, '..', '..', 'bench', 'client', 'kdamond.mjs')).href;

interface KdamondModule {
  parseStat(text: string): { comm: string; flags: number; policy: number };
  kdamondThreads(): { pid: number; comm: string }[];
  idleKdamond(): { threads: { pid: number; comm: string }[]; restore(): void };
}
const load = () => import(MODULE) as Promise<KdamondModule>;

// Field 41 of /proc/PID/stat: 0 SCHED_OTHER, 5 SCHED_IDLE.
const policyOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[38]);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('kdamond helper of the TTFT bench', () => {
  test('parseStat reads comm, flags and policy, whatever the comm holds', async () => {
    const { parseStat } = await load();
    // 52 fields; comm with a space and parentheses; flags 0x208040 (PF_KTHREAD set), policy 5.
    const fields = [
      'S',
      '2',
      ...Array.from({ length: 4 }, () => '0'),
      '2129984',
      ...Array.from({ length: 31 }, () => '0'),
      '5',
      ...Array.from({ length: 11 }, () => '0'),
    ];
    const s = parseStat(`77 (kdamond (x) 0) ${fields.join(' ')}\n`);
    expect(s).toEqual({ comm: 'kdamond (x) 0', flags: 2129984, policy: 5 });
    // This process: a user thread, SCHED_OTHER.
    const self = parseStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(self.flags & 0x00200000).toBe(0);
    expect(self.policy).toBe(0);
  });

  test('only kernel threads named kdamond* at SCHED_OTHER are listed', async () => {
    const { kdamondThreads } = await load();
    for (const t of kdamondThreads()) {
      expect(t.comm.startsWith('kdamond')).toBe(true);
      expect(policyOf(t.pid)).toBe(0);
    }
  });

  test.runIf(process.platform === 'linux' && isRoot && hasChrt)(
    'idleKdamond demotes each kdamond thread and restore() gives its policy back, once',
    async () => {
      const { kdamondThreads, idleKdamond } = await load();
      const before = kdamondThreads();
      if (before.length === 0) return; // a kernel without DAMON running: nothing to change
      const held = idleKdamond();
      try {
        expect(held.threads.map((t) => t.pid).sort()).toEqual(before.map((t) => t.pid).sort());
        for (const t of held.threads) expect(policyOf(t.pid)).toBe(5);
      } finally {
        held.restore();
      }
      for (const t of before) expect(policyOf(t.pid)).toBe(0);
      held.restore(); // idempotent: nothing left to do, no error
      for (const t of before) expect(policyOf(t.pid)).toBe(0);
    },
  );
});
