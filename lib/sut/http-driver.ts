// The HTTP side of the adapter, one per thread (a worker thread, or the main
// thread with `workers: 0`): takes each sample, picks an endpoint, sends the
// sample's prebuilt body over an undici pool, retries, and enforces the
// deadlines. Retries happen only before the first token (a retry after it
// would restart the clock the engine already stopped for TTFT and corrupt
// the latency). Its parts: request-queue.ts (what waits to be sent),
// exchange.ts (one request across its attempts, reading the answer and
// completing the sample straight into the engine), http-attempt.ts (undici's
// handler of one attempt), failure.ts, driver-stats.ts (what it counts).
import { Pool } from 'undici';

import { native } from '../core/binding.js';
import { JournalWriter } from '../resume/journal-writer.js';
import type { BodyStore } from './body-store.js';
import type { DriverConfig } from './driver-config.js';
import { DriverStats } from './driver-stats.js';
import { Exchange, type ExchangeDriver } from './exchange.js';
import { CLOSED, type Failure, SUPERSEDED } from './failure.js';
import { Attempt } from './http-attempt.js';
import { Fifo, SampleFifo } from './request-queue.js';
import { requestIdString } from './request-id.js';
import { reusedReadConnector } from './reused-reads.js';
import { type Router, ROUTE_FULL, ROUTE_UNHEALTHY } from './routing.js';
import { bump } from './stats.js';
import { buildBatchBody } from './wire/request-body.js';

/** Response ids are (test number × 2^32) + sequence id (native/engine/issue_run.h). */
const ID_BASE = 2 ** 32;

export class HttpDriver extends DriverStats implements ExchangeDriver {
  private readonly pools: Pool[];
  private readonly free: Exchange[] = [];
  /** Exchanges with an attempt out; each knows its index (activeSlot) for a removal without hashing. */
  private readonly active: Exchange[] = [];
  private readonly waiting = new Fifo<Exchange>(); // begun (retries, batches), to send when a slot frees
  private readonly fresh = new SampleFifo(); // never sent, behind `waiting`
  private readonly retrying = new Set<Exchange>(); // backing off before a retry
  private backlogTimer: NodeJS.Timeout | null = null;
  private readonly sweep: NodeJS.Timeout;
  private unsent = 0;
  private testNumber = -1; // of the newest sample seen (the engine's id base: id / 2^32)
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** Per endpoint: content-type and the configured headers, flat (undici's form). */
  readonly headerLists: string[][];
  readonly journal: JournalWriter | null;
  private readonly busyPoll: boolean;

  constructor(
    cfg: DriverConfig,
    readonly router: Router,
    public bodies: BodyStore | null,
  ) {
    super(cfg);
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
    this.headerLists = cfg.endpoints.map((e) => {
      const list = ['content-type', 'application/json'];
      for (const [k, v] of Object.entries(e.headers ?? cfg.headers)) list.push(k, v);
      return list;
    });
    // Often enough for the first-byte and idle-read timeouts to fire within a quarter of them late.
    this.sweep = setInterval(
      () => this.checkDeadlines(),
      Math.max(10, Math.min(200, Math.min(cfg.firstByteMs, cfg.idleMs) / 4)),
    );
    this.sweep.unref();
    this.journal = cfg.journal ? new JournalWriter(cfg.journal) : null;
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
    this.loopDelay.stop();
    if (this.busyPoll) native.busyPollDisable();
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
    const headers = this.headerLists[k].slice();
    headers.push('x-request-id', requestIdString(x.id));
    const handler = new Attempt(x, ++x.generation);
    try {
      this.pools[k].dispatch(
        { origin: ep.origin, path: ep.prefix + this.cfg.path, method: 'POST', headers, body },
        handler,
      );
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
    if ((this.waiting.length > 0 || this.fresh.length > 0) && this.unsent === this.cfg.maxUnsent - 1)
      this.drainBacklog();
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
      // Live: failed requests as they happen (retried ones too), for the progress line.
      if (this.counters !== null && this.counters.length > 3) Atomics.add(this.counters, 3, 1);
      const s = this.epStats[k];
      s.errors++;
      bump(s.errorKinds, f.kind);
      if (f.endpointFault && this.router.failure(k)) bump(this.errorKinds, 'breaker-opened');
    }
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
    const deadline: Failure = {
      kind: 'deadline',
      message: `no endpoint could take the sample within the ${this.cfg.totalMs} ms deadline`,
      retryable: false,
      endpointFault: false,
      retryAfterMs: 0,
    };
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
