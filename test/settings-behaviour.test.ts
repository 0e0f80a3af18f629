// What each issuing-related setting does to a run: coalescing, issue
// threads, max async queries, max query count and duration, unique/same
// issue, inferred tokens, test05, sample_concatenate_permutation.
import { readFileSync } from 'node:fs';

import { afterAll, describe, expect, test } from 'vitest';

import { querySamplesComplete, type QuerySample } from '../lib/index.js';
import {
  MLPERF_SEEDS,
  cleanupTempDirs,
  delayedSut,
  detailValue,
  detailValues,
  inlineSut,
  logPaths,
  nullQsl,
  readDetail,
  readSummary,
  runTest,
} from './helpers.js';

afterAll(cleanupTempDirs);

const server = { scenario: 'Server' as const, serverTargetLatencyNs: 1_000_000_000, ...MLPERF_SEEDS };

describe('Server issuing', () => {
  test('serverCoalesceQueries puts queries that are already due into one issueQuery call', async () => {
    // A SUT that blocks the JS thread for 2 ms per call makes later queries overdue.
    const calls: number[] = [];
    const sut = {
      name: 'SlowSUT',
      issueQuery(samples: QuerySample[]) {
        calls.push(samples.length);
        const until = Date.now() + 2;
        while (Date.now() < until);
        querySamplesComplete(samples.map((s) => ({ id: s.id })));
      },
      flushQueries() {},
    };
    const { result } = await runTest(sut, nullQsl(), {
      ...server,
      serverTargetQps: 5000,
      minDurationMs: 200,
      serverCoalesceQueries: true,
    });
    expect(Math.max(...calls)).toBeGreaterThan(1);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(result.counts.samples);
  });

  test('without coalescing every issueQuery call carries one sample', async () => {
    const sut = inlineSut();
    await runTest(sut, nullQsl(), { ...server, serverTargetQps: 5000, minDurationMs: 100 });
    expect(sut.queries.every((q) => q.length === 1)).toBe(true);
  });

  test('serverNumIssueQueryThreads issues every generated query across engine threads', async () => {
    const sut = inlineSut();
    const { result, outdir } = await runTest(sut, nullQsl(), {
      ...server,
      serverTargetQps: 4000,
      minDurationMs: 200,
      serverNumIssueQueryThreads: 3,
    });
    const generated = detailValue(readDetail(logPaths(outdir).detail), 'generated_query_count') as number;
    expect(result.counts.queries).toBe(generated);
    expect(new Set(sut.issued.map((s) => s.id)).size).toBe(generated);
    expect(result.valid).toBe(true);
  });

  test('serverMaxAsyncQueries ends the run when too many queries are outstanding', async () => {
    // Completes nothing until the flush: outstanding grows with every query.
    const held: QuerySample[] = [];
    const sut = {
      name: 'HoldingSUT',
      issueQuery(samples: QuerySample[]) {
        held.push(...samples);
      },
      flushQueries() {
        querySamplesComplete(held.map((s) => ({ id: s.id })));
      },
    };
    const { result, outdir } = await runTest(sut, nullQsl(), {
      ...server,
      serverTargetQps: 2000,
      minDurationMs: 500,
      serverMaxAsyncQueries: 10,
    });
    const errors = readDetail(logPaths(outdir).detail)
      .filter((e) => e.metadata.is_error)
      .map((e) => String(e.value));
    expect(errors.some((m) => m.includes('Too many outstanding queries'))).toBe(true);
    expect(result.counts.queries).toBe(11);
    expect(result.valid).toBe(false);
  });
});

describe('ending early', () => {
  test('maxQueryCount stops issuing and is logged as an error', async () => {
    const { result, outdir } = await runTest(inlineSut(), nullQsl(), {
      ...server,
      serverTargetQps: 2000,
      minDurationMs: 1000,
      maxQueryCount: 50,
    });
    expect(result.counts.queries).toBe(50);
    const errors = detailValues(readDetail(logPaths(outdir).detail), 'error_runtime').map(String);
    expect(errors.some((m) => m.includes('Max query count reached'))).toBe(true);
    expect(result.criteria?.minDurationMet).toBe(false);
  });

  test('maxDurationMs stops a SingleStream run', async () => {
    const sut = delayedSut('timeout', 1);
    const { result, outdir } = await runTest(sut, nullQsl(), {
      scenario: 'SingleStream',
      minDurationMs: 5000,
      maxDurationMs: 100,
      singleStreamExpectedLatencyNs: 1_000_000,
      ...MLPERF_SEEDS,
    });
    const errors = detailValues(readDetail(logPaths(outdir).detail), 'error_runtime').map(String);
    expect(errors.some((m) => m.includes('Max test duration reached'))).toBe(true);
    expect(result.valid).toBe(false);
    expect(result.counts.queries).toBeLessThan(1000);
  });
});

describe('sample selection', () => {
  test('performanceIssueUnique issues each loaded sample exactly once', async () => {
    const sut = inlineSut();
    const { result } = await runTest(sut, nullQsl(512, 128), {
      ...server,
      serverTargetQps: 5000,
      minDurationMs: 0,
      performanceIssueUnique: true,
    });
    const indices = sut.issued.map((s) => s.index);
    expect(indices.length).toBe(128);
    expect(new Set(indices).size).toBe(128);
    expect(result.counts.samples).toBe(128);
  });

  test('sampleConcatenatePermutation issues every loaded sample equally often', async () => {
    const sut = inlineSut();
    await runTest(sut, nullQsl(256, 64), {
      ...server,
      serverTargetQps: 5000,
      minDurationMs: 50,
      minQueryCount: 100,
      sampleConcatenatePermutation: true,
    });
    const counts = new Map<number, number>();
    for (const s of sut.issued) counts.set(s.index, (counts.get(s.index) ?? 0) + 1);
    expect(counts.size).toBe(64);
    expect(sut.issued.length % 64).toBe(0);
    expect(new Set(counts.values()).size).toBe(1);
  });
});

describe('tokens and seeds', () => {
  test('inferTokenLatencies adds the inferred tokens-per-second line in Server', async () => {
    const { outdir } = await runTest(inlineSut(), nullQsl(), {
      ...server,
      serverTargetQps: 2000,
      minDurationMs: 100,
      inferTokenLatencies: true,
      tokenLatencyScalingFactor: 69,
    });
    const summary = readSummary(logPaths(outdir).summary);
    expect(summary.some((l) => l.startsWith('Completed tokens per second (inferred): '))).toBe(true);
    const inferred = detailValue(
      readDetail(logPaths(outdir).detail),
      'result_inferred_completed_tokens_per_second',
    ) as number;
    const completed = detailValue(readDetail(logPaths(outdir).detail), 'result_completed_samples_per_sec') as number;
    expect(inferred / completed).toBeCloseTo(69, 3);
  });

  test('test05 swaps in the test05 seeds and forces PerformanceOnly', async () => {
    const { result, outdir } = await runTest(inlineSut(), nullQsl(), {
      ...server,
      mode: 'AccuracyOnly',
      serverTargetQps: 2000,
      minDurationMs: 50,
      test05: true,
      test05QslRngSeed: 7975553102935885558n,
      test05SampleIndexRngSeed: 11403566307062068064n,
      test05ScheduleRngSeed: 15816800565822761601n,
    });
    const d = readDetail(logPaths(outdir).detail);
    expect(detailValue(d, 'effective_test_mode')).toBe('PerformanceOnly');
    // Read the raw text: a 64-bit seed does not survive JSON.parse.
    const raw = readFileSync(logPaths(outdir).detail, 'utf8');
    expect(raw).toContain('"key": "effective_qsl_rng_seed", "value": 7975553102935885558,');
    expect(raw).toContain('"key": "effective_schedule_rng_seed", "value": 15816800565822761601,');
    expect(result.valid).not.toBeNull();
  });
});
