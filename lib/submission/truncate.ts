// The accuracy log as a submission carries it, as MLPerf's
// tools/submission/truncate_accuracy_log.py leaves it: the SHA-256 of the
// whole file appended to accuracy.txt as a `hash=<hex>` line (after a blank
// line), and the file cut to its first and last 4096 characters joined by
// "\n\n...\n\n" when it is 4096 bytes or longer. The checker then finds the
// hash and a log of at most 10 KiB.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

import type { DatasetCounts } from '../accuracy/score-types.js';
import { TRUNCATE_VIEWABLE } from './rules.js';

/** SHA-256 of a file's bytes, lowercase hex. */
export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * The truncated text of an accuracy log (unchanged when shorter than 4096
 * bytes). The official tool counts characters of the decoded text; an
 * accuracy log is ASCII JSON, where characters and bytes agree.
 */
export function truncatedAccuracyLog(path: string): string {
  const text = readFileSync(path, 'latin1');
  if (statSync(path).size < TRUNCATE_VIEWABLE) return text;
  return `${text.slice(0, TRUNCATE_VIEWABLE)}\n\n...\n\n${text.slice(text.length - TRUNCATE_VIEWABLE)}`;
}

/** The line the truncation appends to accuracy.txt. */
export function hashLine(hex: string): string {
  return `\nhash=${hex}\n`;
}

/**
 * accuracy.txt in the form the checker's patterns read: the reference
 * scripts' "Results" heading and their Python-dict line of scores
 * ({'rouge1': 38.9, 'gen_len': 8167644, ...}), then the hash line.
 */
export function accuracyTxt(
  metrics: Record<string, number>,
  hashHex: string | null,
  datasets?: Record<string, DatasetCounts>,
): string {
  const dict = `{${Object.entries(metrics)
    .map(([k, v]) => `'${k}': ${pythonNumber(v)}`)
    .join(', ')}}`;
  // Per source dataset (deepseek-r1, gpt-oss-120b): plain words, no quoted key the checker's patterns could match.
  const per = datasets
    ? `\nPer dataset: samples, passed, failed (timed out, empty), unscored\n${Object.entries(datasets)
        .map(([n, c]) => `  ${n}: ${c.samples}, ${c.passed}, ${c.failed} (${c.timedOut}, ${c.empty}), ${c.unscored}\n`)
        .join('')}`
    : '';
  return `\nResults\n\n${dict}\n${per}${hashHex ? hashLine(hashHex) : ''}`;
}

/** A number as Python's repr prints it for the checker's `[\d.]+` patterns (no exponent). */
function pythonNumber(v: number): string {
  if (!Number.isFinite(v)) return '0';
  if (Number.isInteger(v)) return String(v);
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(12).replace(/0+$/, '') : s;
}
