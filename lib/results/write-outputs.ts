// Writes a run's result files next to its MLPerf logs. Each file is written
// under a temporary name and renamed, so a reader (or an interrupted run)
// never sees half a file.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { redactDeep, scrubText } from '../core/redact.js';
import {
  ACCURACY_RESULTS_DIR,
  ACCURACY_RESULTS_FILE,
  ENDPOINTS_CONFIG_FILE,
  buildAccuracyResults,
  endpointsConfigYaml,
  scoredAccuracy,
} from './endpoints-files.js';
import { toJsonText } from './json-text.js';
import { buildReportHtml } from './report-html.js';
import { buildResultSummary } from './result-summary.js';
import { buildResultsJson } from './results-json.js';
import type { RunRecord } from './run-record.js';

export const RESULT_FILES = {
  results: 'results.json',
  resultSummary: 'result_summary.json',
  report: 'report.html',
  endpointsConfig: ENDPOINTS_CONFIG_FILE,
  accuracyResults: `${ACCURACY_RESULTS_DIR}/${ACCURACY_RESULTS_FILE}`,
} as const;

/** Writes `text` to `path` atomically (temp file in the same directory, then rename). */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now().toString(36)}`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * The record as the files show it: every string through the redaction rule
 * (lib/core/redact.ts: URL passwords, secret flags and variables, registered
 * secrets such as the API key).
 */
export function redactRecord(record: RunRecord): RunRecord {
  return { ...redactDeep(record), outdir: record.outdir };
}

/**
 * Writes results.json, result_summary.json, config.yaml and report.html into
 * record.outdir, and accuracy/accuracy_results.json when the run was scored;
 * returns their paths.
 */
export async function writeRunOutputs(given: RunRecord): Promise<{ files: string[] }> {
  const record = redactRecord(given);
  await mkdir(record.outdir, { recursive: true });
  const results = buildResultsJson(record);
  const outputs: Array<[string, string]> = [
    [RESULT_FILES.results, toJsonText(results)],
    [RESULT_FILES.resultSummary, toJsonText(buildResultSummary(record))],
    [RESULT_FILES.endpointsConfig, endpointsConfigYaml(record)],
    [RESULT_FILES.report, buildReportHtml(record, results)],
  ];
  const accuracy = scoredAccuracy(record);
  if (accuracy) {
    await mkdir(join(record.outdir, ACCURACY_RESULTS_DIR), { recursive: true });
    const dataset = { name: record.dataset.name };
    outputs.push([RESULT_FILES.accuracyResults, toJsonText(buildAccuracyResults(accuracy, dataset))]);
  }
  const files: string[] = [];
  for (const [name, text] of outputs) {
    const path = join(record.outdir, name);
    // And the text itself, in case a secret reached it some other way (escaped, or from a builder).
    await writeFileAtomic(path, scrubText(text));
    files.push(path);
  }
  return { files };
}
