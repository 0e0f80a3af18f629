// runSweep in process, against the built-in simulator (test/run/helpers.ts:
// a server whose ceiling is 200 samples/s): the capacity search lands within
// its precision below that ceiling, a run at the found rate is VALID and one
// 20 % above it INVALID (same settings); without a start rate, a closed-loop
// calibration picks where the search starts; a sweep started again reads its
// finished points back instead of running them; a list writes every point.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { runBenchmark, runSweep, type RunBenchmarkOptions, type SweepJson } from '../../lib/index.js';
import { overallVerdict, runStatusOf } from '../../lib/results/run-status.js';
import { CEILING, SMALL } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROBE = { start: 100, precision: 0.05, probeDurationMs: 1000 };

describe('runSweep: without a start rate', () => {
  test('a closed loop measures the saturated rate first, the search starts at half of it, and it is read back', async () => {
    const outdir = join(dir, 'calibrated');
    let runs = 0;
    const options = {
      ...SMALL,
      precision: 0.1,
      probeDurationMs: 1000,
      outdir,
      runPoint: (o: RunBenchmarkOptions) => {
        runs++;
        return runBenchmark(o);
      },
    };
    const { sweep } = await runSweep(options);
    const [cal, ...probes] = sweep.points;
    expect(cal!.kind).toBe('calibration');
    expect(cal!.concurrency).toBe(256);
    expect(cal!.dir).toBe(join('points', 'calibration-c256'));
    // 256 users against 8 slots: the server's ceiling.
    expect(cal!.qps!).toBeGreaterThan(CEILING * 0.7);
    expect(cal!.qps!).toBeLessThan(CEILING * 1.1);
    const c = sweep.capacity!;
    expect(c.calibration).toEqual({ concurrency: 256, qps: cal!.qps, start: probes[0]!.value });
    expect(Math.abs(probes[0]!.value - cal!.qps! / 2)).toBeLessThanOrEqual(cal!.qps! * 1e-3);
    expect(probes.every((p) => p.kind === 'probe')).toBe(true);
    expect(c.probes).toBe(probes.length);
    expect(runs).toBe(probes.length + 1);
    expect(c.value!).toBeGreaterThan(CEILING * 0.8);
    expect(c.value!).toBeLessThanOrEqual(CEILING * 1.15);
    expect(readFileSync(join(outdir, 'sweep.html'), 'utf8')).toContain('256 users in a closed loop reached');

    // Started again: the calibration is read back like the probes, nothing runs.
    runs = 0;
    const again = await runSweep(options);
    expect(runs).toBe(0);
    expect(again.sweep.points.map((p) => [p.kind, p.value, p.resumed])).toEqual(
      sweep.points.map((p) => [p.kind, p.value, true]),
    );
    expect(again.sweep.capacity!.value).toBe(c.value);
  }, 180_000);
});

describe('runSweep: the capacity search', () => {
  const outdir = join(dir, 'search');
  let sweep: SweepJson;

  test('finds the highest VALID target QPS within its precision, each probe in its own run directory', async () => {
    let runs = 0;
    ({ sweep } = await runSweep({
      ...SMALL,
      ...PROBE,
      outdir,
      runPoint: (o) => {
        runs++;
        return runBenchmark(o);
      },
    }));
    const c = sweep.capacity!;
    expect(c.dimension).toBe('qps');
    expect(c.value).not.toBeNull();
    expect(c.qps).toBe(c.value);
    expect(c.reached).toBe(true);
    // Bracketed within the precision: VALID at value, INVALID at lowerInvalid.
    expect(c.lowerInvalid!).toBeGreaterThan(c.value!);
    expect(c.lowerInvalid!).toBeLessThanOrEqual(c.value! * 1.05 + 1e-9);
    // At the model's ceiling: within 400 ms of queue growth over a ~3.5 s probe above it, not far below it.
    expect(c.value!).toBeLessThanOrEqual(CEILING * 1.15);
    expect(c.value!).toBeGreaterThan(CEILING * 0.8);
    expect(runs).toBe(c.probes);
    expect(sweep.points).toHaveLength(runs);
    for (const p of sweep.points) {
      expect(p.kind).toBe('probe');
      expect(p.dir).toBe(join('points', `qps-${p.value}`));
      expect(existsSync(join(outdir, p.dir, 'mlperf_log_summary.txt'))).toBe(true);
      expect(existsSync(join(outdir, p.dir, 'results.json'))).toBe(true);
      expect(p.samples).toBeGreaterThanOrEqual(662);
      expect(p.ttftMs?.p99).toBeGreaterThan(0);
      expect(p.tokensPerSecond).toBeGreaterThan(0);
      // Each point carries the verdict on its own measurement, as its results.json has it.
      const harness = JSON.parse(readFileSync(join(outdir, p.dir, 'results.json'), 'utf8')).harness;
      expect(['trustworthy', 'harness-limited']).toContain(p.measurement);
      expect(p.measurement).toBe(harness.verdict);
      expect(p.measurementReasons).toEqual(harness.reasons);
    }
    expect(sweep.bounds).toEqual({ ttftMs: 400, tpotMs: 50, latencyMs: null });
    const onDisk = JSON.parse(readFileSync(join(outdir, 'sweep.json'), 'utf8')) as SweepJson;
    expect(onDisk.schema).toBe('@x/loadgen/sweep');
    expect(onDisk.capacity).toEqual(c);
    expect(readFileSync(join(outdir, 'sweep.html'), 'utf8')).toMatch(/capacity: [\d.]+ QPS/);
  }, 120_000);

  test('a run at the capacity is VALID and one 20 % above it INVALID (the probe settings)', async () => {
    const at = async (qps: number, name: string) => {
      const o: RunBenchmarkOptions = {
        ...SMALL,
        outdir: join(dir, name),
        targetQps: qps,
        settings: { ...SMALL.settings, minDurationMs: 1000, minQueryCount: 662 },
      };
      const r = await runBenchmark(o);
      return overallVerdict(r.result, runStatusOf(r));
    };
    const c = sweep.capacity!.value!;
    // The same seeds give the same schedule, but on a shared machine timer
    // jitter can tip a run at the very edge: one more try at the capacity.
    const first = await at(c, 'at-capacity');
    expect(first === 'VALID' ? first : await at(c, 'at-capacity-again')).toBe('VALID');
    expect(await at(c * 1.2, 'above-capacity')).toBe('INVALID');
  }, 90_000);

  test('started again with the same outdir, it runs no probe: every point is read back', async () => {
    let runs = 0;
    const again = await runSweep({
      ...SMALL,
      ...PROBE,
      outdir,
      runPoint: (o) => {
        runs++;
        return runBenchmark(o);
      },
    });
    expect(runs).toBe(0);
    expect(again.sweep.capacity!.value).toBe(sweep.capacity!.value);
    expect(again.sweep.points.every((p) => p.resumed)).toBe(true);
    expect(again.sweep.points.map((p) => p.value)).toEqual(sweep.points.map((p) => p.value));
  }, 30_000);

  test('a finished point with another probe duration is run again', async () => {
    let runs = 0;
    const notes: string[] = [];
    await runSweep({
      ...SMALL,
      ...PROBE,
      probeDurationMs: 1500,
      maxProbes: 1,
      outdir,
      log: (m) => notes.push(m),
      runPoint: (o) => {
        runs++;
        return runBenchmark(o);
      },
    });
    expect(runs).toBe(1);
    expect(notes.join('\n')).toMatch(/other settings \(minDurationMs 1000\): running it again/);
  }, 30_000);
});

describe('runSweep: a list of points', () => {
  test('--rates: every point runs with the run settings and lands in sweep.json', async () => {
    const outdir = join(dir, 'list');
    const { sweep } = await runSweep({
      ...SMALL,
      // Enough queries for Server's early stopping (459 without a miss).
      settings: { ...SMALL.settings, minDurationMs: 1000, minQueryCount: 500 },
      outdir,
      points: [100, 300],
    });
    expect(sweep.kind).toBe('list');
    expect(sweep.capacity).toBeNull();
    expect(sweep.points.map((p) => [p.value, p.kind, p.verdict])).toEqual([
      [100, 'list', 'VALID'],
      [300, 'list', 'INVALID'],
    ]);
    for (const p of sweep.points) expect(existsSync(join(outdir, p.dir, 'results.json'))).toBe(true);
  }, 60_000);

  test("--concurrencies: each point is a closed loop of N users; past the server's 8 slots, requests wait for one", async () => {
    const outdir = join(dir, 'concurrency');
    const { sweep } = await runSweep({
      ...SMALL,
      settings: { ...SMALL.settings, minDurationMs: 1000, minQueryCount: 100 },
      outdir,
      dimension: 'concurrency',
      points: [4, 16],
    });
    expect(sweep.dimension).toBe('concurrency');
    expect(sweep.points.map((p) => [p.concurrency, p.targetQps, p.dir])).toEqual([
      [4, null, join('points', 'concurrency-4')],
      [16, null, join('points', 'concurrency-16')],
    ]);
    for (const p of sweep.points) {
      const j = JSON.parse(readFileSync(join(outdir, p.dir, 'results.json'), 'utf8'));
      expect(j.benchmark.issuePolicy).toBe(`closed loop, concurrency ${p.value}`);
    }
    const [four, sixteen] = sweep.points;
    // 4 users fit the batch; 16 users keep 8 waiting, each for about a request's service time (10 steps of 4 ms).
    expect(sixteen!.ttftMs!.p50).toBeGreaterThan(3 * four!.ttftMs!.p50);
    // The server's ceiling bounds what 16 users get; 4 users get about half of it.
    expect(sixteen!.qps!).toBeLessThan(CEILING * 1.1);
    expect(sixteen!.qps!).toBeGreaterThan(four!.qps!);
  }, 90_000);

  test('usage errors before anything runs', async () => {
    await expect(runSweep({ ...SMALL, scenario: 'Offline', outdir: join(dir, 'x') })).rejects.toMatchObject({
      code: 'LOADGEN_USAGE',
    });
    await expect(runSweep({ ...SMALL, outdir: join(dir, 'x'), precision: 2 })).rejects.toMatchObject({
      code: 'LOADGEN_USAGE',
    });
    await expect(runSweep({ ...SMALL, outdir: join(dir, 'x'), points: [] })).rejects.toMatchObject({
      code: 'LOADGEN_USAGE',
    });
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});
