// Reads a conversation file (JSONL, Parquet, or a JSON array; gzipped JSON
// and JSONL too) through lib/dataset's row readers, one conversation a
// record, in any shape convert.ts knows. Parquet files often hold the nested
// parts as JSON text in a string column: those are parsed here.
import { jsonArraySource } from '../dataset/json.js';
import { jsonLinesSource } from '../dataset/jsonl.js';
import { parquetSource } from '../dataset/parquet.js';
import { firstByte, type RowSource } from '../dataset/source.js';
import { DatasetError } from '../dataset/types.js';
import { toConversation, type ConversationShape } from './convert.js';
import { ConversationError, type Conversation } from './types.js';
import { checkUniqueIds, type RecordPlace } from './validate.js';

export interface ReadConversationsOptions {
  /** Force a record shape instead of telling it from each record's keys. */
  shape?: ConversationShape;
  /** Read only the first n conversations. */
  limit?: number;
}

// Columns that hold nested values, which Parquet writers often store as JSON text.
const NESTED = ['turns', 'conversations', 'messages', 'tools'];

function unnest(row: unknown): unknown {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return row;
  const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const key of NESTED) {
    const v = out[key];
    if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
      try {
        out[key] = JSON.parse(v);
      } catch {
        // left as it is: validation names the field
      }
    }
  }
  return out;
}

async function sourceFor(path: string): Promise<RowSource> {
  const lower = path.toLowerCase();
  const gzip = lower.endsWith('.gz');
  const base = gzip ? lower.slice(0, -3) : lower;
  if (base.endsWith('.parquet')) return parquetSource(path);
  if (base.endsWith('.jsonl') || base.endsWith('.ndjson')) return jsonLinesSource(path, gzip);
  if (base.endsWith('.json')) {
    // A .json file may still hold one record a line.
    return (await firstByte(path, gzip)) === 0x5b ? jsonArraySource(path, gzip) : jsonLinesSource(path, gzip);
  }
  throw new ConversationError(`${path}: unknown conversation file type (expected .jsonl, .json or .parquet)`, path);
}

/** All conversations of a file, checked; throws ConversationError naming file, line or row, and turn. */
export async function readConversations(path: string, options: ReadConversationsOptions = {}): Promise<Conversation[]> {
  let source: RowSource;
  try {
    source = await sourceFor(path);
  } catch (err) {
    if (err instanceof ConversationError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConversationError(`${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, path);
  }
  const out: Conversation[] = [];
  try {
    for await (const { value, at } of source.rows({ limit: options.limit })) {
      const place: RecordPlace = source.unit === 'line' ? { file: path, line: at } : { file: path, row: at };
      out.push(toConversation(unnest(value), place, out.length, options.shape));
    }
  } catch (err) {
    if (err instanceof DatasetError) throw new ConversationError(err.message, path, err.row);
    const code = (err as NodeJS.ErrnoException).code;
    // A missing file shows only once the stream is read.
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      throw new ConversationError(
        `${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'not readable'}`,
        path,
      );
    }
    throw err;
  } finally {
    await source.close();
  }
  if (out.length === 0) throw new ConversationError(`${path}: no conversations in the file`, path);
  checkUniqueIds(out);
  return out;
}
