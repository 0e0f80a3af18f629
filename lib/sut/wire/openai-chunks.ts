// Decoding of OpenAI-style stream chunks (/v1/completions and
// /v1/chat/completions, vLLM and SGLang flavours) by scanning bytes.
// One choice per stream (n = 1). Chunks whose shape the scanner cannot
// vouch for are checked with JSON.parse before being believed.
import {
  findValue,
  isEmptyString,
  isNull,
  keyBytes,
  looksLikeObject,
  readInt,
  readIntArray,
  readShortString,
  skipString,
} from '../json-scan.js';
import type { TokenSource } from '../types.js';
import { CHUNK_EMPTY, CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, type StreamState } from './stream-state.js';

const K_CHOICES = keyBytes('choices');
const K_TOKEN_IDS = keyBytes('token_ids');
const K_TEXT = keyBytes('text');
const K_CONTENT = keyBytes('content');
const K_REASONING = keyBytes('reasoning_content');
const K_REASONING2 = keyBytes('reasoning');
const K_FINISH = keyBytes('finish_reason');
const K_USAGE = keyBytes('usage');
const K_COMPLETION_TOKENS = keyBytes('completion_tokens');
const K_ERROR = keyBytes('error');
const K_OBJECT = keyBytes('object');
const K_LOGPROBS = keyBytes('logprobs');
const K_TOKENS = keyBytes('tokens');
const TOKEN_ID_PREFIX = Buffer.from('"token_id:');
const EMPTY_ARRAY = 0x5d; // ']' right after '['
const CHAT_TEXT_KEYS = [K_CONTENT, K_REASONING, K_REASONING2];

/**
 * Decodes one chunk into `st`. `chat` selects delta.content (chat) over text
 * (completions) as the text field.
 */
export function decodeOpenAiChunk(buf: Buffer, s: number, e: number, st: StreamState, source: TokenSource, chat: boolean): number {
  st.chunkTokens = 0;
  if (!looksLikeObject(buf, s, e)) return malformed(buf, s, e, st);
  const choices = findValue(buf, K_CHOICES, s, e);
  if (choices < 0) return decodeNoChoices(buf, s, e, st);
  const countBefore = st.serverTokens;
  readUsage(buf, s, e, st);
  if (buf[choices] !== 0x5b) return malformed(buf, s, e, st);
  if (buf[choices + 1] === EMPTY_ARRAY) return CHUNK_EMPTY; // usage-only chunk

  const before = st.tokens.length;
  if (source === 'token_ids') {
    const ids = findValue(buf, K_TOKEN_IDS, choices, e);
    if (ids >= 0 && !isNull(buf, ids) && readIntArray(buf, ids, e, st.tokens) < 0) return malformed(buf, s, e, st);
  } else if (source === 'logprobs') {
    if (readLogprobIds(buf, choices, e, st) < 0) return malformed(buf, s, e, st);
  }
  const fin = findValue(buf, K_FINISH, choices, e);
  if (fin >= 0 && !isNull(buf, fin)) st.finishReason = readShortString(buf, fin, e) ?? 'unknown';

  let n = st.tokens.length - before;
  if (n === 0 && source === 'none') {
    // No ids: per-chunk usage (continuous_usage_stats) says how many tokens
    // the chunk carried; without it, a chunk with text carries one or more.
    if (st.serverTokens > countBefore && buf[choices + 1] !== EMPTY_ARRAY) n = st.serverTokens - Math.max(0, countBefore);
    else if (hasText(buf, choices, e, chat)) n = 1;
  }
  st.chunkTokens = n;
  if (n > 0) {
    st.sawText = true;
    return CHUNK_TOKENS;
  }
  return CHUNK_EMPTY;
}

function hasText(buf: Buffer, from: number, e: number, chat: boolean): boolean {
  if (chat) {
    for (const k of CHAT_TEXT_KEYS) {
      const v = findValue(buf, k, from, e);
      if (v >= 0 && !isNull(buf, v) && !isEmptyString(buf, v)) return true;
    }
    return false;
  }
  const v = findValue(buf, K_TEXT, from, e);
  return v >= 0 && !isNull(buf, v) && !isEmptyString(buf, v);
}

// usage.completion_tokens, when the chunk has a usage object.
function readUsage(buf: Buffer, s: number, e: number, st: StreamState): void {
  const u = findValue(buf, K_USAGE, s, e);
  if (u < 0 || isNull(buf, u)) return;
  const c = findValue(buf, K_COMPLETION_TOKENS, u, e);
  if (c < 0) return;
  const v = readInt(buf, c, e);
  if (v >= 0) st.serverTokens = v;
}

// "token_id:N" strings of logprobs.tokens (completions) or
// logprobs.content[].token (chat).
function readLogprobIds(buf: Buffer, from: number, e: number, st: StreamState): number {
  const lp = findValue(buf, K_LOGPROBS, from, e);
  if (lp < 0 || isNull(buf, lp)) return 0;
  let p = lp;
  const tokens = findValue(buf, K_TOKENS, lp, e);
  if (tokens >= 0) p = tokens;
  let count = 0;
  for (;;) {
    const at = buf.indexOf(TOKEN_ID_PREFIX, p);
    if (at < 0 || at >= e) break;
    const v = readInt(buf, at + TOKEN_ID_PREFIX.length, e);
    if (!(v >= 0)) return -1;
    st.tokens.push(v);
    count++;
    const end = skipString(buf, at, e);
    if (end < 0) return -1;
    p = end;
    // Completions: only the `tokens` array, not top_logprobs' keys.
    if (tokens >= 0 && buf[p] === 0x5d) break;
  }
  return count;
}

// A chunk without choices: an error event, or usage only.
function decodeNoChoices(buf: Buffer, s: number, e: number, st: StreamState): number {
  const err = findValue(buf, K_ERROR, s, e);
  const obj = findValue(buf, K_OBJECT, s, e);
  if (err >= 0 || (obj >= 0 && readShortString(buf, obj, e) === 'error')) {
    st.error = errorMessage(buf, s, e);
    return CHUNK_ERROR;
  }
  readUsage(buf, s, e, st);
  const parsed = tryParse(buf, s, e);
  if (parsed === undefined) return malformed(buf, s, e, st);
  return CHUNK_EMPTY;
}

/** The message of an error body in either shape: {"error":{...}} or {"object":"error",...}. */
export function errorMessage(buf: Buffer, s: number, e: number): string {
  const parsed = tryParse(buf, s, e);
  return errorMessageOf(parsed) ?? `error event: ${buf.toString('utf8', s, Math.min(e, s + 300))}`;
}

export function errorMessageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const o = body as Record<string, unknown>;
  const inner = o.error;
  if (inner && typeof inner === 'object') {
    const m = (inner as Record<string, unknown>).message;
    if (typeof m === 'string') return m;
    return JSON.stringify(inner);
  }
  if (typeof inner === 'string') return inner;
  if (o.object === 'error' && typeof o.message === 'string') return o.message;
  if (typeof o.detail === 'string') return o.detail;
  if (typeof o.message === 'string') return o.message;
  return null;
}

function tryParse(buf: Buffer, s: number, e: number): unknown {
  try {
    return JSON.parse(buf.toString('utf8', s, e)) as unknown;
  } catch {
    return undefined;
  }
}

function malformed(buf: Buffer, s: number, e: number, st: StreamState): number {
  st.error = `malformed stream chunk: ${JSON.stringify(buf.toString('utf8', s, Math.min(e, s + 200)))}`;
  return CHUNK_MALFORMED;
}
