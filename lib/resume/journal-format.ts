// The sample journal's binary record: one completed sample, little-endian,
// framed so a reader can tell a whole record from a torn tail (a crash in the
// middle of a write) and stop there. Layout:
//   u32 magic 'LGJ1' | u32 payload bytes | payload | u32 checksum(payload)
// payload:
//   u32 qsl_idx | u32 n_tokens (the count given to the engine) | u32 ids |
//   u8 first-token kind | u8 endpoint | u16 0 | f64 ttft ns | f64 latency ns |
//   ids × i32 (the bytes given to the engine, i.e. the accuracy log's data)
// Every record is 44 + 4·ids bytes, so records stay 4-byte aligned (the
// writer fills them as 32-bit words: little-endian hosts, as Node runs on). The
// checksum is FNV-1a over the payload's 32-bit words: a few times cheaper
// than zlib's crc32 on this path, and enough to tell a torn tail.

export const JOURNAL_MAGIC = 0x314a474c; // 'LGJ1' read as a little-endian u32
export const RECORD_HEAD = 8;
export const PAYLOAD_FIXED = 32;
export const RECORD_TAIL = 4;
export const RECORD_FIXED = RECORD_HEAD + PAYLOAD_FIXED + RECORD_TAIL;

/** How the sample's first token reached the engine (so a resumed run reports it the same way). */
export const FIRST_TOKEN_NONE = 0; // firstTokenComplete without bytes
export const FIRST_TOKEN_DATA = 1; // firstTokenComplete with the first id (4 bytes)
export const FIRST_TOKEN_ABSENT = 2; // no firstTokenComplete (non-streaming body)

export interface JournalRecord {
  qslIdx: number;
  nTokens: number;
  /** The output ids' bytes (int32 LE), as completed into the engine; empty when the server sent no ids. */
  data: Uint8Array;
  firstToken: number;
  endpoint: number;
  /** Harness side, from the request write (NaN when unknown). */
  ttftNs: number;
  latencyNs: number;
}

/** FNV-1a over the 32-bit words [from, to) of `words` (little-endian u32 view). */
export function wordChecksum(words: Uint32Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}
