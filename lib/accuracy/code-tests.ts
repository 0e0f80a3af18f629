// LiveCodeBench's tests read from the dataset file, and the program
// extracted from a generated answer as each reference script extracts it.
//
// A LiveCodeBench row of the dataset carries the problem's tests in
// LiveCodeBench's own columns (code_generation_lite): `public_test_cases` and
// `private_test_cases` (a JSON list of {input, output, testtype}; private
// ones may be base64 of zlib of a pickled JSON string), and `metadata` (JSON
// with `func_name` for LeetCode problems). The tests run are the public ones
// followed by the private ones; testtype "functional" means the method
// `func_name` is called.
import { inflateSync } from 'node:zlib';

import { jsonArraySource } from '../dataset/json.js';
import { jsonLinesSource } from '../dataset/jsonl.js';
import { parquetSource } from '../dataset/parquet.js';
import { firstByte, type RowSource } from '../dataset/source.js';
import type { CodeProblem, CodeTest } from './code-types.js';
import { AccuracyInputError } from './score-types.js';

export type { CodeProblem } from './code-types.js';

const TEST_COLUMNS = ['public_test_cases', 'private_test_cases', 'metadata'] as const;

/** The string inside a pickle of one str (protocols 2-5): the only shape LiveCodeBench stores. */
function unpickleString(b: Buffer): string | null {
  let i = 0;
  if (b[i] === 0x80) i += 2; // PROTO n
  if (b[i] === 0x95) i += 9; // FRAME + 8-byte length
  const op = b[i++];
  let len: number;
  if (op === 0x8c) {
    len = b[i]!;
    i += 1;
  } else if (op === 0x58) {
    len = b.readUInt32LE(i);
    i += 4;
  } else if (op === 0x8d) {
    len = Number(b.readBigUInt64LE(i));
    i += 8;
  } else return null;
  if (i + len > b.length) return null;
  return b.subarray(i, i + len).toString('utf8');
}

function parseTestList(v: unknown, where: string): Array<{ input: string; output: string; testtype: string }> {
  if (v === undefined || v === null || v === '') return [];
  let list: unknown = v;
  if (typeof v === 'string') {
    try {
      list = JSON.parse(v);
    } catch {
      let s: string | null = null;
      try {
        s = unpickleString(inflateSync(Buffer.from(v, 'base64')));
      } catch {
        s = null;
      }
      if (s === null) throw new AccuracyInputError(`${where}: neither JSON nor base64/zlib/pickle of JSON`);
      list = JSON.parse(s);
    }
  }
  if (!Array.isArray(list)) throw new AccuracyInputError(`${where}: not a list of tests`);
  return list.map((t, k) => {
    const o = t as Record<string, unknown>;
    if (typeof o?.input !== 'string' || typeof o.output !== 'string')
      throw new AccuracyInputError(`${where}[${k}]: a test needs string 'input' and 'output'`);
    return { input: o.input, output: o.output, testtype: String(o.testtype ?? 'stdin') };
  });
}

/** The problem of one row, or undefined when the row has no tests. */
export function problemOfRow(row: Record<string, unknown>, where: string): CodeProblem | undefined {
  const pub = parseTestList(row.public_test_cases, `${where} public_test_cases`);
  const priv = parseTestList(row.private_test_cases, `${where} private_test_cases`);
  const all = [...pub, ...priv];
  if (all.length === 0) return undefined;
  let meta: Record<string, unknown> = {};
  if (typeof row.metadata === 'string' && row.metadata.trim()) {
    try {
      meta = JSON.parse(row.metadata) as Record<string, unknown>;
    } catch {
      throw new AccuracyInputError(`${where} metadata: not JSON`);
    }
  } else if (row.metadata && typeof row.metadata === 'object') meta = row.metadata as Record<string, unknown>;
  const functional = all.some((t) => t.testtype === 'functional');
  const fn = typeof meta.func_name === 'string' ? meta.func_name : undefined;
  if (functional && !fn) throw new AccuracyInputError(`${where}: functional tests need metadata.func_name`);
  const tests: CodeTest[] = all.map((t) => ({ input: t.input, output: t.output }));
  return { tests, mode: functional ? 'functional' : 'stdin', ...(fn ? { fnName: fn } : {}) };
}

export async function sourceOf(path: string): Promise<RowSource> {
  let name = path.toLowerCase();
  const gzip = name.endsWith('.gz');
  if (gzip) name = name.slice(0, -3);
  if (name.endsWith('.parquet') || name.endsWith('.pq')) return parquetSource(path);
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return jsonLinesSource(path, gzip);
  return (await firstByte(path, gzip)) === 0x7b ? jsonLinesSource(path, gzip) : jsonArraySource(path, gzip);
}

/**
 * Each row's problem (undefined for rows without tests), from the dataset
 * file's first `limit` rows (default all); undefined when no row has tests.
 */
export async function readCodeProblems(
  path: string,
  limit?: number,
): Promise<Array<CodeProblem | undefined> | undefined> {
  const src = await sourceOf(path);
  try {
    if (src.columns && !TEST_COLUMNS.some((c) => src.columns!.includes(c))) return undefined;
    const cols = src.columns ? TEST_COLUMNS.filter((c) => src.columns!.includes(c)) : undefined;
    const out: Array<CodeProblem | undefined> = [];
    let any = false;
    for await (const r of src.rows({ ...(cols ? { columns: cols } : {}), ...(limit !== undefined ? { limit } : {}) })) {
      const row = (r.value ?? {}) as Record<string, unknown>;
      const p = problemOfRow(row, `${path} ${src.unit} ${r.at}`);
      if (p) any = true;
      out.push(p);
    }
    return any ? out : undefined;
  } finally {
    await src.close();
  }
}

/** deepseek-r1's extraction: the first ```python block, stripped; null when there is none. */
export function extractCodeDeepseek(text: string): string | null {
  const m = /```python([\s\S]*?)```/.exec(text.trim());
  return m ? m[1]!.trim() : null;
}

function lastBlock(text: string): string | null {
  const py = [...text.matchAll(/```python([\s\S]*?)```/g)];
  if (py.length > 0) return py[py.length - 1]![1]!.trim();
  const plain = [...text.matchAll(/```([\s\S]*?)```/g)];
  if (plain.length > 0) return plain[plain.length - 1]![1]!.trim().replace(/^(?:python|py)\s*\n/i, '');
  return null;
}

/**
 * gpt-oss's extraction: in a harmony answer, the final channel's last
 * ```python block (else its last plain block, a leading "python"/"py" line
 * dropped); otherwise, or when the final channel has none, the same over the
 * whole text.
 */
export function extractCodeGptOss(text: string): string | null {
  const t = text.trim();
  if (!t) return null;
  const m = /<\|channel\|>final[^<]*<\|message\|>([\s\S]*?)(?:<\|return\|>|$)/.exec(t);
  const final = m ? m[1]!.trim() : t;
  if (final !== t) {
    const c = lastBlock(final);
    if (c !== null) return c;
  }
  return lastBlock(t);
}
