// A multi-node benchmark end to end, as a cluster user runs one: two "nodes"
// reached through a real sshd (aliases of 127.0.0.1, test/fleet/sshd.ts), one
// simulated server on each. First one LoadGen run over both servers; then
// one run per node at once (each node's own client and server, as MLPerf's
// multi-node submissions run), merged by `loadgen report --aggregate`.
// Nothing is left running on either side. Skips, saying why, without sshd.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, expect, test } from 'vitest';

import { allGone, killGroups, runCli, serverPids, tempDir } from './helpers.js';
import { type Sshd, sshdUnavailable, startSshd } from './sshd.js';
import { freePorts } from '../ports.js';

const why = sshdUnavailable();
if (why) console.warn(`multi-node end-to-end test skipped: ${why}`);

const dir = tempDir();
const started: number[] = [];
let sshd: Sshd | undefined;

afterAll(async () => {
  killGroups(started);
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Record<string, any>;
}

function enginePid(out: string, name: string): number {
  const log = readFileSync(join(out, 'servers', `${name}.log`), 'utf8');
  return Number(/Started server process \[(\d+)\]/.exec(log)?.[1] ?? 0);
}

test.skipIf(why !== null)(
  'two ssh nodes, one server each: one run over both, then a run per node merged with report --aggregate',
  async () => {
    sshd = await startSshd(['node-a', 'node-b']);
    const [pa, pb] = await freePorts(2);
    const ports = { 'node-a': pa!, 'node-b': pb! };
    const server = (node: 'node-a' | 'node-b'): object => ({
      name: node,
      backend: 'simulator',
      model: 'sim-m',
      port: ports[node],
      nodes: [node],
      ssh: { 'config-file': sshd!.config },
      'startup-timeout-s': 30,
      'stop-grace-s': 3,
      simulator: { 'decode-step-ms': 4 },
    });
    const config = (name: string, servers: object[]): string => {
      const p = join(dir, `${name}.json`);
      writeFileSync(
        p,
        JSON.stringify({
          scenario: 'Server',
          'target-qps': 10,
          synthetic: '64/16',
          settings: { min_duration: 2000, min_query_count: 16 },
          servers,
        }),
      );
      return p;
    };

    // One LoadGen run over both nodes' servers.
    const both = join(dir, 'both');
    const r = await runCli([
      'run',
      '--config',
      config('both', [server('node-a'), server('node-b')]),
      '--output-dir',
      both,
    ]);
    started.push(...serverPids(r.stderr));
    expect([0, 1], r.stderr).toContain(r.code);
    const res = results(both);
    expect(res.servers.servers.map((s: any) => [s.node, s.exit.how])).toEqual([
      ['node-a', 'stopped'],
      ['node-b', 'stopped'],
    ]);
    for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
    const engines = [enginePid(both, 'node-a'), enginePid(both, 'node-b')];
    started.push(...engines);
    expect(await allGone([...serverPids(r.stderr), ...engines])).toBe(true);

    // A run per node, at the same time, each with its own server.
    const perNode = (['node-a', 'node-b'] as const).map((n) => join(dir, `run-${n}`));
    const runs = await Promise.all(
      (['node-a', 'node-b'] as const).map((n, i) =>
        runCli(['run', '--config', config(`only-${n}`, [server(n)]), '--output-dir', perNode[i]!]),
      ),
    );
    for (const [i, x] of runs.entries()) {
      started.push(...serverPids(x.stderr), enginePid(perNode[i]!, ['node-a', 'node-b'][i]!));
      expect([0, 1], x.stderr).toContain(x.code);
    }
    const singles = perNode.map(results);
    for (const s of singles) expect(s.errors.failedSamples).toBe(0);

    const merged = join(dir, 'aggregated.json');
    const agg = await runCli(['report', ...perNode, '--aggregate', '--output', merged]);
    expect(agg.code, agg.stderr).toBe(0);
    const a = JSON.parse(readFileSync(merged, 'utf8')) as Record<string, any>;
    expect(a.schema).toBe('@x/loadgen/aggregated-results');
    expect(a.runs.map((x: any) => x.dir)).toEqual(perNode);
    expect(a.counts.samples).toBe(singles.reduce((s, x) => s + x.counts.samples, 0));
    // Summed over the nodes (the detail log's 6 significant digits against results.json's full figures).
    expect(a.throughput.qps).toBeCloseTo(
      singles.reduce((s, x) => s + x.throughput.qps, 0),
      2,
    );
    expect(a.throughput.qpsRuns).toBe(2);
    expect(
      await allGone([
        ...runs.flatMap((x) => serverPids(x.stderr)),
        ...perNode.map((o, i) => enginePid(o, ['node-a', 'node-b'][i]!)),
      ]),
    ).toBe(true);
  },
  180_000,
);
