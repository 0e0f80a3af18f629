// Decoding of OpenAI-style stream chunks (/v1/completions and
// /v1/chat/completions, vLLM and SGLang flavours) from latin1 strings by key
// search (see json-scan.ts): a handful of indexOf calls a chunk, no
// JSON.parse and no allocation. One choice per stream (n = 1). Chunks whose
// shape the search cannot vouch for are checked with JSON.parse before being
// believed.
import {
  findValue,
  findValueLast,
  isEmptyString,
  isNull,
  looksLikeObject,
  quoted,
  readInt,
  readIntArray,
  readShortString,
  skipString,
  utf8Of,
} from '../json-scan.js';
import type { TokenSource } from '../types.js';
import { CHUNK_EMPTY, CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, type StreamState } from './stream-state.js';

const K_CHOICES = quoted('choices');
const K_TOKEN_IDS = quoted('token_ids');
const K_TEXT = quoted('text');
const K_CONTENT = quoted('content');
const K_REASONING = quoted('reasoning_content');
const K_REASONING2 = quoted('reasoning');
const K_FINISH = quoted('finish_reason');
const K_USAGE = quoted('usage');
const K_COMPLETION_TOKENS = quoted('completion_tokens');
const K_ERROR = quoted('error');
const K_OBJECT = quoted('object');
const K_LOGPROBS = quoted('logprobs');
const K_TOKENS = quoted('tokens');
const TOKEN_ID = '"token_id:';
const CHAT_TEXT_KEYS = [K_CONTENT, K_REASONING, K_REASONING2];

/**
 * Decodes one chunk, s[a, e), into `st`. `chat` selects delta.content (chat)
 * over text (completions) as the text field.
 */
export function decodeOpenAiChunk(
  s: string,
  a: number,
  e: number,
  st: StreamState,
  source: TokenSource,
  chat: boolean,
): number {
  st.chunkTokens = 0;
  if (!looksLikeObject(s, a, e)) return malformed(s, a, e, st);
  if (source === 'token_ids') {
    // The common chunk: a choice ending in token_ids (vLLM, SGLang 2026+):
    // two short backward searches from the end.
    const ids = findValueLast(s, K_TOKEN_IDS, a, e);
    if (ids >= 0 && s.charCodeAt(ids) === 0x5b) return decodeIdsChunk(s, a, e, ids, st);
  }
  const choices = findValue(s, K_CHOICES, a, e);
  if (choices < 0) return decodeNoChoices(s, a, e, st);
  const countBefore = st.serverTokens;
  if (s.charCodeAt(choices) !== 0x5b) return malformed(s, a, e, st);
  if (s.charCodeAt(choices + 1) === 0x5d) {
    readUsage(s, a, e, st); // the final usage-only chunk
    return CHUNK_EMPTY;
  }
  // Per-chunk usage (continuous_usage_stats) matters only without ids.
  if (source === 'none') readUsage(s, a, e, st);

  const before = st.tokens.length;
  if (source === 'token_ids') {
    const ids = findValueLast(s, K_TOKEN_IDS, choices, e);
    if (ids >= 0 && !isNull(s, ids) && readIntArray(s, ids, e, st.tokens) < 0) {
      st.tokens.truncate(before);
      return malformed(s, a, e, st);
    }
  } else if (source === 'logprobs') {
    if (readLogprobIds(s, choices, e, st) < 0) {
      st.tokens.truncate(before);
      return malformed(s, a, e, st);
    }
  }
  const fin = findValueLast(s, K_FINISH, choices, e);
  if (fin >= 0 && !isNull(s, fin)) {
    st.finishReason = readShortString(s, fin, e) ?? 'unknown';
    // Some servers put the usage on the last content chunk instead of a usage-only one.
    if (source !== 'none') readUsage(s, a, e, st);
  }

  let n = st.tokens.length - before;
  if (n === 0 && source === 'none') {
    // No ids: per-chunk usage (continuous_usage_stats) says how many tokens
    // the chunk carried; without it, a chunk with text carries one or more.
    if (st.serverTokens > countBefore) n = st.serverTokens - Math.max(0, countBefore);
    else if (hasText(s, choices, e, chat)) n = 1;
  }
  st.chunkTokens = n;
  if (n > 0) {
    st.sawText = true;
    return CHUNK_TOKENS;
  }
  return CHUNK_EMPTY;
}

function decodeIdsChunk(s: string, a: number, e: number, ids: number, st: StreamState): number {
  const before = st.tokens.length;
  if (readIntArray(s, ids, e, st.tokens) < 0) {
    st.tokens.truncate(before);
    return malformed(s, a, e, st);
  }
  // vLLM writes finish_reason before token_ids; a server may write it after.
  let fin = findValueLast(s, K_FINISH, a, ids);
  if (fin < 0) fin = findValue(s, K_FINISH, ids, e);
  if (fin >= 0 && !isNull(s, fin)) {
    st.finishReason = readShortString(s, fin, e) ?? 'unknown';
    readUsage(s, a, e, st);
  }
  const n = st.tokens.length - before;
  st.chunkTokens = n;
  if (n > 0) {
    st.sawText = true;
    return CHUNK_TOKENS;
  }
  return CHUNK_EMPTY;
}

function hasText(s: string, from: number, e: number, chat: boolean): boolean {
  if (chat) {
    for (const k of CHAT_TEXT_KEYS) {
      const v = findValue(s, k, from, e);
      if (v >= 0 && !isNull(s, v) && !isEmptyString(s, v)) return true;
    }
    return false;
  }
  const v = findValue(s, K_TEXT, from, e);
  return v >= 0 && !isNull(s, v) && !isEmptyString(s, v);
}

// usage.completion_tokens, when the chunk has a usage object.
function readUsage(s: string, a: number, e: number, st: StreamState): void {
  const u = findValue(s, K_USAGE, a, e);
  if (u < 0 || isNull(s, u)) return;
  const c = findValue(s, K_COMPLETION_TOKENS, u, e);
  if (c < 0) return;
  const v = readInt(s, c, e);
  if (v >= 0) st.serverTokens = v;
}

// "token_id:N" strings of logprobs.tokens (completions) or
// logprobs.content[].token (chat).
function readLogprobIds(s: string, from: number, e: number, st: StreamState): number {
  const lp = findValue(s, K_LOGPROBS, from, e);
  if (lp < 0 || isNull(s, lp)) return 0;
  let p = lp;
  const tokens = findValue(s, K_TOKENS, lp, e);
  if (tokens >= 0) p = tokens;
  let count = 0;
  for (;;) {
    const at = s.indexOf(TOKEN_ID, p);
    if (at < 0 || at >= e) break;
    const v = readInt(s, at + TOKEN_ID.length, e);
    if (!(v >= 0)) return -1;
    st.tokens.push(v);
    count++;
    const end = skipString(s, at, e);
    if (end < 0) return -1;
    p = end;
    // Completions: only the `tokens` array, not top_logprobs' keys.
    if (tokens >= 0 && s.charCodeAt(p) === 0x5d) break;
  }
  return count;
}

// A chunk without choices: an error event, or usage only.
function decodeNoChoices(s: string, a: number, e: number, st: StreamState): number {
  const err = findValue(s, K_ERROR, a, e);
  const obj = findValue(s, K_OBJECT, a, e);
  if ((err >= 0 && !isNull(s, err)) || (obj >= 0 && readShortString(s, obj, e) === 'error')) {
    st.error = errorMessage(s, a, e);
    return CHUNK_ERROR;
  }
  readUsage(s, a, e, st);
  if (tryParse(s, a, e) === undefined) return malformed(s, a, e, st);
  return CHUNK_EMPTY;
}

/** The message of an error body in either shape: {"error":{...}} or {"object":"error",...}. */
export function errorMessage(s: string, a: number, e: number): string {
  const parsed = tryParse(s, a, e);
  return errorMessageOf(parsed) ?? `error event: ${utf8Of(s, a, Math.min(e, a + 300))}`;
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

function tryParse(s: string, a: number, e: number): unknown {
  try {
    return JSON.parse(utf8Of(s, a, e)) as unknown;
  } catch {
    return undefined;
  }
}

export function malformed(s: string, a: number, e: number, st: StreamState): number {
  st.error = `malformed stream chunk: ${JSON.stringify(utf8Of(s, a, Math.min(e, a + 200)))}`;
  return CHUNK_MALFORMED;
}
