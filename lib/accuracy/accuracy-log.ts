// Reading mlperf_log_accuracy.json (ours and the official LoadGen's): a JSON
// array with one entry per line, `{ "seq_id", "qsl_idx", "data" (upper-case
// hex of the response bytes), "token_data"? (first-token bytes, non-Offline
// token runs), "token_count"? }`. The file is read line by line, so logs of
// long-output benchmarks (hundreds of MB) never become one string, and a log
// cut short by a crash still yields its complete entries. A file in another
// JSON layout (pretty-printed, one line) falls back to a plain JSON parse.
//
// Token ids are decoded as the MLPerf scripts do with
// np.frombuffer(bytes.fromhex(data), dtype): int32 by default (the convention
// of every LLM reference SUT), little-endian.

import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ErrorCode, LoadgenError } from '../core/errors.js';

export type TokenDtype = 'int32' | 'int64' | 'int16' | 'float32';

export const TOKEN_DTYPES: readonly TokenDtype[] = ['int32', 'int64', 'int16', 'float32'];

const DTYPE_BYTES: Record<TokenDtype, number> = { int32: 4, int64: 8, int16: 2, float32: 4 };

/** A problem with the log file itself (unreadable, not a log, bad hex). */
export class AccuracyLogError extends LoadgenError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(ErrorCode.AccuracyLog, message);
  }
}

export interface AccuracyLogEntry {
  seqId: number;
  qslIdx: number;
  /** Output token ids (decoded `data`). */
  tokens: ArrayLike<number>;
  /** First-token ids (decoded `token_data`), when the entry has them. */
  firstTokens?: ArrayLike<number>;
  /** `token_count`, when the entry has it. */
  tokenCount?: number;
  /** Bytes of `data`. */
  byteLength: number;
  /** Set when `data` or `token_data` could not be decoded with the dtype (the tokens are then empty). */
  malformed?: string;
}

export interface AccuracyLog {
  path?: string;
  dtype: TokenDtype;
  /** Every entry, in file order (duplicates included). */
  entries: AccuracyLogEntry[];
  /** True when the closing `]` was missing (a run that did not finish writing). */
  truncated: boolean;
}

export interface ReadAccuracyLogOptions {
  /** How `data` is decoded (default int32). */
  dtype?: TokenDtype;
}

/** True for a string of an even number of hex digits. */
function isHex(s: string): boolean {
  return s.length % 2 === 0 && /^[0-9A-Fa-f]*$/.test(s);
}

/**
 * Decodes the hex of a response buffer into numbers of `dtype` (little-endian).
 * Throws AccuracyLogError when the hex is malformed or its byte count is not a
 * multiple of the dtype's size (np.frombuffer raises there too).
 */
export function decodeTokens(hex: string, dtype: TokenDtype = 'int32'): ArrayLike<number> {
  if (!isHex(hex)) throw new AccuracyLogError(`not an even-length hex string (${hex.length} characters)`);
  const size = DTYPE_BYTES[dtype];
  if (size === undefined)
    throw new AccuracyLogError(`unknown dtype '${String(dtype)}'; expected ${TOKEN_DTYPES.join(', ')}`);
  const nBytes = hex.length / 2;
  if (nBytes % size !== 0) {
    throw new AccuracyLogError(
      `${nBytes} bytes is not a whole number of ${dtype} values (${size} bytes each): wrong --dtype?`,
    );
  }
  const bytes = Buffer.from(hex, 'hex');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = nBytes / size;
  switch (dtype) {
    case 'int32': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) out[i] = view.getInt32(i * 4, true);
      return out;
    }
    case 'int16': {
      const out = new Int16Array(n);
      for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, true);
      return out;
    }
    case 'float32': {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
      return out;
    }
    case 'int64': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = Number(view.getBigInt64(i * 8, true));
      return out;
    }
  }
}

interface RawEntry {
  seq_id?: unknown;
  qsl_idx?: unknown;
  data?: unknown;
  token_data?: unknown;
  token_count?: unknown;
}

function toEntry(raw: RawEntry, where: string, dtype: TokenDtype, file: string | undefined): AccuracyLogEntry {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new AccuracyLogError(`${where}: an entry must be an object`, file);
  }
  const { seq_id, qsl_idx, data, token_data, token_count } = raw;
  if (!Number.isSafeInteger(qsl_idx) || (qsl_idx as number) < 0) {
    throw new AccuracyLogError(`${where}: 'qsl_idx' must be a non-negative integer`, file);
  }
  if (typeof data !== 'string') throw new AccuracyLogError(`${where}: 'data' must be a hex string`, file);
  const e: AccuracyLogEntry = {
    seqId: Number.isSafeInteger(seq_id) ? (seq_id as number) : -1,
    qslIdx: qsl_idx as number,
    tokens: new Int32Array(0),
    byteLength: Math.floor(data.length / 2),
  };
  if (token_count !== undefined) {
    if (!Number.isSafeInteger(token_count))
      throw new AccuracyLogError(`${where}: 'token_count' must be an integer`, file);
    e.tokenCount = token_count as number;
  }
  try {
    e.tokens = decodeTokens(data, dtype);
  } catch (err) {
    e.malformed = `data: ${(err as Error).message}`;
  }
  if (token_data !== undefined) {
    if (typeof token_data !== 'string') throw new AccuracyLogError(`${where}: 'token_data' must be a hex string`, file);
    try {
      e.firstTokens = decodeTokens(token_data, dtype);
    } catch (err) {
      e.malformed ??= `token_data: ${(err as Error).message}`;
      e.firstTokens = new Int32Array(0);
    }
  }
  return e;
}

/** Parses the text of an accuracy log (any JSON layout). */
export function parseAccuracyLog(text: string, options: ReadAccuracyLogOptions & { path?: string } = {}): AccuracyLog {
  const dtype = options.dtype ?? 'int32';
  const file = options.path;
  const lines = parseByLines(text.split('\n'), dtype, file);
  if (lines) return { ...(file !== undefined ? { path: file } : {}), dtype, ...lines };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AccuracyLogError(`${file ?? 'accuracy log'}: not JSON (${(err as Error).message})`, file);
  }
  if (!Array.isArray(raw))
    throw new AccuracyLogError(`${file ?? 'accuracy log'}: expected a JSON array of entries`, file);
  const entries = raw.map((r, i) => toEntry(r as RawEntry, `${file ?? 'accuracy log'} entry ${i}`, dtype, file));
  return { ...(file !== undefined ? { path: file } : {}), dtype, entries, truncated: false };
}

/**
 * The line-per-entry layout LoadGen writes: `[`, entries each on one line
 * (`,`-terminated but the last), `]`. `push` returns false as soon as the
 * text is not in that layout.
 */
class LineParser {
  readonly entries: AccuracyLogEntry[] = [];
  private opened = false;
  private closed = false;
  private lineNo = 0;
  /** Line number of an unparseable (torn) line; allowed only as the last line of an unfinished file. */
  private torn = 0;

  constructor(
    private readonly dtype: TokenDtype,
    private readonly file: string | undefined,
  ) {}

  push(raw: string): boolean {
    this.lineNo++;
    const line = raw.trim();
    if (line.length === 0) return true;
    if (this.torn) return false;
    if (!this.opened) {
      if (line === '[') {
        this.opened = true;
        return true;
      }
      if (line === '[]') {
        this.opened = this.closed = true;
        return true;
      }
      return false;
    }
    if (this.closed) return false;
    if (line === ']') {
      this.closed = true;
      return true;
    }
    if (!line.startsWith('{')) return false;
    const body = line.endsWith(',') ? line.slice(0, -1) : line;
    let obj: unknown;
    try {
      obj = JSON.parse(body);
    } catch {
      this.torn = this.lineNo;
      return true;
    }
    this.entries.push(
      toEntry(obj as RawEntry, `${this.file ?? 'accuracy log'} line ${this.lineNo}`, this.dtype, this.file),
    );
    return true;
  }

  /** The result, or undefined when the text was not in the line layout. */
  finish(): { entries: AccuracyLogEntry[]; truncated: boolean } | undefined {
    if (!this.opened)
      return this.lineNo > 0 && this.entries.length === 0 ? undefined : { entries: this.entries, truncated: false };
    if (this.torn && this.closed) return undefined;
    return { entries: this.entries, truncated: !this.closed };
  }
}

function parseByLines(
  lines: Iterable<string>,
  dtype: TokenDtype,
  file: string | undefined,
): { entries: AccuracyLogEntry[]; truncated: boolean } | undefined {
  const p = new LineParser(dtype, file);
  for (const line of lines) if (!p.push(line)) return undefined;
  return p.finish();
}

async function* linesOf(path: string): AsyncGenerator<string> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } finally {
    rl.close();
  }
}

/** Reads an accuracy log file; AccuracyLogError names the file and the problem. */
export async function readAccuracyLog(path: string, options: ReadAccuracyLogOptions = {}): Promise<AccuracyLog> {
  const dtype = options.dtype ?? 'int32';
  if (!TOKEN_DTYPES.includes(dtype)) {
    throw new AccuracyLogError(`unknown dtype '${String(dtype)}'; expected ${TOKEN_DTYPES.join(', ')}`);
  }
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new AccuracyLogError(`${path}: not a file`, path);
    size = s.size;
  } catch (err) {
    if (err instanceof AccuracyLogError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new AccuracyLogError(
      code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read: ${(err as Error).message}`,
      path,
    );
  }
  if (size === 0) throw new AccuracyLogError(`${path}: empty file (the run wrote no accuracy log)`, path);

  const p = new LineParser(dtype, path);
  let inLayout = true;
  for await (const line of linesOf(path)) {
    if (!p.push(line)) {
      inLayout = false;
      break;
    }
  }
  const byLines = inLayout ? p.finish() : undefined;
  if (byLines) return { path, dtype, ...byLines };
  const text = await readFile(path, 'utf8');
  return parseAccuracyLog(text, { dtype, path });
}

export interface Deduplicated {
  /** The first entry of each qsl_idx, in file order. */
  entries: AccuracyLogEntry[];
  /** Entries dropped because their qsl_idx came earlier. */
  duplicates: number;
}

/** Keeps the first entry per qsl_idx, as MLPerf's accuracy scripts do. */
export function dedupByQslIdx(entries: readonly AccuracyLogEntry[]): Deduplicated {
  const seen = new Set<number>();
  const out: AccuracyLogEntry[] = [];
  for (const e of entries) {
    if (seen.has(e.qslIdx)) continue;
    seen.add(e.qslIdx);
    out.push(e);
  }
  return { entries: out, duplicates: entries.length - out.length };
}
