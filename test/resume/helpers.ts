// Helpers of the resume tests: the accuracy log keyed by qsl_idx, the
// journal's record count, a simulator in a child process that can be killed
// and restarted on the same port, and waiting for a condition.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { readJournal } from '../../lib/resume/journal-reader.js';

export interface AccEntry {
  seq_id: number;
  qsl_idx: number;
  data: string;
  token_count?: number;
  token_data?: string;
}

/** mlperf_log_accuracy.json's entries, sorted by qsl_idx (what MLPerf's scripts key by). */
export function accuracyEntries(dir: string): AccEntry[] {
  const list = JSON.parse(readFileSync(join(dir, 'mlperf_log_accuracy.json'), 'utf8')) as AccEntry[];
  return list.sort((a, b) => a.qsl_idx - b.qsl_idx);
}

export function journalCount(dir: string): number {
  const j = join(dir, 'journal');
  if (!existsSync(j) || readdirSync(j).filter((n) => n.endsWith('.bin')).length === 0) return 0;
  return readJournal(j).records.size;
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `loadgen sim` in a child process; resolves with its URL once it listens. */
export function startSimChild(
  cli: string,
  args: string[],
): Promise<{ child: ChildProcess; url: string; port: number }> {
  const child = spawn(process.execPath, [cli, 'sim', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/[\d.]+:(\d+)/.exec(out);
      if (m) resolve({ child, url: m[0], port: Number(m[1]) });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`sim exited (${code}) before listening: ${err}`)));
  });
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
