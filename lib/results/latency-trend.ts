// Whether a run's queue was growing: the median TTFT (the latency, without
// streams) of the first and the last third of its samples by scheduled
// time, and the slope between them. A server that keeps up shows no slope
// beyond noise; one fed faster than it completes makes every later request
// wait longer, for as long as the run lasts. A short run's percentiles hide
// that and a long run's do not, which is why the sweep's probes are judged
// on the slope too (lib/results/sweep-json.ts).
import { percentiles } from '../sut/stats.js';
import type { SampleTiming } from '../sut/types.js';

export interface LatencyTrend {
  /** ttft when the samples streamed a first token, else latency (schedule to end). */
  metric: 'ttft' | 'latency';
  /** Samples in each third. */
  perThird: number;
  /** Median of the first and of the last third, ms. */
  firstMs: number;
  lastMs: number;
  /** Between the thirds' median scheduled times, s. */
  spanSeconds: number;
  /** (lastMs - firstMs) / spanSeconds. */
  slopeMsPerSecond: number;
}

/** Fewer samples per third than this say nothing about a trend. */
export const TREND_MIN_PER_THIRD = 30;

const median = (v: number[]): number => percentiles(v).p50;

/** The trend of the samples that succeeded, or null with too few. */
export function latencyTrend(timings: readonly SampleTiming[]): LatencyTrend | null {
  const done = timings.filter((t) => t.ok && t.endNs > 0 && t.scheduledNs > 0);
  const streamed = done.filter((t) => t.firstTokenNs > 0);
  const metric: LatencyTrend['metric'] = streamed.length > 0 ? 'ttft' : 'latency';
  const rows = (metric === 'ttft' ? streamed : done)
    .map((t) => ({ at: t.scheduledNs, ns: (metric === 'ttft' ? t.firstTokenNs : t.endNs) - t.scheduledNs }))
    .sort((a, b) => a.at - b.at);
  const k = Math.floor(rows.length / 3);
  if (k < TREND_MIN_PER_THIRD) return null;
  const first = rows.slice(0, k);
  const last = rows.slice(rows.length - k);
  const spanSeconds = (median(last.map((r) => r.at)) - median(first.map((r) => r.at))) / 1e9;
  if (!(spanSeconds > 0)) return null;
  const firstMs = median(first.map((r) => r.ns)) / 1e6;
  const lastMs = median(last.map((r) => r.ns)) / 1e6;
  return { metric, perThird: k, firstMs, lastMs, spanSeconds, slopeMsPerSecond: (lastMs - firstMs) / spanSeconds };
}
