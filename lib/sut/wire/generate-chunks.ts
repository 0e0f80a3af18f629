// Decoding of SGLang native /generate stream chunks:
// {"text":…,"output_ids":[…],"meta_info":{"finish_reason":…,"completion_tokens":N,…}}.
// meta_info.completion_tokens is cumulative and authoritative; the new ids
// of a chunk are the last (count - previous) elements of output_ids, which
// is right whether the server sends them cumulative or as deltas
// (--incremental-streaming-output), and survives retractions. A cumulative
// list longer than the count is SGLang's live list serialised after more
// tokens were appended (it passes intermediate chunks' output_ids by
// reference, with a snapshot of meta_info): its new ids are then the
// positions [previous, count), not its tail.
import {
  findValue,
  intBefore,
  isNull,
  looksLikeObject,
  quoted,
  readInt,
  readIntArrayTail,
  readIntsFrom,
  readShortString,
  readStop,
  skipInts,
} from '../json-scan.js';
import { errorMessage, malformed } from './openai-chunks.js';
import { CHUNK_EMPTY, CHUNK_ERROR, CHUNK_TOKENS, type StreamState } from './stream-state.js';

const K_META = quoted('meta_info');
const K_OUTPUT_IDS = quoted('output_ids');
const K_COMPLETION_TOKENS = quoted('completion_tokens');
const K_FINISH = quoted('finish_reason');
const K_TYPE = quoted('type');
const K_ERROR = quoted('error');

let tail = new Int32Array(1024);

export function decodeGenerateChunk(s: string, a: number, e: number, st: StreamState): number {
  st.chunkTokens = 0;
  if (!looksLikeObject(s, a, e)) return malformed(s, a, e, st);
  const meta = findValue(s, K_META, a, e);
  if (meta < 0) {
    if (findValue(s, K_ERROR, a, e) >= 0) {
      st.error = errorMessage(s, a, e);
      return CHUNK_ERROR;
    }
    return malformed(s, a, e, st);
  }
  const c = findValue(s, K_COMPLETION_TOKENS, meta, e);
  const count = c >= 0 ? readInt(s, c, e) : NaN;
  if (!(count >= 0)) return malformed(s, a, e, st);
  const fin = findValue(s, K_FINISH, meta, e);
  if (fin >= 0 && !isNull(s, fin)) {
    const t = findValue(s, K_TYPE, fin, e);
    st.finishReason = (t >= 0 ? readShortString(s, t, e) : null) ?? 'unknown';
  }

  const have = st.tokens.length;
  if (count < have) {
    // Retraction: the server took back speculative tokens.
    st.tokens.truncate(count);
    st.idsSep = -1;
    st.serverTokens = count;
    return CHUNK_EMPTY;
  }
  const fresh = count - have;
  st.serverTokens = count;
  if (fresh === 0) return CHUNK_EMPTY;
  const ids = findValue(s, K_OUTPUT_IDS, a, e);
  if (ids < 0 || isNull(s, ids)) {
    // No ids in this chunk: count only.
    st.idsSep = -1;
    st.chunkTokens = fresh;
    st.sawText = true;
    for (let i = 0; i < fresh; i++) st.tokens.push(-1);
    return CHUNK_TOKENS;
  }
  if (tail.length < fresh) tail = new Int32Array(Math.max(fresh, tail.length * 2));
  let got: number;
  if (st.outputIdsMode === 'delta') got = readIntArrayTail(s, ids, e, fresh, tail);
  else {
    got = readPositions(s, ids, e, have, fresh, st);
    if (got === SHORT) {
      // Fewer than `count` elements: a delta list (or ids missing).
      if (have > 0) st.outputIdsMode = 'delta';
      st.idsSep = -1;
      got = readIntArrayTail(s, ids, e, fresh, tail);
    } else if (got >= 0 && have > 0) st.outputIdsMode = 'cumulative';
  }
  if (got < 0) return malformed(s, a, e, st);
  st.tokens.reserve(fresh);
  // Fewer ids than the count says (should not happen): pad so counts stay right.
  for (let i = got; i < fresh; i++) st.tokens.push(-1);
  for (let i = 0; i < got; i++) st.tokens.push(tail[i]);
  st.chunkTokens = fresh;
  st.sawText = true;
  return CHUNK_TOKENS;
}

const SHORT = -2;

// Positions [have, have + fresh) of a cumulative list, into `tail`: fresh,
// -1 if malformed, SHORT if the list has fewer elements. The list repeats
// the ids already read, written the same way, so where the last chunk's new
// ids ended (st.idsSep, checked against the last id) is where this chunk's
// begin: no rescan of the prefix, which grows with every chunk.
function readPositions(s: string, ids: number, e: number, have: number, fresh: number, st: StreamState): number {
  if (s.charCodeAt(ids) !== 0x5b) return -1;
  let p = ids + 1;
  if (have > 0) {
    const sep = st.idsSep >= 0 ? ids + st.idsSep : -1;
    if (sep > ids && sep < e && s.charCodeAt(sep) === 0x2c && intBefore(s, ids, sep) === st.tokens.ids[have - 1])
      p = sep + 1;
    else p = skipInts(s, ids + 1, e, have);
    if (p < 0) return SHORT;
  }
  const got = readIntsFrom(s, p, e, fresh, tail);
  if (got < 0) return -1;
  if (got < fresh) return SHORT;
  st.idsSep = readStop() - ids;
  return got;
}
