// The servers' view of a run, per endpoint, from its scrapes: gauges over
// time, counter increases over the run, the servers' TTFT (mean, and p50/p99
// interpolated in the histogram's buckets as Prometheus' histogram_quantile
// does), and the servers' token counts next to the client's.
import type { MetricsPoint, MetricsSeries } from './series.js';
import type { ServerFlavor } from './metric-names.js';

export interface EndpointServerMetrics {
  url: string;
  flavor: ServerFlavor | null;
  scrapes: number;
  failedScrapes: number;
  lastError: string | null;
  /** Counter resets seen: the server restarted during the run. */
  restarts: number;
  /** Increases over the run (null when the server does not export the counter). */
  promptTokens: number | null;
  generationTokens: number | null;
  requests: number | null;
  preemptions: number | null;
  /** Over the run: vLLM prefix-cache hits / queries (tokens), or the mean of SGLang's hit-rate gauge. */
  prefixCacheHitRate: number | null;
  ttftMs: { count: number; mean: number | null; p50: number | null; p99: number | null } | null;
  peak: { running: number; waiting: number; kvUsage: number };
  mean: { running: number | null; waiting: number | null; kvUsage: number | null };
  /** The client's figures for the same endpoint, and server / client. */
  client: { outputTokens: number; promptTokens: number | null; completed: number } | null;
  generationTokensRatio: number | null;
  promptTokensRatio: number | null;
  points: MetricsPoint[];
}

export interface ServerMetricsReport {
  intervalMs: number;
  endpoints: EndpointServerMetrics[];
}

/** The q-quantile of cumulative buckets [(le, count)], linear within the bucket. */
export function bucketQuantile(buckets: Array<[number, number]>, q: number): number | null {
  if (buckets.length === 0) return null;
  const total = buckets[buckets.length - 1][1];
  if (!(total > 0)) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Infinity) return prevLe; // beyond the last finite bound: its bound, as Prometheus does
      const inBucket = count - prevCount;
      return inBucket > 0 ? prevLe + ((le - prevLe) * (rank - prevCount)) / inBucket : le;
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

export function summarizeSeries(
  url: string,
  s: MetricsSeries,
  client: EndpointServerMetrics['client'],
): EndpointServerMetrics {
  const t = s.totals;
  const flavor = s.last?.flavor ?? s.first?.flavor ?? null;
  let hit: number | null = null;
  if (t.prefixQueries !== null && t.prefixHits !== null && t.prefixQueries > 0) hit = t.prefixHits / t.prefixQueries;
  else {
    const rates = s.points.map((p) => p.prefixHitRate).filter((v): v is number => v !== null);
    if (rates.length > 0 && t.prefixQueries === null) hit = rates.reduce((a, b) => a + b, 0) / rates.length;
  }
  const buckets = [...s.ttftBuckets.entries()].sort((a, b) => a[0] - b[0]);
  const count = t.ttftCount ?? 0;
  const ttft =
    t.ttftCount === null
      ? null
      : {
          count,
          mean: count > 0 && t.ttftSum !== null ? (t.ttftSum / count) * 1000 : null,
          p50: count > 0 ? (bucketQuantile(buckets, 0.5) ?? NaN) * 1000 : null,
          p99: count > 0 ? (bucketQuantile(buckets, 0.99) ?? NaN) * 1000 : null,
        };
  const ratio = (a: number | null, b: number | null | undefined): number | null =>
    a !== null && b !== null && b !== undefined && b > 0 ? a / b : null;
  return {
    url,
    flavor,
    scrapes: s.scrapes,
    failedScrapes: s.failures,
    lastError: s.lastError,
    restarts: s.resets,
    promptTokens: t.promptTokens,
    generationTokens: t.generationTokens,
    requests: t.requests,
    preemptions: t.preemptions,
    prefixCacheHitRate: hit,
    ttftMs: ttft,
    peak: { ...s.peak },
    mean: s.means(),
    client,
    generationTokensRatio: ratio(t.generationTokens, client?.outputTokens),
    promptTokensRatio: ratio(t.promptTokens, client?.promptTokens),
    points: s.points.map((p) => ({ ...p })),
  };
}
