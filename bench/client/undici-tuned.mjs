// Tuned undici client: Pool.dispatch() with a raw handler (undici 7's
// controller API: onRequestStart / onResponseStart / onResponseData /
// onResponseEnd / onResponseError), no promises or streams per request, no
// string decoding: the SSE bytes are scanned for `\n\n` and the few fields a
// harness needs are read in place (choices empty or not, token_ids, usage
// completion_tokens, [DONE]) without JSON.parse. Token ids are decoded into an
// Int32Array per request (what an MLPerf harness needs for accuracy logs) and
// checked against usage.completion_tokens. One clock read per socket read
// (every event in one read arrived at the same moment). Request bodies are
// serialised once up front, as a harness would in loadSamplesToRam.
//   node bench/client/undici-tuned.mjs --url … --concurrency C --requests N --duration-s D [--stream|--no-stream]
//   [--api legacy]   use the legacy onConnect/onHeaders/onData/onComplete/onError handler
//                    (undici 7 wraps controller-API handlers in an adapter that parses headers)
import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { parseArgs, completionPayload, createWindow, startLoops } from './common.mjs';

const opts = parseArgs();
const legacy = opts.extra.api === 'legacy';
const u = new URL(opts.url);
const pool = new Pool(u.origin, {
  connections: opts.concurrency,
  pipelining: 1,
  keepAliveTimeout: 60e3,
  headersTimeout: 0,
  bodyTimeout: 0,
});
const w = createWindow(opts, legacy ? 'undici-tuned-legacy' : 'undici-tuned');
const { c } = w;
const prefix = `tuned-${process.pid}-`;
let seq = 0;
const BODY = Buffer.from(JSON.stringify(completionPayload(opts.stream, opts.maxTokens)));
const PATH = '/v1/completions';

const K_CHOICES = Buffer.from('"choices":');
const K_TOKIDS = Buffer.from('"token_ids":');
const K_COMPLETION = Buffer.from('"completion_tokens":');
const LF = 0x0a;
const RBRACKET = 0x5d;
const LBRACKET = 0x5b;
const COMMA = 0x2c;
const SPACE = 0x20;

function indexOfNN(buf) {
  let i = 0;
  while ((i = buf.indexOf(LF, i)) >= 0 && i + 1 < buf.length) {
    if (buf[i + 1] === LF) return i;
    i++;
  }
  return -1;
}

// Does `"key":` (optionally followed by one space) end right before buf[i]?
function keyBefore(buf, i, key) {
  let j = i - 1;
  if (buf[j] === SPACE) j--;
  const n = key.length;
  if (j - n + 1 < 0) return false;
  for (let k = n - 1; k >= 0; k--, j--) if (buf[j] !== key[k]) return false;
  return true;
}

function skipSpaces(buf, i) {
  while (buf[i] === SPACE) i++;
  return i;
}

// Parse a non-negative decimal integer at buf[i…]; returns its value.
function readInt(buf, i) {
  let v = 0;
  let d;
  while ((d = buf[i] - 48) >= 0 && d <= 9) {
    v = v * 10 + d;
    i++;
  }
  return v;
}

class Req {
  constructor() {
    this.id = '';
    this.st = 0;
    this.first = true;
    this.last = 0;
    this.status = 0;
    this.pending = null; // bytes of an event split across reads
    this.ids = new Int32Array(opts.maxTokens > 0 ? opts.maxTokens + 8 : 64);
    this.nIds = 0;
    this.usageTokens = -1;
    this.failed = null;
    this.parts = null; // non-stream body pieces
    this.abort = null;
  }
  start() {
    this.id = prefix + seq++;
    this.first = true;
    this.status = 0;
    this.pending = null;
    this.nIds = 0;
    this.usageTokens = -1;
    this.failed = null;
    this.parts = null;
    this.st = performance.now();
    pool.dispatch(
      {
        path: PATH,
        method: 'POST',
        headers: ['content-type', 'application/json', 'x-request-id', this.id],
        body: BODY,
      },
      this.handler,
    );
  }
  pushId(v) {
    if (this.nIds === this.ids.length) {
      const n = new Int32Array(this.ids.length * 2);
      n.set(this.ids);
      this.ids = n;
    }
    this.ids[this.nIds++] = v;
  }
  // One SSE event in buf[s, e) (without the trailing blank line).
  // Buffer.indexOf(<multi-byte needle>) costs ~0.3 µs a call in Node 20, so
  // only single-byte searches (memchr) are used: find each '[' and look at the
  // key in front of it ("choices": / "token_ids":).
  event(buf, s, e, now) {
    c.events++;
    // `data: ` then `{` or `[DONE]`
    if (buf[s + 6] === LBRACKET) return; // [DONE]
    let b = buf.indexOf(LBRACKET, s);
    while (b >= 0 && b < e && !keyBefore(buf, b, K_CHOICES)) b = buf.indexOf(LBRACKET, b + 1);
    if (b < 0 || b >= e) {
      this.failed = 'event without choices';
      return;
    }
    if (buf[b + 1] === RBRACKET) {
      // usage-only chunk (once per request: a multi-byte search is fine here)
      const ui = buf.indexOf(K_COMPLETION, b);
      if (ui >= 0 && ui < e) this.usageTokens = readInt(buf, skipSpaces(buf, ui + K_COMPLETION.length));
      return;
    }
    if (this.first) {
      this.first = false;
      w.ttft(this.id, this.st, now);
    }
    this.last = now;
    b = buf.indexOf(LBRACKET, b + 1);
    while (b >= 0 && b < e && !keyBefore(buf, b, K_TOKIDS)) b = buf.indexOf(LBRACKET, b + 1);
    if (b < 0 || b >= e) {
      this.pushId(-1); // no ids: count one token per chunk
      c.tokens++;
      return;
    }
    this.readIds(buf, b + 1, e, true);
  }
  // Decode `1,2, 3]` starting at buf[i] (just after '['), up to e.
  readIds(buf, i, e, count) {
    let ids = this.ids;
    let n = this.nIds;
    let ch = buf[i];
    while (i < e && ch !== RBRACKET) {
      if (ch < 48 || ch > 57) {
        this.failed = 'bad token_ids';
        break;
      }
      let v = 0;
      do {
        v = v * 10 + (ch - 48);
        ch = buf[++i];
      } while (ch >= 48 && ch <= 57);
      if (n === ids.length) {
        const g = new Int32Array(ids.length * 2);
        g.set(ids);
        this.ids = ids = g;
      }
      ids[n++] = v;
      while (ch === COMMA || ch === SPACE) ch = buf[++i];
    }
    if (count) c.tokens += n - this.nIds;
    this.nIds = n;
  }
  data(chunk) {
    if (!opts.stream) {
      (this.parts ??= []).push(chunk);
      return;
    }
    const now = performance.now();
    let pos = 0;
    if (this.pending !== null) {
      // finish the event that straddles the previous read
      const p = this.pending;
      let end;
      if (p[p.length - 1] === LF && chunk[0] === LF) end = 0;
      else end = indexOfNN(chunk);
      if (end < 0) {
        this.pending = Buffer.concat([p, chunk]);
        return;
      }
      const ev = end === 0 ? p.subarray(0, p.length - 1) : Buffer.concat([p, chunk.subarray(0, end)]);
      this.pending = null;
      this.event(ev, 0, ev.length, now);
      pos = end === 0 ? 1 : end + 2;
    }
    const len = chunk.length;
    let i = pos;
    while ((i = chunk.indexOf(LF, i)) >= 0) {
      if (i + 1 >= len) break; // a lone '\n' at the end: maybe half a separator
      if (chunk[i + 1] !== LF) {
        i++;
        continue;
      }
      if (i > pos) this.event(chunk, pos, i, now);
      pos = i = i + 2;
    }
    if (pos < len) this.pending = Buffer.from(chunk.subarray(pos));
  }
  end() {
    if (this.status !== 200) return this.fail('HTTP ' + this.status);
    if (!opts.stream) {
      if (this.parts === null) return this.fail('empty body');
      const b = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
      const ti = b.indexOf(K_TOKIDS);
      if (ti >= 0) this.readIds(b, b.indexOf(LBRACKET, ti) + 1, b.length, false);
      const ui = b.indexOf(K_COMPLETION);
      this.usageTokens = ui >= 0 ? readInt(b, skipSpaces(b, ui + K_COMPLETION.length)) : -1;
      if (this.failed) return this.fail(this.failed);
      c.tokens += this.usageTokens;
      if (ti >= 0 && this.nIds !== this.usageTokens) c.mismatches++;
    } else {
      if (this.failed) return this.fail(this.failed);
      if (this.first) return this.fail('no chunk with choices');
      if (this.usageTokens !== this.nIds) c.mismatches++;
    }
    c.completed++;
    this.next();
  }
  fail(msg) {
    c.errors++;
    if (c.errors <= 3) process.stderr.write(`undici-tuned: ${msg}\n`);
    // never recurse synchronously out of a dispatch error
    setImmediate(() => this.next());
  }
  next() {
    w.maybeDone();
    if (w.mayIssue()) this.start();
  }
}

function controllerHandler(r) {
  return {
    onRequestStart(controller) {
      r.abort = controller;
    },
    onResponseStart(_controller, statusCode) {
      r.status = statusCode;
    },
    onResponseData(_controller, chunk) {
      r.data(chunk);
    },
    onResponseEnd() {
      r.end();
    },
    onResponseError(_controller, err) {
      r.fail(err?.message ?? String(err));
    },
  };
}

function legacyHandler(r) {
  return {
    onConnect(abort) {
      r.abort = abort;
    },
    onHeaders(statusCode) {
      r.status = statusCode;
      return true;
    },
    onData(chunk) {
      r.data(chunk);
      return true;
    },
    onComplete() {
      r.end();
    },
    onError(err) {
      r.fail(err?.message ?? String(err));
    },
  };
}

startLoops(opts.concurrency, opts.rampS, () => {
  const r = new Req();
  r.handler = legacy ? legacyHandler(r) : controllerHandler(r);
  if (w.mayIssue()) r.start();
});
