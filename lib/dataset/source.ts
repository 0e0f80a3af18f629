// What each file reader gives the loader: rows in file order, with their position.

import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';

export type DatasetFormat = 'json' | 'jsonl' | 'parquet';

export interface SourceRow {
  /** The parsed row (an object for well-formed files). */
  value: unknown;
  /** 0-based row index (JSON array, Parquet) or 1-based line number (JSONL). */
  at: number;
}

export interface RowSource {
  readonly format: DatasetFormat;
  /** How `at` counts: 'row' (0-based) or 'line' (1-based). */
  readonly unit: 'row' | 'line';
  /** Column names known before any row is read (Parquet); undefined for JSON/JSONL. */
  readonly columns?: readonly string[];
  /** Row count known up front (Parquet). */
  readonly numRows?: number;
  /** Rows in order; `columns` restricts what is decoded where the format allows it. */
  rows(options: { columns?: readonly string[]; limit?: number }): AsyncIterable<SourceRow>;
  close(): Promise<void>;
}

/** A byte stream of the file, gunzipped when `gzip` is set. */
export function openByteStream(path: string, gzip: boolean, chunkSize = 1 << 20): Readable {
  const raw = createReadStream(path, { highWaterMark: chunkSize });
  if (!gzip) return raw;
  const gunzip = createGunzip();
  raw.on('error', (e) => gunzip.destroy(e));
  return raw.pipe(gunzip);
}

/** The first non-whitespace byte of the file (after a UTF-8 BOM), or -1 for an empty file. */
export async function firstByte(path: string, gzip: boolean): Promise<number> {
  const stream = openByteStream(path, gzip);
  try {
    let start = true;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let i = 0;
      if (start && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
      start = false;
      for (; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
      }
    }
    return -1;
  } finally {
    stream.destroy();
  }
}
