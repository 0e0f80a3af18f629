// Reads a journal directory back: every segment, record by record, stopping
// at the first record of a segment that is not whole (a torn tail left by a
// crash). The first record of a qsl_idx wins (accuracy mode completes each
// sample once; a duplicate could only come from a bug, and MLPerf's scripts
// also keep the first).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  JOURNAL_MAGIC,
  PAYLOAD_FIXED,
  RECORD_HEAD,
  RECORD_TAIL,
  wordChecksum,
  type JournalRecord,
} from './journal-format.js';

export interface JournalContents {
  records: Map<number, JournalRecord>;
  segments: number;
  /** Records skipped because their qsl_idx was already there. */
  duplicates: number;
  /** Bytes at segment ends that did not form a whole record (torn by a crash). */
  tornBytes: number;
}

/** Parses one segment's bytes into `into`; returns the number of trailing bytes that were not a whole record. */
export function parseSegment(input: Buffer, into: Map<number, JournalRecord>): { torn: number; duplicates: number } {
  // A copy at offset 0 of its own memory, whole words: the checksum reads 32-bit words.
  const buf = Buffer.alloc(input.length + ((4 - (input.length & 3)) & 3));
  input.copy(buf);
  const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
  let at = 0;
  let duplicates = 0;
  while (at + RECORD_HEAD + PAYLOAD_FIXED + RECORD_TAIL <= buf.length) {
    if (buf.readUInt32LE(at) !== JOURNAL_MAGIC) break;
    const size = buf.readUInt32LE(at + 4);
    const p = at + RECORD_HEAD;
    const end = p + size;
    if (size < PAYLOAD_FIXED || end + RECORD_TAIL > buf.length) break;
    const nIds = buf.readUInt32LE(p + 8);
    if (PAYLOAD_FIXED + 4 * nIds !== size) break;
    if (wordChecksum(words, p >> 2, end >> 2) !== buf.readUInt32LE(end)) break;
    const qslIdx = buf.readUInt32LE(p);
    if (into.has(qslIdx)) duplicates++;
    else {
      into.set(qslIdx, {
        qslIdx,
        nTokens: buf.readUInt32LE(p + 4),
        data: buf.subarray(p + PAYLOAD_FIXED, end),
        firstToken: buf[p + 12],
        endpoint: buf[p + 13],
        ttftNs: buf.readDoubleLE(p + 16),
        latencyNs: buf.readDoubleLE(p + 24),
      });
    }
    at = end + RECORD_TAIL;
  }
  return { torn: input.length - at, duplicates };
}

export function readJournal(dir: string): JournalContents {
  const records = new Map<number, JournalRecord>();
  let duplicates = 0;
  let tornBytes = 0;
  let segments = 0;
  if (!existsSync(dir)) return { records, segments, duplicates, tornBytes };
  // Sorted names: a run's segments before a later run's (the tag starts with a time).
  for (const name of readdirSync(dir)
    .filter((n) => n.startsWith('seg-') && n.endsWith('.bin'))
    .sort()) {
    const r = parseSegment(readFileSync(join(dir, name)), records);
    segments++;
    duplicates += r.duplicates;
    tornBytes += r.torn;
  }
  return { records, segments, duplicates, tornBytes };
}
