// Server-sent events reader for vLLM/SGLang streams. Each socket read is
// turned into one latin1 string (a single native call; one char per byte,
// so nothing is decoded or lost), and events are found with
// String.prototype.indexOf, which is far cheaper per event than either a JS
// byte loop or Buffer.indexOf calls. An event split across reads is carried
// over as a string. Handles `data:` with or without a space, `:` comments,
// other fields (ignored), several data lines (joined by \n) and CRLF.

export interface SseSink {
  /** One event's data payload is s[start, end) (latin1: one char per byte). */
  onSseData(s: string, start: number, end: number): void;
  /** The `data: [DONE]` event. */
  onSseDone(): void;
}

const LF = 0x0a;
const CR = 0x0d;

export class SseReader {
  private carry = '';
  private crlf = false;
  private decided = false;

  reset(): void {
    this.carry = '';
    this.crlf = false;
    this.decided = false;
  }

  /** Bytes held back waiting for the end of an event. */
  get pending(): number {
    return this.carry.length;
  }

  push(chunk: Buffer, sink: SseSink): void {
    let s = latin1(chunk);
    if (this.carry.length > 0) {
      s = this.carry + s;
      this.carry = '';
    }
    if (!this.decided) this.decideLineEnds(s);
    let start = 0;
    if (this.crlf) {
      for (;;) {
        const at = s.indexOf('\r\n\r\n', start);
        if (at < 0) break;
        this.event(s, start, at, '\r\n', sink);
        start = at + 4;
      }
    } else {
      // One pass per event: the first \n after `start` is usually the
      // separator itself (a single data line); otherwise look further.
      for (;;) {
        const nl = s.indexOf('\n', start);
        if (nl < 0) break;
        if (s.charCodeAt(nl + 1) === LF) {
          if (s.startsWith('data:', start)) {
            let p = start + 5;
            if (s.charCodeAt(p) === 0x20) p++;
            this.deliver(s, p, nl, sink);
          } else if (nl > start && s.charCodeAt(start) !== 0x3a) {
            this.slowEvent(s, start, nl, '\n', sink);
          }
          start = nl + 2;
          continue;
        }
        if (nl + 1 >= s.length) break; // the separator may continue in the next read
        const at = s.indexOf('\n\n', nl);
        if (at < 0) break;
        this.slowEvent(s, start, at, '\n', sink);
        start = at + 2;
      }
    }
    if (start < s.length) this.carry = start === 0 ? s : s.slice(start);
  }

  /** Called when the response body ends: a final event without its blank line still counts. */
  end(sink: SseSink): void {
    const s = this.carry;
    if (s.length === 0) return;
    this.carry = '';
    let e = s.length;
    while (e > 0 && (s.charCodeAt(e - 1) === LF || s.charCodeAt(e - 1) === CR)) e--;
    if (e > 0) this.event(s, 0, e, this.crlf ? '\r\n' : '\n', sink);
  }

  private decideLineEnds(s: string): void {
    const lf = s.indexOf('\n');
    if (lf < 0) return;
    this.crlf = lf > 0 && s.charCodeAt(lf - 1) === CR;
    this.decided = true;
  }

  // One event: s[start, end) without its terminating blank line.
  private event(s: string, start: number, end: number, nl: string, sink: SseSink): void {
    if (s.startsWith('data:', start)) {
      const inner = s.indexOf(nl, start);
      if (inner < 0 || inner >= end) {
        let p = start + 5;
        if (s.charCodeAt(p) === 0x20) p++;
        this.deliver(s, p, end, sink);
        return;
      }
    }
    this.slowEvent(s, start, end, nl, sink);
  }

  // Several lines: comments, other fields, several data lines.
  private slowEvent(s: string, start: number, end: number, nl: string, sink: SseSink): void {
    const parts: string[] = [];
    for (const line of s.slice(start, end).split(nl)) {
      if (line.startsWith(':')) continue;
      if (line.startsWith('data:')) parts.push(line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5));
      else if (line === 'data') parts.push('');
    }
    if (parts.length === 0) return;
    const joined = parts.join('\n');
    this.deliver(joined, 0, joined.length, sink);
  }

  private deliver(s: string, p: number, e: number, sink: SseSink): void {
    if (e - p === 6 && s.startsWith('[DONE]', p)) sink.onSseDone();
    else sink.onSseData(s, p, e);
  }
}

// Buffer#latin1Slice skips toString's argument checks; fall back if absent.
const slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Buffer, a: number, b: number) => string })
  .latin1Slice;
function latin1(b: Buffer): string {
  return slice ? slice.call(b, 0, b.length) : b.toString('latin1');
}
