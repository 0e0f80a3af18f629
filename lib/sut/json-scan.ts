// Reading the few fields of a stream chunk we need (token ids, counts,
// finish reason) without JSON.parse. Chunks arrive as latin1 strings (one
// byte = one char, so byte offsets and UTF-8 bytes survive untouched) and
// keys are found with String.prototype.indexOf, which V8 runs at memchr
// speed: a JS loop over bytes, or a Buffer.indexOf call per key, costs more.
//
// Keys are matched with their quotes and must follow `{` or `,`, so a
// key-like text inside a string value (where quotes are escaped) never
// matches. Anything unexpected makes the caller fall back to JSON.parse.
import type { TokenBuffer } from './token-buffer.js';

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const BACKSLASH = 0x5c;

export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** `"name"`, the form keys are searched in. */
export function quoted(name: string): string {
  return `"${name}"`;
}

/**
 * Position of the first char of the value of `key` (`"name"` with quotes)
 * in s[from, end), or -1. Skips matches that are not keys.
 */
export function findValue(s: string, key: string, from: number, end: number): number {
  let at = from;
  for (;;) {
    const k = s.indexOf(key, at);
    if (k < 0 || k >= end) return -1;
    let p = k - 1;
    let c = s.charCodeAt(p);
    while (p >= from && isSpace(c)) c = s.charCodeAt(--p);
    let q = k + key.length;
    at = q;
    if (p >= from && c !== LBRACE && c !== COMMA) continue;
    c = s.charCodeAt(q);
    while (q < end && isSpace(c)) c = s.charCodeAt(++q);
    if (q >= end || c !== COLON) continue;
    q++;
    while (q < end && isSpace(s.charCodeAt(q))) q++;
    return q < end ? q : -1;
  }
}

/**
 * Like findValue, searching backwards from `end`: the fields a token chunk
 * carries (token_ids, finish_reason) sit at its end, and a search costs
 * about a nanosecond per char passed over.
 */
export function findValueLast(s: string, key: string, from: number, end: number): number {
  let at = end - key.length;
  while (at >= from) {
    const k = s.lastIndexOf(key, at);
    if (k < from) return -1;
    at = k - 1;
    let p = k - 1;
    let c = s.charCodeAt(p);
    while (p >= from && isSpace(c)) c = s.charCodeAt(--p);
    if (p >= from && c !== LBRACE && c !== COMMA) continue;
    let q = k + key.length;
    c = s.charCodeAt(q);
    while (q < end && isSpace(c)) c = s.charCodeAt(++q);
    if (q >= end || c !== COLON) continue;
    q++;
    while (q < end && isSpace(s.charCodeAt(q))) q++;
    return q < end ? q : -1;
  }
  return -1;
}

/** True when the value at `p` is the literal null. */
export function isNull(s: string, p: number): boolean {
  return s.charCodeAt(p) === 0x6e && s.startsWith('null', p);
}

/** Non-negative or negative integer at `p`, or NaN. */
export function readInt(s: string, p: number, end: number): number {
  let neg = false;
  if (s.charCodeAt(p) === MINUS) {
    neg = true;
    p++;
  }
  let v = 0;
  let digits = 0;
  while (p < end) {
    const c = s.charCodeAt(p);
    if (c < ZERO || c > NINE) break;
    v = v * 10 + (c - ZERO);
    digits++;
    p++;
  }
  if (digits === 0) return NaN;
  return neg ? -v : v;
}

/** True when the string value at `p` is "" (p at its opening quote). */
export function isEmptyString(s: string, p: number): boolean {
  return s.charCodeAt(p) === QUOTE && s.charCodeAt(p + 1) === QUOTE;
}

/** Index just past the string starting at `p` (its opening quote), or -1. */
export function skipString(s: string, p: number, end: number): number {
  if (s.charCodeAt(p) !== QUOTE) return -1;
  p++;
  for (;;) {
    const q = s.indexOf('"', p);
    if (q < 0 || q >= end) return -1;
    let bs = 0;
    for (let r = q - 1; r >= p && s.charCodeAt(r) === BACKSLASH; r--) bs++;
    if ((bs & 1) === 0) return q + 1;
    p = q + 1;
  }
}

/** The short string value at `p` (e.g. a finish reason), or null. */
export function readShortString(s: string, p: number, end: number): string | null {
  const e = skipString(s, p, end);
  if (e < 0) return null;
  return s.slice(p + 1, e - 1);
}

/**
 * Appends the integers of the array at `p` (its `[`) to `sink`; returns the
 * index after `]`, or -1 if it is not an array of non-negative integers.
 */
export function readIntArray(s: string, p: number, end: number, sink: TokenBuffer): number {
  if (s.charCodeAt(p) !== LBRACKET) return -1;
  p++;
  for (;;) {
    let c = s.charCodeAt(p);
    while (p < end && (isSpace(c) || c === COMMA)) c = s.charCodeAt(++p);
    if (p >= end) return -1;
    if (c === RBRACKET) return p + 1;
    let v = 0;
    let digits = 0;
    while (p < end) {
      const d = s.charCodeAt(p);
      if (d < ZERO || d > NINE) break;
      v = v * 10 + (d - ZERO);
      digits++;
      p++;
    }
    if (digits === 0) return -1;
    sink.push(v);
  }
}

/**
 * Reads the last `count` integers of the array at `p` (its `[`) into
 * out[0..], in order, scanning from the end: SGLang's cumulative output_ids
 * grow with every chunk, and only the new tail matters. Returns how many
 * were read (fewer if the array is shorter), or -1 if malformed. `len` gets
 * the array's element count when `wantLength` (for mode detection).
 */
export function readIntArrayTail(s: string, p: number, end: number, count: number, out: Int32Array): number {
  if (s.charCodeAt(p) !== LBRACKET) return -1;
  const close = s.indexOf(']', p);
  if (close < 0 || close >= end) return -1;
  let n = 0;
  let q = close - 1;
  while (n < count) {
    let c = s.charCodeAt(q);
    while (q > p && (isSpace(c) || c === COMMA)) c = s.charCodeAt(--q);
    if (q <= p) break;
    let v = 0;
    let mul = 1;
    let digits = 0;
    while (q > p) {
      c = s.charCodeAt(q);
      if (c < ZERO || c > NINE) break;
      v += (c - ZERO) * mul;
      mul *= 10;
      digits++;
      q--;
    }
    if (digits === 0) return -1;
    if (s.charCodeAt(q) === MINUS) {
      v = -v;
      q--;
    }
    out[count - 1 - n] = v;
    n++;
  }
  if (n < count) out.copyWithin(0, count - n, count);
  return n;
}

/**
 * Start of element `n` of the int array whose first element starts at `p`
 * (just past its `[`), or -1 when the array has fewer elements.
 */
export function skipInts(s: string, p: number, end: number, n: number): number {
  const close = s.indexOf(']', p);
  if (close < 0 || close >= end) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.indexOf(',', p);
    if (c < 0 || c > close) return -1;
    p = c + 1;
  }
  return p;
}

let stop = -1;

/**
 * Reads up to `n` integers of an int array from `p` (the start of an
 * element) into out[0..]; returns how many (fewer when the array ends), or
 * -1 if malformed. readStop() then gives the `,` or `]` after the last.
 */
export function readIntsFrom(s: string, p: number, end: number, n: number, out: Int32Array): number {
  let k = 0;
  while (k < n) {
    while (p < end && isSpace(s.charCodeAt(p))) p++;
    if (s.charCodeAt(p) === RBRACKET) break;
    let v = 0;
    let digits = 0;
    while (p < end) {
      const d = s.charCodeAt(p);
      if (d < ZERO || d > NINE) break;
      v = v * 10 + (d - ZERO);
      digits++;
      p++;
    }
    if (digits === 0) return -1;
    out[k++] = v;
    while (p < end && isSpace(s.charCodeAt(p))) p++;
    const c = s.charCodeAt(p);
    if (c === RBRACKET) break;
    if (c !== COMMA) return -1;
    if (k < n) p++;
  }
  stop = p;
  return k;
}

/** Where the last readIntsFrom stopped: the `,` or `]` after the last integer read. */
export function readStop(): number {
  return stop;
}

/** The non-negative integer ending just before `at` (whitespace skipped), or -1; `lo` bounds the search. */
export function intBefore(s: string, lo: number, at: number): number {
  let q = at - 1;
  while (q > lo && isSpace(s.charCodeAt(q))) q--;
  let v = 0;
  let mul = 1;
  let digits = 0;
  while (q > lo) {
    const c = s.charCodeAt(q);
    if (c < ZERO || c > NINE) break;
    v += (c - ZERO) * mul;
    mul *= 10;
    digits++;
    q--;
  }
  return digits > 0 ? v : -1;
}

/** True when s[start, end) looks like one whole JSON object (cheap check, not validation). */
export function looksLikeObject(s: string, start: number, end: number): boolean {
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return end - start >= 2 && s.charCodeAt(start) === LBRACE && s.charCodeAt(end - 1) === RBRACE;
}

/** The chunk's text as UTF-8 (for messages and JSON.parse fallbacks; not on the hot path). */
export function utf8Of(s: string, start: number, end: number): string {
  return Buffer.from(s.slice(start, end), 'latin1').toString('utf8');
}
