// One sample's (or one batch's) request across its attempts, as a state
// machine driven by undici's callbacks (through http-attempt.ts): the
// response's headers, its body read by read (native scanner or the
// TypeScript decoders), and the outcome it reports to the engine and back
// to its driver. Exchanges are pooled and reused; nothing here allocates per
// chunk.
import { errors } from 'undici';

import { native } from '../core/binding.js';
import { FIRST_TOKEN_ABSENT, FIRST_TOKEN_DATA, FIRST_TOKEN_NONE } from '../resume/journal-format.js';
import type { JournalWriter } from '../resume/journal-writer.js';
import type { DriverConfig } from './driver-config.js';
import { type Failure, httpFailure, networkFailure, retryAfterMsOf } from './failure.js';
import { keepable } from './reused-reads.js';
import type { Router } from './routing.js';
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
import { SseReader, type SseSink } from './sse.js';
import { decodeFullBody } from './wire/full-responses.js';
import { decodeGenerateChunk } from './wire/generate-chunks.js';
import { decodeOpenAiChunk } from './wire/openai-chunks.js';
import { CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, StreamState } from './wire/stream-state.js';

/**
 * The driver as an exchange sees it (HttpDriver implements it): its
 * configuration, and where an exchange reports its progress and outcome.
 * An interface here rather than the class keeps the imports one-way.
 */
export interface ExchangeDriver {
  readonly cfg: DriverConfig;
  readonly router: Router;
  readonly journal: JournalWriter | null;
  noIdSamples: number;
  /** `x` completed without ids because the `ids` received disagree with the server's `count`. */
  idMismatch(x: Exchange, ids: number, count: number): void;
  /** The request has been written (or failed before). */
  written(x: Exchange): void;
  releaseEndpoint(x: Exchange): void;
  retryLater(x: Exchange, f: Failure): void;
  /** The exchange has ended (completed or failed). */
  finished(x: Exchange): void;
  recordFailure(x: Exchange, f: Failure): void;
  recordChunk(x: Exchange, n: number, now: number): void;
  recordChunks(x: Exchange, chunks: number, multi: number, tokens: number, now: number): void;
  recordTiming(x: Exchange, ok: boolean, tokens: number): void;
  sampleDone(x: Exchange, tokens: number): void;
  sampleFailed(x: Exchange, f: Failure, count: number): void;
}

const issueScratch = new Float64Array(2);

/** One sample's (or batch's) request, across its attempts. Pooled. */
export class Exchange implements SseSink {
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

  constructor(private readonly d: ExchangeDriver) {
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
    return Math.max(this.readNs, this.headersNs);
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
    if (status !== 200 && rawHeaders) this.retryAfterMs = retryAfterMsOf(rawHeaders, this.retryAfterMs);
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
      const now = inReadBuffer
        ? native.sseScanRead(off, end - off)
        : native.sseScan(off === 0 && end === buf.length ? buf : buf.subarray(off, end));
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
    else
      this.attemptFailed({
        kind: 'truncated-stream',
        message: 'the stream ended before its last chunk',
        retryable: true,
        endpointFault: true,
        retryAfterMs: 0,
      });
  }

  onError(err: Error): void {
    if (this.ended) return;
    this.attemptFailed(networkFailure(err, this.abortReason, this.abortKind));
  }

  // ---- SSE ----

  onSseData(text: string, s: number, e: number): void {
    if (this.ended) return;
    const st = this.st;
    const r =
      this.d.cfg.api === 'generate'
        ? decodeGenerateChunk(text, s, e, st)
        : decodeOpenAiChunk(text, s, e, st, this.d.cfg.tokenSource, this.d.cfg.api === 'chat');
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
      if (r === CHUNK_ERROR)
        this.attemptFailed({
          kind: 'error-event',
          message: st.error ?? 'error event',
          retryable: true,
          endpointFault: true,
          retryAfterMs: 0,
        });
      else
        this.attemptFailed({
          kind: 'malformed-stream',
          message: st.error ?? 'malformed chunk',
          retryable: true,
          endpointFault: true,
          retryAfterMs: 0,
        });
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
      // Ids that disagree with the server's count would put a wrong sequence
      // in the accuracy log: the sample goes in count-only, and is named.
      if (st.serverTokens >= 0 && t.length !== n && (t.length > 0 || this.d.cfg.tokenSource === 'logprobs'))
        this.d.idMismatch(this, t.length, n);
      else this.d.noIdSamples++;
      native.completeBytes(this.id, n);
    }
    const j = this.d.journal;
    if (j?.enabled) this.journalDone(j, this.index, n, idsUsable ? t.ids : null, idsUsable ? t.length : 0);
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
    const results = decodeFullBody(buf, this.d.cfg.api, expected, this.fastBody);
    if (typeof results === 'string') {
      this.ended = false;
      this.attemptFailed({
        kind: 'malformed-body',
        message: results,
        retryable: true,
        endpointFault: true,
        retryAfterMs: 0,
      });
      return;
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
      if (j?.enabled)
        this.journalDone(
          j,
          this.batchIndices ? this.batchIndices[i] : this.index,
          r.count,
          r.ids,
          r.ids ? r.ids.length : 0,
        );
      this.d.sampleDone(this, r.count);
    }
    this.done = true;
    this.d.recordTiming(this, true, results[0]?.count ?? 0);
    this.d.finished(this);
  }

  // What the engine was given, so a resumed run can give it the same (after the completion: no latency added).
  private journalDone(j: JournalWriter, index: number, n: number, ids: Int32Array | null, nIds: number): void {
    const first =
      this.firstTokenNs === 0 ? FIRST_TOKEN_ABSENT : this.firstTokenData ? FIRST_TOKEN_DATA : FIRST_TOKEN_NONE;
    const sent = this.firstSentNs || this.sentNs;
    j.append(
      index,
      n,
      ids,
      nIds,
      first,
      Math.max(0, this.lastEndpoint >= 0 ? this.lastEndpoint : this.endpoint),
      this.firstTokenNs > 0 ? this.firstTokenNs - this.sentNs : NaN,
      this.endNs - sent,
    );
  }

  private attemptFailed(f: Failure): void {
    if (this.ended) return;
    this.ended = true;
    this.d.recordFailure(this, f);
    this.d.releaseEndpoint(this);
    const canRetry =
      f.retryable &&
      this.firstTokenNs === 0 &&
      this.attempts <= this.d.cfg.maxRetries &&
      native.nowNs() < this.deadlineNs &&
      this.abortReason === null;
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
