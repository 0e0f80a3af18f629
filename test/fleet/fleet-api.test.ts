// The library side: Fleet.start → healthy servers with progress while they
// load, their endpoints, the record, and stop() (nothing left running).
import { rmSync } from 'node:fs';

import { afterAll, expect, test } from 'vitest';

import { Fleet } from '../../lib/fleet/fleet.js';
import { parseServersSection } from '../../lib/fleet/spec.js';
import { allGone, killGroups, tempDir } from './helpers.js';

const dir = tempDir();
const pids: number[] = [];
afterAll(() => {
  killGroups(pids);
  rmSync(dir, { recursive: true, force: true });
});

test('progress while loading, then endpoints, versions and a clean stop in the record', async () => {
  const specs = parseServersSection([
    {
      name: 'one',
      backend: 'simulator',
      model: 'sim-m',
      port: 'auto',
      gpus: [3],
      'stop-grace-s': 3,
      simulator: { 'load-time-ms': 1200 },
      weight: 2,
    },
    {
      name: 'two',
      backend: 'simulator',
      flavor: 'sglang',
      model: 'sim-s',
      port: 'auto',
      'warmup-requests': 1,
      'stop-grace-s': 3,
    },
  ]);
  const lines: string[] = [];
  const fleet = await Fleet.start(specs, { outdir: dir, log: (m) => lines.push(m), progressEveryMs: 200 });
  pids.push(...fleet.launched.map((l) => l.proc.pid!));
  try {
    expect(
      lines.some((l) => /^waiting for one: \d+ s of 1800 s \| Loading safetensors checkpoint shards/.test(l)),
    ).toBe(true);
    expect(fleet.endpoints()).toEqual([{ url: fleet.planned[0].url, weight: 2 }, { url: fleet.planned[1].url }]);
    expect(fleet.alive().map((p) => p.name)).toEqual(['one', 'two']);
  } finally {
    await fleet.stop();
  }
  expect(await allGone(pids)).toBe(true);
  const rec = fleet.record();
  expect(
    rec.servers.map((s) => [s.name, s.gpus, s.env.includes('CUDA_VISIBLE_DEVICES'), s.version, s.exit?.how]),
  ).toEqual([
    ['one', [3], true, '0.11.0', 'stopped'],
    ['two', null, false, '0.5.4', 'stopped'],
  ]);
  // vLLM's start-up log line with its non-default args is kept verbatim.
  expect(rec.servers[0].loggedConfig).toEqual({ nonDefaultArgs: '{"model":"sim-m"}', engineConfig: null });
  // SGLang's effective server arguments are kept whole.
  expect(rec.servers[1].serverInfo).toMatchObject({ model_path: 'sim-s', version: '0.5.4' });
  expect(rec.events.map((e) => `${e.server} ${e.kind}`).sort()).toEqual(
    [
      'one healthy',
      'one started',
      'one stopped',
      'one warmed-up',
      'two healthy',
      'two started',
      'two stopped',
      'two warmed-up',
    ].sort(),
  );
  expect(rec.events.find((e) => e.server === 'two' && e.kind === 'warmed-up')!.message).toBe(
    '1/1 warm-up requests answered',
  );
});
