// The ssh launcher for real: a sshd on 127.0.0.1 (test/fleet/sshd.ts), node
// names that are aliases of it in an ssh config (ssh -F), simulated servers
// started "on" the nodes through it. Start, health, warm-up, a crash of a
// remote engine mid-run, Ctrl-C while loading and during the test, the
// normal end, a node that refuses the key; every time, no process left on
// the "remote" side (the engines' own pids, read from their logs) nor here.
// Skips, saying why, where sshd cannot run (not root, no openssh-server).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { allGone, killGroups, runCli, serverPids, start, tempDir } from './helpers.js';
import { type Sshd, sshdUnavailable, startSshd } from './sshd.js';
import { freePort } from '../ports.js';

const why = sshdUnavailable();
if (why) console.warn(`ssh launcher tests skipped: ${why}`);

const dir = tempDir();
const started: number[] = [];
let sshd: Sshd;

beforeAll(async () => {
  if (!why) sshd = await startSshd(['node-a', 'node-b']);
}, 30_000);

afterAll(async () => {
  killGroups(started);
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// A workdir with spaces and both quotes: the remote `cd` works only if the quoting holds.
const workdir = (): string => {
  const w = join(dir, `it's a "work" dir`);
  mkdirSync(w, { recursive: true });
  return w;
};

interface NodeServer {
  name: string;
  node: string;
  simulator?: Record<string, unknown>;
  config?: string;
}

async function server(s: NodeServer): Promise<Record<string, unknown>> {
  return {
    name: s.name,
    backend: 'simulator',
    model: 'sim-m',
    port: await freePort(),
    nodes: [s.node],
    ssh: { 'config-file': s.config ?? sshd.config, workdir: workdir() },
    'startup-timeout-s': 30,
    'stop-grace-s': 3,
    simulator: { 'decode-step-ms': 4, ...s.simulator },
  };
}

function config(name: string, body: Record<string, unknown>): string {
  const p = join(dir, `${name}.json`);
  writeFileSync(p, JSON.stringify({ scenario: 'Server', 'target-qps': 10, synthetic: '64/16', ...body }));
  return p;
}

/** The engines' own pids on the node, from their start-up lines (`Started server process [pid]`). */
function remotePids(out: string, names: readonly string[]): number[] {
  return names.map((n) => {
    const log = readFileSync(join(out, 'servers', `${n}.log`), 'utf8');
    return Number(/Started server process \[(\d+)\]/.exec(log)?.[1] ?? 0);
  });
}

async function waitRemotePids(out: string, names: readonly string[]): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const have = names.every((n) => existsSync(join(out, 'servers', `${n}.log`)));
    const pids = have ? remotePids(out, names) : [];
    if (pids.length === names.length && pids.every((p) => p > 0)) return pids;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no remote pid in the logs of ${names.join(', ')}`);
}

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Record<string, any>;
}

describe.skipIf(why !== null)('servers on ssh nodes, through a real sshd', () => {
  test('two nodes: started through ssh, healthy, warmed up, one run over both, stopped with nothing left on either side', async () => {
    const out = join(dir, 'two');
    const file = config('two', {
      settings: { min_duration: 1500, min_query_count: 10 },
      servers: [await server({ name: 'a', node: 'node-a' }), await server({ name: 'b', node: 'node-b' })],
    });
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(/server a: ssh -tt -o BatchMode=yes -F \S+ssh_config node-a -- /);
    expect(r.stderr).toMatch(
      /servers ready: a http:\/\/127\.0\.0\.1:\d+ \(version 0\.11\.0\), b http:\/\/127\.0\.0\.1:\d+/,
    );
    const remote = remotePids(out, ['a', 'b']);
    started.push(...remote);
    expect(remote.every((p) => p > 0)).toBe(true);
    expect(await allGone([...pids, ...remote])).toBe(true);
    // The remote log, streamed back by ssh into servers/: whole lines, no terminal \r.
    const log = readFileSync(join(out, 'servers', 'a.log'), 'utf8');
    expect(log).toMatch(/Application startup complete/);
    expect(log).not.toContain('\r');
    const res = results(out);
    expect(res.servers.servers.map((s: any) => [s.name, s.node, s.launcher, s.version, s.exit.how])).toEqual([
      ['a', 'node-a', 'ssh', '0.11.0', 'stopped'],
      ['b', 'node-b', 'ssh', '0.11.0', 'stopped'],
    ]);
    expect(res.servers.slurmJobs).toEqual([]);
    expect(res.servers.events.filter((e: any) => e.kind === 'warmed-up').map((e: any) => e.message)).toEqual([
      '2/2 warm-up requests answered',
      '2/2 warm-up requests answered',
    ]);
    expect(res.errors.failedSamples).toBe(0);
    for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
  }, 90_000);

  test('a remote engine crashing mid-run: reported with its log tail, traffic moved to the other node, nothing left', async () => {
    const out = join(dir, 'crash');
    const file = config('crash', {
      'target-qps': 20,
      settings: { min_duration: 4000 },
      servers: [
        await server({ name: 'steady', node: 'node-a' }),
        await server({ name: 'fragile', node: 'node-b', simulator: { 'crash-after-requests': 12 } }),
      ],
    });
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    const remote = remotePids(out, ['steady', 'fragile']);
    started.push(...remote);
    expect([0, 1, 6], r.stderr).toContain(r.code);
    // ssh passes the remote exit status on: the engine's own code 1.
    expect(r.stderr).toMatch(/warning: server fragile \(http:\/\/127\.0\.0\.1:\d+\) exited with code 1 during the run/);
    expect(r.stderr).toMatch(/last lines of .*fragile\.log:[\s\S]*simulated engine crash/);
    const res = results(out);
    const crash = res.servers.events.find((e: any) => e.kind === 'crashed');
    expect(crash).toMatchObject({ server: 'fragile', exitCode: 1 });
    expect(crash.logTail.join('\n')).toMatch(/simulated engine crash/);
    const steady = res.endpoints.find((e: any) => e.url === res.servers.servers[0].url);
    const fragile = res.endpoints.find((e: any) => e.url === res.servers.servers[1].url);
    expect(steady.completed).toBeGreaterThan(fragile.completed);
    expect(await allGone([...pids, ...remote])).toBe(true);
  }, 90_000);

  test('Ctrl-C while the remote engines load: exit 130, the remote engines end with their ssh sessions', async () => {
    const out = join(dir, 'int-load');
    const file = config('int-load', {
      servers: [
        await server({ name: 'l1', node: 'node-a', simulator: { 'load-time-ms': 600000 } }),
        await server({ name: 'l2', node: 'node-b', simulator: { 'load-time-ms': 600000 } }),
      ],
    });
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/server l2: pid \d+/);
    started.push(...serverPids(s.stderr()));
    // Wait until both engines run on the "remote" side: the stop must reach them there.
    const remote = await waitRemotePids(out, ['l1', 'l2']);
    started.push(...remote);
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(await allGone([...serverPids(r.stderr), ...remote])).toBe(true);
  }, 60_000);

  test('Ctrl-C during the test: the test ends, results written, the remote engines stopped', async () => {
    const out = join(dir, 'int-test');
    const file = config('int-test', {
      settings: { min_duration: 60000 },
      servers: [await server({ name: 't1', node: 'node-a' }), await server({ name: 't2', node: 'node-b' })],
    });
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/servers ready/);
    const pids = serverPids(s.stderr());
    started.push(...pids);
    const remote = remotePids(out, ['t1', 't2']);
    started.push(...remote);
    for (let i = 0; i < 200 && !existsSync(join(out, 'mlperf_log_detail.txt')); i++)
      await new Promise((res) => setTimeout(res, 50));
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/stopping t1, t2/);
    expect(await allGone([...pids, ...remote])).toBe(true);
    const res = results(out);
    expect(res.run.aborted).toBe(true);
    expect(res.servers.servers.map((x: any) => x.exit.how)).toEqual(['stopped', 'stopped']);
  }, 60_000);

  test('a node that refuses the key: exit 3, the node named, the log tail says why', async () => {
    const out = join(dir, 'refused');
    const file = config('refused', {
      servers: [await server({ name: 'nokey', node: 'node-a', config: sshd.strangerConfig })],
    });
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    started.push(...serverPids(r.stderr));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/server nokey exited with code 255: ssh to node node-a failed/);
    expect(r.stderr).toMatch(/Permission denied \(publickey\)/);
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  }, 60_000);
});
