// Scoring at the end of `loadgen run --mode accuracy|submission --tokenizer
// FILE`: the run's own mlperf_log_accuracy.json, decoded with the given
// tokenizer and scored against the run's dataset references, written to
// accuracy.json beside the logs, and summarised into the RunRecord so
// results.json and report.html show it.
import { join } from 'node:path';

import { formatAccuracyReport, scoreAccuracy, summarizeAccuracy, type AccuracySummary } from '../accuracy/score.js';
import { loadTokenizer } from '../accuracy/tokenizer.js';
import { UsageError } from '../cli/errors.js';
import type { Dataset } from '../dataset/types.js';
import type { TestResult } from '../core/result.js';
import { writeFileAtomic } from '../results/write-outputs.js';

export interface RunAccuracyOptions {
  /** tokenizer.json path (or its directory). */
  tokenizer: string;
  /** MLPerf benchmark whose metrics and targets apply (default: the run's, else llama3.1-8b's). */
  benchmark?: string;
}

/** What lands in RunRecord.accuracy: the summary, or why scoring failed. */
export type RunAccuracy = (AccuracySummary & { file: string }) | { error: string };

/** Whether this mode writes an accuracy log that can be scored. */
export function modeIsScored(mode: TestResult['mode']): boolean {
  return mode === 'AccuracyOnly' || mode === 'SubmissionRun';
}

/** Loads the tokenizer once before the run, so a wrong path fails in seconds, not after hours. */
export async function checkTokenizer(path: string): Promise<void> {
  try {
    await loadTokenizer(path);
  } catch (err) {
    throw new UsageError(`--tokenizer ${path}: ${(err as Error).message}`);
  }
}

/**
 * Scores the run; never throws (the run's logs and results matter more than
 * a scoring failure, which is reported in the record and on `log`).
 */
export async function scoreRun(
  result: TestResult,
  dataset: Dataset,
  outdir: string,
  o: RunAccuracyOptions,
  benchmark: string | null,
  log: (m: string) => void,
): Promise<RunAccuracy | null> {
  if (!modeIsScored(result.mode)) return null;
  if (result.aborted) {
    log('note: the run was interrupted: its accuracy log is incomplete and is not scored');
    return { error: 'the run was interrupted before every sample was logged' };
  }
  try {
    const report = await scoreAccuracy({
      log: result.logs.accuracy,
      dataset,
      tokenizer: o.tokenizer,
      benchmark: o.benchmark ?? benchmark ?? undefined,
      scenario: result.scenario,
    });
    const file = join(outdir, 'accuracy.json');
    await writeFileAtomic(file, `${JSON.stringify(report, null, 1)}\n`);
    log(formatAccuracyReport(report).trimEnd());
    return { ...summarizeAccuracy(report), file };
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    log(`error: accuracy scoring failed: ${message}`);
    return { error: message };
  }
}
