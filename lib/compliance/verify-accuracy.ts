// The accuracy-side verifications of the compliance tests, by the rules of
// the official scripts (restated, not copied):
//
// TEST01 (verify_accuracy.py, its default JSON mode): every response the
// audit run logged in performance mode is compared with the accuracy run's
// response for the same qsl_idx, by the first value of each (in the dtype's
// units: byte by default); an empty response matches only an empty one. A
// sample the audit run logs again is compared with its previous audit
// response. PASS needs no mismatch and at least one sample found in both.
//
// TEST07 (run_verification.py): the accuracy score of the audit run's log
// (every sample logged) must be at least test07_accuracy_threshold.
//
// TEST09 (run_verification.py): the mean number of output tokens over the
// audit run's log entries (int32 ids, 4 bytes each, an entry without data
// counting 0) must lie within [test09_min_output_tokens,
// test09_max_output_tokens].
//
// The texts are what the checker reads: a line "TEST PASS" or "TEST FAIL".
import { readFile } from 'node:fs/promises';

import { AccuracyLogError } from '../accuracy/accuracy-log.js';

export interface Verification {
  pass: boolean;
  /** Why it failed (empty on PASS). */
  reasons: string[];
  /** The verification file's text. */
  text: string;
}

/** The units TEST01 compares responses in (the script's --dtype). */
export type Test01Dtype = 'byte' | 'int32' | 'int64' | 'float32';

export const TEST01_DTYPES: readonly Test01Dtype[] = ['byte', 'int32', 'int64', 'float32'];

interface RawEntry {
  qsl_idx: number;
  data: string;
}

async function readRawLog(path: string): Promise<RawEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AccuracyLogError(`cannot read ${path}: ${(err as Error).message}`, path);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AccuracyLogError(`${path} is not a JSON accuracy log: ${(err as Error).message}`, path);
  }
  if (!Array.isArray(parsed)) throw new AccuracyLogError(`${path}: not a JSON array of log entries`, path);
  return parsed.map((e: unknown, i) => {
    const o = e as Partial<RawEntry> | null;
    if (!o || typeof o.qsl_idx !== 'number' || typeof o.data !== 'string')
      throw new AccuracyLogError(`${path}: entry ${i} has no qsl_idx and data`, path);
    return { qsl_idx: o.qsl_idx, data: o.data };
  });
}

const SIZE: Readonly<Record<Test01Dtype, number>> = { byte: 1, int32: 4, int64: 8, float32: 4 };

/** The first value of a response in `dtype` units, or null when it has none. */
function firstValue(hex: string, dtype: Test01Dtype): number | bigint | null {
  const size = SIZE[dtype];
  if (hex.length < size * 2) return null;
  const bytes = Buffer.from(hex.slice(0, size * 2), 'hex');
  if (bytes.length !== size) return null;
  if (dtype === 'byte') return bytes.readInt8(0);
  if (dtype === 'int32') return bytes.readInt32LE(0);
  if (dtype === 'int64') return bytes.readBigInt64LE(0);
  return bytes.readFloatLE(0);
}

/** TEST01's accuracy check: the audit run's logged responses against the accuracy run's. */
export async function verifyTest01Accuracy(
  accuracyRunLog: string,
  auditLog: string,
  dtype: Test01Dtype = 'byte',
): Promise<Verification> {
  const acc = await readRawLog(accuracyRunLog);
  const audit = await readRawLog(auditLog);
  const known = new Map<number, string>();
  let accDuplicates = 0;
  let accConflicts = 0;
  for (const e of acc) {
    const had = known.get(e.qsl_idx);
    if (had === undefined) known.set(e.qsl_idx, e.data);
    else {
      accDuplicates++;
      if (had !== e.data) accConflicts++;
    }
  }
  let matched = 0;
  let mismatched = 0;
  let missing = 0;
  const examples: string[] = [];
  for (const e of audit) {
    const had = known.get(e.qsl_idx);
    if (had === undefined) missing++;
    else {
      matched++;
      const a = firstValue(e.data, dtype);
      const b = firstValue(had, dtype);
      if (a !== b) {
        mismatched++;
        if (examples.length < 5) examples.push(`qsl_idx ${e.qsl_idx}: audit ${String(a)}, accuracy run ${String(b)}`);
      }
    }
    known.set(e.qsl_idx, e.data);
  }
  const reasons: string[] = [];
  if (mismatched > 0)
    reasons.push(
      `${mismatched} of ${matched} logged responses differ from the accuracy run's (first ${dtype} value; ${examples.join('; ')})`,
    );
  if (matched === 0) reasons.push('no sample the audit run logged is in the accuracy run');
  const lines = [
    `Accuracy run log: ${accuracyRunLog}`,
    `Audit run log: ${auditLog}`,
    `Compared as: first ${dtype} value of each response`,
    `accuracy log entries: ${acc.length}`,
    `accuracy log duplicate qsl_idx: ${accDuplicates}`,
    `accuracy log duplicates with different data: ${accConflicts}`,
    `audit log entries: ${audit.length}`,
    `audit entries found in the accuracy log: ${matched}`,
    `audit entries that differ: ${mismatched}`,
    `audit entries not in the accuracy log: ${missing}`,
    ...reasons.map((r) => `reason: ${r}`),
    reasons.length === 0 ? 'TEST PASS' : 'TEST FAIL',
  ];
  return { pass: reasons.length === 0, reasons, text: `${lines.join('\n')}\n` };
}

export interface OutputLengthVerification extends Verification {
  samples: number;
  mean: number;
  min: number;
  max: number;
}

/** TEST09's check of the mean output length of the audit run's accuracy log. */
export async function verifyTest09OutputLength(
  auditLog: string,
  minTokens: number,
  maxTokens: number,
): Promise<OutputLengthVerification> {
  const entries = await readRawLog(auditLog);
  const lengths = entries.map((e) => Math.floor(e.data.trim().length / 2 / 4));
  const n = lengths.length;
  const mean = n > 0 ? lengths.reduce((a, b) => a + b, 0) / n : 0;
  const min = n > 0 ? Math.min(...lengths) : 0;
  const max = n > 0 ? Math.max(...lengths) : 0;
  const std = n > 0 ? Math.sqrt(lengths.reduce((a, x) => a + (x - mean) ** 2, 0) / n) : 0;
  const reasons: string[] = [];
  if (n === 0) reasons.push('the audit run logged no samples');
  const minPass = mean >= minTokens;
  const maxPass = mean <= maxTokens;
  if (n > 0 && !minPass) reasons.push(`mean output length ${mean.toFixed(2)} tokens is below ${minTokens}`);
  if (n > 0 && !maxPass) reasons.push(`mean output length ${mean.toFixed(2)} tokens is above ${maxTokens}`);
  const lines = [
    'TEST09: output token length of the performance-mode audit run',
    `Samples: ${n}`,
    `Mean output tokens: ${mean.toFixed(2)}`,
    `Shortest output: ${min}`,
    `Longest output: ${max}`,
    `Standard deviation: ${std.toFixed(2)}`,
    `Lower bound: ${minTokens} -> ${minPass ? 'met' : 'not met'}`,
    `Upper bound: ${maxTokens} -> ${maxPass ? 'met' : 'not met'}`,
    ...reasons.map((r) => `reason: ${r}`),
    reasons.length === 0 ? 'TEST PASS' : 'TEST FAIL',
  ];
  return { pass: reasons.length === 0, reasons, text: `${lines.join('\n')}\n`, samples: n, mean, min, max };
}

/** TEST07's check: the audit run's accuracy score against the threshold. */
export function verifyTest07Score(
  metric: string,
  score: number | undefined,
  threshold: number,
  scoreReport: string,
): Verification {
  const reasons: string[] = [];
  if (score === undefined || !Number.isFinite(score)) reasons.push(`no '${metric}' score could be computed`);
  else if (!(score >= threshold)) reasons.push(`${metric} ${score} is below the threshold ${threshold}`);
  const lines = [
    scoreReport.trimEnd(),
    '',
    `'${metric}': ${score ?? 'n/a'}`,
    `Accuracy score: ${score ?? 'n/a'}`,
    `Accuracy threshold: ${threshold}`,
    `Accuracy check pass: ${reasons.length === 0 ? 'True' : 'False'}`,
    ...reasons.map((r) => `reason: ${r}`),
    reasons.length === 0 ? 'TEST PASS' : 'TEST FAIL',
  ];
  return { pass: reasons.length === 0, reasons, text: `${lines.join('\n')}\n` };
}
