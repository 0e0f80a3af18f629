// JSON reader: one top-level array of objects (MLPerf llama3.1-8b cnn_eval.json).
// The file is scanned as bytes and each element is parsed on its own, so a file
// larger than V8's longest string (~512 MB) still loads, memory holds one
// element's text at a time, and a bad element is reported with its row index.

import { DatasetError } from './types.js';
import { openByteStream, type RowSource, type SourceRow } from './source.js';

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACK = 0x5b;
const RBRACK = 0x5d;
const QUOTE = 0x22;
const BSLASH = 0x5c;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const TAB = 0x09;

// biome-ignore lint/suspicious/noConstEnum: file-local (no isolatedModules hazard); inlined in the scan loop.
const enum State {
  Start,
  BeforeFirst,
  BeforeValue,
  InValue,
  After,
  End,
}

function charName(c: number): string {
  return c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
}

/** 1-based line number of byte `offset` of the (decompressed) file. */
async function lineAt(path: string, gzip: boolean, offset: number): Promise<number> {
  const stream = openByteStream(path, gzip);
  let line = 1;
  let seen = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const end = Math.min(chunk.length, offset - seen);
      for (let p = chunk.indexOf(LF); p !== -1 && p < end; p = chunk.indexOf(LF, p + 1)) line++;
      seen += chunk.length;
      if (seen >= offset) break;
    }
  } finally {
    stream.destroy();
  }
  return line;
}

async function* readJsonArray(
  path: string,
  gzip: boolean,
  limit: number,
  chunkSize?: number,
): AsyncGenerator<SourceRow> {
  if (limit <= 0) return;
  const stream = openByteStream(path, gzip, chunkSize);
  let state = State.Start as State;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let index = 0;
  let consumed = 0; // bytes of the file before the current chunk
  let elementOffset = 0; // file offset of the current element's '{'
  let firstChunk = true;
  // The position of the next occurrence of each byte, cached per chunk: each
  // byte's search only moves forward, so a chunk costs a few native scans
  // (Buffer.indexOf) instead of a JS loop over every byte.
  const next = new Int32Array(256);
  const fail = async (message: string, offset: number, row?: number): Promise<never> => {
    const line = await lineAt(path, gzip, offset);
    throw new DatasetError(
      `${path}: ${row !== undefined ? `row ${row}: ` : ''}${message.replace('%LINE%', String(line))}`,
      path,
      row,
    );
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let i = 0;
      if (firstChunk && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
      firstChunk = false;
      next.fill(-2);
      const find = (b: number, from: number): number => {
        let p = next[b]!;
        if (p !== -1 && p < from) next[b] = p = chunk.indexOf(b, from);
        return p;
      };
      let elementStart = state === State.InValue ? 0 : -1;
      const n = chunk.length;
      while (i < n) {
        if (state === State.InValue) {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          if (inString) {
            const q = find(QUOTE, i);
            const b = find(BSLASH, i);
            if (b !== -1 && (q === -1 || b < q)) {
              i = b + 2;
              if (i > n) escaped = true;
            } else if (q !== -1) {
              inString = false;
              i = q + 1;
            } else i = n;
            continue;
          }
          let p = find(QUOTE, i);
          for (const b of [LBRACE, RBRACE, LBRACK, RBRACK]) {
            const x = find(b, i);
            if (x !== -1 && (p === -1 || x < p)) p = x;
          }
          if (p === -1) {
            i = n;
            continue;
          }
          const c = chunk[p]!;
          i = p + 1;
          if (c === QUOTE) inString = true;
          else if (c === LBRACE || c === LBRACK) depth++;
          else if (--depth === 0) {
            const tail = chunk.subarray(elementStart, i);
            const bytes = parts.length ? Buffer.concat([...parts, tail]) : tail;
            parts = [];
            state = State.After;
            let value: unknown;
            try {
              value = JSON.parse(bytes.toString('utf8'));
            } catch (e) {
              await fail(
                `invalid JSON in the element starting on line %LINE%: ${(e as Error).message}`,
                elementOffset,
                index,
              );
            }
            yield { value, at: index };
            index++;
            if (index >= limit) return;
          }
          continue;
        }
        const c = chunk[i]!;
        if (c === SP || c === LF || c === TAB || c === CR) {
          i++;
          continue;
        }
        const offset = consumed + i;
        switch (state) {
          case State.Start:
            if (c === LBRACK) state = State.BeforeFirst;
            else await fail(`expected a JSON array ('[') on line %LINE%, found ${charName(c)}`, offset);
            break;
          case State.BeforeFirst:
          case State.BeforeValue:
            if (c === RBRACK && state === State.BeforeFirst) state = State.End;
            else if (c === LBRACE) {
              state = State.InValue;
              depth = 1;
              elementStart = i;
              elementOffset = offset;
            } else await fail(`expected an object on line %LINE%, found ${charName(c)}`, offset, index);
            break;
          case State.After:
            if (c === COMMA) state = State.BeforeValue;
            else if (c === RBRACK) state = State.End;
            else
              await fail(
                `expected ',' or ']' after the element, found ${charName(c)} on line %LINE%`,
                offset,
                index - 1,
              );
            break;
          case State.End:
            await fail(`unexpected ${charName(c)} after the closing ']' on line %LINE%`, offset);
        }
        i++;
      }
      if (state === State.InValue) parts.push(chunk.subarray(elementStart));
      consumed += n;
    }
    if (state === State.Start) throw new DatasetError(`${path}: empty file: expected a JSON array`, path);
    if (state === State.InValue) {
      await fail('file ends inside the element starting on line %LINE% (truncated?)', elementOffset, index);
    }
    if (state !== State.End) throw new DatasetError(`${path}: file ends before the closing ']' (truncated?)`, path);
  } finally {
    stream.destroy();
  }
}

/** A JSON-array file (optionally gzipped) as a row source; `chunkSize` (read size) is for tests. */
export function jsonArraySource(path: string, gzip = false, chunkSize?: number): RowSource {
  return {
    format: 'json',
    unit: 'row',
    rows: ({ limit }) => readJsonArray(path, gzip, limit ?? Infinity, chunkSize),
    close: async () => {},
  };
}
