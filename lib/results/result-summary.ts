// result_summary.json in the shape mlcommons/endpoints writes (its Report
// struct, metrics/report.py @ea332753): the same keys in the same order, ns
// units, percentile keys "99.9" … "1.0", 30 log-spaced histogram buckets.
// Values come from the harness's per-sample timings when recorded (exact,
// like endpoints' COMPLETE snapshot); otherwise from LoadGen's statistics,
// which hold only min/max/mean and six percentiles (std_dev null, no histogram).
import type { LatencyStats, TestResult } from '../core/result.js';
import { earlyStoppingPercentiles } from './early-stopping.js';
import type { RunRecord } from './run-record.js';
import { logHistogram, lowerPercentile, moments, seriesFromTimings, sortedCopy, type SampleSeries } from './samples.js';
import { latencyFigures, overallVerdict, runStatusOf } from './run-status.js';

/** endpoints' default percentile grid (registry.DEFAULT_PERCENTILES), as its summary keys. */
export const ENDPOINTS_PERCENTILES = [
  '99.9',
  '99.0',
  '97.0',
  '95.0',
  '90.0',
  '80.0',
  '75.0',
  '50.0',
  '25.0',
  '10.0',
  '5.0',
  '1.0',
] as const;

export interface SeriesSummary {
  total: number;
  min: number;
  max: number;
  median: number;
  avg: number;
  std_dev: number | null;
  percentiles: Record<string, number>;
  /** endpoints' early-stopping estimates (ttft, tpot, latency from per-sample timings): the checker's p99 TTFT and TPOT. */
  early_stopping_percentiles?: Record<string, number | null>;
  histogram: { buckets: Array<[number, number]>; counts: number[] };
}

export interface ResultSummaryJson {
  version: string;
  git_sha: string | null;
  /** Steady-clock ns of the first scheduled sample (endpoints: monotonic ns), 0 when unknown. */
  test_started_at: number;
  n_samples_issued: number;
  n_samples_completed: number;
  n_samples_failed: number;
  duration_ns: number | null;
  state: 'complete' | 'interrupted';
  complete: boolean;
  ttft: SeriesSummary | Record<string, never>;
  tpot: SeriesSummary | Record<string, never>;
  latency: SeriesSummary | Record<string, never>;
  output_sequence_lengths: SeriesSummary | Record<string, never>;
  input_sequence_lengths: SeriesSummary | Record<string, never>;
  legacy_loadgen_window_duration_ns: number | null;
  qps: number | null;
  tps: number | null;
  finish_reason_counts: Record<'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | 'other', number>;
  run_config: Record<string, unknown> | null;
}

/**
 * Exact rollup of raw values (endpoints' exact path: numpy "lower"
 * percentiles); `earlyStopping` adds endpoints' early-stopping estimates
 * right after the percentiles, as it does for TTFT, TPOT and latency.
 */
export function seriesSummary(values: ArrayLike<number>, earlyStopping = false): SeriesSummary | Record<string, never> {
  if (values.length === 0) return {};
  const sorted = sortedCopy(values);
  const m = moments(sorted);
  const percentiles: Record<string, number> = {};
  for (const k of ENDPOINTS_PERCENTILES) percentiles[k] = lowerPercentile(sorted, Number(k));
  return {
    total: m.total,
    min: m.min,
    max: m.max,
    median: percentiles['50.0'],
    avg: m.mean,
    std_dev: m.stdDev,
    percentiles,
    ...(earlyStopping ? { early_stopping_percentiles: earlyStoppingPercentiles(sorted, ENDPOINTS_PERCENTILES) } : {}),
    histogram: logHistogram(sorted),
  };
}

/** A rollup from LoadGen's statistics: only the percentiles LoadGen reports (99.9, 99, 97, 95, 90, 50). */
export function seriesFromLoadgen(s: LatencyStats | null, count: number): SeriesSummary | Record<string, never> {
  if (!s || count === 0) return {};
  return {
    total: s.mean * count,
    min: s.min,
    max: s.max,
    median: s.p50,
    avg: s.mean,
    std_dev: null,
    percentiles: { '99.9': s.p999, '99.0': s.p99, '97.0': s.p97, '95.0': s.p95, '90.0': s.p90, '50.0': s.p50 },
    histogram: { buckets: [], counts: [] },
  };
}

/** endpoints' load_pattern for the LoadGen scenario (SingleStream is concurrency 1; MultiStream has no equivalent). */
function loadPattern(r: TestResult, settings: Record<string, unknown>): Record<string, unknown> {
  switch (r.scenario) {
    case 'Server':
      // Our non-MLPerf policies: a closed loop is endpoints' concurrency pattern.
      if (Number(settings.closedLoopConcurrency ?? 0) > 0)
        return { type: 'concurrency', target_qps: null, target_concurrency: Number(settings.closedLoopConcurrency) };
      return {
        type: 'poisson',
        target_qps: r.effective.targetQps,
        target_concurrency: null,
        use_legacy_loadgen_qps_metrics: true,
      };
    case 'Offline':
      return { type: 'max_throughput', target_qps: r.effective.targetQps, target_concurrency: null };
    case 'SingleStream':
      return { type: 'concurrency', target_qps: null, target_concurrency: 1 };
    case 'MultiStream':
      return { type: 'multi_stream', target_qps: null, target_concurrency: r.effective.samplesPerQuery };
  }
}

function durationNs(rec: RunRecord, series: SampleSeries | null): number | null {
  if (series?.windowNs) return Math.round(series.windowNs);
  const r = rec.result;
  // Without timings, the span LoadGen measured for the scenario's rate.
  if (r.scenario === 'Offline' && r.latency) return Math.round(r.latency.max);
  const perSecond = r.completedSamplesPerSecond ?? r.qpsWithLoadgenOverhead;
  if (perSecond && r.counts.samples > 1) return Math.round(((r.counts.samples - 1) / perSecond) * 1e9);
  const a = Date.parse(rec.startedAt);
  const b = Date.parse(rec.endedAt);
  return Number.isFinite(a) && Number.isFinite(b) && b > a ? (b - a) * 1e6 : null;
}

/** A 64-bit seed as an exact integer (settings may hold it as bigint, number or decimal string). */
function seedValue(v: unknown): bigint | number | null {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return null;
}

export function buildResultSummary(record: RunRecord): ResultSummaryJson {
  const r = record.result;
  const sut = record.sut;
  const series = sut?.timings && sut.timings.length > 0 ? seriesFromTimings(sut.timings) : null;
  const issued = sut ? sut.samples.issued : r.counts.samples;
  const failed = sut ? sut.samples.failed : 0;
  const completed = sut ? sut.samples.completed : r.counts.samples;
  const duration = durationNs(record, series);
  // Server: LoadGen's own "completed" window, (n − 1) / T, which endpoints calls legacy.
  const legacyWindow =
    r.scenario === 'Server' && r.completedSamplesPerSecond && r.counts.samples >= 2
      ? Math.round(((r.counts.samples - 1) / r.completedSamplesPerSecond) * 1e9)
      : null;
  const outputTokens = series
    ? series.outputTokens.reduce((a, b) => a + b, 0)
    : sut
      ? sut.endpoints.reduce((a, e) => a + e.outputTokens, 0)
      : r.counts.tokens;
  let qps: number | null;
  let tps: number | null;
  if (legacyWindow) {
    qps = r.completedSamplesPerSecond;
    tps = r.tokensPerSecond ?? (outputTokens > 0 ? outputTokens / (legacyWindow / 1e9) : null);
  } else if (duration) {
    qps = completed / (duration / 1e9);
    tps = outputTokens > 0 ? outputTokens / (duration / 1e9) : null;
  } else {
    qps = null;
    tps = null;
  }
  const seeds = record.settings as Record<string, unknown>;
  // Without timings: LoadGen's statistics when no sample failed, else nothing (never a failed sample's sentinel).
  const lat = latencyFigures(record, series);
  const runStatus = runStatusOf(record);
  const latencyCount = Math.max(0, r.counts.samples - runStatus.failedSamples);
  return {
    version: `${record.tool.name} ${record.tool.version}`,
    git_sha: null,
    test_started_at: series?.startNs ? Math.round(series.startNs) : 0,
    n_samples_issued: issued,
    n_samples_completed: completed,
    n_samples_failed: failed,
    duration_ns: duration,
    state: r.aborted ? 'interrupted' : 'complete',
    complete: !r.aborted,
    ttft: series ? seriesSummary(series.ttftNs, true) : seriesFromLoadgen(lat.ttft, latencyCount),
    tpot: series ? seriesSummary(series.tpotNs, true) : seriesFromLoadgen(lat.tpot, latencyCount),
    latency: series ? seriesSummary(series.latencyNs, true) : seriesFromLoadgen(lat.latency, latencyCount),
    output_sequence_lengths: series ? seriesSummary(series.outputTokens) : {},
    // The run record holds no per-sample prompt lengths.
    input_sequence_lengths: {},
    legacy_loadgen_window_duration_ns: legacyWindow,
    qps,
    tps,
    // Finish reasons are not tracked by the adapters: all zero, as endpoints writes for untracked counters.
    finish_reason_counts: { stop: 0, length: 0, tool_calls: 0, content_filter: 0, function_call: 0, other: 0 },
    run_config: {
      load_pattern: loadPattern(r, record.settings),
      warmup: { enabled: false },
      scheduler_random_seed: seedValue(seeds.scheduleRngSeed),
      dataloader_random_seed: seedValue(seeds.sampleIndexRngSeed),
      // valid: LoadGen's verdict and the run's (false when samples failed); loadgen_valid: LoadGen's alone.
      mlperf: {
        scenario: r.scenario,
        mode: r.mode,
        benchmark: record.benchmark,
        valid: r.valid === null ? (runStatus.status === 'OK' ? null : false) : r.valid && runStatus.status === 'OK',
        loadgen_valid: r.valid,
        status: overallVerdict(r, runStatus),
        run_status: runStatus.status,
        failed_samples: runStatus.failedSamples,
      },
    },
  };
}
