/**
 * Plain-HTTP connections for undici whose socket reads land in one reused
 * buffer per thread, handed to undici's parser synchronously.
 *
 * Why: with a paced stream each socket read carries about one SSE event, and
 * Node's default read path pays per read for a fresh buffer, a push into the
 * socket's readable state, a deferred 'readable' event and a read() that
 * takes the chunk back out. `net.connect({ onread })` skips all of that.
 *
 * The catch: undici's parser keeps views into the bytes it was given while a
 * response's header block is incomplete (they are handed to the handler, and
 * dropped, when the block ends). So a read is lent (a view of the shared
 * buffer) only when no such view can outlive it: inside a response body, or
 * when the read starts a final (2xx-5xx) response and holds its whole header
 * block (a response written at once: copying it would cost a buffer the size
 * of the response, and the old-space collections that external memory
 * triggers). Any other read that may carry header bytes gets its own copy.
 * The handler tells us where a response is through `markBody` / `markIdle`,
 * called from its undici callbacks, which undici runs synchronously inside
 * the read that caused them. Bytes after a response's end in the same read
 * cannot start another header block: with pipelining 1 undici sends the next
 * request a loop turn later and destroys a socket that answers unasked.
 * Body chunks handed to the handler are views of the shared buffer too: the
 * handler must consume or copy them before returning.
 *
 * Chunked bodies bypass undici's parser: for a streamed 200 response undici
 * would make one buffer view and one handler call per chunk (a response
 * written at once has a hundred in one read) and run its wasm parser and
 * several JS layers per read. When a read starts a response with its whole
 * header block, undici gets the header block alone; if the handler then
 * asks for the body (`markBody` with a sink), the rest of this read and the
 * next ones are de-chunked here (native, in place) and their payload goes to
 * the sink in one piece per read, as offsets into the read buffer. undici,
 * still positioned right after the headers, gets the last chunk's line and
 * what follows, and ends the response as usual (keep-alive, errors, the
 * next request). Framing errors
 * destroy the socket with undici's parser error. undici's body timeout does
 * not see these reads: the adapter runs the idle-read timeout itself.
 */
import net from 'node:net';
import { buildConnector, errors } from 'undici';

import { native } from '../core/binding.js';

const READ_SIZE = 64 * 1024;

/** Shared by every reused-read socket of this thread; valid only inside a read. */
let shared: Buffer | null = null;

/** The socket whose read is being parsed, so handler callbacks can mark its phase. */
let reading: SocketState | null = null;

/**
 * Takes a bypassed body's payload: bytes [start, start + length) of `buf`,
 * this thread's read buffer (registered with native.readBuffer, so native
 * scanners can take the offsets alone), valid during the call.
 */
export interface BodySink {
  onBody(buf: Buffer, start: number, length: number): void;
}

interface SocketState {
  inBody: boolean;
  chunk: Buffer | null;
  /** undici is being given exactly a header block: a sink may take the body from here. */
  atHeaderEnd: boolean;
  /** Set while this socket's chunked body is decoded here. */
  sink: BodySink | null;
  /** The decoder's state between reads (phase, value, digits: native/sse/dechunk.h). */
  chPhase: number;
  chValue: number;
  chDigits: number;
}

// Slots of the decoder's state (native/sse/dechunk.h), one Int32Array per
// thread: each socket keeps the first three between its reads.
const CH = native.dechunkState;
const CH_PHASE = 0;
const CH_VALUE = 1;
const CH_DIGITS = 2;
const CH_OUT_START = 3;
const CH_OUT_LEN = 4;
const CH_LAST_START = 5;
const CH_LAST_END = 6;
const CH_ERROR = 7;
const CH_ERRORS = ['', 'invalid chunk size line', 'chunk data not followed by CRLF', 'chunk larger than 2 GiB'];
const LAST_LINE = Buffer.from('0\r\n', 'latin1');
// undici's own parser error (code HPE_<code>), whose constructor its types leave out.
const ParserError = errors.HTTPParserError as unknown as new (message: string, code: string) => Error;

const STATE = Symbol('reused-reads');

type Connector = buildConnector.connector;
type ReusedSocket = net.Socket & { [STATE]: SocketState };

/**
 * A response's headers were delivered: the next reads of this socket are body
 * bytes, unless the status is informational (1xx: another header block follows).
 */
export function markBody(status: number, sink: BodySink | null = null): void {
  const st = reading;
  if (st === null || status < 200) return;
  st.inBody = true;
  if (sink !== null && st.atHeaderEnd) {
    st.sink = sink;
    st.chPhase = 0;
    st.chValue = 0;
    st.chDigits = 0;
  }
}

/** A response ended (or failed): the next read may start a header block. */
export function markIdle(): void {
  if (reading !== null) {
    reading.inBody = false;
    reading.sink = null;
  }
}

/** Whether a response's framing is chunked transfer coding alone (the bypass handles nothing else). */
export function chunkedOnly(rawHeaders: readonly (Buffer | string)[] | null): boolean {
  if (rawHeaders === null) return false;
  let chunked = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 14 && String(name).toLowerCase() === 'content-length') return false;
    if (name.length === 17 && String(name).toLowerCase() === 'transfer-encoding') {
      if (
        String(rawHeaders[i + 1])
          .trim()
          .toLowerCase() !== 'chunked'
      )
        return false;
      chunked = true;
    }
  }
  return chunked;
}

/** `chunk` itself, or a copy of it when it is a view of the shared read buffer. */
export function keepable(chunk: Buffer): Buffer {
  return shared !== null && chunk.buffer === shared.buffer ? Buffer.from(chunk) : chunk;
}

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');

/** `HTTP/1.x NNN` with a final status (not 1xx, after which a second header block follows). */
function startsFinalResponse(b: Buffer): boolean {
  return b.length > 12 && b[0] === 0x48 && b[4] === 0x2f && b[8] === 0x20 && b[9] >= 0x32 && b[9] <= 0x35;
}

const CHUNKED = Buffer.from('chunked', 'latin1');

// Called by Node with the socket as `this`, synchronously from the read.
function onRead(this: ReusedSocket, nread: number, buf: Buffer): void {
  const st = this[STATE];
  reading = st; // reads never nest: libuv delivers them one at a time
  try {
    if (st.sink !== null) {
      decodeBody(this, st, 0, nread);
      return;
    }
    const view = buf.subarray(0, nread);
    if (st.inBody || !startsFinalResponse(view)) {
      feed(this, st, st.inBody ? view : Buffer.from(view));
      return;
    }
    const end = view.indexOf(HEADER_END) + 4;
    if (end < 4) {
      feed(this, st, Buffer.from(view));
      return;
    }
    if (view.lastIndexOf(CHUNKED, end - 4) < 0) {
      feed(this, st, view);
      return;
    }
    // The header block alone first: the handler may take the body.
    st.atHeaderEnd = true;
    feed(this, st, end === nread ? view : view.subarray(0, end));
    st.atHeaderEnd = false;
    if (end === nread || this.destroyed) return;
    if (st.sink !== null) decodeBody(this, st, end, nread - end);
    else feed(this, st, view.subarray(end));
  } finally {
    reading = null;
    st.chunk = null;
    st.atHeaderEnd = false;
  }
}

/** Gives undici `bytes` (a view it may only use during the call, or a copy). */
function feed(socket: ReusedSocket, st: SocketState, bytes: Buffer): void {
  st.chunk = bytes;
  socket.emit('readable');
}

/**
 * A body read of a bypassed response, bytes [offset, offset + length) of the
 * shared buffer: payload to the sink, the last chunk on to undici.
 */
function decodeBody(socket: ReusedSocket, st: SocketState, offset: number, length: number): void {
  const buf = shared as Buffer;
  CH[CH_PHASE] = st.chPhase;
  CH[CH_VALUE] = st.chValue;
  CH[CH_DIGITS] = st.chDigits;
  native.dechunkRead(offset, length);
  st.chPhase = CH[CH_PHASE];
  st.chValue = CH[CH_VALUE];
  st.chDigits = CH[CH_DIGITS];
  const n = CH[CH_OUT_LEN];
  const error = CH[CH_ERROR];
  const lastStart = CH[CH_LAST_START];
  const lastEnd = CH[CH_LAST_END];
  if (n > 0) {
    const start = offset + CH[CH_OUT_START];
    st.sink?.onBody(buf, start, n);
    if (socket.destroyed) return; // the handler gave up on the request
  }
  if (error !== 0) {
    st.sink = null;
    socket.destroy(
      new ParserError(`Response does not match the HTTP/1.1 protocol (${CH_ERRORS[error]})`, 'INVALID_CHUNK_SIZE'),
    );
    return;
  }
  if (lastEnd >= 0) {
    st.sink = null;
    const end = offset + length;
    // A last-chunk line split over reads is rebuilt (its extensions dropped).
    feed(
      socket,
      st,
      lastStart >= 0
        ? buf.subarray(offset + lastStart, end)
        : Buffer.concat([LAST_LINE, buf.subarray(offset + lastEnd, end)]),
    );
  }
}

// undici pulls with read() until null; internal calls (read(0) at connect and
// at end of stream) go to the stream implementation.
function readLent(this: ReusedSocket, n?: number): Buffer | null {
  if (n !== undefined) return net.Socket.prototype.read.call(this, n) as Buffer | null;
  const st = this[STATE];
  const c = st.chunk;
  st.chunk = null;
  return c;
}

/**
 * undici's `connect` option: reused-read sockets for http:, undici's own
 * connector for anything else (TLS).
 */
export function reusedReadConnector(timeoutMs: number): Connector {
  const fallback = buildConnector({ timeout: timeoutMs });
  return (opts, callback) => {
    if (opts.protocol !== 'http:') return fallback(opts, callback);
    if (shared === null) {
      shared = Buffer.allocUnsafe(READ_SIZE);
      native.readBuffer(shared);
    }
    const host = opts.hostname; // undici has taken the brackets off an IPv6 literal
    const port = Number(opts.port) || 80;
    const socket = net.connect({
      host,
      port,
      localAddress: opts.localAddress ?? undefined,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 60_000,
      onread: { buffer: shared, callback: onRead as (n: number, b: Buffer) => boolean },
    }) as ReusedSocket;
    socket[STATE] = { inBody: false, chunk: null, atHeaderEnd: false, sink: null, chPhase: 0, chValue: 0, chDigits: 0 };
    socket.read = readLent as net.Socket['read'];
    let cb: typeof callback | null = callback;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            socket.destroy(
              new errors.ConnectTimeoutError(
                `Connect Timeout Error (attempted address: ${host}:${port}, timeout: ${timeoutMs}ms)`,
              ),
            );
          }, timeoutMs)
        : null;
    timer?.unref();
    socket.once('connect', () => {
      if (timer) clearTimeout(timer);
      const c = cb;
      cb = null;
      c?.(null, socket);
    });
    socket.on('error', (err) => {
      if (timer) clearTimeout(timer);
      const c = cb;
      cb = null;
      c?.(err, null);
    });
    return socket;
  };
}
