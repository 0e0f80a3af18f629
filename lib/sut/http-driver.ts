// The HTTP side of the adapter, one per thread (a worker thread, or the main
// thread with `workers: 0`): sends each sample's prebuilt body over an undici
// pool, reads the stream, and completes the sample straight into the engine.
// Retries happen only before the first token (a retry after it would restart
// the clock the engine already stopped for TTFT and corrupt the latency).
import { Pool, errors } from 'undici';

import { native } from '../core/binding.js';
import type { BodyStore } from './body-store.js';
import { chunkedOnly, keepable, markBody, markIdle, reusedReadConnector } from './reused-reads.js';
import { Router, ROUTE_FULL, ROUTE_UNHEALTHY } from './routing.js';
import { SseReader, type SseSink } from './sse.js';
import { requestIdString } from './request-id.js';
import { CLOSED, type Failure, httpFailure, networkFailure, SUPERSEDED } from './failure.js';
import { Fifo, SampleFifo } from './request-queue.js';
import {
  S_CONSUMED,
  S_CRLF,
  S_DONE,
  S_EVENT_END,
  S_EVENT_START,
  S_FINISHED,
  S_IDS_LEN,
  S_MULTI_CHUNKS,
  S_SERVER_COUNT,
  S_STATUS,
  S_TOKEN_CHUNKS,
  SSE_IDS,
  SSE_STATE,
  STATUS_HAND_BACK,
  STATUS_NEED_ROOM,
} from './scan-slots.js';
import { Column } from './column.js';
import { LogHistogram, bump } from './stats.js';
import type { TokenSource, WireApiName } from './types.js';
import { buildBatchBody } from './wire/request-body.js';
import { readFullResponses, scanBody } from './wire/full-responses.js';
import { decodeGenerateChunk } from './wire/generate-chunks.js';
import { decodeOpenAiChunk } from './wire/openai-chunks.js';
import { CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, StreamState } from './wire/stream-state.js';
import { FIRST_TOKEN_ABSENT, FIRST_TOKEN_DATA, FIRST_TOKEN_NONE } from '../resume/journal-format.js';
import { JournalWriter, type JournalTarget } from '../resume/journal-writer.js';

export interface DriverEndpoint {
  /** scheme://host:port */
  origin: string;
  /** Path prefix before the API path ('' for most servers). */
  prefix: string;
  /**
   * Connections this thread may open to it: the endpoint's in-flight cap.
   * Unbounded, undici opens a new connection whenever a request is sent
   * from a response's completion (its connection is not free yet), and the
   * count creeps up with connects paid on the hot path.
   */
  maxConnections: number;
}

export interface DriverConfig {
  endpoints: DriverEndpoint[];
  api: WireApiName;
  path: string;
  tokenSource: TokenSource;
  stream: boolean;
  headers: Record<string, string>;
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No endpoint healthy for this long: waiting samples fail (0 = never). */
  giveUpMs: number;
  recordTimings: boolean;
  /** Failed samples written to the detail log one by one (then only counted). */
  maxErrorLines: number;
  /**
   * Requests dispatched but not yet written, per driver. Bounds the burst of
   * new connections when thousands of samples are issued at once (Offline):
   * a server's listen backlog (511 in Node, 2048 in uvicorn) would drop the
   * excess SYNs and the kernel retries them only after 1 s, then 3 s.
   */
  maxUnsent: number;
  /** Poll instead of sleeping while requests are in flight and idleMs after (native/addon/busy_poll.h); null = sleep. */
  busyPoll?: { idleMs: number } | null;
  /** Append every completed sample to a journal (accuracy and submission runs; see lib/resume). */
  journal?: JournalTarget | null;
  /** Int32Array view shared with the main thread: [0] output tokens, [1] samples completed (live budgets). */
  counters?: SharedArrayBuffer | null;
}

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
}

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

class EndpointStats {
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

const issueScratch = new Float64Array(2);

/** Response ids are (test number × 2^32) + sequence id (native/engine/issue_run.h). */
const ID_BASE = 2 ** 32;

export class HttpDriver {
  private readonly pools: Pool[];
  private readonly free: Exchange[] = [];
  /** Exchanges with an attempt out; each knows its index (activeSlot) for a removal without hashing. */
  private readonly active: Exchange[] = [];
  private readonly waiting = new Fifo<Exchange>(); // begun (retries, batches), to send when a slot frees
  private readonly fresh = new SampleFifo(); // never sent, behind `waiting`
  private readonly retrying = new Set<Exchange>(); // backing off before a retry
  private backlogTimer: NodeJS.Timeout | null = null;
  private readonly sweep: NodeJS.Timeout;
  private readonly epStats: EndpointStats[];
  private readonly gaps = new LogHistogram();
  private readonly issueDelay = new Column();
  private readonly headersDelay = new Column();
  private timings: Column | null;
  private timingErrors: string[] | null;
  private errorLines = 0;
  private unsent = 0;
  private created = 0;
  private testNumber = -1; // of the newest sample seen (the engine's id base: id / 2^32)
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  readonly headerList: string[];
  issued = 0;
  completed = 0;
  failed = 0;
  retried = 0;
  errorKinds: Record<string, number> = {};
  chunks = 0;
  multiTokenChunks = 0;
  chunkTokens = 0;
  noIdSamples = 0;
  readonly journal: JournalWriter | null;
  private readonly counters: Int32Array | null;
  private readonly busyPoll: boolean;

  constructor(
    readonly cfg: DriverConfig,
    readonly router: Router,
    public bodies: BodyStore | null,
  ) {
    this.pools = cfg.endpoints.map(
      (e) =>
        new Pool(e.origin, {
          connections: e.maxConnections > 0 ? e.maxConnections : null,
          pipelining: 1,
          keepAliveTimeout: 60_000,
          keepAliveMaxTimeout: 600_000,
          // The first-byte and idle-read timeouts are ours (checkDeadlines):
          // bypassed chunked bodies (reused-reads.ts) never reach undici's
          // body timer, and its headers timer cost a timer object per
          // request that lived past a scavenge (cleared lazily).
          headersTimeout: 0,
          bodyTimeout: 0,
          connect: reusedReadConnector(cfg.connectMs),
        }),
    );
    this.epStats = cfg.endpoints.map(() => new EndpointStats());
    this.timings = cfg.recordTimings ? new Column(64 * TF) : null;
    this.timingErrors = cfg.recordTimings ? [] : null;
    this.headerList = ['content-type', 'application/json'];
    for (const [k, v] of Object.entries(cfg.headers)) this.headerList.push(k, v);
    // Often enough for the first-byte and idle-read timeouts to fire within a quarter of them late.
    this.sweep = setInterval(() => this.checkDeadlines(), Math.max(10, Math.min(200, Math.min(cfg.firstByteMs, cfg.idleMs) / 4)));
    this.sweep.unref();
    this.journal = cfg.journal ? new JournalWriter(cfg.journal) : null;
    this.counters = cfg.counters ? new Int32Array(cfg.counters) : null;
    this.busyPoll = cfg.busyPoll != null;
    if (this.busyPoll) native.busyPollEnable(cfg.busyPoll!.idleMs);
  }

  /** Sends one sample, or parks it (as numbers) until a slot frees. */
  submit(id: number, index: number): void {
    if (this.staleTest(id)) return;
    this.issued++;
    if (this.closed) {
      this.failParked([id, index, native.nowNs()], CLOSED);
      return;
    }
    if (this.waiting.length === 0 && this.fresh.length === 0 && this.unsent < this.cfg.maxUnsent) {
      const k = this.router.acquire(-1);
      if (k >= 0) {
        const x = this.take();
        x.begin(id, index, null, null, native.nowNs());
        this.send(x, k);
        return;
      }
      this.armBacklog(k === ROUTE_UNHEALTHY ? Math.max(5, this.router.msUntilProbe()) : 5);
    }
    this.fresh.push(id, index, native.nowNs());
  }

  /** Sends several samples in one request (Offline batching; non-streaming). */
  submitBatch(ids: number[], indices: number[]): void {
    if (this.staleTest(ids[0])) return;
    const x = this.take();
    x.begin(ids[0], indices[0], ids, indices, native.nowNs());
    this.issued += ids.length;
    this.route(x);
  }

  get inFlight(): number {
    return this.active.length + this.waiting.length + this.fresh.length + this.retrying.size;
  }

  /**
   * The engine's response ids carry their test's number (id / 2^32). When a
   * sample of a newer test arrives, what the adapter still holds for older
   * tests (an aborted test's parked, backing-off and running requests) is
   * dropped: the engine ignores their answers, and they must not take the
   * new test's slots. A sample of an older test arriving late is dropped too.
   */
  private staleTest(id: number): boolean {
    const t = Math.floor(id / ID_BASE);
    if (t === this.testNumber) return false;
    if (t < this.testNumber) return true;
    const first = this.testNumber < 0;
    this.testNumber = t;
    if (first) return false;
    // Everything is taken out first: a failure frees a slot, which must not send the rest.
    const held = [...this.retrying, ...this.waiting.drain()];
    for (const x of this.retrying) if (x.retryTimer) clearTimeout(x.retryTimer);
    this.retrying.clear();
    const parked = this.takeParked(() => true);
    for (const x of held) x.fail(SUPERSEDED);
    this.failParked(parked, SUPERSEDED);
    for (const x of [...this.active]) x.abortNow('a newer test started', 'superseded');
    return false;
  }

  /** Resolves when nothing is in flight. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweep);
    if (this.backlogTimer) clearTimeout(this.backlogTimer);
    for (const x of [...this.active]) x.abortNow('the adapter was closed', 'closed');
    for (const x of this.retrying) {
      if (x.retryTimer) clearTimeout(x.retryTimer);
      x.retryTimer = null;
    }
    const left = [...this.retrying, ...this.waiting.drain()];
    this.retrying.clear();
    const parked = this.takeParked(() => true);
    for (const x of left) x.fail(CLOSED);
    this.failParked(parked, CLOSED);
    await Promise.all(this.pools.map((p) => p.destroy().catch(() => undefined)));
    this.journal?.close();
    if (this.busyPoll) native.busyPollDisable();
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
    };
  }

  // ---- internals used by Exchange ----

  private take(): Exchange {
    const x = this.free.pop();
    if (x) return x;
    this.created++;
    return new Exchange(this);
  }

  /** Picks an endpoint and sends, or parks the exchange until one frees up. */
  route(x: Exchange): void {
    if (this.closed) {
      x.fail(CLOSED);
      return;
    }
    if (this.unsent >= this.cfg.maxUnsent) {
      this.waiting.push(x); // sent when an earlier request has been written
      return;
    }
    const k = this.router.acquire(x.lastEndpoint);
    if (k >= 0) {
      this.send(x, k);
      return;
    }
    this.waiting.push(x);
    this.armBacklog(k === ROUTE_UNHEALTHY ? Math.max(5, this.router.msUntilProbe()) : 5);
  }

  private armBacklog(ms: number): void {
    if (this.backlogTimer) return;
    this.backlogTimer = setTimeout(() => {
      this.backlogTimer = null;
      this.drainBacklog();
    }, ms);
  }

  drainBacklog(): void {
    if (this.closed) return;
    while (this.waiting.length > 0 && this.unsent < this.cfg.maxUnsent) {
      const k = this.router.acquire(this.waiting.peek().lastEndpoint);
      if (k === ROUTE_FULL || k === ROUTE_UNHEALTHY) {
        this.armBacklog(k === ROUTE_UNHEALTHY ? Math.max(5, this.router.msUntilProbe()) : 5);
        return;
      }
      this.send(this.waiting.shift(), k);
    }
    const f = this.fresh;
    while (f.length > 0 && this.unsent < this.cfg.maxUnsent) {
      const k = this.router.acquire(-1);
      if (k === ROUTE_FULL || k === ROUTE_UNHEALTHY) {
        this.armBacklog(k === ROUTE_UNHEALTHY ? Math.max(5, this.router.msUntilProbe()) : 5);
        return;
      }
      const x = this.take();
      x.begin(f.peek(0), f.peek(1), null, null, f.peek(2));
      f.drop();
      this.send(x, k);
    }
  }

  /** Removes the oldest parked samples while `pred(submittedNs)` holds: [id, index, ns, ...]. */
  private takeParked(pred: (submittedNs: number) => boolean): number[] {
    const out: number[] = [];
    const f = this.fresh;
    while (f.length > 0 && pred(f.peek(2))) {
      out.push(f.peek(0), f.peek(1), f.peek(2));
      f.drop();
    }
    return out;
  }

  /** Completes samples taken by takeParked as failed, one pooled exchange at a time (the pool stays small). */
  private failParked(parked: number[], f: Failure): void {
    for (let i = 0; i < parked.length; i += 3) {
      const x = this.take();
      x.begin(parked[i], parked[i + 1], null, null, parked[i + 2]);
      x.fail(f);
    }
  }

  private send(x: Exchange, k: number): void {
    x.endpoint = k;
    x.attempts++;
    this.epStats[k].requests++;
    if (x.attempts > 1) {
      this.epStats[k].retries++;
      this.retried++;
    }
    this.addActive(x);
    this.unsent++;
    x.unsent = true;
    const body = x.batchIds ? this.batchBody(x) : this.bodies!.body(x.index);
    x.prepareAttempt();
    const ep = this.cfg.endpoints[k];
    const headers = this.headerList.slice();
    headers.push('x-request-id', requestIdString(x.id));
    const handler = new Attempt(x, ++x.generation);
    try {
      this.pools[k].dispatch({ origin: ep.origin, path: ep.prefix + this.cfg.path, method: 'POST', headers, body }, handler);
    } catch (err) {
      handler.onError(err as Error);
    }
  }

  private addActive(x: Exchange): void {
    if (x.activeSlot >= 0) return;
    if (this.active.length === 0 && this.busyPoll) native.busyPollHold(1);
    x.activeSlot = this.active.length;
    this.active.push(x);
  }

  private removeActive(x: Exchange): void {
    const i = x.activeSlot;
    if (i < 0) return;
    const last = this.active.pop() as Exchange;
    if (last !== x) {
      this.active[i] = last;
      last.activeSlot = i;
    }
    x.activeSlot = -1;
    if (this.active.length === 0 && this.busyPoll) native.busyPollHold(-1);
  }

  private batchBody(x: Exchange): Buffer {
    const store = this.bodies!;
    return buildBatchBody(x.batchIndices!.map((i) => store.entry(i)));
  }

  /** The exchange has ended (completed or failed): free its slot and recycle it. */
  finished(x: Exchange): void {
    x.generation++;
    x.release();
    this.removeActive(x);
    this.free.push(x);
    if (this.waiting.length > 0 || this.fresh.length > 0) this.drainBacklog();
    if (this.inFlight === 0 && this.idleWaiters.length > 0) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** The request has been written (or failed before): one more may start connecting. */
  written(x: Exchange): void {
    if (!x.unsent) return;
    x.unsent = false;
    this.unsent--;
    if ((this.waiting.length > 0 || this.fresh.length > 0) && this.unsent === this.cfg.maxUnsent - 1) this.drainBacklog();
  }

  releaseEndpoint(x: Exchange): void {
    this.written(x);
    if (x.endpoint >= 0) {
      this.router.release(x.endpoint);
      x.lastEndpoint = x.endpoint;
      x.endpoint = -1;
    }
  }

  /** Backs off, then routes the exchange again. */
  retryLater(x: Exchange, f: Failure): void {
    const exp = Math.min(this.cfg.maxDelayMs, this.cfg.baseDelayMs * 2 ** (x.attempts - 1));
    let delay = Math.random() * exp; // full jitter
    if (f.retryAfterMs > 0) delay = Math.max(delay, Math.min(f.retryAfterMs, this.cfg.maxDelayMs));
    x.generation++;
    this.removeActive(x);
    this.retrying.add(x); // counted as in flight while it waits
    x.retryTimer = setTimeout(() => {
      x.retryTimer = null;
      if (!this.retrying.delete(x)) return;
      this.route(x);
    }, delay);
  }

  recordFailure(x: Exchange, f: Failure): void {
    const k = x.endpoint >= 0 ? x.endpoint : x.lastEndpoint;
    if (k >= 0 && f.kind !== 'superseded') {
      const s = this.epStats[k];
      s.errors++;
      bump(s.errorKinds, f.kind);
      if (f.endpointFault && this.router.failure(k)) bump(this.errorKinds, 'breaker-opened');
    }
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
    if (this.timingErrors && this.timingErrors.length < 10_000) this.timingErrors.push(`${x.id}: ${f.kind}: ${f.message}`);
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

  private checkDeadlines(): void {
    if (this.inFlight === 0) return;
    const now = native.nowNs();
    const idleNs = this.cfg.idleMs * 1e6;
    const firstByteNs = this.cfg.firstByteMs * 1e6;
    // An exchange that ends here swaps the last one into its index, or is
    // reused at once for a sample from the backlog (a parked sample may be
    // past its deadline already): then that index is looked at again.
    // Samples sent meanwhile are appended and looked at too.
    for (let i = 0; i < this.active.length; ) {
      const x = this.active[i];
      const generation = x.generation;
      if (now > x.deadlineNs) x.abortNow(`no answer within the ${this.cfg.totalMs} ms deadline`, 'deadline');
      else if (x.headersNs > 0) {
        if (now - x.lastReadNs > idleNs) x.idleTimeout(this.cfg.idleMs);
      } else if (!x.unsent && now - x.sentNs > firstByteNs) x.firstByteTimeout(this.cfg.firstByteMs);
      if (this.active[i] === x && x.generation === generation) i++;
    }
    const expired: Exchange[] = [];
    for (const x of this.retrying) if (now > x.deadlineNs) expired.push(x);
    if (this.waiting.length > 0) this.waiting.removeIf((x) => now > x.deadlineNs, expired);
    // Parked samples are in submission order: only the oldest can have expired.
    const totalNs = this.cfg.totalMs * 1e6;
    const parked = this.takeParked((at) => now > at + totalNs);
    // Every circuit open for giveUpMs (each probe since has failed): what
    // waits for an endpoint would only fail at its total deadline, so it
    // fails now. New samples still probe when a cooldown ends.
    const down = this.cfg.giveUpMs > 0 ? this.router.noneHealthyForMs() : 0;
    const stranded: Exchange[] = [];
    let strandedParked: number[] = [];
    if (down > this.cfg.giveUpMs) {
      if (this.waiting.length > 0) this.waiting.removeIf(() => true, stranded);
      strandedParked = this.takeParked(() => true);
    }
    const deadline: Failure = { kind: 'deadline', message: `no endpoint could take the sample within the ${this.cfg.totalMs} ms deadline`, retryable: false, endpointFault: false, retryAfterMs: 0 };
    for (const x of expired) {
      this.retrying.delete(x);
      if (x.retryTimer) clearTimeout(x.retryTimer);
      x.retryTimer = null;
      x.fail(deadline);
    }
    this.failParked(parked, deadline);
    if (stranded.length > 0 || strandedParked.length > 0) {
      const f: Failure = {
        kind: 'no-healthy-endpoint',
        message: `no endpoint has been healthy for ${(down / 1000).toFixed(1)} s (every circuit open, every probe failed; breaker.giveUpMs ${this.cfg.giveUpMs})`,
        retryable: false,
        endpointFault: false,
        retryAfterMs: 0,
      };
      for (const x of stranded) x.fail(f);
      this.failParked(strandedParked, f);
    }
  }
}

/**
 * The undici handler of one attempt. Exchanges are reused, and a request we
 * gave up on can still report to its handler; the generation check drops
 * such late calls.
 */
class Attempt {
  constructor(
    private readonly x: Exchange,
    private readonly generation: number,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    if (this.x.generation === this.generation) this.x.onConnect(abort);
    else abort(new Error('stale attempt'));
  }

  onRequestSent(): void {
    if (this.x.generation === this.generation) this.x.onRequestSent();
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null, resume: () => void, text: string): boolean {
    const current = this.x.generation === this.generation;
    // A streamed answer's chunks come straight to onBody, past undici's parser.
    markBody(status, current && status === 200 && this.x.streamed && chunkedOnly(rawHeaders) ? this : null);
    if (current) return this.x.onHeaders(status, rawHeaders, resume, text);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.x.generation === this.generation) return this.x.onData(chunk);
    return true;
  }

  onBody(buf: Buffer, start: number, length: number): void {
    if (this.x.generation === this.generation) this.x.onBody(buf, start, length);
  }

  onComplete(trailers: unknown): void {
    markIdle();
    if (this.x.generation === this.generation) this.x.onComplete(trailers);
  }

  onError(err: Error): void {
    markIdle();
    if (this.x.generation === this.generation) this.x.onError(err);
  }
}

/** One sample's (or batch's) request, across its attempts. Pooled. */
class Exchange implements SseSink {
  generation = 0;
  /** Index in the driver's active list, -1 when not there. */
  activeSlot = -1;
  id = 0;
  index = 0;
  batchIds: number[] | null = null;
  batchIndices: number[] | null = null;
  endpoint = -1;
  lastEndpoint = -1;
  attempts = 0;
  deadlineNs = 0;
  unsent = false;
  retryTimer: NodeJS.Timeout | null = null;
  scheduledNs = 0;
  issuedNs = 0;
  firstSentNs = 0;
  /** When the last attempt was handed to undici (before its pool queue and its write). */
  dispatchedNs = 0;
  sentNs = 0;
  headersNs = 0;
  firstTokenNs = 0;
  lastChunkNs = 0;
  endNs = 0;
  chunks = 0;
  multiTokenChunks = 0;
  maxGapNs = 0;
  private firstTokenData = false;
  private status = 0;
  private retryAfterMs = 0;
  private abort: ((err?: Error) => void) | null = null;
  private ended = false; // this attempt has settled
  private done = false; // the sample has been completed (or failed) in the engine
  private abortReason: string | null = null;
  private abortKind = 'deadline';
  private readNs = 0;
  private readonly fast: boolean;
  private readonly fastBody: boolean;
  readonly streamed: boolean;
  private crlf = 0; // the stream's line ends, as the scanner decided them
  private carry: Buffer | null = null;
  private readonly st = new StreamState();
  private readonly sse = new SseReader();
  private bodyParts: Buffer[] = [];

  constructor(private readonly d: HttpDriver) {
    const native = d.cfg.api !== 'generate' && d.cfg.tokenSource === 'token_ids' && !process.env.LOADGEN_NO_NATIVE_SSE;
    this.fast = native && d.cfg.stream;
    this.fastBody = native && !d.cfg.stream;
    this.streamed = d.cfg.stream;
  }

  /** `startNs`: when the sample reached the driver (its total deadline runs from there). */
  begin(id: number, index: number, ids: number[] | null, indices: number[] | null, startNs: number): void {
    this.id = id;
    this.index = index;
    this.batchIds = ids;
    this.batchIndices = indices;
    this.endpoint = -1;
    this.lastEndpoint = -1;
    this.attempts = 0;
    this.done = false;
    this.firstTokenNs = 0;
    this.firstTokenData = false;
    this.firstSentNs = 0;
    this.dispatchedNs = 0;
    this.headersNs = 0;
    this.endNs = 0;
    this.chunks = 0;
    this.multiTokenChunks = 0;
    this.maxGapNs = 0;
    this.lastChunkNs = 0;
    this.scheduledNs = 0;
    this.issuedNs = 0;
    if (native.issueTimes(id, issueScratch)) {
      this.scheduledNs = issueScratch[0];
      this.issuedNs = issueScratch[1];
    }
    this.deadlineNs = startNs + this.d.cfg.totalMs * 1e6;
  }

  /**
   * Back in the free pool: drop what the last attempt left behind. Pooled
   * exchanges live long (old generation); a kept abort closure held undici's
   * request with its header strings and buffers, which then outlived two
   * scavenges whenever the exchange waited in the pool, and every one of
   * them became old-generation garbage for the next mark-compact.
   */
  release(): void {
    this.abort = null;
    this.carry = null;
    this.bodyParts.length = 0;
    this.batchIds = null;
    this.batchIndices = null;
  }

  prepareAttempt(): void {
    this.ended = false;
    this.status = 0;
    this.retryAfterMs = 0;
    this.abort = null;
    this.abortReason = null;
    this.st.reset();
    this.sse.reset();
    this.crlf = 0;
    this.carry = null;
    this.bodyParts.length = 0;
    this.headersNs = 0;
    this.chunks = 0;
    this.multiTokenChunks = 0;
    this.maxGapNs = 0;
    this.lastChunkNs = 0;
    this.dispatchedNs = this.sentNs = native.nowNs();
    if (this.firstSentNs === 0) this.firstSentNs = this.sentNs;
  }

  abortNow(reason: string, kind: string): void {
    this.abortReason = reason;
    this.abortKind = kind;
    if (this.abort) this.abort(new Error(reason));
  }

  // ---- undici handler (through Attempt) ----

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    if (this.abortReason !== null) abort(new Error(this.abortReason));
  }

  onRequestSent(): void {
    this.sentNs = native.nowNs();
    if (this.attempts === 1) this.firstSentNs = this.sentNs;
    this.d.written(this);
  }

  /** When the body last made progress (headers, then each read). */
  get lastReadNs(): number {
    return this.readNs > this.headersNs ? this.readNs : this.headersNs;
  }

  /** No response headers within firstByteMs of the request's write: undici's headers-timeout error (classified, retried). */
  firstByteTimeout(ms: number): void {
    if (this.ended || this.abort === null) return;
    this.abort(new errors.HeadersTimeoutError(`no response headers within ${ms} ms of the request`));
  }

  /** No body bytes for idleMs: undici's body-timeout error, so it is classified and retried as before. */
  idleTimeout(idleMs: number): void {
    if (this.ended || this.abort === null) return;
    this.abort(new errors.BodyTimeoutError(`no response data for ${idleMs} ms`));
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null, _resume: () => void, _text: string): boolean {
    this.headersNs = native.nowNs();
    this.status = status;
    if (status !== 200 && rawHeaders) {
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        if (String(rawHeaders[i]).toLowerCase() === 'retry-after') {
          const s = Number(String(rawHeaders[i + 1]));
          if (s >= 0) this.retryAfterMs = s * 1000;
        }
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.ended) return true;
    if (this.status !== 200 || !this.d.cfg.stream) {
      this.readNs = native.nowNs();
      this.bodyParts.push(keepable(chunk));
      return true;
    }
    if (this.fast) {
      this.fastRead(chunk, 0, chunk.length, false);
      return true;
    }
    this.readNs = native.nowNs(); // one clock read per socket read, shared by its events
    this.sse.push(chunk, this);
    return true;
  }

  /** A bypassed body read (reused-reads): bytes [start, start + length) of the thread's read buffer. */
  onBody(buf: Buffer, start: number, length: number): void {
    if (this.ended) return;
    // The bypass is only offered for a streamed 200 answer (Attempt.onHeaders).
    if (this.fast) this.fastRead(buf, start, start + length, this.carry === null);
    else this.onData(buf.subarray(start, start + length));
  }

  // The native path (OpenAI-style streams with token ids): one native call
  // per read frames the events, appends the ids and returns the read's time;
  // events it does not decode (role chunks, errors, odd shapes) come back
  // here by position and go through the TypeScript decoders.
  // `inReadBuffer`: buf is the thread's registered read buffer, scanned by
  // offsets (no typed array to unwrap).
  private fastRead(chunk: Buffer, start: number, end: number, inReadBuffer: boolean): void {
    let buf = chunk;
    let off = start;
    if (this.carry !== null) {
      buf = Buffer.concat([this.carry, chunk.subarray(start, end)]);
      this.carry = null;
      off = 0;
      end = buf.length;
      inReadBuffer = false;
    }
    const fs = SSE_STATE;
    const st = this.st;
    const t = st.tokens;
    while (!this.ended) {
      // The scanner's state is per thread: load this stream's into it.
      fs[S_IDS_LEN] = 0;
      fs[S_SERVER_COUNT] = st.serverTokens;
      fs[S_FINISHED] = st.finishReason === null ? 0 : 1;
      fs[S_DONE] = 0;
      fs[S_CRLF] = this.crlf;
      const now = inReadBuffer ? native.sseScanRead(off, end - off) : native.sseScan(off === 0 && end === buf.length ? buf : buf.subarray(off, end));
      this.readNs = now;
      this.crlf = fs[S_CRLF];
      const fresh = fs[S_IDS_LEN];
      if (fresh > 0) {
        t.reserve(fresh);
        if (fresh === 1) t.ids[t.length++] = SSE_IDS[0];
        else {
          t.ids.set(SSE_IDS.subarray(0, fresh), t.length);
          t.length += fresh;
        }
      }
      st.serverTokens = fs[S_SERVER_COUNT];
      if (fs[S_FINISHED] === 1 && st.finishReason === null) st.finishReason = 'finished';
      const chunks = fs[S_TOKEN_CHUNKS];
      if (chunks > 0) this.tokensArrived(chunks, fs[S_MULTI_CHUNKS], fresh, now);
      if (fs[S_DONE] === 1) {
        this.succeed();
        return;
      }
      const consumed = fs[S_CONSUMED];
      const status = fs[S_STATUS];
      if (status === STATUS_NEED_ROOM) {
        off += consumed;
        continue;
      }
      if (status === STATUS_HAND_BACK) {
        const a = off + fs[S_EVENT_START];
        const e = off + fs[S_EVENT_END];
        // The event's lines through the string reader and the TypeScript decoders.
        this.sse.reset();
        this.sse.push(buf.subarray(a, e), this);
        this.sse.end(this);
        off += consumed;
        continue;
      }
      if (off + consumed < end) this.carry = Buffer.from(buf.subarray(off + consumed, end));
      return;
    }
  }

  private tokensArrived(chunks: number, multi: number, tokens: number, now: number): void {
    this.d.recordChunks(this, chunks, multi, tokens, now);
    if (this.firstTokenNs === 0 && this.st.tokens.length > 0) {
      this.firstTokenNs = now;
      this.d.router.success(this.endpoint);
      native.firstTokenBytes(this.id, this.st.tokens.ids, 4);
      this.firstTokenData = true;
    }
  }

  onComplete(_trailers: unknown): void {
    if (this.ended) return;
    if (this.status !== 200) {
      this.attemptFailed(httpFailure(this.status, this.bodyParts, this.retryAfterMs));
      return;
    }
    if (!this.d.cfg.stream) {
      this.completeFromBody();
      return;
    }
    if (this.fast && this.carry !== null) {
      // A last event without its blank line.
      const rest = this.carry;
      this.carry = null;
      this.sse.reset();
      this.sse.push(rest, this);
    }
    this.sse.end(this);
    if (this.ended) return;
    // The body ended without [DONE]: fine if the last chunk said it was finished.
    if (this.st.finishReason !== null) this.succeed();
    else this.attemptFailed({ kind: 'truncated-stream', message: 'the stream ended before its last chunk', retryable: true, endpointFault: true, retryAfterMs: 0 });
  }

  onError(err: Error): void {
    if (this.ended) return;
    this.attemptFailed(networkFailure(err, this.abortReason, this.abortKind));
  }

  // ---- SSE ----

  onSseData(text: string, s: number, e: number): void {
    if (this.ended) return;
    const st = this.st;
    const r = this.d.cfg.api === 'generate' ? decodeGenerateChunk(text, s, e, st) : decodeOpenAiChunk(text, s, e, st, this.d.cfg.tokenSource, this.d.cfg.api === 'chat');
    if (r === CHUNK_TOKENS) {
      const now = this.readNs;
      this.d.recordChunk(this, st.chunkTokens, now);
      if (this.firstTokenNs === 0) {
        this.firstTokenNs = now;
        this.d.router.success(this.endpoint);
        const t = st.tokens;
        this.firstTokenData = t.length > 0 && t.ids[0] >= 0;
        if (this.firstTokenData) native.firstTokenBytes(this.id, t.ids, 4);
        else native.firstTokenBytes(this.id);
      }
      return;
    }
    if (r === CHUNK_ERROR || r === CHUNK_MALFORMED) {
      // Taken first: a final failure recycles this exchange, which drops it.
      const abort = this.abort;
      if (r === CHUNK_ERROR) this.attemptFailed({ kind: 'error-event', message: st.error ?? 'error event', retryable: true, endpointFault: true, retryAfterMs: 0 });
      else this.attemptFailed({ kind: 'malformed-stream', message: st.error ?? 'malformed chunk', retryable: true, endpointFault: true, retryAfterMs: 0 });
      // Close the connection of the stream we gave up on; undici reports the abort to onError, which is ignored now.
      if (abort) abort(new Error('stream abandoned'));
    }
  }

  onSseDone(): void {
    if (this.ended) return;
    this.succeed();
  }

  // ---- outcomes ----

  private succeed(): void {
    this.ended = true;
    this.endNs = native.nowNs();
    const st = this.st;
    const n = st.tokenCount;
    this.d.router.success(this.endpoint);
    this.d.releaseEndpoint(this);
    const t = st.tokens;
    const idsUsable = t.length > 0 && t.length === n && allValid(t.ids, t.length);
    if (idsUsable) native.completeBytes(this.id, n, t.ids, t.length * 4);
    else {
      this.d.noIdSamples++;
      native.completeBytes(this.id, n);
    }
    const j = this.d.journal;
    if (j !== null && j.enabled) this.journalDone(j, this.index, n, idsUsable ? t.ids : null, idsUsable ? t.length : 0);
    this.done = true;
    this.d.sampleDone(this, n);
    this.d.recordTiming(this, true, n);
    this.d.finished(this);
  }

  private completeFromBody(): void {
    this.ended = true;
    this.endNs = native.nowNs();
    const parts = this.bodyParts;
    const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const expected = this.batchIds ? this.batchIds.length : 1;
    let results = this.fastBody && expected === 1 ? scanBody(buf) : null;
    if (results === null) {
      let body: unknown;
      try {
        body = JSON.parse(buf.toString('utf8'));
      } catch {
        this.ended = false;
        this.attemptFailed({ kind: 'malformed-body', message: 'the response body is not JSON', retryable: true, endpointFault: true, retryAfterMs: 0 });
        return;
      }
      const read = readFullResponses(body, this.d.cfg.api, expected);
      if (typeof read === 'string') {
        this.ended = false;
        this.attemptFailed({ kind: 'malformed-body', message: read, retryable: true, endpointFault: true, retryAfterMs: 0 });
        return;
      }
      results = read;
    }
    this.d.router.success(this.endpoint);
    this.d.releaseEndpoint(this);
    const ids = this.batchIds ?? [this.id];
    for (let i = 0; i < ids.length; i++) {
      const r = results[i];
      if (r.ids) native.completeBytes(ids[i], r.count, r.ids, r.ids.byteLength);
      else {
        this.d.noIdSamples++;
        native.completeBytes(ids[i], r.count);
      }
      const j = this.d.journal;
      if (j !== null && j.enabled) this.journalDone(j, this.batchIndices ? this.batchIndices[i] : this.index, r.count, r.ids, r.ids ? r.ids.length : 0);
      this.d.sampleDone(this, r.count);
    }
    this.done = true;
    this.d.recordTiming(this, true, results[0]?.count ?? 0);
    this.d.finished(this);
  }

  // What the engine was given, so a resumed run can give it the same (after the completion: no latency added).
  private journalDone(j: JournalWriter, index: number, n: number, ids: Int32Array | null, nIds: number): void {
    const first = this.firstTokenNs === 0 ? FIRST_TOKEN_ABSENT : this.firstTokenData ? FIRST_TOKEN_DATA : FIRST_TOKEN_NONE;
    const sent = this.firstSentNs || this.sentNs;
    j.append(index, n, ids, nIds, first, Math.max(0, this.lastEndpoint >= 0 ? this.lastEndpoint : this.endpoint), this.firstTokenNs > 0 ? this.firstTokenNs - this.sentNs : NaN, this.endNs - sent);
  }

  private attemptFailed(f: Failure): void {
    if (this.ended) return;
    this.ended = true;
    this.d.recordFailure(this, f);
    this.d.releaseEndpoint(this);
    const canRetry =
      f.retryable && this.firstTokenNs === 0 && this.attempts <= this.d.cfg.maxRetries && native.nowNs() < this.deadlineNs && this.abortReason === null;
    if (canRetry) {
      this.d.retryLater(this, f);
      return;
    }
    this.fail(f);
  }

  /** Completes the sample(s) as failed: nTokens 0, no data. */
  fail(f: Failure): void {
    this.ended = true;
    if (this.done) return;
    this.done = true;
    this.endNs = native.nowNs();
    this.d.releaseEndpoint(this);
    const ids = this.batchIds ?? [this.id];
    for (const id of ids) native.completeBytes(id, 0);
    this.d.sampleFailed(this, f, ids.length);
    this.d.recordTiming(this, false, 0);
    this.d.finished(this);
  }
}

function allValid(ids: Int32Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (ids[i] < 0) return false;
  return true;
}
