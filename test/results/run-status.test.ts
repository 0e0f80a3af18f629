// The run's status beside LoadGen's verdict, and latency figures over the
// samples that succeeded (lib/results/run-status.ts), on hand-made records.
import { describe, expect, test } from 'vitest';

import { formatProgress } from '../../lib/cli/progress.js';
import { exitCodeOf, formatSummary } from '../../lib/cli/run-command.js';
import type { LatencyStats } from '../../lib/core/result.js';
import { buildResultsJson } from '../../lib/results/results-json.js';
import { buildResultSummary } from '../../lib/results/result-summary.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { latencyFigures, runStatusOf } from '../../lib/results/run-status.js';
import type { SampleTiming } from '../../lib/sut/types.js';
import { syntheticRecord } from './records.js';

const stats = (v: number): LatencyStats => ({
  min: v,
  max: v,
  mean: v,
  p50: v,
  p90: v,
  p95: v,
  p97: v,
  p99: v,
  p999: v,
});
const INT64_MIN_NS = Number(-(2n ** 63n));

function timing(i: number, ok: boolean, latencyMs: number, ttftMs: number, tokens: number): SampleTiming {
  const scheduledNs = 1e12 + i * 1e7;
  return {
    id: i,
    index: i,
    endpoint: 0,
    attempts: 1,
    scheduledNs,
    issuedNs: scheduledNs,
    sentNs: scheduledNs,
    headersNs: scheduledNs,
    firstTokenNs: ttftMs > 0 ? scheduledNs + ttftMs * 1e6 : NaN,
    endNs: scheduledNs + latencyMs * 1e6,
    chunks: tokens,
    multiTokenChunks: 0,
    tokens,
    maxGapNs: 0,
    ok,
    dispatchedNs: scheduledNs,
  };
}

function record(
  o: {
    valid?: boolean | null;
    failed?: number;
    issued?: number;
    errors?: number;
    timings?: SampleTiming[];
    ttft?: LatencyStats | null;
    tpot?: LatencyStats | null;
    latency?: LatencyStats | null;
  } = {},
): RunRecord {
  const issued = o.issued ?? 10;
  const r = syntheticRecord({
    n: issued,
    result: {
      valid: o.valid === undefined ? true : o.valid,
      latency: o.latency === undefined ? stats(100e6) : o.latency,
      ttft: o.ttft === undefined ? stats(10e6) : o.ttft,
      tpot: o.tpot === undefined ? stats(3e6) : o.tpot,
      counts: { queries: issued, samples: issued, tokens: 100, overlatencyQueries: 0 },
      effective: {
        samplesPerQuery: 1,
        minQueryCount: 1,
        targetQps: 1,
        performanceSampleCount: 10,
        accuracySampleCount: 10,
      },
    },
    sut: {
      samples: { issued, completed: issued, failed: o.failed ?? 0, retried: 0 },
      errorKinds: o.failed ? { 'connection-reset': o.failed } : {},
      ...(o.timings ? { timings: o.timings } : {}),
    },
  });
  r.dataset.size = 10;
  r.result.errors.count = o.errors ?? 0;
  return r;
}

describe('run status', () => {
  test('OK, SAMPLES_FAILED, ALL_SAMPLES_FAILED, ERRORS; the exit code follows', () => {
    expect(runStatusOf(record())).toMatchObject({ status: 'OK', message: null });
    expect(exitCodeOf(record(), false)).toBe(0);
    const some = record({ failed: 3, errors: 6 });
    expect(runStatusOf(some)).toMatchObject({
      status: 'SAMPLES_FAILED',
      failedSamples: 3,
      samples: 10,
      message: '3 of 10 samples failed (the MLPerf submission checker rejects logs with errors)',
    });
    expect(exitCodeOf(some, false)).toBe(6);
    expect(formatSummary(some, [])).toMatch(
      /^Result: INVALID: 3 of 10 samples failed \(the MLPerf submission checker rejects logs with errors\); LoadGen's own verdict: VALID\n/,
    );
    const j = buildResultsJson(some);
    expect(j.verdict).toMatchObject({
      status: 'VALID',
      valid: true,
      overall: 'INVALID',
      run: { status: 'SAMPLES_FAILED', failedSamples: 3 },
    });
    const all = record({ failed: 10, valid: false });
    expect(runStatusOf(all).message).toBe(
      'all 10 samples failed (the MLPerf submission checker rejects logs with errors)',
    );
    expect(exitCodeOf(all, false)).toBe(3);
    const errors = record({ errors: 2 });
    expect(runStatusOf(errors)).toMatchObject({ status: 'ERRORS', failedSamples: 0 });
    expect(exitCodeOf(errors, false)).toBe(6);
    expect(buildResultsJson(errors).verdict.overall).toBe('INVALID');
  });
});

describe('latency figures over the samples that succeeded', () => {
  test("no failure: LoadGen's statistics", () => {
    const f = latencyFigures(record());
    expect(f.source).toBe('loadgen');
    expect(f.ttft!.p99).toBe(10e6);
  });

  test("failures: the harness's timings of the samples that succeeded, never a sentinel", () => {
    const timings = [
      timing(0, true, 100, 10, 11),
      timing(1, true, 200, 20, 11),
      timing(2, false, 50, 0, 0),
      timing(3, false, 70, 5, 0),
    ];
    const r = record({
      failed: 2,
      issued: 4,
      timings,
      ttft: { ...stats(10e6), min: INT64_MIN_NS },
      tpot: { ...stats(3e6), min: -29804308 },
    });
    const f = latencyFigures(r);
    expect(f.source).toBe('harness');
    expect(f.ttft).toMatchObject({ min: 10e6, max: 20e6 });
    expect(f.tpot).toMatchObject({ min: 9e6, max: 18e6 });
    expect(f.latency).toMatchObject({ min: 100e6, max: 200e6 });
    const j = buildResultsJson(r);
    expect(j.latencyMs.ttft!.min).toBe(10);
    expect(j.samples!.latencyNs).toHaveLength(2);
    expect(buildResultSummary(r).ttft).toMatchObject({ min: 10e6, max: 20e6 });
    expect(formatSummary(r, [])).toContain('TTFT p99: 20.0 ms   TPOT p99: 18.0 ms (samples that succeeded)');
  });

  test('failures without timings, or no sample succeeded: n/a (null), not a sentinel', () => {
    const noTimings = record({ failed: 2, ttft: stats(INT64_MIN_NS), tpot: stats(9223372033842e6) });
    expect(latencyFigures(noTimings)).toMatchObject({ latency: null, ttft: null, tpot: null });
    expect(buildResultsJson(noTimings).latencyMs).toMatchObject({ sample: null, ttft: null, tpot: null });
    expect(buildResultSummary(noTimings).ttft).toEqual({});
    expect(formatSummary(noTimings, [])).toContain('TTFT p99: n/a   TPOT p99: n/a');
    // No failure recorded (a custom SUT) but a sentinel in LoadGen's statistics: still n/a.
    const custom = { ...record({ ttft: stats(INT64_MIN_NS) }), sut: null };
    expect(latencyFigures(custom).ttft).toBeNull();
    expect(latencyFigures(custom).tpot!.p99).toBe(3e6);
  });
});

describe('progress line errors', () => {
  test('failed requests as they happen, and the samples that failed when fewer', () => {
    const p = {
      elapsedMs: 5000,
      issued: 100,
      completed: 0,
      inFlight: 100,
      qps: 0,
      tokensPerSecond: 0,
      remainingMs: null,
    };
    expect(formatProgress({ ...p, errors: 0, requestErrors: 16 })).toContain('  16 errors  ');
    expect(formatProgress({ ...p, errors: 3, requestErrors: 16 })).toContain('  16 errors (3 samples failed)  ');
    expect(formatProgress({ ...p, errors: 3, requestErrors: 3 })).toContain('  3 errors  ');
    expect(formatProgress({ ...p, errors: 2 })).toContain('  2 errors  ');
  });
});
