// Decoding of SGLang native /generate stream chunks:
// {"text":…,"output_ids":[…],"meta_info":{"finish_reason":…,"completion_tokens":N,…}}.
// meta_info.completion_tokens is cumulative and authoritative; the new ids
// of a chunk are the last (count - previous) elements of output_ids, which
// is right whether the server sends them cumulative or as deltas
// (--incremental-streaming-output), and survives retractions.
import { findValue, isNull, keyBytes, looksLikeObject, readInt, readIntArrayTail, readShortString } from '../json-scan.js';
import { errorMessage } from './openai-chunks.js';
import { CHUNK_EMPTY, CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, type StreamState } from './stream-state.js';

const K_META = keyBytes('meta_info');
const K_OUTPUT_IDS = keyBytes('output_ids');
const K_COMPLETION_TOKENS = keyBytes('completion_tokens');
const K_FINISH = keyBytes('finish_reason');
const K_TYPE = keyBytes('type');
const K_ERROR = keyBytes('error');

let tail = new Int32Array(1024);

export function decodeGenerateChunk(buf: Buffer, s: number, e: number, st: StreamState): number {
  st.chunkTokens = 0;
  if (!looksLikeObject(buf, s, e)) return malformed(buf, s, e, st);
  const meta = findValue(buf, K_META, s, e);
  if (meta < 0) {
    if (findValue(buf, K_ERROR, s, e) >= 0) {
      st.error = errorMessage(buf, s, e);
      return CHUNK_ERROR;
    }
    return malformed(buf, s, e, st);
  }
  const c = findValue(buf, K_COMPLETION_TOKENS, meta, e);
  const count = c >= 0 ? readInt(buf, c, e) : NaN;
  if (!(count >= 0)) return malformed(buf, s, e, st);
  const fin = findValue(buf, K_FINISH, meta, e);
  if (fin >= 0 && !isNull(buf, fin)) {
    const t = findValue(buf, K_TYPE, fin, e);
    st.finishReason = (t >= 0 ? readShortString(buf, t, e) : null) ?? 'unknown';
  }

  const have = st.tokens.length;
  if (count < have) {
    // Retraction: the server took back speculative tokens.
    st.tokens.truncate(count);
    st.serverTokens = count;
    return CHUNK_EMPTY;
  }
  const fresh = count - have;
  st.serverTokens = count;
  if (fresh === 0) return CHUNK_EMPTY;
  const ids = findValue(buf, K_OUTPUT_IDS, s, e);
  if (ids < 0 || isNull(buf, ids)) {
    // No ids in this chunk: count only.
    st.chunkTokens = fresh;
    st.sawText = true;
    for (let i = 0; i < fresh; i++) st.tokens.push(-1);
    return CHUNK_TOKENS;
  }
  if (tail.length < fresh) tail = new Int32Array(Math.max(fresh, tail.length * 2));
  const got = readIntArrayTail(buf, ids, e, fresh, tail);
  if (got < 0) return malformed(buf, s, e, st);
  if (st.outputIdsMode === 'unknown' && have > 0) st.outputIdsMode = got === fresh && arrayLength(buf, ids, e) > fresh ? 'cumulative' : 'delta';
  st.tokens.reserve(fresh);
  // Fewer ids than the count says (should not happen): pad so counts stay right.
  for (let i = got; i < fresh; i++) st.tokens.push(-1);
  for (let i = 0; i < got; i++) st.tokens.push(tail[i]);
  st.chunkTokens = fresh;
  st.sawText = true;
  return CHUNK_TOKENS;
}

// Number of elements of the int array at p (commas + 1), for mode detection only.
function arrayLength(buf: Buffer, p: number, e: number): number {
  const close = buf.indexOf(0x5d, p);
  if (close < 0 || close > e) return 0;
  let n = 0;
  let any = false;
  for (let i = p + 1; i < close; i++) {
    if (buf[i] === 0x2c) n++;
    else if (buf[i] !== 0x20) any = true;
  }
  return any ? n + 1 : 0;
}

function malformed(buf: Buffer, s: number, e: number, st: StreamState): number {
  st.error = `malformed stream chunk: ${JSON.stringify(buf.toString('utf8', s, Math.min(e, s + 200)))}`;
  return CHUNK_MALFORMED;
}
