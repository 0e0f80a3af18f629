// Goodput: the samples that met the run's latency targets, from the harness
// timings measured as LoadGen measures (from each sample's scheduled time).
// Token latencies on: TTFT ≤ ttftLatencyNs and TPOT ≤ tpotLatencyNs. Off:
// latency ≤ serverTargetLatencyNs (Server). Other scenarios have no latency
// target: every successful sample counts.
import type { SampleTiming } from '../sut/types.js';

export interface GoodputTargets {
  kind: 'token-latencies' | 'latency' | 'none';
  ttftMs: number | null;
  tpotMs: number | null;
  latencyMs: number | null;
}

export interface Goodput {
  targets: GoodputTargets;
  /** Successful samples. */
  samples: number;
  /** Of those, the ones within the targets. */
  good: number;
  /** good / samples (null without samples). */
  fraction: number | null;
}

export function goodputTargets(settings: Record<string, unknown>): GoodputTargets {
  const num = (k: string): number => Number(settings[k] ?? 0);
  if (settings.useTokenLatencies === true && settings.scenario !== 'Offline') {
    return {
      kind: 'token-latencies',
      ttftMs: num('ttftLatencyNs') / 1e6,
      tpotMs: num('tpotLatencyNs') / 1e6,
      latencyMs: null,
    };
  }
  if (settings.scenario === 'Server' && num('serverTargetLatencyNs') > 0) {
    return { kind: 'latency', ttftMs: null, tpotMs: null, latencyMs: num('serverTargetLatencyNs') / 1e6 };
  }
  return { kind: 'none', ttftMs: null, tpotMs: null, latencyMs: null };
}

export function countGoodput(timings: readonly SampleTiming[], targets: GoodputTargets): Goodput {
  let samples = 0;
  let good = 0;
  for (const t of timings) {
    if (!t.ok) continue;
    samples++;
    if (targets.kind === 'none') {
      good++;
      continue;
    }
    if (!(t.scheduledNs > 0) || !Number.isFinite(t.endNs)) continue;
    if (targets.kind === 'latency') {
      if ((t.endNs - t.scheduledNs) / 1e6 <= targets.latencyMs!) good++;
      continue;
    }
    if (!(t.firstTokenNs > 0)) continue;
    const ttft = (t.firstTokenNs - t.scheduledNs) / 1e6;
    // Integer ns, as LoadGen computes TPOT; a one-token sample has no TPOT to miss.
    const tpot = t.tokens > 1 ? Math.floor((t.endNs - t.firstTokenNs) / (t.tokens - 1)) / 1e6 : 0;
    if (ttft <= targets.ttftMs! && tpot <= targets.tpotMs!) good++;
  }
  return { targets, samples, good, fraction: samples > 0 ? good / samples : null };
}
