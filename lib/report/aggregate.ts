// Merges the runs of several nodes into one aggregated result: summed
// throughput, merged latency distributions and each run's validity. A merged
// percentile is exact when every run has its per-sample values (the trace's
// complete_ns, or results.json's samples); otherwise it is bounded by the
// per-run percentiles — the merged p-th value lies between the smallest and
// the largest of the runs' p-th values (LoadGen's sorted[floor(n·p)] rule) —
// and the output says which of the two each figure is.
import type { LatencyStats } from '../core/result.js';
import { loadgenPercentile, moments, sortedCopy } from '../results/samples.js';
import { readRunLogs, type RunLogs, type RunSummary } from './read-logs.js';
import { readTraceLatencies } from './read-trace.js';

export const AGGREGATE_SCHEMA = '@x/loadgen/aggregated-results';
export const AGGREGATE_SCHEMA_VERSION = 1;

type Pct = 'p50' | 'p90' | 'p95' | 'p97' | 'p99' | 'p999';
const PCTS: ReadonlyArray<readonly [Pct, number]> = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p97', 0.97],
  ['p99', 0.99],
  ['p999', 0.999],
];

export type RunStatus = 'VALID' | 'INVALID' | 'NO_RESULT' | 'INCOMPLETE';

/** Merged latency statistics, ms. */
export interface MergedLatency {
  /** 'exact': from every sample of every run; 'bounds': p-values are the max of the runs' (an upper bound), with `lowerBound` the min. */
  method: 'exact' | 'bounds';
  /** Per run, where its values came from. */
  sources: string[];
  count: number | null;
  min: number;
  max: number;
  /** Exact when every run's sample count is known (a count-weighted mean), else null. */
  mean: number | null;
  p50: number;
  p90: number;
  p95: number;
  p97: number;
  p99: number;
  p999: number;
  /** Only with method 'bounds': the smallest of the runs' percentiles. */
  lowerBound?: Record<Pct, number>;
}

export interface AggregatedRun {
  dir: string;
  origin: RunSummary['origin'];
  sutName: string | null;
  scenario: string | null;
  mode: string | null;
  status: RunStatus;
  valid: boolean | null;
  invalidReasons: string[];
  qps: number | null;
  samplesPerSecond: number | null;
  tokensPerSecond: number | null;
  queries: number | null;
  samples: number | null;
  errors: number;
  latencyMs: { p50: number | null; p99: number | null };
  ttftMs: { p50: number | null; p99: number | null };
  tpotMs: { p50: number | null; p99: number | null };
  /** The GPUs' energy over the run's test window (results.json `energy`), J; null without GPU telemetry. */
  energyJ: number | null;
  /** Output tokens of that window's energy figure. */
  energyOutputTokens: number | null;
  joulesPerOutputToken: number | null;
}

export interface AggregatedResults {
  schema: typeof AGGREGATE_SCHEMA;
  schemaVersion: typeof AGGREGATE_SCHEMA_VERSION;
  createdAt: string;
  /** The runs' scenario, or 'mixed'. */
  scenario: string | null;
  /** True when every run is VALID. */
  valid: boolean;
  runs: AggregatedRun[];
  throughput: {
    /** Sums over the runs that report the figure; `*Runs` says how many did. */
    qps: number | null;
    qpsRuns: number;
    samplesPerSecond: number | null;
    samplesPerSecondRuns: number;
    tokensPerSecond: number | null;
    tokensPerSecondRuns: number;
  };
  counts: { queries: number | null; samples: number | null; errors: number };
  /** Over the runs with an energy figure: their energies and output tokens summed (null when none has one). */
  energy: { energyJ: number; outputTokens: number; joulesPerOutputToken: number | null; runs: number } | null;
  latencyMs: { latency: MergedLatency | null; ttft: MergedLatency | null; tpot: MergedLatency | null };
  notes: string[];
}

/** One run and its per-sample values, where available (ns). */
export interface AggregateInput {
  logs: RunLogs;
  /** Latencies from mlperf_log_trace.json (engine timestamps: exactly LoadGen's). */
  traceLatencyNs: Float64Array | null;
}

function status(s: RunSummary): RunStatus {
  if (s.truncated) return 'INCOMPLETE';
  if (s.valid === null) return s.incomplete ? 'INCOMPLETE' : 'NO_RESULT';
  return s.valid ? 'VALID' : 'INVALID';
}

const ms = (ns: number | null | undefined) =>
  ns === null || ns === undefined || !Number.isFinite(ns) ? null : ns / 1e6;

function sum(values: Array<number | null>): { total: number | null; n: number } {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return { total: present.length > 0 ? present.reduce((a, b) => a + b, 0) : null, n: present.length };
}

type Metric = 'latency' | 'ttft' | 'tpot';

/** A run's per-sample values for one metric, with their source, or null. */
function perSample(input: AggregateInput, metric: Metric): { values: ArrayLike<number>; source: string } | null {
  const s = input.logs.summary;
  if (
    metric === 'latency' &&
    input.traceLatencyNs &&
    input.traceLatencyNs.length > 0 &&
    (s.samples === null || input.traceLatencyNs.length === s.samples)
  ) {
    return {
      values: input.traceLatencyNs,
      source: `${s.dir}: mlperf_log_trace.json (${input.traceLatencyNs.length} samples)`,
    };
  }
  const samples = input.logs.results?.samples;
  if (!samples) return null;
  const values = metric === 'latency' ? samples.latencyNs : metric === 'ttft' ? samples.ttftNs : samples.tpotNs;
  if (!Array.isArray(values) || values.length === 0) return null;
  return { values, source: `${s.dir}: results.json samples (harness timings, ${values.length} samples)` };
}

function statsOf(s: RunSummary, metric: Metric): LatencyStats | null {
  return metric === 'latency' ? s.latency : metric === 'ttft' ? s.ttft : s.tpot;
}

function mergeMetric(inputs: AggregateInput[], metric: Metric): MergedLatency | null {
  const withStats = inputs.filter((i) => statsOf(i.logs.summary, metric) !== null || perSample(i, metric) !== null);
  if (withStats.length === 0) return null;
  const exact = withStats.map((i) => perSample(i, metric));
  if (withStats.length === inputs.length && exact.every((e) => e !== null)) {
    const all = sortedCopy(exact.flatMap((e) => Array.from(e!.values)));
    const m = moments(all);
    const out: MergedLatency = {
      method: 'exact',
      sources: exact.map((e) => e!.source),
      count: all.length,
      min: m.min / 1e6,
      max: m.max / 1e6,
      mean: m.mean / 1e6,
      p50: 0,
      p90: 0,
      p95: 0,
      p97: 0,
      p99: 0,
      p999: 0,
    };
    for (const [k, p] of PCTS) out[k] = loadgenPercentile(all, p) / 1e6;
    return out;
  }
  // Bounds from the runs' own statistics (runs without this metric are left out, and named).
  const stats = inputs.map((i) => statsOf(i.logs.summary, metric));
  const present = stats.filter((x): x is LatencyStats => x !== null);
  if (present.length === 0) return null;
  const counts = inputs.map((i) => i.logs.summary.samples);
  const allCounts = stats.every((x, k) => x === null || counts[k] !== null);
  let weighted = 0;
  let total = 0;
  stats.forEach((x, k) => {
    if (x && counts[k] !== null) {
      weighted += x.mean * (counts[k] as number);
      total += counts[k] as number;
    }
  });
  const out: MergedLatency = {
    method: 'bounds',
    sources: inputs.map(
      (i, k) =>
        `${i.logs.summary.dir}: ${stats[k] ? 'percentiles from the detail log (no per-sample values)' : 'no such figure'}`,
    ),
    count: allCounts ? total : null,
    min: Math.min(...present.map((x) => x.min)) / 1e6,
    max: Math.max(...present.map((x) => x.max)) / 1e6,
    mean: allCounts && total > 0 ? weighted / total / 1e6 : null,
    p50: 0,
    p90: 0,
    p95: 0,
    p97: 0,
    p99: 0,
    p999: 0,
    lowerBound: { p50: 0, p90: 0, p95: 0, p97: 0, p99: 0, p999: 0 },
  };
  for (const [k] of PCTS) {
    out[k] = Math.max(...present.map((x) => x[k])) / 1e6;
    out.lowerBound![k] = Math.min(...present.map((x) => x[k])) / 1e6;
  }
  return out;
}

/** Merges runs already read (pure: no I/O). */
export function aggregateRuns(inputs: AggregateInput[], now: Date = new Date()): AggregatedResults {
  const runs: AggregatedRun[] = inputs.map(({ logs }) => {
    const s = logs.summary;
    // LoadGen reports tokens/s only with token latencies; results.json may carry the harness's figure.
    const tokens = s.tokensPerSecond ?? logs.results?.throughput.tokensPerSecond ?? null;
    return {
      dir: s.dir,
      origin: s.origin,
      sutName: s.sutName,
      scenario: s.scenario,
      mode: s.mode,
      status: status(s),
      valid: s.valid,
      invalidReasons: s.invalidReasons,
      qps: s.qps,
      samplesPerSecond: s.samplesPerSecond,
      tokensPerSecond: tokens,
      queries: s.queries,
      samples: s.samples,
      errors: s.errors,
      latencyMs: { p50: ms(s.latency?.p50), p99: ms(s.latency?.p99) },
      ttftMs: { p50: ms(s.ttft?.p50), p99: ms(s.ttft?.p99) },
      tpotMs: { p50: ms(s.tpot?.p50), p99: ms(s.tpot?.p99) },
      energyJ: logs.results?.energy?.energyJ ?? null,
      energyOutputTokens: logs.results?.energy?.energyJ != null ? logs.results.energy.outputTokens : null,
      joulesPerOutputToken: logs.results?.energy?.joulesPerOutputToken ?? null,
    };
  });
  const notes: string[] = [];
  const scenarios = [...new Set(runs.map((r) => r.scenario))];
  if (scenarios.length > 1)
    notes.push(`the runs are of different scenarios (${scenarios.join(', ')}): sums mix different metrics`);
  const qps = sum(runs.map((r) => r.qps));
  const sps = sum(runs.map((r) => r.samplesPerSecond));
  const tps = sum(runs.map((r) => r.tokensPerSecond));
  if (tps.n > 0 && tps.n < runs.length)
    notes.push(`tokens per second is summed over the ${tps.n} of ${runs.length} runs that report it`);
  const withEnergy = runs.filter((r) => r.energyJ !== null && r.energyOutputTokens !== null);
  const energyJ = withEnergy.reduce((a, r) => a + r.energyJ!, 0);
  const energyTokens = withEnergy.reduce((a, r) => a + r.energyOutputTokens!, 0);
  if (withEnergy.length > 0 && withEnergy.length < runs.length)
    notes.push(`energy is summed over the ${withEnergy.length} of ${runs.length} runs with GPU telemetry`);
  const queries = sum(runs.map((r) => r.queries));
  const samples = sum(runs.map((r) => r.samples));
  const latency = {
    latency: mergeMetric(inputs, 'latency'),
    ttft: mergeMetric(inputs, 'ttft'),
    tpot: mergeMetric(inputs, 'tpot'),
  };
  for (const [name, m] of Object.entries(latency)) {
    if (m?.method === 'bounds')
      notes.push(
        `${name} percentiles are bounds (max of the per-run percentiles; lowerBound holds the min): not every run has per-sample values`,
      );
  }
  const bad = runs.filter((r) => r.status !== 'VALID');
  if (bad.length > 0) notes.push(`not valid: ${bad.map((r) => `${r.dir} (${r.status})`).join(', ')}`);
  return {
    schema: AGGREGATE_SCHEMA,
    schemaVersion: AGGREGATE_SCHEMA_VERSION,
    createdAt: now.toISOString(),
    scenario: scenarios.length === 1 ? scenarios[0] : 'mixed',
    valid: runs.length > 0 && bad.length === 0,
    runs,
    throughput: {
      qps: qps.total,
      qpsRuns: qps.n,
      samplesPerSecond: sps.total,
      samplesPerSecondRuns: sps.n,
      tokensPerSecond: tps.total,
      tokensPerSecondRuns: tps.n,
    },
    counts: {
      queries: queries.n === runs.length ? queries.total : null,
      samples: samples.n === runs.length ? samples.total : null,
      errors: runs.reduce((a, r) => a + r.errors, 0),
    },
    energy: withEnergy.length
      ? {
          energyJ,
          outputTokens: energyTokens,
          joulesPerOutputToken: energyTokens > 0 ? energyJ / energyTokens : null,
          runs: withEnergy.length,
        }
      : null,
    latencyMs: latency,
    notes,
  };
}

/** Reads each run directory (logs, results.json, trace) for aggregateRuns. */
export async function loadAggregateInputs(dirs: readonly string[]): Promise<AggregateInput[]> {
  const out: AggregateInput[] = [];
  for (const dir of dirs) {
    const logs = readRunLogs(dir);
    const trace = logs.summary.files.trace;
    out.push({ logs, traceLatencyNs: trace ? await readTraceLatencies(trace) : null });
  }
  return out;
}
