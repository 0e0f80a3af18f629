// The energy of a test window from GPU tracks (lib/metrics/gpu-telemetry.ts).
// Per GPU: the energy counter where the GPU serves one, else its power
// integrated. The window's edges rarely fall on a scrape, so each edge's
// cumulative energy is carried from the scrape beside it with the power
// that scrape read: from the one before the start and the one after the end,
// which are taken while the GPUs idle around the test, when the power is
// steady. Joules per output token and output tokens per second per watt
// (the same quotient, tokens per joule) follow.
import type { GpuPoint, GpuSource, GpuTrack } from './gpu-telemetry.js';

export interface GpuEnergy {
  /** The telemetry URL (without credentials). */
  source: string;
  gpu: string | null;
  uuid: string | null;
  host: string | null;
  model: string | null;
  /** 'counter': the energy counter's increase; 'power': the power gauge integrated; null: neither over the window. */
  method: 'counter' | 'power' | null;
  energyJ: number | null;
  meanPowerW: number | null;
  /** Highest power within the window: the gauge's scrapes, and the counter's mean over each scrape interval. */
  peakPowerW: number | null;
  meanUtilPct: number | null;
  meanMemUsedMiB: number | null;
  peakMemUsedMiB: number | null;
  counterResets: number;
  /** The power read by the last scrape before the window (the GPU idle before the test), W. */
  idlePowerW: number | null;
  /** Scrapes within the window and the one on each side of it, ms from its start (thinned to at most 600). */
  points: Array<{ tMs: number; powerW: number | null; utilPct: number | null; memUsedMiB: number | null }>;
}

export interface EnergySourceReport {
  url: string;
  /** The endpoint these GPUs serve (per-endpoint `gpuMetrics` in a config), or null. */
  endpoint: string | null;
  scrapes: number;
  failures: number;
  /** Why this source gave nothing (it did not answer, or served no GPU metric), or null. */
  error: string | null;
  gpus: number;
  energyJ: number | null;
  /** With an endpoint: its GPUs' energy over the output tokens it served. */
  joulesPerOutputToken: number | null;
}

export interface EnergyReport {
  /** The test window: first issue to last completion, steady-clock ns (the timings' clock). */
  window: { startNs: number; endNs: number; seconds: number };
  /** The GPU telemetry scrape interval; each test edge also has a scrape of its own. */
  intervalMs: number;
  sources: EnergySourceReport[];
  gpus: GpuEnergy[];
  /** All the GPUs' energy over the window, J (null when no GPU had power or energy). */
  energyJ: number | null;
  method: 'counter' | 'power' | 'mixed' | null;
  meanPowerW: number | null;
  /** Highest summed power of the GPUs within the window (each held at its last scrape), at least the mean. */
  peakPowerW: number | null;
  outputTokens: number;
  joulesPerOutputToken: number | null;
  /** Output tokens per second per watt: tokens per joule. */
  outputTokensPerSecondPerWatt: number | null;
  /** The GPUs' power just before the test (their idle power when nothing else ran), summed, W. */
  idlePowerW: number | null;
  /** The window's energy beyond that idle power, over the output tokens: what the work itself cost. */
  joulesPerOutputTokenAboveIdle: number | null;
  /** Why there are no energy figures, or null. */
  missing: string | null;
  /** The built-in simulator's exact energy over the same window (simulated runs only). */
  simulator?: { trueJoules: number; trueJoulesPerOutputToken: number | null; errorPct: number | null } | null;
}

type CumKey = 'counterJ' | 'integratedJ';

/** Cumulative energy at w, carried from the scrape on the preferred side of it with that scrape's power. */
function cumulativeAt(points: readonly GpuPoint[], key: CumKey, w: number, side: 'start' | 'end'): number | null {
  let before: GpuPoint | null = null;
  let after: GpuPoint | null = null;
  for (const p of points) {
    if (p[key] === null) continue;
    if (p.tNs <= w) before = p;
    else if (!after) after = p;
  }
  const pick = side === 'start' ? (before ?? after) : (after ?? before);
  if (!pick) return null;
  let watts = pick.powerW;
  if (watts === null && before && after && after.tNs > before.tNs)
    watts = ((after[key]! - before[key]!) * 1e9) / (after.tNs - before.tNs);
  return pick[key]! + ((watts ?? 0) * (w - pick.tNs)) / 1e9;
}

function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

function thinTo<T>(xs: T[], max: number): T[] {
  if (xs.length <= max) return xs;
  const step = xs.length / max;
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(xs[Math.floor(i * step)]!);
  out[out.length - 1] = xs[xs.length - 1]!;
  return out;
}

/** The scrapes inside the window and the one on each side of it (the idle edges, in the plots). */
function plotted(points: readonly GpuPoint[], w0: number, w1: number): GpuPoint[] {
  const i0 = points.findIndex((p) => p.tNs >= w0);
  const first = i0 < 0 ? points.length - 1 : Math.max(0, i0 - 1);
  let last = points.findIndex((p) => p.tNs > w1);
  if (last < 0) last = points.length - 1;
  return points.slice(first, last + 1);
}

function gpuEnergy(source: string, t: GpuTrack, w0: number, w1: number): GpuEnergy {
  const seconds = (w1 - w0) / 1e9;
  let method: GpuEnergy['method'] = null;
  let energyJ: number | null = null;
  for (const [key, m] of [
    ['counterJ', 'counter'],
    ['integratedJ', 'power'],
  ] as const) {
    const a = cumulativeAt(t.points, key, w0, 'start');
    const b = cumulativeAt(t.points, key, w1, 'end');
    if (a !== null && b !== null && (m === 'counter' || t.points.filter((p) => p[key] !== null).length >= 2)) {
      energyJ = Math.max(0, b - a);
      method = m;
      break;
    }
  }
  const inside = t.points.filter((p) => p.tNs >= w0 && p.tNs <= w1);
  const num = (k: 'powerW' | 'utilPct' | 'memUsedMiB') =>
    inside.map((p) => p[k]).filter((v): v is number => v !== null);
  const power = num('powerW');
  // The gauge is one sample a scrape: short peaks fall between. The counter's mean over each interval inside the window catches them.
  const counted = t.points.filter((p) => p.counterJ !== null);
  for (let i = 1; i < counted.length; i++) {
    const a = counted[i - 1]!;
    const b = counted[i]!;
    if (a.tNs >= w0 && b.tNs <= w1 && b.tNs - a.tNs >= 1e8)
      power.push(((b.counterJ! - a.counterJ!) * 1e9) / (b.tNs - a.tNs));
  }
  const mem = num('memUsedMiB');
  return {
    source,
    ...t.info,
    method,
    energyJ,
    meanPowerW: energyJ !== null && seconds > 0 ? energyJ / seconds : null,
    peakPowerW: power.length ? Math.max(...power) : null,
    meanUtilPct: mean(num('utilPct')),
    meanMemUsedMiB: mean(mem),
    peakMemUsedMiB: mem.length ? Math.max(...mem) : null,
    counterResets: t.resets,
    idlePowerW: [...t.points].reverse().find((p) => p.tNs < w0 && p.powerW !== null)?.powerW ?? null,
    points: thinTo(
      plotted(t.points, w0, w1).map((p) => ({
        tMs: Math.round((p.tNs - w0) / 1e5) / 10,
        powerW: p.powerW,
        utilPct: p.utilPct,
        memUsedMiB: p.memUsedMiB,
      })),
      600,
    ),
  };
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

function peakTotal(tracks: Array<readonly GpuPoint[]>, w0: number, w1: number): number | null {
  const events: Array<{ t: number; gpu: number; w: number }> = [];
  tracks.forEach((ps, gpu) => {
    for (const p of ps) if (p.powerW !== null && p.tNs <= w1) events.push({ t: p.tNs, gpu, w: p.powerW });
  });
  events.sort((a, b) => a.t - b.t);
  const held = new Map<number, number>();
  let peak: number | null = null;
  for (const e of events) {
    held.set(e.gpu, e.w);
    if (e.t < w0) continue;
    let sum = 0;
    for (const v of held.values()) sum += v;
    if (peak === null || sum > peak) peak = sum;
  }
  return peak;
}

/** The energy report of a window [startNs, endNs] from the scraped sources; tokens per endpoint URL for per-endpoint figures. */
export function summarizeEnergy(
  sources: readonly GpuSource[],
  window: { startNs: number; endNs: number },
  intervalMs: number,
  outputTokens: number,
  endpointTokens: ReadonlyMap<string, number> = new Map(),
): EnergyReport {
  const { startNs: w0, endNs: w1 } = window;
  const gpus: GpuEnergy[] = [];
  const trackPoints: Array<readonly GpuPoint[]> = [];
  const srcReports: EnergySourceReport[] = sources.map((s) => {
    const mine = [...s.tracks.values()].map((t) => {
      trackPoints.push(t.points);
      return gpuEnergy(s.url, t, w0, w1);
    });
    gpus.push(...mine);
    let error: string | null = null;
    if (s.scrapes === 0) error = `did not answer (${s.lastError ?? 'no reply'})`;
    else if (s.tracks.size === 0)
      error = 'served no GPU metric (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION...)';
    else if (mine.every((g) => g.energyJ === null)) error = 'served no GPU power or energy over the test';
    const known = mine.filter((g) => g.energyJ !== null);
    const energyJ = known.length ? known.reduce((a, g) => a + g.energyJ!, 0) : null;
    const tokens = s.endpoint !== null ? endpointTokens.get(s.endpoint) : undefined;
    return {
      url: s.url,
      endpoint: s.endpoint,
      scrapes: s.scrapes,
      failures: s.failures,
      error,
      gpus: s.tracks.size,
      energyJ,
      joulesPerOutputToken: energyJ !== null && tokens ? energyJ / tokens : null,
    };
  });
  const known = gpus.filter((g) => g.energyJ !== null);
  const energyJ = known.length ? known.reduce((a, g) => a + g.energyJ!, 0) : null;
  const methods = new Set(known.map((g) => g.method));
  // Idle only when every GPU with an energy figure has its reading: a partial sum would overstate the work.
  const idlePowerW =
    known.length > 0 && known.every((g) => g.idlePowerW !== null) ? known.reduce((a, g) => a + g.idlePowerW!, 0) : null;
  const seconds = Math.max(0, (w1 - w0) / 1e9);
  let missing: string | null = null;
  if (energyJ === null)
    missing = srcReports.length
      ? `no GPU energy: ${srcReports.map((s) => `${s.url} ${s.error ?? 'gave no figure'}`).join('; ')}`
      : 'no GPU telemetry URL (--gpu-metrics)';
  else if (!(seconds > 0)) missing = 'the test window is empty';
  return {
    window: { startNs: w0, endNs: w1, seconds },
    intervalMs,
    sources: srcReports,
    gpus,
    energyJ,
    method: methods.size === 0 ? null : methods.size > 1 ? 'mixed' : [...methods][0]!,
    meanPowerW: energyJ !== null && seconds > 0 ? energyJ / seconds : null,
    peakPowerW: maxOf(peakTotal(trackPoints, w0, w1), energyJ !== null && seconds > 0 ? energyJ / seconds : null),
    outputTokens,
    joulesPerOutputToken: energyJ !== null && outputTokens > 0 ? energyJ / outputTokens : null,
    outputTokensPerSecondPerWatt: energyJ !== null && energyJ > 0 ? outputTokens / energyJ : null,
    idlePowerW,
    joulesPerOutputTokenAboveIdle:
      energyJ !== null && idlePowerW !== null && outputTokens > 0
        ? (energyJ - idlePowerW * seconds) / outputTokens
        : null,
    missing,
    simulator: null,
  };
}

function fmt(v: number | null, digits: number): string {
  return v === null || !Number.isFinite(v) ? '—' : Number(v.toPrecision(digits)).toString();
}

/** One line for the console: the energy figures beside the cost per token (or why there are none). */
export function energySummaryLine(e: EnergyReport, dollarsPerMillionOutputTokens: number | null): string {
  if (e.energyJ === null) return `energy: none (${e.missing ?? 'no GPU figure'})`;
  const cost =
    dollarsPerMillionOutputTokens === null
      ? ''
      : `; cost $${dollarsPerMillionOutputTokens.toFixed(4)} per M output tokens`;
  const truth =
    e.simulator?.errorPct != null
      ? ` (simulator's exact energy: ${fmt(e.simulator.trueJoules, 5)} J, ${fmt(e.simulator.errorPct, 2)} % off)`
      : '';
  const idle =
    e.joulesPerOutputTokenAboveIdle !== null
      ? ` (${fmt(e.joulesPerOutputTokenAboveIdle, 4)} above the ${fmt(e.idlePowerW, 4)} W idle)`
      : '';
  return `energy: ${fmt(e.energyJ, 5)} J over ${fmt(e.window.seconds, 4)} s on ${e.gpus.length} GPU${e.gpus.length === 1 ? '' : 's'} (${e.method}), ${fmt(e.joulesPerOutputToken, 4)} J per output token${idle}, ${fmt(e.outputTokensPerSecondPerWatt, 4)} output tokens/s per W, mean ${fmt(e.meanPowerW, 4)} W, peak ${fmt(e.peakPowerW, 4)} W${cost}${truth}`;
}
