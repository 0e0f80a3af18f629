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
 */
import net from 'node:net';
import { buildConnector, errors } from 'undici';

const READ_SIZE = 64 * 1024;

/** Shared by every reused-read socket of this thread; valid only inside a read. */
let shared: Buffer | null = null;

/** The socket whose read is being parsed, so handler callbacks can mark its phase. */
let reading: SocketState | null = null;

interface SocketState {
  inBody: boolean;
  chunk: Buffer | null;
}

const STATE = Symbol('reused-reads');

type Connector = buildConnector.connector;
type ReusedSocket = net.Socket & { [STATE]: SocketState };

/**
 * A response's headers were delivered: the next reads of this socket are body
 * bytes, unless the status is informational (1xx: another header block follows).
 */
export function markBody(status: number): void {
  if (reading !== null && status >= 200) reading.inBody = true;
}

/** A response ended (or failed): the next read may start a header block. */
export function markIdle(): void {
  if (reading !== null) reading.inBody = false;
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

// Called by Node with the socket as `this`, synchronously from the read.
function onRead(this: ReusedSocket, nread: number, buf: Buffer): void {
  const st = this[STATE];
  const view = buf.subarray(0, nread);
  st.chunk = st.inBody || (startsFinalResponse(view) && view.indexOf(HEADER_END) >= 0) ? view : Buffer.from(view);
  reading = st; // reads never nest: libuv delivers them one at a time
  try {
    this.emit('readable');
  } finally {
    reading = null;
    st.chunk = null;
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
    if (shared === null) shared = Buffer.allocUnsafe(READ_SIZE);
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
    socket[STATE] = { inBody: false, chunk: null };
    socket.read = readLent as net.Socket['read'];
    let cb: typeof callback | null = callback;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            socket.destroy(new errors.ConnectTimeoutError(`Connect Timeout Error (attempted address: ${host}:${port}, timeout: ${timeoutMs}ms)`));
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
