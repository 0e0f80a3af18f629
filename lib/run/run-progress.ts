// A run's progress while its test runs (the progress callback, the
// timeline) and the timeline's exact figures after it.
import { native } from '../core/binding.js';
import type { TestSettings } from '../core/settings.js';
import type { TimelinePoint } from '../results/run-record.js';
import type { LlmSut } from '../sut/llm-sut.js';
import type { SampleTiming } from '../sut/types.js';
import type { RunProgress } from './run-options.js';

/** Adds output tokens and failures to the timeline from the per-sample timings (exact, after the run). */
export function fillTimeline(
  points: TimelinePoint[],
  startNs: number | null,
  timings: readonly SampleTiming[] | undefined,
): void {
  if (startNs === null || !timings || timings.length === 0) return;
  const ends = timings.filter((t) => Number.isFinite(t.endNs)).sort((a, b) => a.endNs - b.endNs);
  let i = 0;
  let tokens = 0;
  let errors = 0;
  for (const p of points) {
    const until = startNs + p.tMs * 1e6;
    while (i < ends.length && ends[i].endNs <= until) {
      if (ends[i].ok) tokens += ends[i].tokens;
      else errors++;
      i++;
    }
    p.outputTokens = tokens;
    p.errors = errors;
  }
}

/** Estimated time left, from the settings and the progress so far; null when it cannot be told. */
export function estimateRemainingMs(
  s: TestSettings,
  datasetSize: number,
  p: { elapsedMs: number; issued: number; completed: number; qps: number },
): number | null {
  const left = Math.max(0, s.minDurationMs - p.elapsedMs);
  if (s.mode === 'AccuracyOnly') {
    const total = s.accuracySampleCountOverride || datasetSize;
    return p.qps > 0 ? Math.max(0, ((total - p.completed) / p.qps) * 1000) : null;
  }
  if (s.mode !== 'PerformanceOnly') return null;
  switch (s.scenario) {
    case 'Server': {
      const count = Math.max(s.minQueryCount, (s.serverTargetQps * s.minDurationMs) / 1000);
      return Math.max(left, ((count - p.issued) / s.serverTargetQps) * 1000);
    }
    case 'Offline':
      return p.qps > 0 ? ((p.issued - p.completed) / p.qps) * 1000 : null;
    default:
      return left;
  }
}

/**
 * Samples the running test once a tick: the engine's counters (cheap) for
 * the timeline and the progress line, and the adapter's figures (tokens,
 * failures) less often, so that asking for them costs ~1% of the main thread.
 */
export class ProgressSampler {
  readonly timeline: TimelinePoint[] = [];
  /** The test's start on the engine's clock (ns), once known. */
  startNs: number | null = null;
  private last: { atMs: number; tokens: number; errors: number; requestErrors: number; completed: number } | null =
    null;
  private prev: { atMs: number; tokens: number } | null = null;
  private reportEveryMs = 2000;
  private nextReportAt = 0;
  private busy = false;
  private readonly window: { t: number; completed: number }[] = [];
  private callbackFailed = false;

  constructor(
    private readonly llm: LlmSut,
    private readonly settings: TestSettings,
    private readonly datasetSize: number,
    private readonly onProgress: ((p: RunProgress) => void) | undefined,
    private readonly log: (m: string) => void,
    private readonly live: Int32Array | null = null,
  ) {
    if (live !== null) this.reportEveryMs = 1000;
  }

  private askAdapter(atMs: number): void {
    if (this.live !== null) {
      // The adapter's shared counters: no report (which copies every per-sample array) mid-run.
      this.prev = this.last;
      this.last = {
        atMs,
        tokens: this.live[0],
        errors: this.live[2],
        requestErrors: this.live.length > 3 ? this.live[3] : this.live[2],
        completed: this.live[1],
      };
      return;
    }
    if (this.busy) return;
    this.busy = true;
    const t0 = performance.now();
    this.llm
      .report()
      .then((r) => {
        this.reportEveryMs = Math.max(2000, (performance.now() - t0) * 100);
        this.prev = this.last;
        const tokens = r.endpoints.reduce((a, e) => a + e.outputTokens, 0);
        const requestErrors = r.endpoints.reduce((a, e) => a + e.errors, 0);
        this.last = {
          atMs,
          tokens,
          errors: r.samples.failed,
          requestErrors: Math.max(requestErrors, r.samples.failed),
          completed: r.samples.completed - r.samples.failed,
        };
      })
      .catch(() => undefined)
      .finally(() => {
        this.busy = false;
      });
  }

  tick(): void {
    const p = native.progress();
    if (!p.running) return;
    const elapsedMs = p.elapsedNs / 1e6;
    this.startNs ??= native.nowNs() - p.elapsedNs;
    const inFlight = p.issuedSamples - p.completedSamples;
    this.timeline.push({
      tMs: Math.round(elapsedMs),
      issuedSamples: p.issuedSamples,
      completedSamples: p.completedSamples,
      inFlight,
      outputTokens: this.last?.tokens ?? 0,
      errors: this.last?.errors ?? 0,
    });
    // The sample rate over the last ~5 ticks.
    this.window.push({ t: elapsedMs, completed: p.completedSamples });
    if (this.window.length > 6) this.window.shift();
    const w0 = this.window[0];
    const qps =
      this.window.length > 1 && elapsedMs > w0.t
        ? ((p.completedSamples - w0.completed) * 1000) / (elapsedMs - w0.t)
        : 0;
    // Ticks come about 1 s apart: a little slack keeps a 2 s period from becoming 3 s.
    if (elapsedMs + 100 >= this.nextReportAt) {
      this.nextReportAt = elapsedMs + this.reportEveryMs;
      this.askAdapter(elapsedMs);
    }
    // Between two adapter reports: their token rate; after the first: the
    // current sample rate times the tokens per completed sample so far.
    const { last, prev } = this;
    let tps: number | null = null;
    if (last && prev && last.atMs > prev.atMs) tps = ((last.tokens - prev.tokens) * 1000) / (last.atMs - prev.atMs);
    else if (last && last.completed > 0) tps = qps * (last.tokens / last.completed);
    if (!this.onProgress || this.callbackFailed) return;
    try {
      this.onProgress({
        elapsedMs,
        issued: p.issuedSamples,
        completed: p.completedSamples,
        inFlight,
        qps,
        tokensPerSecond: tps,
        errors: last ? last.errors : null,
        requestErrors: last ? last.requestErrors : null,
        remainingMs: estimateRemainingMs(this.settings, this.datasetSize, {
          elapsedMs,
          issued: p.issuedSamples,
          completed: p.completedSamples,
          qps,
        }),
      });
    } catch (err) {
      // A failing progress callback must not end the run.
      this.callbackFailed = true;
      this.log(`warning: the progress callback threw (${(err as Error).message}); no more progress reports`);
    }
  }
}
