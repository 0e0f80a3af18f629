// Scoring at the end of `loadgen run --mode accuracy|submission --tokenizer
// FILE`: the run's own mlperf_log_accuracy.json, decoded with the given
// tokenizer and scored against the run's dataset references, written to
// accuracy.json beside the logs, and summarised into the RunRecord so
// results.json and report.html show it.
import { join } from 'node:path';

import { formatAccuracyReport, scoreAccuracy, summarizeAccuracy } from '../accuracy/score.js';
import { accuracyTarget } from '../accuracy/targets.js';
import { loadTokenizer } from '../accuracy/tokenizer.js';
import { UsageError } from '../core/errors.js';
import type { LoadedDataset } from '../dataset/open.js';
import type { Dataset } from '../dataset/types.js';
import type { TestResult } from '../core/result.js';
import type { RunAccuracy } from '../results/run-record.js';
import { writeFileAtomic } from '../results/write-outputs.js';

export interface RunAccuracyOptions {
  /** tokenizer.json path (or its directory). */
  tokenizer: string;
  /** MLPerf benchmark whose metrics and targets apply (default: the run's, else llama3.1-8b's). */
  benchmark?: string;
  /** The reference column the run's field mapping names, when it names one (scoring against the file). */
  referenceColumn?: string;
}

export type { RunAccuracy };

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
 * What the run is scored against. Benchmarks that score each row by its
 * source dataset (mixtral, deepseek-r1, gpt-oss) need columns the run's
 * Dataset does not carry (the dataset name, LiveCodeBench's tests): when the
 * dataset came from a file, that file, read up to the run's row count (its
 * --limit) with the mapping's reference column when it names one. Otherwise
 * the Dataset itself (its prompts' references).
 */
export function scoringSource(
  dataset: Dataset,
  benchmark: string,
  referenceColumn: string | undefined,
): { dataset: string | Dataset; limit?: number; referenceColumn?: string } {
  const spec = accuracyTarget(benchmark);
  const path = (dataset as Partial<LoadedDataset>).path;
  if (!spec || spec.method === 'rouge' || typeof path !== 'string') return { dataset };
  return { dataset: path, limit: dataset.size, ...(referenceColumn !== undefined ? { referenceColumn } : {}) };
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
    const name = o.benchmark ?? benchmark ?? 'llama3.1-8b';
    const report = await scoreAccuracy({
      log: result.logs.accuracy,
      ...scoringSource(dataset, name, o.referenceColumn),
      tokenizer: o.tokenizer,
      benchmark: name,
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
