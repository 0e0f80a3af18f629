// Pre-flight: before a performance run for an MLPerf benchmark, the settings
// the submission checker v6.1 would reject are named at once (warnings), or
// refuse the run with --strict-mlperf (a UsageError: exit 2, nothing run).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { planRun } from '../../lib/cli/run-command.js';
import { loadSettings } from '../../lib/core/load-settings.js';
import { UsageError } from '../../lib/core/errors.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { preflightMlperf } from '../../lib/submission/preflight.js';
import { tempDir } from '../accuracy/helpers.js';
import { referencedDataset } from './helpers.js';

describe('preflightMlperf', () => {
  it('finds nothing in the official settings of each scenario', () => {
    const cases: Array<[string, 'Offline' | 'Server']> = [];
    for (const model of ['llama3_1-8b', 'deepseek-r1']) cases.push([model, 'Offline'], [model, 'Server']);
    cases.push(['gpt-oss-120b', 'Server']);
    // The -interactive keys are Server-only in mlperf.conf.
    for (const model of ['llama3_1-8b-interactive', 'deepseek-r1-interactive']) cases.push([model, 'Server']);
    for (const [model, scenario] of cases)
      expect(preflightMlperf(model, loadSettings({ model, scenario })), `${model} ${scenario}`).toEqual([]);
  });

  it('names exactly the settings that were changed below the checker limits', () => {
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Offline' });
    Object.assign(s, {
      minDurationMs: 60_000,
      scheduleRngSeed: '42',
      performanceSampleCountOverride: 1000,
      minQueryCount: 100,
      offlineExpectedQps: 10,
    });
    expect(preflightMlperf('llama3_1-8b', s).map((f) => f.setting)).toEqual([
      'minDurationMs',
      'scheduleRngSeed',
      'performanceSampleCountOverride',
      'minQueryCount',
    ]);
    const server = loadSettings({ model: 'llama3_1-8b', scenario: 'Server' });
    Object.assign(server, { tpotLatencyNs: 150e6, useTokenLatencies: true });
    expect(preflightMlperf('llama3_1-8b', server).map((f) => f.message)).toEqual([
      'tpot_latency is 150 ms; the checker fails a Server p99 TPOT of 100 ms or more',
    ]);
  });

  it('a non-MLPerf issue policy (closed loop, burstiness) is named: its results cannot be submitted', () => {
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Server' });
    expect(preflightMlperf('llama3_1-8b', { ...s, closedLoopConcurrency: 16 }).map((f) => f.message)).toEqual([
      'the issue policy is closed loop, concurrency 16: not an MLPerf scenario, its results cannot be submitted',
    ]);
    expect(preflightMlperf('llama3_1-8b', { ...s, serverBurstiness: 0.5 })).toHaveLength(1);
  });

  it('Offline samples per query count the expected QPS over the minimum duration, as LoadGen sizes the query', () => {
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Offline' });
    // 1.1 x 600 s x 25 QPS = 16500 samples, above the 13368 needed, whatever min_query_count says.
    Object.assign(s, { minQueryCount: 1, offlineExpectedQps: 25 });
    expect(preflightMlperf('llama3_1-8b', s)).toEqual([]);
    // gpt-oss-120b's mlperf.conf entries set no Offline min_query_count: at the default 1 QPS the query
    // would hold 660 samples, so the submitter's user.conf must set a target_qps (10 gives 6600 >= 6396).
    const g = loadSettings({ model: 'gpt-oss-120b', scenario: 'Offline' });
    expect(preflightMlperf('gpt-oss-120b', g).map((f) => f.message)).toEqual([
      'Offline samples per query would be 660; the closed division needs >= 6396',
    ]);
    g.offlineExpectedQps = 10;
    expect(preflightMlperf('gpt-oss-120b', g)).toEqual([]);
  });
});

describe('loadgen run --benchmark before the test', () => {
  it('warns about each setting the checker would reject, and runs', async () => {
    const dir = tempDir();
    const notes: string[] = [];
    await runBenchmark({
      scenario: 'Offline',
      benchmark: 'llama3_1-8b',
      dataset: referencedDataset(4),
      settings: { minDurationMs: 100, minQueryCount: 4 },
      workers: 0,
      outdir: join(dir, 'out'),
      log: (m) => notes.push(m),
    });
    const warnings = notes.filter((n) => n.startsWith('warning: not submittable to MLPerf'));
    expect(warnings).toEqual([
      'warning: not submittable to MLPerf: min_duration is 100 ms; the checker needs >= 600000 ms (600 s)',
      'warning: not submittable to MLPerf: Offline samples per query would be 27; the closed division needs >= 13368',
    ]);
    // Warnings come before the simulator starts.
    expect(notes.findIndex((n) => n.startsWith('warning: not submittable'))).toBeLessThan(
      notes.findIndex((n) => n.startsWith('simulated run')),
    );
  });

  it('--strict-mlperf refuses the run before anything is written; it needs --benchmark', async () => {
    const dir = tempDir();
    const outdir = join(dir, 'never');
    const plan = planRun({
      scenario: 'Offline',
      benchmark: 'llama3_1-8b',
      strictMlperf: true,
      set: ['min_duration=1000'],
      outputDir: outdir,
    });
    expect(plan.options.strictMlperf).toBe(true);
    await expect(
      runBenchmark({ ...plan.options, dataset: referencedDataset(4), workers: 0, log: () => {} }),
    ).rejects.toThrow(/--strict-mlperf: MLPerf's submission checker would reject this run: min_duration is 1000 ms/);
    expect(existsSync(outdir)).toBe(false);
    expect(() => planRun({ scenario: 'Offline', strictMlperf: true })).toThrow(UsageError);
    // An accuracy run is not judged by these rules.
    const acc = await runBenchmark({
      scenario: 'Offline',
      benchmark: 'llama3_1-8b',
      mode: 'AccuracyOnly',
      strictMlperf: true,
      dataset: referencedDataset(4),
      workers: 0,
      outdir: join(dir, 'acc'),
      log: () => {},
    });
    expect(acc.result.mode).toBe('AccuracyOnly');
  });
});
