// The run's own status beside LoadGen's verdict, and the latency figures the
// harness shows. LoadGen judges a run by its timing criteria only: a run in
// which samples failed (errors, timeouts, resets, error events) can be VALID
// to it, yet the MLPerf submission checker rejects logs with errors. The
// console, results.json, report.html and the exit code say so. LoadGen's
// statistics also count failed samples (a failure without a first token
// gives a TTFT of INT64_MIN ns, as the official engine computes it), so the
// harness shows latency, TTFT and TPOT over the samples that succeeded.
import type { LatencyStats, TestResult } from '../core/result.js';
import type { SampleTiming } from '../sut/types.js';
import type { RunRecord } from './run-record.js';
import { loadgenPercentile, moments, seriesFromTimings, sortedCopy, type SampleSeries } from './samples.js';

/**
 * OK: no sample failed and LoadGen logged no error. SAMPLES_FAILED: some
 * samples failed; ALL_SAMPLES_FAILED: every one did; ERRORS: no sample
 * failed, but LoadGen logged errors (e.g. a one-token output in token mode).
 */
export type RunStatusName = 'OK' | 'SAMPLES_FAILED' | 'ALL_SAMPLES_FAILED' | 'ERRORS';

export interface RunStatus {
  status: RunStatusName;
  /** Samples the adapter completed as failures (after retries); 0 for a custom SUT. */
  failedSamples: number;
  /** Samples the adapter was given (issued); LoadGen's count for a custom SUT. */
  samples: number;
  /** Errors in LoadGen's logs (the summary's "N ERRORS encountered"). */
  loadgenErrors: number;
  /** Why the run is not clean, e.g. "201 of 601 samples failed (…)"; null when OK. */
  message: string | null;
}

/** The verdict to act on: LoadGen's, except that a run that is not clean is INVALID (ABORTED stays). */
export type OverallVerdict = 'VALID' | 'INVALID' | 'NO_RESULT' | 'ABORTED';

export const CHECKER_NOTE = 'the MLPerf submission checker rejects logs with errors';

/** Failures that belong to an earlier test of the same adapter (not in this test's logs). */
function supersededOf(record: RunRecord): number {
  return record.sut?.errorKinds?.superseded ?? 0;
}

export function runStatusOf(record: RunRecord): RunStatus {
  const r = record.result;
  const sut = record.sut;
  const failedSamples = sut ? Math.max(0, sut.samples.failed - supersededOf(record)) : 0;
  const samples = sut ? Math.max(sut.samples.issued, failedSamples) : r.counts.samples;
  const loadgenErrors = r.errors?.count ?? 0;
  if (failedSamples > 0) {
    const all = failedSamples >= samples;
    return {
      status: all ? 'ALL_SAMPLES_FAILED' : 'SAMPLES_FAILED',
      failedSamples,
      samples,
      loadgenErrors,
      message: `${all ? `all ${failedSamples} samples failed` : `${failedSamples} of ${samples} samples failed`} (${CHECKER_NOTE})`,
    };
  }
  if (loadgenErrors > 0) {
    // Name the first one: often a setting the engine corrected (error_invalid_test_settings).
    const first = r.errors?.messages?.[0];
    const what = first ? `, the first: ${first};` : ',';
    return {
      status: 'ERRORS',
      failedSamples,
      samples,
      loadgenErrors,
      message: `LoadGen logged ${loadgenErrors} error${loadgenErrors === 1 ? '' : 's'}${what} see mlperf_log_detail.txt (${CHECKER_NOTE})`,
    };
  }
  return { status: 'OK', failedSamples, samples, loadgenErrors, message: null };
}

/** LoadGen's verdict as results.json states it. */
export function loadgenStatus(r: TestResult): OverallVerdict {
  if (r.aborted) return 'ABORTED';
  if (r.valid === null) return 'NO_RESULT';
  return r.valid ? 'VALID' : 'INVALID';
}

export function overallVerdict(r: TestResult, run: RunStatus): OverallVerdict {
  if (r.aborted) return 'ABORTED';
  if (run.status !== 'OK') return 'INVALID';
  return loadgenStatus(r);
}

export interface LatencyFigures {
  /** ns, LatencyStats as LoadGen defines them (from the scheduled time; percentile sorted[floor(n·p)]). */
  latency: LatencyStats | null;
  queryLatency: LatencyStats | null;
  ttft: LatencyStats | null;
  tpot: LatencyStats | null;
  /** loadgen: LoadGen's statistics (no sample failed); harness: the harness's timings of the samples that succeeded. */
  source: 'loadgen' | 'harness';
}

/** Any figure no real latency has: negative, or near the int64 range (the sentinels of samples without a first token). */
const SANE_MAX_NS = 2 ** 62;

function sane(s: LatencyStats | null): boolean {
  if (!s) return true;
  for (const v of [s.min, s.max, s.mean, s.p50, s.p90, s.p95, s.p97, s.p99, s.p999]) {
    if (v === undefined) continue;
    if (!Number.isFinite(v) || v < 0 || v > SANE_MAX_NS) return false;
  }
  return true;
}

/** LatencyStats of raw ns values; null when there are none. */
export function statsOf(values: ArrayLike<number>): LatencyStats | null {
  if (values.length === 0) return null;
  const sorted = sortedCopy(values);
  const m = moments(sorted);
  const at = (p: number) => loadgenPercentile(sorted, p);
  return {
    min: m.min,
    max: m.max,
    mean: m.mean,
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p97: at(0.97),
    p99: at(0.99),
    p999: at(0.999),
  };
}

/** MultiStream: per query (its samples share a scheduled time), scheduled → last sample done, queries whose every sample succeeded. */
function queryLatencies(timings: readonly SampleTiming[]): number[] {
  const queries = new Map<number, { end: number; ok: boolean }>();
  for (const t of timings) {
    if (!(t.scheduledNs > 0) || !(t.endNs > 0)) continue;
    const q = queries.get(t.scheduledNs);
    if (q) {
      q.end = Math.max(q.end, t.endNs);
      q.ok &&= t.ok;
    } else queries.set(t.scheduledNs, { end: t.endNs, ok: t.ok });
  }
  const out: number[] = [];
  for (const [scheduled, q] of queries) if (q.ok) out.push(q.end - scheduled);
  return out;
}

/**
 * The latency, TTFT and TPOT figures to show: LoadGen's when no sample
 * failed and its figures are real; otherwise the harness's timings of the
 * samples that succeeded; null ("n/a") where there are none (every sample
 * failed, or no timings were recorded). A figure LoadGen did not measure
 * (Offline TTFT, an accuracy pass) stays null.
 */
export function latencyFigures(record: RunRecord, series?: SampleSeries | null): LatencyFigures {
  const r = record.result;
  const timings = record.sut?.timings;
  const failed = runStatusOf(record).failedSamples > 0;
  const engine = { latency: r.latency, queryLatency: r.queryLatency, ttft: r.ttft, tpot: r.tpot };
  if (!failed && sane(r.latency) && sane(r.queryLatency) && sane(r.ttft) && sane(r.tpot))
    return { ...engine, source: 'loadgen' };
  const s = series !== undefined ? series : timings && timings.length > 0 ? seriesFromTimings(timings) : null;
  const pick = (measured: LatencyStats | null, values: ArrayLike<number> | null): LatencyStats | null => {
    if (measured === null) return null;
    if (!failed && sane(measured)) return measured;
    return values ? statsOf(values) : null;
  };
  return {
    latency: pick(r.latency, s?.latencyNs ?? null),
    queryLatency: pick(r.queryLatency, timings && timings.length > 0 ? queryLatencies(timings) : null),
    ttft: pick(r.ttft, s?.ttftNs ?? null),
    tpot: pick(r.tpot, s?.tpotNs ?? null),
    source: 'harness',
  };
}
