// One scrape reduced to the figures a run report needs. Series of one name
// with different labels (several engines, DP ranks, finish reasons) are
// summed, except ratios (KV usage, cache hit rate), which are averaged.
import { detectFlavor, METRIC_NAMES, type ServerFlavor } from './metric-names.js';
import type { PromSample } from './prom-text.js';

export interface ServerSnapshot {
  flavor: ServerFlavor | null;
  running: number | null;
  waiting: number | null;
  kvUsage: number | null;
  promptTokens: number | null;
  generationTokens: number | null;
  prefixQueries: number | null;
  prefixHits: number | null;
  cacheHitRate: number | null;
  ttftSum: number | null;
  ttftCount: number | null;
  /** Cumulative TTFT bucket counts by upper bound (s), +Inf last. */
  ttftBuckets: Array<[number, number]> | null;
  requests: number | null;
  preemptions: number | null;
}

function index(samples: readonly PromSample[]): Map<string, PromSample[]> {
  const m = new Map<string, PromSample[]>();
  for (const s of samples) {
    const list = m.get(s.name);
    if (list) list.push(s);
    else m.set(s.name, [s]);
  }
  return m;
}

function pick(m: Map<string, PromSample[]>, names: readonly string[], mean = false): number | null {
  for (const n of names) {
    const list = m.get(n);
    if (!list || list.length === 0) continue;
    let sum = 0;
    for (const s of list) sum += s.value;
    return mean ? sum / list.length : sum;
  }
  return null;
}

function buckets(m: Map<string, PromSample[]>, base: readonly string[]): Array<[number, number]> | null {
  for (const n of base) {
    const list = m.get(`${n}_bucket`);
    if (!list) continue;
    const byLe = new Map<number, number>();
    for (const s of list) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      if (!Number.isNaN(le)) byLe.set(le, (byLe.get(le) ?? 0) + s.value);
    }
    return [...byLe.entries()].sort((a, b) => a[0] - b[0]);
  }
  return null;
}

export function snapshotOf(samples: readonly PromSample[]): ServerSnapshot {
  const m = index(samples);
  const flavor = detectFlavor(m.keys());
  const empty: ServerSnapshot = {
    flavor,
    running: null,
    waiting: null,
    kvUsage: null,
    promptTokens: null,
    generationTokens: null,
    prefixQueries: null,
    prefixHits: null,
    cacheHitRate: null,
    ttftSum: null,
    ttftCount: null,
    ttftBuckets: null,
    requests: null,
    preemptions: null,
  };
  if (!flavor) return empty;
  const n = METRIC_NAMES[flavor];
  return {
    flavor,
    running: pick(m, n.running),
    waiting: pick(m, n.waiting),
    kvUsage: pick(m, n.kvUsage, true),
    promptTokens: pick(m, n.promptTokens),
    generationTokens: pick(m, n.generationTokens),
    prefixQueries: pick(m, n.prefixQueries),
    prefixHits: pick(m, n.prefixHits),
    cacheHitRate: pick(m, n.cacheHitRate, true),
    ttftSum: pick(
      m,
      n.ttft.map((b) => `${b}_sum`),
    ),
    ttftCount: pick(
      m,
      n.ttft.map((b) => `${b}_count`),
    ),
    ttftBuckets: buckets(m, n.ttft),
    requests: pick(m, n.requests),
    preemptions: pick(m, n.preemptions),
  };
}
