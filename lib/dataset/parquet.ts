// Parquet reader through hyparquet (pure JS) with hyparquet-compressors, so the
// codecs pandas/pyarrow write (snappy by default; gzip, zstd, brotli, lz4) all
// decode. Only the mapped columns are decoded, one row group at a time. List
// columns come back as arrays (INT64 elements as bigint; the loader converts).

import { open, type FileHandle } from 'node:fs/promises';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { DatasetError } from './types.js';
import type { RowSource, SourceRow } from './source.js';

function fileBuffer(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end: number = size): Promise<ArrayBuffer> {
      const length = Math.max(0, Math.min(end, size) - start);
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return out.buffer;
    },
  };
}

// Loaded on first use: only Parquet users pay for it, and a CommonJS build can
// still reach these ESM-only packages through import().
type Hyparquet = typeof import('hyparquet');
type Compressors = typeof import('hyparquet-compressors')['compressors'];
let libs: Promise<{ hp: Hyparquet; compressors: Compressors }> | undefined;
function loadLibs(): Promise<{ hp: Hyparquet; compressors: Compressors }> {
  libs ??= Promise.all([import('hyparquet'), import('hyparquet-compressors')]).then(([hp, c]) => ({
    hp,
    compressors: c.compressors,
  }));
  return libs;
}

async function* readRows(
  hp: Hyparquet,
  compressors: Compressors,
  path: string,
  file: AsyncBuffer,
  metadata: FileMetaData,
  columns: readonly string[] | undefined,
  limit: number,
): AsyncGenerator<SourceRow> {
  let start = 0;
  for (const group of metadata.row_groups) {
    const groupEnd = start + Number(group.num_rows);
    const end = Math.min(groupEnd, limit);
    if (end > start) {
      let rows: Record<string, unknown>[];
      try {
        rows = await hp.parquetReadObjects({
          file,
          metadata,
          columns: columns ? [...columns] : undefined,
          rowStart: start,
          rowEnd: end,
          compressors,
        });
      } catch (e) {
        throw new DatasetError(
          `${path}: rows ${start}..${end - 1}: cannot decode Parquet data: ${(e as Error).message}`,
          path,
          start,
        );
      }
      for (let k = 0; k < rows.length; k++) {
        const value = rows[k];
        rows[k] = undefined as never; // let each row go once converted
        yield { value, at: start + k };
      }
    }
    start = groupEnd;
    if (start >= limit) return;
  }
}

/** A Parquet file as a row source; its schema gives the columns up front. */
export async function parquetSource(path: string): Promise<RowSource> {
  const { hp, compressors } = await loadLibs();
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const file = fileBuffer(handle, size);
    let metadata: FileMetaData;
    try {
      metadata = await hp.parquetMetadataAsync(file);
    } catch (e) {
      throw new DatasetError(`${path}: not a readable Parquet file: ${(e as Error).message}`, path);
    }
    const columns = hp.parquetSchema(metadata).children.map((c) => c.element.name);
    return {
      format: 'parquet',
      unit: 'row',
      columns,
      numRows: Number(metadata.num_rows),
      rows: ({ columns: select, limit }) => readRows(hp, compressors, path, file, metadata, select, limit ?? Infinity),
      close: () => handle.close(),
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}
