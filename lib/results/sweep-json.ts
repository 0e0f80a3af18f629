// sweep.json: a sweep (`loadgen sweep`, runSweep) as a documented, versioned
// object (docs/sweep.md): every point with its settings, verdict and figures
// (read from the point's results.json), the benchmark's bounds, and the
// capacity the search found with its precision.
import type { LatencyTrend } from './latency-trend.js';
import type { ResultsJson } from './results-json.js';

export const SWEEP_SCHEMA = '@x/loadgen/sweep';
export const SWEEP_SCHEMA_VERSION = 1;

export type SweepDimension = 'qps' | 'concurrency';

/** p50 and p99 of one latency, ms. */
export interface SweepPercentiles {
  p50: number;
  p99: number;
}

export interface SweepPoint {
  /**
   * probe: a short run of the search; list: a point of --rates/--concurrencies;
   * confirm: the full-length run at the capacity; calibration: the closed loop
   * that measured the servers' saturated rate to start a QPS search from (no
   * --start or --target-qps given); its verdict counts for nothing.
   */
  kind: 'probe' | 'list' | 'confirm' | 'calibration';
  /** The value the point was run at (target QPS or concurrency). */
  value: number;
  targetQps: number | null;
  concurrency: number | null;
  /** min_duration of the run, ms. */
  minDurationMs: number | null;
  /** The point's run directory, relative to the sweep's outdir (MLPerf logs, results.json, report.html). */
  dir: string;
  /** True when the point was done by an earlier, interrupted sweep and read back from its results.json. */
  resumed: boolean;
  /** The verdict to act on (results.json verdict.overall): LoadGen's, INVALID when samples failed. */
  verdict: ResultsJson['verdict']['overall'];
  /** LoadGen's own verdict (verdict.status). */
  loadgenVerdict: ResultsJson['verdict']['status'];
  /** The run's own status (verdict.run.status). */
  runStatus: ResultsJson['verdict']['run']['status'];
  /** VALID, clean and, for a probe, sustained: what the search counts as within the bounds. */
  withinBounds: boolean;
  /**
   * For a probe: whether a run of the full length at its rate would stay
   * within the bound, from the trend of its TTFT (or latency): false when
   * p99 + slope × (full duration − probe window) passes the bound (then a
   * reason says so); null when not judged (no trend, no bound, not a QPS probe).
   */
  sustained: boolean | null;
  /** The point's latency trend (results.json latencyMs.trend) and, for a probe, the p99 it projects to the full duration, ms. */
  trend: (LatencyTrend & { projectedP99Ms: number | null }) | null;
  /** Why INVALID (LoadGen's reasons, then the run's). */
  reasons: string[];
  /** The verdict on the point's measurement itself (results.json harness.verdict; docs/measurement.md); null without the adapter. */
  measurement: 'trustworthy' | 'harness-limited' | null;
  /** Why harness-limited; empty when trustworthy. */
  measurementReasons: string[];
  /** The scenario's rate (completed samples/s for Server). */
  qps: number | null;
  /** Output tokens/s over the run. */
  tokensPerSecond: number | null;
  /** Output tokens/s per GPU (null when the GPU count is unknown). */
  tokensPerSecondPerGpu: number | null;
  /** Output tokens/s one user sees while decoding: 1000 / mean TPOT (ms). */
  tokensPerSecondPerUser: number | null;
  /** The GPUs' energy per output token over the point's test (results.json energy; null without GPU telemetry). */
  joulesPerOutputToken: number | null;
  /** Samples within the latency targets, when the run counted them. */
  goodput: { fraction: number | null; good: number; samples: number; perSecond: number | null } | null;
  latencyMs: SweepPercentiles | null;
  ttftMs: SweepPercentiles | null;
  tpotMs: SweepPercentiles | null;
  samples: number;
  failedSamples: number;
}

export interface SweepCapacity {
  dimension: SweepDimension;
  /** The highest VALID value found (null when even the lowest probe was INVALID). */
  value: number | null;
  /** = value when the dimension is qps. */
  qps: number | null;
  /** = value when the dimension is concurrency. */
  concurrency: number | null;
  /** The search's relative precision. */
  precision: number;
  /** The lowest INVALID value probed above `value` (null when none was). */
  lowerInvalid: number | null;
  /** True when lowerInvalid is within the precision of value (the search converged). */
  reached: boolean;
  /** Probes run (or read back) by the search. */
  probes: number;
  /** The confirmation run's outcome (null without --confirm). */
  confirmed: boolean | null;
  /**
   * Where the search started from when neither --start nor --target-qps was
   * given: the saturated rate a closed loop of `concurrency` users reached
   * (completed samples/s), the search starting at half of it; null otherwise.
   */
  calibration: { concurrency: number; qps: number | null; start: number } | null;
}

export interface SweepJson {
  schema: typeof SWEEP_SCHEMA;
  schemaVersion: typeof SWEEP_SCHEMA_VERSION;
  startedAt: string;
  endedAt: string;
  outdir: string;
  command: string[] | null;
  scenario: ResultsJson['benchmark']['scenario'];
  benchmark: string | null;
  simulated: boolean;
  /** search: the capacity search; list: the given points. */
  kind: 'search' | 'list';
  dimension: SweepDimension;
  precision: number | null;
  probeDurationMs: number | null;
  /** Least queries each probe issued (min_query_count, raised to it). */
  probeMinQueries: number | null;
  /** GPUs behind the endpoints, when --gpus-per-endpoint says (for the per-GPU figures). */
  gpus: number | null;
  /** The benchmark's bounds, ms: TTFT and TPOT (token latencies) or the Server latency. */
  bounds: { ttftMs: number | null; tpotMs: number | null; latencyMs: number | null } | null;
  /** True when Ctrl-C (or the caller's signal) ended the sweep early. */
  stopped: boolean;
  /** In the order they were run. */
  points: SweepPoint[];
  /** The search's result (null for a list). */
  capacity: SweepCapacity | null;
}

function pct(s: { p50: number; p99: number } | null | undefined): SweepPercentiles | null {
  return s ? { p50: s.p50, p99: s.p99 } : null;
}

/** The bounds a point's run was judged by, ms. */
export function sweepBounds(j: ResultsJson): SweepJson['bounds'] {
  const s = j.settings.requested;
  const ms = (k: string): number | null => {
    const v = Number(s[k]);
    return Number.isFinite(v) && v > 0 ? v / 1e6 : null;
  };
  if (s.useTokenLatencies === true)
    return { ttftMs: ms('ttftLatencyNs'), tpotMs: ms('tpotLatencyNs'), latencyMs: null };
  return {
    ttftMs: null,
    tpotMs: null,
    latencyMs: j.benchmark.scenario === 'Server' ? ms('serverTargetLatencyNs') : null,
  };
}

/**
 * Growth between the thirds below this share of the bound is taken for
 * noise: at light load the medians wander by a few ms, which multiplied by
 * a 600 s run would fail any rate.
 */
export const TREND_NOISE_SHARE = 0.05;

/** The projection of a probe's trend to a run of `horizonMs`, and whether it stays within the bound. */
export function projectTrend(
  j: ResultsJson,
  horizonMs: number,
): { projectedP99Ms: number | null; sustained: boolean | null; reason: string | null } {
  const t = j.latencyMs.trend;
  const b = sweepBounds(j);
  const bound = t?.metric === 'ttft' ? b?.ttftMs : b?.latencyMs;
  const p99 = t?.metric === 'ttft' ? j.latencyMs.ttft?.p99 : j.latencyMs.sample?.p99;
  const window = j.throughput.windowSeconds;
  if (!t || !bound || p99 == null || window === null) return { projectedP99Ms: null, sustained: null, reason: null };
  const grew = t.lastMs - t.firstMs;
  const rest = Math.max(0, horizonMs / 1000 - window);
  const projected = grew > TREND_NOISE_SHARE * bound ? p99 + t.slopeMsPerSecond * rest : p99;
  if (projected <= bound) return { projectedP99Ms: projected, sustained: true, reason: null };
  const name = t.metric === 'ttft' ? 'TTFT' : 'latency';
  return {
    projectedP99Ms: projected,
    sustained: false,
    reason: `not sustained: median ${name} grew from ${t.firstMs.toFixed(1)} to ${t.lastMs.toFixed(1)} ms over the probe (${t.slopeMsPerSecond.toFixed(1)} ms/s, the queue growing); a ${(horizonMs / 1000).toFixed(0)} s run at this rate would reach a p99 of about ${projected.toFixed(0)} ms, over the ${bound} ms bound`,
  };
}

/** One point of sweep.json from its run's results.json. */
export function pointFromResults(
  j: ResultsJson,
  at: {
    kind: SweepPoint['kind'];
    dimension: SweepDimension;
    value: number;
    dir: string;
    resumed: boolean;
    gpus: number | null;
    /** For a QPS probe: the full run's duration, ms, its trend is projected to. */
    horizonMs?: number | null;
  },
): SweepPoint {
  const s = j.settings.requested;
  const tps = j.throughput.tokensPerSecond;
  const tpotMean = j.latencyMs.tpot?.mean ?? null;
  const g = j.goodput;
  const window = j.throughput.windowSeconds;
  const reasons = [...j.verdict.reasons.map((r) => r.trim()).filter(Boolean)];
  if (j.verdict.run.message) reasons.push(j.verdict.run.message);
  const judged = at.horizonMs ? projectTrend(j, at.horizonMs) : null;
  if (judged?.reason) reasons.push(judged.reason);
  const trend = j.latencyMs.trend ? { ...j.latencyMs.trend, projectedP99Ms: judged?.projectedP99Ms ?? null } : null;
  const minDuration = Number(s.minDurationMs);
  return {
    kind: at.kind,
    value: at.value,
    targetQps: at.dimension === 'qps' ? at.value : null,
    concurrency: at.dimension === 'concurrency' ? at.value : null,
    minDurationMs: Number.isFinite(minDuration) ? minDuration : null,
    dir: at.dir,
    resumed: at.resumed,
    verdict: j.verdict.overall,
    loadgenVerdict: j.verdict.status,
    runStatus: j.verdict.run.status,
    withinBounds: j.verdict.overall === 'VALID' && judged?.sustained !== false,
    sustained: judged?.sustained ?? null,
    trend,
    reasons,
    measurement: j.harness?.verdict ?? null,
    measurementReasons: j.harness ? [...j.harness.reasons] : [],
    qps: j.throughput.qps,
    tokensPerSecond: tps,
    tokensPerSecondPerGpu: tps !== null && at.gpus ? tps / at.gpus : null,
    tokensPerSecondPerUser: tpotMean && tpotMean > 0 ? 1000 / tpotMean : null,
    joulesPerOutputToken: j.energy?.joulesPerOutputToken ?? null,
    goodput: g
      ? {
          fraction: g.fraction,
          good: g.good,
          samples: g.samples,
          perSecond: window && window > 0 ? g.good / window : null,
        }
      : null,
    latencyMs: pct(j.latencyMs.sample),
    ttftMs: pct(j.latencyMs.ttft),
    tpotMs: pct(j.latencyMs.tpot),
    samples: j.counts.samples,
    failedSamples: j.errors.failedSamples,
  };
}
