// Per-sample series (latency, TTFT, TPOT, output tokens) and the statistics
// every result file derives from them. Latencies follow LoadGen's definitions
// (from the sample's scheduled time, on the engine's steady clock) so the
// figures match the summary's; percentiles use LoadGen's rule sorted[floor(n·p)].
import type { SampleTiming } from '../sut/types.js';

export interface SampleSeries {
  /** ns, end of stream − scheduled time, samples that succeeded (LoadGen's statistics count failed ones too). */
  latencyNs: Float64Array;
  /** ns, first token − scheduled time, samples that succeeded with a first token. */
  ttftNs: Float64Array;
  /** ns per token after the first, samples with more than one token. */
  tpotNs: Float64Array;
  /** Output tokens of each completed sample. */
  outputTokens: Float64Array;
  /** Earliest scheduled time (steady clock ns), or null. */
  startNs: number | null;
  /** Earliest scheduled time to the last end (failed samples included), or null when there are no samples. */
  windowNs: number | null;
}

export function seriesFromTimings(timings: readonly SampleTiming[]): SampleSeries {
  const lat: number[] = [];
  const ttft: number[] = [];
  const tpot: number[] = [];
  const toks: number[] = [];
  let start = Infinity;
  let end = -Infinity;
  for (const t of timings) {
    if (!Number.isFinite(t.scheduledNs) || t.scheduledNs <= 0 || !Number.isFinite(t.endNs) || t.endNs <= 0) continue;
    start = Math.min(start, t.scheduledNs);
    end = Math.max(end, t.endNs);
    // The figures are of the samples that succeeded; failed ones only widen the window.
    if (!t.ok) continue;
    lat.push(t.endNs - t.scheduledNs);
    toks.push(t.tokens);
    if (Number.isFinite(t.firstTokenNs) && t.firstTokenNs > 0) {
      ttft.push(t.firstTokenNs - t.scheduledNs);
      // Integer ns, as LoadGen computes TPOT.
      if (t.tokens > 1) tpot.push(Math.floor((t.endNs - t.firstTokenNs) / (t.tokens - 1)));
    }
  }
  return {
    latencyNs: Float64Array.from(lat),
    ttftNs: Float64Array.from(ttft),
    tpotNs: Float64Array.from(tpot),
    outputTokens: Float64Array.from(toks),
    startNs: Number.isFinite(start) ? start : null,
    windowNs: Number.isFinite(start) && end >= start ? end - start : null,
  };
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** LoadGen's percentile: sorted[floor(n × p)] (p in 0..1). */
export function loadgenPercentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  return sorted[Math.min(n - 1, Math.floor(n * p))];
}

/** numpy's percentile with method="lower" (p in 0..100): sorted[floor((n − 1) × p / 100)]. */
export function lowerPercentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  return sorted[Math.min(n - 1, Math.floor(((n - 1) * p) / 100 + 1e-9))];
}

export interface Moments {
  count: number;
  total: number;
  min: number;
  max: number;
  mean: number;
  /** Sample standard deviation (n − 1), 0 for fewer than two values. */
  stdDev: number;
}

export function moments(values: ArrayLike<number>): Moments {
  const n = values.length;
  if (n === 0) return { count: 0, total: 0, min: NaN, max: NaN, mean: NaN, stdDev: NaN };
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    total += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = total / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (values[i] - mean) ** 2;
  return { count: n, total, min, max, mean, stdDev: n > 1 ? Math.sqrt(sq / (n - 1)) : 0 };
}

export interface Histogram {
  /** [lo, hi) edges; the last bucket includes hi. */
  buckets: Array<[number, number]>;
  counts: number[];
}

/**
 * `n` log-spaced buckets over [max(min, 1), max(max, minRatio·low)], every value counted (clamped
 * into range). minRatio 10 is endpoints' rule; a page zooms to the data with a smaller one.
 */
export function logHistogram(values: ArrayLike<number>, n = 30, minRatio = 10): Histogram {
  if (values.length === 0) return { buckets: [], counts: [] };
  const m = moments(values);
  const lo = Math.max(m.min, 1);
  const hi = Math.max(m.max, lo * Math.max(minRatio, 1.0001));
  const a = Math.log(lo);
  const step = (Math.log(hi) - a) / n;
  const edges = Array.from({ length: n + 1 }, (_, i) => Math.exp(a + i * step));
  const counts = new Array<number>(n).fill(0);
  for (let i = 0; i < values.length; i++) {
    const v = Math.min(Math.max(values[i], lo), hi);
    let k = Math.floor((Math.log(v) - a) / step);
    if (!(k >= 0)) k = 0;
    if (k >= n) k = n - 1;
    counts[k]++;
  }
  return { buckets: edges.slice(0, n).map((e, i) => [e, edges[i + 1]] as [number, number]), counts };
}
