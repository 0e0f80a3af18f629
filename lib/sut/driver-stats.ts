// What one driver counts and measures: totals, per-endpoint figures, the
// gaps between chunks, and (recordTimings) one row per sample; its snapshot
// is merged across threads by report.ts. HttpDriver extends this class, so
// an exchange reports each chunk to its driver in one call, with no object
// in between.
import { native } from '../core/binding.js';
import { Column } from './column.js';
import type { DriverConfig } from './driver-config.js';
import type { Exchange } from './exchange.js';
import type { Failure } from './failure.js';
import { LoopDelayMonitor } from './loop-delay.js';
import { LogHistogram, bump } from './stats.js';
import type { IdMismatch, Percentiles } from './types.js';

/** Plain-data report of one driver, merged across threads. */
export interface DriverSnapshot {
  issued: number;
  /** Exchanges ever created = the most held at once (pooled, reused). */
  peakInFlight: number;
  completed: number;
  failed: number;
  retried: number;
  errorKinds: Record<string, number>;
  chunks: number;
  multiTokenChunks: number;
  chunkTokens: number;
  noIdSamples: number;
  /** Samples whose ids received disagree with the server's count (the first MAX_ID_MISMATCHES listed). */
  idMismatch: { samples: number; first: IdMismatch[] };
  gaps: { counts: Float64Array; total: number; sum: number; min: number; max: number };
  issueDelayNs: Float64Array;
  headersNs: Float64Array;
  endpoints: {
    requests: number;
    completed: number;
    errors: number;
    retries: number;
    outputTokens: number;
    errorKinds: Record<string, number>;
    ttftNs: Float64Array;
    tpotNs: Float64Array;
    latencyNs: Float64Array;
  }[];
  /** Columns of per-sample timings (recordTimings), see TIMING_FIELDS. */
  timings: Float64Array | null;
  timingErrors: string[] | null;
  /** ms the thread's event loop was late (loop-delay.ts), over the driver's life. */
  eventLoopDelayMs: Percentiles;
}

/** Mismatched samples listed per thread; all are counted. */
export const MAX_ID_MISMATCHES = 1000;

export const TIMING_FIELDS = [
  'id',
  'index',
  'endpoint',
  'attempts',
  'scheduledNs',
  'issuedNs',
  'sentNs',
  'headersNs',
  'firstTokenNs',
  'endNs',
  'chunks',
  'multiTokenChunks',
  'tokens',
  'maxGapNs',
  'ok',
  'dispatchedNs',
] as const;
const TF = TIMING_FIELDS.length;

export class EndpointStats {
  requests = 0;
  completed = 0;
  errors = 0;
  retries = 0;
  outputTokens = 0;
  errorKinds: Record<string, number> = {};
  ttft = new Column();
  tpot = new Column();
  latency = new Column();
}

export class DriverStats {
  protected readonly epStats: EndpointStats[];
  private readonly gaps = new LogHistogram();
  private readonly issueDelay = new Column();
  private readonly headersDelay = new Column();
  /** This thread's event-loop delay: a timer and a native histogram, nothing per request. */
  protected readonly loopDelay = new LoopDelayMonitor();
  private timings: Column | null;
  private timingErrors: string[] | null;
  private errorLines = 0;
  /** Exchanges ever created (pooled, reused). */
  protected created = 0;
  issued = 0;
  completed = 0;
  failed = 0;
  retried = 0;
  errorKinds: Record<string, number> = {};
  chunks = 0;
  multiTokenChunks = 0;
  chunkTokens = 0;
  noIdSamples = 0;
  private idMismatches = 0;
  private readonly idMismatchList: IdMismatch[] = [];
  protected readonly counters: Int32Array | null;

  constructor(readonly cfg: DriverConfig) {
    this.epStats = cfg.endpoints.map(() => new EndpointStats());
    this.timings = cfg.recordTimings ? new Column(64 * TF) : null;
    this.timingErrors = cfg.recordTimings ? [] : null;
    this.counters = cfg.counters ? new Int32Array(cfg.counters) : null;
  }

  snapshot(): DriverSnapshot {
    const g = this.gaps;
    return {
      issued: this.issued,
      peakInFlight: this.created,
      completed: this.completed,
      failed: this.failed,
      retried: this.retried,
      errorKinds: { ...this.errorKinds },
      chunks: this.chunks,
      multiTokenChunks: this.multiTokenChunks,
      chunkTokens: this.chunkTokens,
      noIdSamples: this.noIdSamples,
      idMismatch: { samples: this.idMismatches, first: this.idMismatchList.map((m) => ({ ...m })) },
      gaps: { counts: g.counts.slice(), total: g.total, sum: g.sum, min: g.min, max: g.max },
      issueDelayNs: this.issueDelay.toArray(),
      headersNs: this.headersDelay.toArray(),
      endpoints: this.epStats.map((s) => ({
        requests: s.requests,
        completed: s.completed,
        errors: s.errors,
        retries: s.retries,
        outputTokens: s.outputTokens,
        errorKinds: { ...s.errorKinds },
        ttftNs: s.ttft.toArray(),
        tpotNs: s.tpot.toArray(),
        latencyNs: s.latency.toArray(),
      })),
      timings: this.timings ? this.timings.toArray() : null,
      timingErrors: this.timingErrors ? [...this.timingErrors] : null,
      eventLoopDelayMs: this.loopDelay.summary(),
    };
  }

  sampleFailed(x: Exchange, f: Failure, count: number): void {
    this.failed += count;
    if (this.counters !== null && this.counters.length > 2) Atomics.add(this.counters, 2, count);
    bump(this.errorKinds, f.kind, count);
    if (f.kind === 'superseded') return; // counted; the detail log is the new test's
    const url = x.lastEndpoint >= 0 ? this.cfg.endpoints[x.lastEndpoint].origin : 'no endpoint';
    const what = count > 1 ? `${count} samples (batch from qsl_idx ${x.index})` : `sample ${x.id} (qsl_idx ${x.index})`;
    const line = `${what} failed after ${x.attempts} attempt(s) at ${url}: ${f.kind}: ${f.message}`;
    if (this.errorLines < this.cfg.maxErrorLines) {
      this.errorLines++;
      native.logSutMessage('error_runtime', line, 2);
    } else if (this.errorLines === this.cfg.maxErrorLines) {
      this.errorLines++;
      native.logSutMessage('error_runtime', 'more samples failed; further failures are counted in the result only', 2);
    }
    if (this.timingErrors && this.timingErrors.length < 10_000)
      this.timingErrors.push(`${x.id}: ${f.kind}: ${f.message}`);
  }

  /** `x` completed without ids: `ids` received, the server counted `count`. */
  idMismatch(x: Exchange, ids: number, count: number): void {
    this.idMismatches++;
    if (this.idMismatchList.length < MAX_ID_MISMATCHES)
      this.idMismatchList.push({ id: x.id, qslIdx: x.index, ids, count });
  }

  sampleDone(x: Exchange, tokens: number): void {
    this.completed++;
    if (this.counters !== null) {
      Atomics.add(this.counters, 0, tokens);
      Atomics.add(this.counters, 1, 1);
    }
    const k = x.lastEndpoint >= 0 ? x.lastEndpoint : x.endpoint;
    const s = this.epStats[k];
    s.completed++;
    s.outputTokens += tokens;
    if (x.firstTokenNs > 0) {
      s.ttft.push(x.firstTokenNs - x.sentNs);
      if (tokens > 1) s.tpot.push((x.endNs - x.firstTokenNs) / (tokens - 1));
    }
    s.latency.push(x.endNs - x.sentNs);
  }

  recordChunk(x: Exchange, n: number, now: number): void {
    this.chunks++;
    this.chunkTokens += n;
    if (n > 1) {
      this.multiTokenChunks++;
      x.multiTokenChunks++;
    }
    x.chunks++;
    if (x.lastChunkNs > 0) {
      const gap = now - x.lastChunkNs;
      this.gaps.record(gap);
      if (gap > x.maxGapNs) x.maxGapNs = gap;
    }
    x.lastChunkNs = now;
  }

  /** Several token-carrying chunks of one read (native path): they share its time. */
  recordChunks(x: Exchange, chunks: number, multi: number, tokens: number, now: number): void {
    this.chunks += chunks;
    this.chunkTokens += tokens;
    this.multiTokenChunks += multi;
    x.multiTokenChunks += multi;
    x.chunks += chunks;
    if (x.lastChunkNs > 0) {
      const gap = now - x.lastChunkNs;
      this.gaps.record(gap);
      if (gap > x.maxGapNs) x.maxGapNs = gap;
    }
    for (let i = 1; i < chunks; i++) this.gaps.record(0);
    x.lastChunkNs = now;
  }

  recordTiming(x: Exchange, ok: boolean, tokens: number): void {
    if (x.issuedNs > 0 && x.firstSentNs > 0) this.issueDelay.push(x.firstSentNs - x.issuedNs);
    if (x.headersNs > 0) this.headersDelay.push(x.headersNs - x.sentNs);
    const t = this.timings;
    if (!t) return;
    t.push(x.id);
    t.push(x.index);
    t.push(x.lastEndpoint >= 0 ? x.lastEndpoint : x.endpoint);
    t.push(x.attempts);
    t.push(x.scheduledNs || NaN);
    t.push(x.issuedNs || NaN);
    t.push(x.sentNs || NaN);
    t.push(x.headersNs || NaN);
    t.push(x.firstTokenNs || NaN);
    t.push(x.endNs || NaN);
    t.push(x.chunks);
    t.push(x.multiTokenChunks);
    t.push(tokens);
    t.push(x.maxGapNs);
    t.push(ok ? 1 : 0);
    t.push(x.dispatchedNs || NaN);
  }
}
