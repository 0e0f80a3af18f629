// The verdict on the measurement itself: can the run's figures be trusted,
// or was the harness (not the server) what limited them? A pure function of
// the RunRecord, from what the harness measured of itself: per-sample
// schedule → issue → dispatch → write times (the adapter's timings), the
// event-loop delay of the main thread and of each thread doing the HTTP
// work, and the process's CPU time against the cores it has. The rule and
// its limits are documented in docs/measurement.md.
import { percentiles } from '../sut/stats.js';
import type { Percentiles, SampleTiming } from '../sut/types.js';
import { latencyFigures } from './run-status.js';
import type { RunRecord } from './run-record.js';

export type MeasurementVerdict = 'trustworthy' | 'harness-limited';

/** The limits of the rule (docs/measurement.md). */
export const MEASUREMENT_LIMITS = Object.freeze({
  /** The harness's own p99 time (before the write, plus the request threads' loop delay) over this share of the reference. */
  share: 0.05,
  /** Any thread's event-loop delay p99 over this, ms. */
  loopDelayP99Ms: 50,
  /** The process's CPU time over the test above this share of the cores it has (cores × wall time). */
  cpuShare: 0.9,
  /** The last third's median time before the write exceeds the first third's by more than this, ms ... */
  growthMs: 1,
  /** ... and by more than this share of the reference. */
  growthShare: 0.01,
  /** Samples each third needs for the growth check. */
  minSamplesPerThird: 30,
});

/** p50, p99 and max of a harness-side interval, ms. */
export interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface MeasurementFigures {
  /**
   * What the harness's own time is compared with: the benchmark's TTFT bound
   * (Server with token latencies), its latency bound (Server without), else
   * the measured TTFT or latency p99; null in Offline (every sample is due at
   * once, so the time before the write is the server's queue, not the harness's).
   */
  reference: { kind: 'ttft-bound' | 'latency-bound' | 'ttft-p99' | 'latency-p99'; ms: number } | null;
  /** First attempts only, ms: the engine's schedule → issue lag. */
  issueLagMs: Spread | null;
  /** Issue → handed to undici: the worker's queue, waits for an in-flight slot, the thread's loop. */
  issueToDispatchMs: Spread | null;
  /** Handed to undici → written: the connection pool's queue, connecting, the write. */
  dispatchToWriteMs: Spread | null;
  /** Schedule → written, the harness's whole time before the server has the request. */
  beforeWriteMs: Spread | null;
  /** Median schedule → write of the first and the last third of the samples (by scheduled time); null with too few. */
  beforeWriteThirdsMs: { first: number; last: number } | null;
  /** Event-loop delay p99 and max, ms, of the main thread over the test and of each thread doing the HTTP work. */
  eventLoopDelayMs: { main: { p99: number; max: number } | null; workers: { p99: number; max: number }[] };
  /** beforeWriteMs p99 + the largest request-thread loop delay p99 (what a read can wait for before it is reported). */
  harnessP99Ms: number | null;
  /** harnessP99Ms / reference.ms. */
  harnessShare: number | null;
  /** Process CPU over the test: seconds, the wall time, the cores and cpuSeconds / (wallSeconds × cores). */
  cpu: { seconds: number; wallSeconds: number; cores: number; share: number } | null;
}

export interface Measurement {
  verdict: MeasurementVerdict;
  /** Why harness-limited (empty when trustworthy). */
  reasons: string[];
  /** Checks that had no data (e.g. no per-sample timings): the verdict does not cover them. */
  unchecked: string[];
  figures: MeasurementFigures;
}

/** ms to 0.1 µs: the figures' precision, without float noise in results.json. */
const r4 = (ms: number): number => Math.round(ms * 1e4) / 1e4;

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  const p: Percentiles = percentiles(values, 1e-6);
  return { count: p.count, p50: r4(p.p50), p99: r4(p.p99), max: r4(p.max) };
}

function median(values: number[]): number {
  return percentiles(values, 1e-6).p50;
}

const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const pct = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

function referenceOf(record: RunRecord): MeasurementFigures['reference'] {
  const r = record.result;
  if (r.scenario === 'Offline') return null;
  const s = (record.settings ?? {}) as {
    useTokenLatencies?: unknown;
    ttftLatencyNs?: unknown;
    serverTargetLatencyNs?: unknown;
  };
  const tokens = s.useTokenLatencies === true;
  const bound = Number(tokens ? s.ttftLatencyNs : s.serverTargetLatencyNs);
  if (r.scenario === 'Server' && Number.isFinite(bound) && bound > 0)
    return { kind: tokens ? 'ttft-bound' : 'latency-bound', ms: bound / 1e6 };
  const lat = latencyFigures(record);
  const measured = tokens ? lat.ttft?.p99 : lat.latency?.p99;
  if (measured !== undefined && Number.isFinite(measured) && measured > 0)
    return { kind: tokens ? 'ttft-p99' : 'latency-p99', ms: measured / 1e6 };
  return null;
}

const REFERENCE_TEXT: Record<NonNullable<MeasurementFigures['reference']>['kind'], string> = {
  'ttft-bound': 'TTFT bound',
  'latency-bound': 'latency bound',
  'ttft-p99': 'measured TTFT p99',
  'latency-p99': 'measured latency p99',
};

/** First attempts with the four times: the harness's own intervals, in scheduled order. */
function firstAttempts(timings: readonly SampleTiming[]): SampleTiming[] {
  const rows = timings.filter(
    (t) =>
      t.attempts === 1 &&
      t.scheduledNs > 0 &&
      t.issuedNs > 0 &&
      t.dispatchedNs > 0 &&
      t.sentNs > 0 &&
      t.sentNs >= t.scheduledNs,
  );
  return rows.sort((a, b) => a.scheduledNs - b.scheduledNs);
}

const loop = (p: Percentiles | undefined | null): { p99: number; max: number } | null =>
  p && p.count > 0 && Number.isFinite(p.p99) ? { p99: r4(p.p99), max: r4(p.max) } : null;

/** The verdict on the run's measurement (docs/measurement.md). */
export function measurementOf(record: RunRecord): Measurement {
  const L = MEASUREMENT_LIMITS;
  const reasons: string[] = [];
  const unchecked: string[] = [];
  const reference = referenceOf(record);
  const usage = record.harnessUsage ?? null;
  const sut = record.sut;

  // Per-sample intervals (first attempts: a retry's backoff is not the harness's).
  const rows = firstAttempts(sut?.timings ?? []);
  const ns = (f: (t: SampleTiming) => number): number[] => rows.map(f);
  const beforeWrite = ns((t) => t.sentNs - t.scheduledNs);
  const figures: MeasurementFigures = {
    reference,
    issueLagMs: spread(ns((t) => t.issuedNs - t.scheduledNs)),
    issueToDispatchMs: spread(ns((t) => t.dispatchedNs - t.issuedNs)),
    dispatchToWriteMs: spread(ns((t) => t.sentNs - t.dispatchedNs)),
    beforeWriteMs: spread(beforeWrite),
    beforeWriteThirdsMs: null,
    eventLoopDelayMs: {
      main: loop(usage?.mainEventLoopDelayMs),
      workers: (sut?.eventLoopDelayMs ?? []).map(loop).filter((x) => x !== null),
    },
    harnessP99Ms: null,
    harnessShare: null,
    cpu: null,
  };

  // The threads a response's read waits for: the adapter's, else (workers: 0, a SUT of one's own) the main thread.
  const pathLoops = figures.eventLoopDelayMs.workers.length
    ? figures.eventLoopDelayMs.workers
    : figures.eventLoopDelayMs.main
      ? [figures.eventLoopDelayMs.main]
      : [];
  const pathLoopP99 = pathLoops.reduce((a, l) => Math.max(a, l.p99), 0);

  // 1. The harness's own p99 against the reference.
  if (figures.beforeWriteMs && reference) {
    const b = figures.beforeWriteMs;
    figures.harnessP99Ms = r4(b.p99 + pathLoopP99);
    figures.harnessShare = figures.harnessP99Ms / reference.ms;
    if (figures.harnessShare > L.share) {
      const parts: [string, number][] = [
        ['schedule→issue', figures.issueLagMs!.p99],
        ['issue→dispatch (worker queue, in-flight slots)', figures.issueToDispatchMs!.p99],
        ['dispatch→write (connection pool)', figures.dispatchToWriteMs!.p99],
        ['event-loop delay', pathLoopP99],
      ];
      const top = parts.reduce((a, p) => (p[1] > a[1] ? p : a));
      reasons.push(
        `the harness's own p99 time is ${fmt(figures.harnessP99Ms)} ms, ${pct(figures.harnessShare)} of the ${REFERENCE_TEXT[reference.kind]} (${fmt(reference.ms)} ms; limit ${pct(L.share)}), mostly ${top[0]} (${fmt(top[1])} ms p99)`,
      );
    }
  } else if (!reference) unchecked.push('share of the latency (Offline, or no latency measured)');
  else unchecked.push('share of the latency (no per-sample timings)');

  // 2. The time before the write growing during the run: the harness falling behind its schedule.
  const third = Math.floor(rows.length / 3);
  if (reference && third >= L.minSamplesPerThird) {
    const first = median(beforeWrite.slice(0, third));
    const last = median(beforeWrite.slice(rows.length - third));
    figures.beforeWriteThirdsMs = { first, last };
    const limit = Math.max(L.growthMs, L.growthShare * reference.ms);
    if (last - first > limit)
      reasons.push(
        `the harness fell behind its schedule: the median time from schedule to write grew from ${fmt(first)} ms in the first third of the run to ${fmt(last)} ms in the last (limit +${fmt(limit)} ms)`,
      );
  } else
    unchecked.push(`growth during the run (needs ${3 * L.minSamplesPerThird} timed samples and a latency reference)`);

  // 3. Event-loop delay of any thread.
  const loops: [string, { p99: number; max: number } | null][] = [
    [
      sut && sut.workers === 0 ? 'the main thread (the adapter runs on it)' : 'the main thread',
      figures.eventLoopDelayMs.main,
    ],
    ...figures.eventLoopDelayMs.workers.map((l, k): [string, { p99: number; max: number }] => [
      sut?.workers === 0 ? "the adapter's HTTP work on the main thread" : `adapter worker ${k + 1}`,
      l,
    ]),
  ];
  if (loops.every(([, l]) => l === null)) unchecked.push('event-loop delay (not measured)');
  for (const [who, l] of loops)
    if (l && l.p99 > L.loopDelayP99Ms)
      reasons.push(
        `${who} was blocked: event-loop delay p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms (limit ${L.loopDelayP99Ms} ms${record.simulated && who.startsWith('the main') ? ', the built-in simulator runs on it' : ''})`,
      );

  // 4. CPU: the process against the cores it has.
  if (sut && sut.busyPollIdleMs !== null && sut.busyPollIdleMs !== undefined)
    unchecked.push('CPU use (busy polling keeps the adapter threads spinning by design)');
  else if (usage && usage.wallSeconds > 0 && usage.cores > 0) {
    const share = usage.cpuSeconds / (usage.wallSeconds * usage.cores);
    figures.cpu = { seconds: usage.cpuSeconds, wallSeconds: usage.wallSeconds, cores: usage.cores, share };
    if (share > L.cpuShare)
      reasons.push(
        `the harness used ${pct(share)} of its ${usage.cores} core${usage.cores > 1 ? 's' : ''} (${usage.cpuSeconds.toFixed(1)} CPU-s over ${usage.wallSeconds.toFixed(1)} s; limit ${pct(L.cpuShare)})${record.simulated ? ', the built-in simulator included' : ''}`,
      );
  } else unchecked.push('CPU use (not measured)');

  return { verdict: reasons.length ? 'harness-limited' : 'trustworthy', reasons, unchecked, figures };
}

/** The console line: `measurement: trustworthy` or `measurement: harness-limited (reason; reason)`. */
export function measurementLine(m: Measurement): string {
  return m.verdict === 'trustworthy'
    ? 'measurement: trustworthy'
    : `measurement: harness-limited (${m.reasons.join('; ')})`;
}
