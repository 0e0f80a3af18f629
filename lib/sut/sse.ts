// Server-sent events reader for vLLM/SGLang streams. Works on the received
// Buffers in place: a whole event inside one socket read costs no copy and no
// allocation; only an event split across reads is copied into a reused
// carry buffer. Handles `data:` with or without a space, `:` comments, other
// fields (ignored), several data lines (joined by \n) and CRLF line ends.

export interface SseSink {
  /** One event's data payload is buf[start, end). */
  onSseData(buf: Buffer, start: number, end: number): void;
  /** The `data: [DONE]` event. */
  onSseDone(): void;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const LFLF = Buffer.from('\n\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');
const DATA = Buffer.from('data:');
const DONE = Buffer.from('[DONE]');

export class SseReader {
  private carry = Buffer.allocUnsafe(4096);
  private carryLen = 0;
  private crlf = false;
  private decided = false;
  private joined: Buffer | null = null;

  reset(): void {
    this.carryLen = 0;
    this.crlf = false;
    this.decided = false;
  }

  /** Bytes held back waiting for the end of an event. */
  get pending(): number {
    return this.carryLen;
  }

  push(chunk: Buffer, sink: SseSink): void {
    if (!this.decided) this.decideLineEnds(chunk);
    const sep = this.crlf ? CRLFCRLF : LFLF;
    let start = 0;
    if (this.carryLen > 0) {
      // The separator may straddle the carry and this chunk.
      const tailLen = Math.min(this.carryLen, sep.length - 1);
      const probe = Buffer.concat([this.carry.subarray(this.carryLen - tailLen, this.carryLen), chunk.subarray(0, sep.length - 1)]);
      const straddle = probe.indexOf(sep);
      let endInChunk: number;
      if (straddle >= 0 && straddle < tailLen) {
        endInChunk = straddle + sep.length - tailLen;
      } else {
        const at = chunk.indexOf(sep);
        if (at < 0) {
          this.append(chunk, 0, chunk.length);
          return;
        }
        endInChunk = at + sep.length;
      }
      this.append(chunk, 0, endInChunk);
      const evEnd = this.carryLen - sep.length;
      this.carryLen = 0;
      this.event(this.carry, 0, evEnd, sink);
      start = endInChunk;
    }
    for (;;) {
      const at = chunk.indexOf(sep, start);
      if (at < 0) break;
      this.event(chunk, start, at, sink);
      start = at + sep.length;
    }
    if (start < chunk.length) this.append(chunk, start, chunk.length);
  }

  /** Called when the response body ends: a final event without its blank line still counts. */
  end(sink: SseSink): void {
    if (this.carryLen === 0) return;
    let e = this.carryLen;
    while (e > 0 && (this.carry[e - 1] === LF || this.carry[e - 1] === CR)) e--;
    this.carryLen = 0;
    if (e > 0) this.event(this.carry, 0, e, sink);
  }

  private decideLineEnds(chunk: Buffer): void {
    const lf = chunk.indexOf(LF);
    if (lf < 0) return;
    this.crlf = lf > 0 && chunk[lf - 1] === CR;
    this.decided = true;
  }

  private append(src: Buffer, from: number, to: number): void {
    const n = to - from;
    if (this.carryLen + n > this.carry.length) {
      let cap = this.carry.length * 2;
      while (cap < this.carryLen + n) cap *= 2;
      const next = Buffer.allocUnsafe(cap);
      this.carry.copy(next, 0, 0, this.carryLen);
      this.carry = next;
    }
    src.copy(this.carry, this.carryLen, from, to);
    this.carryLen += n;
  }

  // One event: buf[start, end) without its terminating blank line.
  private event(buf: Buffer, start: number, end: number, sink: SseSink): void {
    // Fast path: a single `data:` line.
    if (startsWith(buf, start, end, DATA)) {
      const nl = buf.indexOf(LF, start);
      if (nl < 0 || nl >= end) {
        let p = start + DATA.length;
        if (buf[p] === 0x20) p++;
        let e = end;
        if (e > p && buf[e - 1] === CR) e--;
        this.deliver(buf, p, e, sink);
        return;
      }
    }
    this.slowEvent(buf, start, end, sink);
  }

  private slowEvent(buf: Buffer, start: number, end: number, sink: SseSink): void {
    const parts: Buffer[] = [];
    let p = start;
    while (p < end) {
      let nl = buf.indexOf(LF, p);
      if (nl < 0 || nl > end) nl = end;
      let e = nl;
      if (e > p && buf[e - 1] === CR) e--;
      if (e > p && buf[p] !== COLON && startsWith(buf, p, e, DATA)) {
        let v = p + DATA.length;
        if (buf[v] === 0x20) v++;
        parts.push(buf.subarray(v, e));
      } else if (e - p === 4 && buf.toString('latin1', p, e) === 'data') {
        parts.push(Buffer.alloc(0));
      }
      p = nl + 1;
    }
    if (parts.length === 0) return;
    if (parts.length === 1) {
      this.deliver(parts[0], 0, parts[0].length, sink);
      return;
    }
    const withNl: Buffer[] = [];
    parts.forEach((b, i) => {
      if (i > 0) withNl.push(Buffer.from('\n'));
      withNl.push(b);
    });
    this.joined = Buffer.concat(withNl);
    this.deliver(this.joined, 0, this.joined.length, sink);
    this.joined = null;
  }

  private deliver(buf: Buffer, p: number, e: number, sink: SseSink): void {
    if (e - p === DONE.length && startsWith(buf, p, e, DONE)) sink.onSseDone();
    else sink.onSseData(buf, p, e);
  }
}

function startsWith(buf: Buffer, p: number, end: number, prefix: Buffer): boolean {
  if (end - p < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[p + i] !== prefix[i]) return false;
  return true;
}
