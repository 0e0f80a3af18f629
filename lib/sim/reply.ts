// One HTTP response and its record: every byte the simulator sends goes
// through here, so the record's times and counts are always right, and the
// socket-level faults (reset, stall, slow headers, truncated bodies) for
// plain JSON responses live in one place.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { nowNs } from './records.js';
import type { SimFaultRule, SimRequestRecord } from './types.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;

export class Reply {
  /** We destroyed the socket on purpose (a reset fault): not a client abort. */
  private selfClosed = false;
  private done = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closeHandlers: Array<() => void> = [];

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly record: SimRequestRecord,
    readonly fault: SimFaultRule | null,
    /** The simulator is shutting down: answer nothing more. */
    private readonly isClosing: () => boolean,
  ) {
    res.on('close', () => {
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
      if (!this.done) {
        this.done = true;
        if (!this.selfClosed) this.record.clientAborted = true;
        this.record.endNs ??= nowNs();
        for (const h of this.closeHandlers) h();
      }
    });
    // A write to a socket the client already closed must not crash anything.
    res.on('error', () => {});
  }

  /** True once the response ended or the connection went away. */
  get finished(): boolean {
    return this.done || this.res.destroyed;
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  /** Runs when the connection closes before the response ended. */
  onAbort(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  /** A timer that dies with the response. */
  after(ms: number, fn: () => void): void {
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        if (!this.finished && !this.isClosing()) fn();
      },
      Math.max(0, ms),
    );
    this.timers.add(t);
  }

  /** Milliseconds left until `receivedNs + ms` (for faults timed from arrival). */
  msUntilFromArrival(ms: number): number {
    return ms - (nowNs() - this.record.receivedNs) / 1e6;
  }

  writeHead(status: number, headers: Record<string, string | number>): void {
    if (this.res.headersSent || this.finished) return;
    this.record.status = status;
    this.record.headersNs = nowNs();
    this.res.writeHead(status, headers);
  }

  /** Sends the headers now (SSE: so the client sees the 200 before the first token). */
  flushHeaders(): void {
    if (!this.finished) this.res.flushHeaders();
  }

  /** One socket write of `events` SSE events carrying `tokens` generated tokens. */
  write(data: string, events: number, tokens: number, cb?: () => void): boolean {
    if (this.finished) return false;
    this.count(events, tokens);
    return this.res.write(data, cb);
  }

  end(data: string | undefined, events: number, tokens: number): void {
    if (this.finished) return;
    this.count(events, tokens);
    this.done = true;
    this.record.endNs = nowNs();
    if (data === undefined) this.res.end();
    else this.res.end(data);
  }

  private count(events: number, tokens: number): void {
    this.record.chunks += events;
    if (tokens > 0) {
      this.record.outputTokens += tokens;
      this.record.firstTokenNs ??= nowNs();
    }
  }

  /** Destroys the connection now (reset-before: a TCP RST where the platform allows it). */
  reset(): void {
    if (this.finished) return;
    this.selfClosed = true;
    this.done = true;
    this.record.endNs = nowNs();
    const socket = this.req.socket as typeof this.req.socket & { resetAndDestroy?: () => void };
    if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
  }

  /** Destroys the connection once what was written has reached the kernel (reset-during). */
  resetAfterFlush(data?: string | Buffer, events = 0, tokens = 0): void {
    if (this.finished) return;
    this.selfClosed = true;
    const kill = (): void => {
      this.done = true;
      this.record.endNs = nowNs();
      this.req.socket.destroy();
    };
    if (data !== undefined && data.length > 0) {
      this.count(events, tokens);
      this.res.write(data, kill);
    } else if (this.res.headersSent) {
      // Empty write: its callback runs after everything queued before it.
      this.res.write('', kill);
    } else {
      kill();
    }
  }

  /**
   * A complete non-streaming response, with the body-level faults applied:
   * slow-headers / stall at 0 tokens delay it (stall without ms: forever),
   * stall after tokens sends the headers then pauses the body, reset-during
   * sends half the body then closes the socket, malformed-chunk sends a
   * truncated body with a matching content-length, error-event becomes
   * `errorFallback` (an HTTP 500 in the flavour's shape) when given.
   */
  sendBody(
    status: number,
    text: string,
    contentType: string | null,
    opts: { headers?: Record<string, string | number>; tokens?: number; errorFallback?: () => unknown } = {},
  ): void {
    if (this.finished) return;
    const f = this.fault;
    const tokens = opts.tokens ?? 0;
    const headers = (len: number): Record<string, string | number> => {
      const h: Record<string, string | number> = {};
      if (contentType !== null) h['content-type'] = contentType;
      h['content-length'] = len;
      return { ...h, ...opts.headers };
    };
    const plain = (st: number, body: string): void => {
      this.writeHead(st, headers(Buffer.byteLength(body)));
      this.end(body, 0, tokens);
    };
    if (f?.kind === 'slow-headers' || (f?.kind === 'stall' && (f.afterTokens ?? 0) === 0)) {
      if (f.ms === undefined) return; // stall forever: nothing is ever sent
      const wait = this.msUntilFromArrival(f.ms);
      if (wait > 0) this.after(wait, () => plain(status, text));
      else plain(status, text);
      return;
    }
    switch (f?.kind) {
      case 'stall': {
        this.writeHead(status, headers(Buffer.byteLength(text)));
        this.flushHeaders();
        if (f.ms !== undefined) this.after(f.ms, () => this.end(text, 0, tokens));
        return;
      }
      case 'reset-during': {
        const buf = Buffer.from(text);
        this.writeHead(status, headers(buf.length));
        this.resetAfterFlush(buf.subarray(0, Math.floor(buf.length / 2)));
        return;
      }
      case 'malformed-chunk':
        plain(status, text.slice(0, Math.floor(text.length / 2)));
        return;
      case 'error-event':
        if (opts.errorFallback) {
          const fallback = JSON.stringify(opts.errorFallback());
          this.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(fallback) });
          this.end(fallback, 0, 0);
          return;
        }
        break;
      default:
        break;
    }
    plain(status, text);
  }

  sendJson(
    status: number,
    body: unknown,
    opts: { headers?: Record<string, string | number>; tokens?: number; errorFallback?: () => unknown } = {},
  ): void {
    this.sendBody(status, JSON.stringify(body), 'application/json', opts);
  }

  /** An empty-bodied response (e.g. vLLM's /health). */
  sendEmpty(status: number): void {
    this.sendBody(status, '', null);
  }
}
