// Request traces to replay: the Mooncake format (JSONL rows of `timestamp`
// in ms, `input_length`, `output_length` and `hash_ids`, one id per block of
// 512 prompt tokens, equal ids meaning equal tokens), a plain JSONL of the
// same keys without hash_ids, or a CSV with a header naming the columns.
// Reading checks every row (a malformed one is an error naming its line);
// what is legal but suspect is left to lintTrace (trace-plan.ts). The rows
// become a token-id dataset in which equal hash ids give equal blocks, so a
// server's prefix cache sees the trace's sharing, and a schedule of offsets
// for the engine.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';

import { Sfc32 } from './synthetic.js';
import { DatasetError, type Dataset, type Prompt } from './types.js';

/** Mooncake's block size: tokens per hash id. */
export const TRACE_BLOCK_TOKENS = 512;

export type TraceFormat = 'mooncake' | 'jsonl' | 'csv';

export interface TraceRow {
  /** As written in the file, ms. */
  timestampMs: number;
  inputLength: number;
  outputLength: number;
  /** One id per block of the prompt; null when the file has none (the prompt then shares nothing). */
  hashIds: readonly number[] | null;
  /** 1-based line of the file. */
  line: number;
}

export interface TraceFile {
  readonly path: string;
  readonly format: TraceFormat;
  /** In replay order: by timestamp, rows of equal times in file order. */
  readonly rows: readonly TraceRow[];
  /** True when the file's rows were already in timestamp order. */
  readonly sortedInFile: boolean;
  readonly blockTokens: number;
}

export interface ReadTraceOptions {
  /** Default: `.csv` is CSV, anything else JSON lines. */
  format?: 'csv' | 'jsonl';
  /** Tokens per hash id (default 512, Mooncake's). */
  blockTokens?: number;
}

const KEYS = {
  timestamp: ['timestamp', 'timestamp_ms'],
  input: ['input_length', 'input_tokens', 'prompt_tokens'],
  output: ['output_length', 'output_tokens', 'max_tokens'],
  hashIds: ['hash_ids'],
} as const;

function fail(path: string, line: number, message: string): never {
  throw new DatasetError(`${path}: line ${line}: ${message}`, path, line);
}

function pick(o: Record<string, unknown>, names: readonly string[]): unknown {
  for (const n of names) if (o[n] !== undefined && o[n] !== '') return o[n];
  return undefined;
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return Number.NaN;
}

/** One row from its fields (a JSON object, or a CSV row keyed by the header). */
function toRow(path: string, line: number, o: Record<string, unknown>): TraceRow {
  const ts = num(pick(o, KEYS.timestamp));
  if (!(Number.isFinite(ts) && ts >= 0))
    fail(path, line, `timestamp must be a number of ms >= 0, got ${JSON.stringify(pick(o, KEYS.timestamp) ?? null)}`);
  const lengths: number[] = [];
  for (const [what, names] of [
    ['input_length', KEYS.input],
    ['output_length', KEYS.output],
  ] as const) {
    const n = num(pick(o, names));
    if (!(Number.isSafeInteger(n) && n >= 1))
      fail(path, line, `${what} must be an integer >= 1, got ${JSON.stringify(pick(o, names) ?? null)}`);
    lengths.push(n);
  }
  let raw = pick(o, KEYS.hashIds);
  let hashIds: number[] | null = null;
  if (typeof raw === 'string') {
    const t = raw.trim().replace(/^\[|\]$/g, '');
    raw = t === '' ? [] : t.split(/[\s;,|]+/).map(num);
  }
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) fail(path, line, `hash_ids must be a list of integers, got ${JSON.stringify(raw)}`);
    for (const id of raw as unknown[])
      if (!(typeof id === 'number' && Number.isSafeInteger(id) && id >= 0))
        fail(path, line, `hash_ids must be integers >= 0, got ${JSON.stringify(id)}`);
    hashIds = raw as number[];
  }
  return { timestampMs: ts, inputLength: lengths[0], outputLength: lengths[1], hashIds, line };
}

/** Splits one CSV line; fields may be double-quoted (with "" for a quote). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field.trim());
      field = '';
    } else field += c;
  }
  out.push(field.trim());
  return out;
}

function parseCsv(path: string, lines: string[]): TraceRow[] {
  const rows: TraceRow[] = [];
  let header: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || line.startsWith('#')) continue;
    const fields = csvFields(line);
    if (!header) {
      header = fields.map((f) => f.toLowerCase());
      for (const [what, names] of [
        ['timestamp', KEYS.timestamp],
        ['input_length', KEYS.input],
        ['output_length', KEYS.output],
      ] as const)
        if (!names.some((n) => header!.includes(n)))
          fail(
            path,
            i + 1,
            `the CSV header needs a ${what} column (${names.join(' or ')}); it has ${header.join(', ') || 'none'}`,
          );
      continue;
    }
    if (fields.length !== header.length)
      fail(path, i + 1, `${fields.length} fields where the header has ${header.length}`);
    const o: Record<string, unknown> = {};
    header.forEach((h, k) => {
      o[h] = fields[k];
    });
    rows.push(toRow(path, i + 1, o));
  }
  return rows;
}

function parseJsonLines(path: string, lines: string[]): TraceRow[] {
  const rows: TraceRow[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (i === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      fail(path, i + 1, `invalid JSON: ${(e as Error).message}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      fail(path, i + 1, 'expected a JSON object with timestamp, input_length and output_length');
    rows.push(toRow(path, i + 1, value as Record<string, unknown>));
  }
  return rows;
}

/** Reads and checks a trace file; throws DatasetError naming the file and line of the first bad row. */
export async function readTrace(path: string, options: ReadTraceOptions = {}): Promise<TraceFile> {
  const blockTokens = options.blockTokens ?? TRACE_BLOCK_TOKENS;
  if (!(Number.isSafeInteger(blockTokens) && blockTokens >= 1))
    throw new DatasetError(`trace: blockTokens must be an integer >= 1, got ${String(blockTokens)}`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(`${path}: cannot read the trace: ${(err as Error).message}`, path);
  }
  const csv = (options.format ?? (extname(path).toLowerCase() === '.csv' ? 'csv' : 'jsonl')) === 'csv';
  const lines = text.split(/\r?\n/);
  const rows = csv ? parseCsv(path, lines) : parseJsonLines(path, lines);
  if (rows.length === 0) throw new DatasetError(`${path}: the trace has no rows`, path);
  let sortedInFile = true;
  for (let i = 1; i < rows.length; i++) if (rows[i].timestampMs < rows[i - 1].timestampMs) sortedInFile = false;
  // Array.prototype.sort is stable: rows of equal times keep the file's order.
  const ordered = sortedInFile ? rows : [...rows].sort((a, b) => a.timestampMs - b.timestampMs);
  const format: TraceFormat = csv ? 'csv' : rows.some((r) => r.hashIds !== null) ? 'mooncake' : 'jsonl';
  return { path, format, rows: ordered, sortedInFile, blockTokens };
}

/**
 * The replay schedule: each row's offset from the first row's timestamp, in
 * ns, divided by `speed` (2 = twice as fast). Non-decreasing, as the engine needs.
 */
export function traceSchedule(trace: Pick<TraceFile, 'rows'>, speed = 1): Float64Array {
  if (!(Number.isFinite(speed) && speed > 0))
    throw new DatasetError(`trace speed must be a number > 0, got ${String(speed)}`);
  const rows = trace.rows;
  const t0 = rows.length ? rows[0].timestampMs : 0;
  const out = new Float64Array(rows.length);
  let prev = 0;
  for (let i = 0; i < rows.length; i++) {
    // Rounded to whole ns; max() keeps rounding from ever stepping back.
    prev = Math.max(prev, Math.round(((rows[i].timestampMs - t0) * 1e6) / speed));
    out[i] = prev;
  }
  return out;
}

export interface TraceDatasetOptions {
  /** Token ids are drawn from [min, max); default [1000, 31000), clear of special tokens in common vocabularies. */
  vocab?: { min: number; max: number };
  /** Default 1: another seed gives other tokens for the same ids. */
  seed?: number;
  /** Send ignore_eos with every request (default true), so outputs reach their length. */
  ignoreEos?: boolean;
}

export interface TraceDataset extends Dataset {
  readonly trace: TraceFile;
}

// Streams of the generator: blocks named by a hash id, and the tokens of a
// row that has no id for them (shared with nothing).
const HASH_STREAM = 0x68617368;
const ROW_STREAM = 0x726f7773;

function seedOf(seed: number, id: number): number {
  // Ids past 2^32 fold their high word in, so distinct ids keep distinct blocks.
  const hi = Math.floor(id / 4294967296);
  return (seed ^ Math.imul(hi, 0x9e3779b1) ^ (id >>> 0)) >>> 0;
}

/** The `count` first tokens of the block generated for (stream, id). */
function fillBlock(
  out: Int32Array,
  at: number,
  count: number,
  seed: number,
  stream: number,
  id: number,
  v: { min: number; max: number },
): void {
  const rng = new Sfc32(seedOf(seed, id), stream ^ ((id % 4294967296) >>> 0));
  const span = v.max - v.min;
  for (let k = 0; k < count; k++) out[at + k] = v.min + rng.below(span);
}

/** Token ids of row `index`: block j is hash_ids[j]'s block (cut short to input_length), blocks without an id are the row's own. */
export function tracePromptTokens(trace: TraceFile, index: number, options: TraceDatasetOptions = {}): Int32Array {
  const row = trace.rows[index];
  const v = options.vocab ?? { min: 1000, max: 31000 };
  const seed = options.seed ?? 1;
  const B = trace.blockTokens;
  const ids = new Int32Array(row.inputLength);
  for (let j = 0, at = 0; at < row.inputLength; j++, at += B) {
    const count = Math.min(B, row.inputLength - at);
    const id = row.hashIds?.[j];
    if (id !== undefined) fillBlock(ids, at, count, seed, HASH_STREAM, id, v);
    else fillBlock(ids, at, count, seed, ROW_STREAM, index * 65537 + j, v);
  }
  return ids;
}

/**
 * The trace as a dataset: sample i is row i (in replay order), a token-id
 * prompt of exactly input_length tokens asking for exactly output_length
 * (max and min tokens, and ignore_eos by default).
 */
export function traceDataset(trace: TraceFile, options: TraceDatasetOptions = {}): TraceDataset {
  const v = options.vocab ?? { min: 1000, max: 31000 };
  if (!(Number.isSafeInteger(v.min) && Number.isSafeInteger(v.max) && v.min >= 0 && v.max > v.min))
    throw new DatasetError(`trace: vocab must be integers 0 <= min < max, got ${JSON.stringify(v)}`);
  if (options.seed !== undefined && !Number.isSafeInteger(options.seed))
    throw new DatasetError(`trace: seed must be an integer, got ${String(options.seed)}`);
  const ignoreEos = options.ignoreEos !== false;
  const size = trace.rows.length;
  return {
    name: `trace:${trace.path}`,
    size,
    trace,
    prompt(index: number): Prompt {
      if (!(Number.isInteger(index) && index >= 0 && index < size))
        throw new DatasetError(`trace: sample index ${index} out of range 0..${size - 1}`, trace.path, index);
      const row = trace.rows[index];
      const p: Prompt = {
        tokenIds: tracePromptTokens(trace, index, options),
        maxTokens: row.outputLength,
        minTokens: row.outputLength,
      };
      if (ignoreEos) p.ignoreEos = true;
      return p;
    },
  };
}
