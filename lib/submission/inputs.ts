// What `loadgen submission` is given: run directories of `loadgen run`
// (performance, accuracy, or submission mode: both), and compliance
// directories, each TEST0x folder as `loadgen compliance` writes it
// (accuracy/, performance/run_1/, verify_*.txt) or a folder holding several.
// Each run is recognised from its own detail log and results.json.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

import { UsageError } from '../core/errors.js';
import type { AccuracySummary } from '../accuracy/score.js';
import { isComplianceTestName, type ComplianceTestName } from '../compliance/required-tests.js';
import { detailView, type DetailView } from './detail-log.js';
import { checkerBenchmark } from './rules.js';

export type RunKind = 'performance' | 'accuracy' | 'submission';

export interface RunInput {
  dir: string;
  kind: RunKind;
  /** Our model key (results.json benchmark.model, or --benchmark). */
  model: string;
  /** LoadGen's scenario (effective_scenario). */
  scenario: string;
  /** The checker's names: the folders results/<system>/<benchmark>/<scenario>. */
  benchmark: string;
  checkerScenario: string;
  detail: DetailView;
  /** results.json, when the run wrote one. */
  results: Record<string, unknown> | null;
}

export interface ComplianceInput {
  dir: string;
  test: ComplianceTestName;
}

export interface SubmissionInputs {
  runs: RunInput[];
  compliance: ComplianceInput[];
}

function readJson(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Reads one run directory; `benchmark` overrides the model key the run recorded. */
export function readRunInput(dir: string, benchmark?: string): RunInput {
  const detailPath = join(dir, 'mlperf_log_detail.txt');
  if (!existsSync(detailPath)) throw new UsageError(`${dir}: no mlperf_log_detail.txt (not a run directory)`);
  const detail = detailView(detailPath);
  const results = readJson(join(dir, 'results.json'));
  const recorded = (results?.benchmark ?? {}) as { model?: unknown };
  const model = benchmark ?? (typeof recorded.model === 'string' ? recorded.model : undefined);
  if (!model)
    throw new UsageError(`${dir}: the run names no benchmark (it ran without --benchmark): give --benchmark <model>`);
  const scenario = String(detail.value('effective_scenario') ?? '');
  if (!scenario) throw new UsageError(`${detailPath}: no effective_scenario`);
  const mode = String(detail.value('effective_test_mode') ?? '');
  const kind: RunKind = mode === 'AccuracyOnly' ? 'accuracy' : mode === 'SubmissionRun' ? 'submission' : 'performance';
  if (mode !== 'AccuracyOnly' && mode !== 'SubmissionRun' && mode !== 'PerformanceOnly')
    throw new UsageError(`${detailPath}: test mode ${mode || '(none)'} is not submitted (performance or accuracy)`);
  const names = checkerBenchmark(model, scenario);
  return {
    dir,
    kind,
    model,
    scenario,
    benchmark: names.benchmark,
    checkerScenario: names.scenario,
    detail,
    results,
  };
}

/** Sorts the command line's directories into runs and compliance tests. */
export function readInputs(dirs: readonly string[], benchmark?: string): SubmissionInputs {
  const runs: RunInput[] = [];
  const compliance: ComplianceInput[] = [];
  for (const given of dirs) {
    const dir = resolve(given);
    if (!isDir(dir)) throw new UsageError(`${given}: not a directory`);
    const name = basename(dir);
    if (isComplianceTestName(name)) {
      compliance.push({ dir, test: name });
      continue;
    }
    if (existsSync(join(dir, 'mlperf_log_detail.txt'))) {
      runs.push(readRunInput(dir, benchmark));
      continue;
    }
    const tests = readdirSync(dir)
      .filter((n) => isComplianceTestName(n) && isDir(join(dir, n)))
      .sort();
    if (tests.length === 0)
      throw new UsageError(`${given}: neither a run directory (mlperf_log_detail.txt) nor compliance tests (TEST0x/)`);
    for (const t of tests) compliance.push({ dir: join(dir, t), test: t as ComplianceTestName });
  }
  return { runs, compliance };
}

/**
 * The accuracy scores of an accuracy run, from the files it carries:
 * accuracy.json (written by `loadgen accuracy` or `loadgen run --tokenizer`),
 * else results.json's accuracy section. Null when it was never scored.
 */
export function runAccuracyScores(run: RunInput): AccuracySummary | null {
  const report = readJson(join(run.dir, 'accuracy.json'));
  if (report && typeof report.metrics === 'object' && report.metrics) {
    const log = (report.log ?? {}) as { uniqueSamples?: number };
    return {
      benchmark: String(report.benchmark ?? run.benchmark),
      pass: (report.pass as boolean | null) ?? null,
      samples: typeof log.uniqueSamples === 'number' ? log.uniqueSamples : 0,
      metrics: report.metrics as Record<string, number>,
      verdicts: (report.verdicts as AccuracySummary['verdicts']) ?? [],
      checksPass: true,
      notes: [],
      ...(report.datasets && typeof report.datasets === 'object'
        ? { datasets: report.datasets as NonNullable<AccuracySummary['datasets']> }
        : {}),
    };
  }
  const acc = run.results?.accuracy as AccuracySummary | { error: string } | undefined;
  if (acc && !('error' in acc) && acc.metrics) return acc;
  return null;
}
