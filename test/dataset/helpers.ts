// Fixture writers for the dataset tests: everything is made in a temp dir.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer, type ColumnSource, type SchemaElement } from 'hyparquet-writer';

export function tempDir(): { dir: string; file(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lg-dataset-'));
  return { dir, file: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A cnn_eval.json-like array (indent 4, as the MLPerf script writes it). */
export function cnnRows(n: number): Record<string, unknown>[] {
  const template =
    'In very brief sentences, summarize the following news article. Only return the summary.\nArticle: {input}\nSummary: ';
  return Array.from({ length: n }, (_, i) => ({
    instruction: { llama: template },
    input: `Article ${i} text with "quotes", braces {x} [y] and a \\ backslash, ünïcödé.`,
    tok_input: [128000, 644, 1633, 10015, 23719, 11, 100 + i],
    output: `Highlights ${i}`,
  }));
}

export function writeJson(path: string, value: unknown, indent = 4): string {
  writeFileSync(path, JSON.stringify(value, null, indent));
  return path;
}

export function writeJsonl(path: string, rows: unknown[], extra?: (lines: string[]) => string[]): string {
  let lines = rows.map((r) => JSON.stringify(r));
  if (extra) lines = extra(lines);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

export function writeGz(path: string, text: string): string {
  writeFileSync(path, gzipSync(Buffer.from(text)));
  return path;
}

export type PqColumn =
  | { name: string; type: 'STRING'; data: (string | null)[] }
  | { name: string; type: 'INT32'; data: (number | null)[] }
  | { name: string; type: 'LIST_INT32'; data: (number[] | null)[] }
  | { name: string; type: 'LIST_INT64'; data: (bigint[] | null)[] };

/**
 * A Parquet file written the way pyarrow writes pandas frames: optional
 * columns, int lists as 3-level LIST<element> groups.
 */
export function writeParquet(
  path: string,
  columns: PqColumn[],
  options: { codec?: 'SNAPPY' | 'GZIP' | 'UNCOMPRESSED'; rowGroupSize?: number } = {},
): string {
  const schema: SchemaElement[] = [{ name: 'schema', num_children: columns.length }];
  const columnData: ColumnSource[] = [];
  for (const c of columns) {
    if (c.type === 'STRING') {
      schema.push({ name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
    } else if (c.type === 'INT32') {
      schema.push({ name: c.name, type: 'INT32', repetition_type: 'OPTIONAL' });
    } else {
      schema.push(
        { name: c.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: c.type === 'LIST_INT64' ? 'INT64' : 'INT32', repetition_type: 'OPTIONAL' },
      );
    }
    columnData.push({ name: c.name, data: c.data });
  }
  const buf = parquetWriteBuffer({
    columnData,
    schema,
    codec: options.codec ?? 'SNAPPY',
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)) },
    rowGroupSize: options.rowGroupSize,
  });
  writeFileSync(path, new Uint8Array(buf));
  return path;
}
