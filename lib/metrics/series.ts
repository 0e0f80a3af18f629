// One endpoint's scrapes over a run, in bounded memory. Counters are turned
// into increases since the first scrape as they arrive, with Prometheus's
// reset rule (a counter that went down restarted from 0: a server restart),
// so dropping points later loses no counts. When the points reach their cap,
// every other one is dropped (first and last kept): the whole run stays
// covered at half the resolution.
import type { ServerSnapshot } from './server-snapshot.js';

export interface MetricsPoint {
  /** ms since the scraper started. */
  tMs: number;
  running: number | null;
  waiting: number | null;
  kvUsage: number | null;
  /** Prefix-cache hit rate over the interval since the previous point (vLLM counters), or SGLang's gauge. */
  prefixHitRate: number | null;
  /** Increases since the first scrape. */
  promptTokens: number | null;
  generationTokens: number | null;
  requests: number | null;
  /** Mean server TTFT (ms) of the requests whose first token came in the interval. */
  ttftMeanMs: number | null;
}

const COUNTERS = [
  'promptTokens',
  'generationTokens',
  'prefixQueries',
  'prefixHits',
  'ttftSum',
  'ttftCount',
  'requests',
  'preemptions',
] as const;
type CounterKey = (typeof COUNTERS)[number];

export class MetricsSeries {
  readonly points: MetricsPoint[] = [];
  /** Increase of each counter since the first scrape. */
  readonly totals: Record<CounterKey, number | null> = {
    promptTokens: null,
    generationTokens: null,
    prefixQueries: null,
    prefixHits: null,
    ttftSum: null,
    ttftCount: null,
    requests: null,
    preemptions: null,
  };
  /** TTFT bucket increases by upper bound. */
  readonly ttftBuckets = new Map<number, number>();
  first: ServerSnapshot | null = null;
  last: ServerSnapshot | null = null;
  /** Counter resets seen (server restarts). */
  resets = 0;
  scrapes = 0;
  failures = 0;
  lastError: string | null = null;
  peak = { running: 0, waiting: 0, kvUsage: 0 };
  private gaugeSums = { running: 0, waiting: 0, kvUsage: 0, n: 0 };

  constructor(private readonly maxPoints = 1000) {}

  private static increase(prev: number | null, now: number | null): number | null {
    if (now === null) return null;
    if (prev === null) return 0;
    return now >= prev ? now - prev : now; // went down: restarted from zero
  }

  add(tMs: number, s: ServerSnapshot): void {
    this.scrapes++;
    const prev = this.last;
    this.first ??= s;
    let reset = false;
    const delta: Partial<Record<CounterKey, number | null>> = {};
    for (const k of COUNTERS) {
      const d = prev ? MetricsSeries.increase(prev[k], s[k]) : s[k] === null ? null : 0;
      if (prev && prev[k] !== null && s[k] !== null && (s[k] as number) < (prev[k] as number)) reset = true;
      delta[k] = d;
      if (d !== null) this.totals[k] = (this.totals[k] ?? 0) + d;
    }
    if (reset) this.resets++;
    if (prev && s.ttftBuckets) {
      const before = new Map(prev.ttftBuckets ?? []);
      for (const [le, c] of s.ttftBuckets) {
        const p = before.get(le);
        const d = p === undefined ? 0 : c >= p && !reset ? c - p : c;
        this.ttftBuckets.set(le, (this.ttftBuckets.get(le) ?? 0) + d);
      }
    }
    this.last = s;
    for (const g of ['running', 'waiting', 'kvUsage'] as const) {
      const v = s[g];
      if (v !== null && v > this.peak[g]) this.peak[g] = v;
    }
    if (s.running !== null) {
      this.gaugeSums.running += s.running;
      this.gaugeSums.waiting += s.waiting ?? 0;
      this.gaugeSums.kvUsage += s.kvUsage ?? 0;
      this.gaugeSums.n++;
    }
    const dq = delta.prefixQueries ?? null;
    const dh = delta.prefixHits ?? null;
    const hit = dq !== null && dh !== null && dq > 0 ? dh / dq : s.cacheHitRate;
    const dc = delta.ttftCount ?? null;
    const ds = delta.ttftSum ?? null;
    this.points.push({
      tMs,
      running: s.running,
      waiting: s.waiting,
      kvUsage: s.kvUsage,
      prefixHitRate: hit,
      promptTokens: this.totals.promptTokens,
      generationTokens: this.totals.generationTokens,
      requests: this.totals.requests,
      ttftMeanMs: dc !== null && ds !== null && dc > 0 ? (ds / dc) * 1000 : null,
    });
    if (this.points.length > this.maxPoints) this.halve();
  }

  private halve(): void {
    const last = this.points[this.points.length - 1];
    const kept = this.points.filter((_, i) => i % 2 === 0);
    if (kept[kept.length - 1] !== last) kept.push(last);
    this.points.length = 0;
    this.points.push(...kept);
  }

  /** Means of the gauges over the scrapes. */
  means(): { running: number | null; waiting: number | null; kvUsage: number | null } {
    const g = this.gaugeSums;
    return g.n > 0
      ? { running: g.running / g.n, waiting: g.waiting / g.n, kvUsage: g.kvUsage / g.n }
      : { running: null, waiting: null, kvUsage: null };
  }
}
