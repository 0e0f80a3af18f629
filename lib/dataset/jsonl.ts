// JSONL reader: one JSON object per line (mlcommons/endpoints datasets such as
// dummy_1k.jsonl). Blank lines are skipped; errors name the 1-based line number.

import { createInterface } from 'node:readline';
import { DatasetError } from './types.js';
import { openByteStream, type RowSource, type SourceRow } from './source.js';

async function* readJsonLines(path: string, gzip: boolean, limit: number): AsyncGenerator<SourceRow> {
  if (limit <= 0) return;
  const stream = openByteStream(path, gzip);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let count = 0;
  try {
    for await (let line of lines) {
      lineNo++;
      if (lineNo === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new DatasetError(`${path}: line ${lineNo}: invalid JSON: ${(e as Error).message}`, path, lineNo);
      }
      yield { value, at: lineNo };
      if (++count >= limit) return;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** A JSON-lines file (optionally gzipped) as a row source. */
export function jsonLinesSource(path: string, gzip = false): RowSource {
  return {
    format: 'jsonl',
    unit: 'line',
    rows: ({ limit }) => readJsonLines(path, gzip, limit ?? Infinity),
    close: async () => {},
  };
}
