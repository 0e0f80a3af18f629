// Byte-level reading of the few fields a stream chunk carries that we need
// (token ids, counts, finish reason), without JSON.parse: one chunk per token
// is the hot path. Keys are matched with their quotes and must follow `{` or
// `,`, so a key-like text inside a string value (where quotes are escaped)
// never matches. Anything unexpected makes the caller fall back to
// JSON.parse.

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

/** `"name"` as bytes, the form keys are searched in. */
export function keyBytes(name: string): Buffer {
  return Buffer.from(`"${name}"`, 'latin1');
}

/**
 * Position of the first byte of the value of key `key` (bytes of `"name"`)
 * in buf[from, end), or -1. Skips matches that are not keys.
 */
export function findValue(buf: Buffer, key: Buffer, from: number, end: number): number {
  let at = from;
  for (;;) {
    const k = buf.indexOf(key, at);
    if (k < 0 || k >= end) return -1;
    let p = k - 1;
    while (p >= from && isSpace(buf[p])) p--;
    let q = k + key.length;
    at = q;
    if (p >= from && buf[p] !== LBRACE && buf[p] !== COMMA) continue;
    while (q < end && isSpace(buf[q])) q++;
    if (q >= end || buf[q] !== COLON) continue;
    q++;
    while (q < end && isSpace(buf[q])) q++;
    return q < end ? q : -1;
  }
}

/** True when the value at `p` is the literal null. */
export function isNull(buf: Buffer, p: number): boolean {
  return buf[p] === 0x6e && buf[p + 1] === 0x75 && buf[p + 2] === 0x6c && buf[p + 3] === 0x6c;
}

/** Integer at `p` (optionally negative), or NaN. */
export function readInt(buf: Buffer, p: number, end: number): number {
  let neg = false;
  if (buf[p] === MINUS) {
    neg = true;
    p++;
  }
  let v = 0;
  let digits = 0;
  while (p < end) {
    const c = buf[p];
    if (c < ZERO || c > NINE) break;
    v = v * 10 + (c - ZERO);
    digits++;
    p++;
  }
  if (digits === 0) return NaN;
  return neg ? -v : v;
}

/** True when the string value at `p` is "" (p at its opening quote). */
export function isEmptyString(buf: Buffer, p: number): boolean {
  return buf[p] === QUOTE && buf[p + 1] === QUOTE;
}

/** Index just past the string starting at `p` (its opening quote), or -1. */
export function skipString(buf: Buffer, p: number, end: number): number {
  if (buf[p] !== QUOTE) return -1;
  p++;
  while (p < end) {
    const q = buf.indexOf(QUOTE, p);
    if (q < 0 || q >= end) return -1;
    let bs = 0;
    for (let r = q - 1; r >= p && buf[r] === BACKSLASH; r--) bs++;
    if ((bs & 1) === 0) return q + 1;
    p = q + 1;
  }
  return -1;
}

/** Compares the bytes of a short ASCII string value at `p` (its opening quote) with `word`. */
export function stringEquals(buf: Buffer, p: number, word: string): boolean {
  if (buf[p] !== QUOTE) return false;
  for (let i = 0; i < word.length; i++) if (buf[p + 1 + i] !== word.charCodeAt(i)) return false;
  return buf[p + 1 + word.length] === QUOTE;
}

/** The short ASCII string value at `p` (e.g. a finish reason), or null. */
export function readShortString(buf: Buffer, p: number, end: number): string | null {
  const e = skipString(buf, p, end);
  if (e < 0) return null;
  return buf.toString('latin1', p + 1, e - 1);
}

/**
 * Appends the integers of the array at `p` (its `[`) to `sink`; returns the
 * index after `]`, or -1 if it is not an array of integers.
 */
export function readIntArray(buf: Buffer, p: number, end: number, sink: TokenBuffer): number {
  if (buf[p] !== LBRACKET) return -1;
  p++;
  for (;;) {
    while (p < end && isSpace(buf[p])) p++;
    if (p >= end) return -1;
    const c = buf[p];
    if (c === RBRACKET) return p + 1;
    if (c === COMMA) {
      p++;
      continue;
    }
    const neg = c === MINUS;
    if (neg) p++;
    let v = 0;
    let digits = 0;
    while (p < end) {
      const d = buf[p];
      if (d < ZERO || d > NINE) break;
      v = v * 10 + (d - ZERO);
      digits++;
      p++;
    }
    if (digits === 0) return -1;
    sink.push(neg ? -v : v);
  }
}

/**
 * Reads the last `count` integers of the array at `p` (its `[`) into
 * out[0..], in order, scanning from the end: SGLang's cumulative output_ids
 * grow with every chunk, and only the new tail matters. Returns how many
 * were read (fewer if the array is shorter), or -1 if malformed.
 */
export function readIntArrayTail(buf: Buffer, p: number, end: number, count: number, out: Int32Array): number {
  if (buf[p] !== LBRACKET) return -1;
  const close = buf.indexOf(RBRACKET, p);
  if (close < 0 || close >= end) return -1;
  let n = 0;
  let q = close - 1;
  while (n < count) {
    while (q > p && (isSpace(buf[q]) || buf[q] === COMMA)) q--;
    if (q <= p) break;
    let v = 0;
    let mul = 1;
    let digits = 0;
    while (q > p && buf[q] >= ZERO && buf[q] <= NINE) {
      v += (buf[q] - ZERO) * mul;
      mul *= 10;
      digits++;
      q--;
    }
    if (digits === 0) return -1;
    if (buf[q] === MINUS) {
      v = -v;
      q--;
    }
    out[count - 1 - n] = v;
    n++;
  }
  if (n < count) out.copyWithin(0, count - n, count);
  return n;
}

/** Index just past the object or array starting at `p`, or -1 (strings are skipped). */
export function skipComposite(buf: Buffer, p: number, end: number): number {
  let depth = 0;
  while (p < end) {
    const c = buf[p];
    if (c === QUOTE) {
      p = skipString(buf, p, end);
      if (p < 0) return -1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) return p + 1;
    }
    p++;
  }
  return -1;
}

/** True when buf[start, end) looks like one whole JSON object (cheap check, not validation). */
export function looksLikeObject(buf: Buffer, start: number, end: number): boolean {
  while (start < end && isSpace(buf[start])) start++;
  while (end > start && isSpace(buf[end - 1])) end--;
  return end - start >= 2 && buf[start] === LBRACE && buf[end - 1] === RBRACE;
}
