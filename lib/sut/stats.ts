// Distributions for the adapter's report: exact percentiles of per-request
// values (kept in column.ts) and a log-bucketed histogram (pooled
// inter-chunk gaps, where there is one value per token).
import type { Percentiles } from './types.js';

/** Percentiles of the finite values, scaled by `scale` (e.g. 1e-6 for ns to ms). */
export function percentiles(values: ArrayLike<number>, scale = 1): Percentiles {
  const finite: number[] = [];
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) finite.push(values[i]);
  const sorted = Float64Array.from(finite).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, mean: NaN, min: NaN, max: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, p999: NaN };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  // Nearest rank, as LoadGen reports its percentiles.
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] * scale;
  return {
    count: n,
    mean: (sum / n) * scale,
    min: sorted[0] * scale,
    max: sorted[n - 1] * scale,
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    p999: at(0.999),
  };
}

const SUB = 32; // buckets per power of two: about 2% resolution

/** Log-bucketed histogram of non-negative values (ns). */
export class LogHistogram {
  counts = new Float64Array(64 * SUB);
  total = 0;
  sum = 0;
  min = Infinity;
  max = 0;

  record(v: number): void {
    if (!(v >= 0)) return;
    const b = v < 1 ? 0 : Math.min(this.counts.length - 1, Math.floor(Math.log2(v) * SUB));
    this.counts[b]++;
    this.total++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  merge(o: { counts: ArrayLike<number>; total: number; sum: number; min: number; max: number }): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += o.counts[i];
    this.total += o.total;
    this.sum += o.sum;
    this.min = Math.min(this.min, o.min);
    this.max = Math.max(this.max, o.max);
  }

  /** Value at quantile q (bucket midpoint in log space). */
  quantile(q: number): number {
    if (this.total === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, 2 ** ((i + 0.5) / SUB)));
    }
    return this.max;
  }

  summary(scale = 1): Percentiles {
    if (this.total === 0) return percentiles([], scale);
    return {
      count: this.total,
      mean: (this.sum / this.total) * scale,
      min: this.min * scale,
      max: this.max * scale,
      p50: this.quantile(0.5) * scale,
      p90: this.quantile(0.9) * scale,
      p95: this.quantile(0.95) * scale,
      p99: this.quantile(0.99) * scale,
      p999: this.quantile(0.999) * scale,
    };
  }
}

/** Adds `n` to counter `key`. */
export function bump(counter: Record<string, number>, key: string, n = 1): void {
  counter[key] = (counter[key] ?? 0) + n;
}
