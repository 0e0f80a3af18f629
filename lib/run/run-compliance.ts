// runCompliance: one MLPerf compliance test end to end (what `loadgen
// compliance` does): the audit run with the test's audit.config (built in,
// or a file), the reference runs the test compares with (or given ones),
// our verification of the official script's rules, and the files the
// submission checker reads in their official layout (<outdir>/TEST0x/).
// The runs themselves stay in <outdir>/runs/ (<TEST0x>/, performance/,
// accuracy/), each a complete `loadgen run` directory.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { readAccuracyLog, type TokenDtype } from '../accuracy/accuracy-log.js';
import { formatAccuracyReport, scoreAccuracy } from '../accuracy/score.js';
import { loadReferences } from '../accuracy/references.js';
import { accuracyTarget } from '../accuracy/targets.js';
import { runTest06 } from '../accuracy/test06.js';
import {
  builtinAuditConfig,
  complianceTestsFor,
  readAuditThresholds,
  type RunnableComplianceTest,
} from '../compliance/audit-configs.js';
import { writeComplianceLayout, type ComplianceTexts } from '../compliance/layout.js';
import {
  verifyTest01Accuracy,
  verifyTest07Score,
  verifyTest09OutputLength,
  type Test01Dtype,
} from '../compliance/verify-accuracy.js';
import { verifyTest01Performance, verifyTest04Performance } from '../compliance/verify-performance.js';
import { UsageError } from '../core/errors.js';
import { openDataset } from '../dataset/open.js';
import { parseDetailText } from '../report/read-logs.js';
import { DATASET_PRESETS, presetKey } from '../dataset/presets.js';
import type { Dataset } from '../dataset/types.js';
import type { RunRecord } from '../results/run-record.js';
import { runStatusOf } from '../results/run-status.js';
import { checkOutputDir } from './output-dir.js';
import { checkTokenizer } from './run-accuracy.js';
import { runBenchmark } from './run-benchmark.js';
import type { RunBenchmarkOptions } from './run-options.js';

export interface RunComplianceOptions {
  test: RunnableComplianceTest;
  /** The run's options, as for runBenchmark; `outdir` is where TEST0x/ and runs/ go. */
  run: RunBenchmarkOptions;
  /** An audit.config file instead of the built-in one. */
  auditConfig?: string;
  /** TEST01/TEST04: a performance run's directory (its mlperf_log_*.txt, or performance/run_1/ of a results folder) instead of running one. */
  referenceRun?: string;
  /** TEST01: an accuracy run's directory (mlperf_log_accuracy.json, or accuracy/ of a results folder) instead of running one. */
  accuracyRun?: string;
  /** TEST01: the units responses are compared in (default byte, as the official script). */
  test01Dtype?: Test01Dtype;
  /** TEST06: the EOS id (default: the benchmark's, else 2 as the official script). */
  eosTokenId?: number;
  /** TEST06: how token ids are decoded (default: the benchmark's, else int32). */
  tokenDtype?: TokenDtype;
  /** TEST07: tokenizer.json to decode the outputs with (required for TEST07). */
  tokenizer?: string;
  /** TEST07: overrides test07_accuracy_threshold. */
  accuracyThreshold?: number;
  /** TEST07: the metric compared (default exact_match when scored, else the benchmark's first). */
  scoreMetric?: string;
  /** TEST09: override the audit.config's bounds. */
  minOutputTokens?: number;
  maxOutputTokens?: number;
  /** Notes and warnings (default: stderr). */
  log?: (message: string) => void;
}

export interface ComplianceOutcome {
  test: RunnableComplianceTest;
  pass: boolean;
  /** Why it failed, one line each (empty on PASS). */
  reasons: string[];
  /** <outdir>/TEST0x, the folder to submit. */
  dir: string;
  /** The files written there. */
  files: string[];
  /** Where the audit.config came from (a file, or the official folder restated). */
  auditConfigSource: string;
  runs: { audit: string; performance?: string; accuracy?: string };
  records: { audit: RunRecord; performance?: RunRecord; accuracy?: RunRecord };
}

const AUDIT_FOUND = 'Found Audit Config file';

function firstExisting(dir: string, candidates: string[], what: string, flag: string): string {
  for (const c of candidates) {
    const p = join(dir, c);
    if (existsSync(p)) return p;
  }
  throw new UsageError(`${flag} ${dir}: no ${what} (looked for ${candidates.join(', ')})`);
}

function positive(flag: string, v: number | undefined): void {
  if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0))
    throw new UsageError(`${flag} must be a number >= 0, got ${String(v)}`);
}

async function datasetForScoring(run: RunBenchmarkOptions): Promise<Dataset> {
  const d = run.dataset;
  if (d && typeof (d as Dataset).prompt === 'function') return d as Dataset;
  if (!d || !('path' in d))
    throw new UsageError('TEST07 scores the outputs against references: give --dataset with a reference column');
  const { path, ...rest } = d;
  const preset =
    rest.preset ?? (run.benchmark && DATASET_PRESETS[presetKey(run.benchmark)] ? presetKey(run.benchmark) : undefined);
  return openDataset(path, { ...rest, ...(preset ? { preset } : {}) });
}

/** The outcome of a test whose runs were stopped: FAIL, nothing written for the submission. */
function stopped(
  o: RunComplianceOptions,
  reason: string,
  auditConfigSource: string,
  runs: Partial<ComplianceOutcome['runs']>,
  records: Partial<ComplianceOutcome['records']>,
): ComplianceOutcome {
  return {
    test: o.test,
    pass: false,
    reasons: [reason],
    dir: join(resolve(o.run.outdir), o.test),
    files: [],
    auditConfigSource,
    runs: { audit: join(resolve(o.run.outdir), 'runs', o.test), ...runs },
    records: records as ComplianceOutcome['records'],
  };
}

/** Runs one compliance test; resolves with its verdict (usage errors throw before anything runs). */
export async function runCompliance(o: RunComplianceOptions): Promise<ComplianceOutcome> {
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const test = o.test;
  const run = o.run;
  const benchmark = run.benchmark;
  positive('--accuracy-threshold', o.accuracyThreshold);
  positive('--min-output-tokens', o.minOutputTokens);
  positive('--max-output-tokens', o.maxOutputTokens);
  if (o.eosTokenId !== undefined && !Number.isSafeInteger(o.eosTokenId))
    throw new UsageError(`--eos-token-id must be an integer, got ${String(o.eosTokenId)}`);

  if (benchmark !== undefined) {
    const wanted = complianceTestsFor(benchmark);
    if (!wanted.includes(test as never)) {
      const which = wanted.length ? `it needs ${wanted.join(', ')}` : 'it needs none';
      if (o.auditConfig === undefined)
        throw new UsageError(
          `${test} does not apply to ${benchmark} (the v6.1 submission checker's table: ${which}); give --audit-config FILE to run it anyway`,
        );
      log(`warning: ${test} does not apply to ${benchmark} (${which}); running it with ${o.auditConfig} anyway`);
    }
  } else {
    log(`note: no --benchmark: ${test} is run without the checker's table of which tests a benchmark needs`);
  }

  let auditText: string;
  let auditSource: string;
  if (o.auditConfig !== undefined) {
    try {
      auditText = readFileSync(o.auditConfig, 'utf8');
    } catch (err) {
      throw new UsageError(`--audit-config ${o.auditConfig}: ${(err as Error).message}`);
    }
    auditSource = resolve(o.auditConfig);
  } else {
    const built = builtinAuditConfig(test, benchmark);
    auditText = built.text;
    auditSource = `built in (${built.source})`;
  }
  const thresholds = readAuditThresholds(auditText);
  const accuracyThreshold = o.accuracyThreshold ?? thresholds.test07AccuracyThreshold;
  const minOut = o.minOutputTokens ?? thresholds.test09MinOutputTokens;
  const maxOut = o.maxOutputTokens ?? thresholds.test09MaxOutputTokens;
  if (test === 'TEST07') {
    if (accuracyThreshold === undefined)
      throw new UsageError(
        'TEST07 needs an accuracy threshold: test07_accuracy_threshold in the audit.config, or --accuracy-threshold',
      );
    if (o.tokenizer === undefined) throw new UsageError('TEST07 scores the outputs: give --tokenizer tokenizer.json');
  }
  if (test === 'TEST09' && (minOut === undefined || maxOut === undefined))
    throw new UsageError(
      'TEST09 needs output-length bounds: test09_min/max_output_tokens in the audit.config, or --min-output-tokens and --max-output-tokens',
    );

  const outdir = checkOutputDir(run.outdir);
  const runsDir = join(outdir, 'runs');
  const refPerfDir = o.referenceRun !== undefined ? resolve(o.referenceRun) : undefined;
  const refAccDir = o.accuracyRun !== undefined ? resolve(o.accuracyRun) : undefined;
  const needsPerf = test === 'TEST01' || test === 'TEST04';
  const needsAcc = test === 'TEST01';
  let perfSummary: string | undefined;
  let perfDetail: string | undefined;
  let accLog: string | undefined;
  if (needsPerf && refPerfDir !== undefined) {
    perfSummary = firstExisting(
      refPerfDir,
      ['mlperf_log_summary.txt', 'performance/run_1/mlperf_log_summary.txt'],
      'summary',
      '--reference-run',
    );
    perfDetail = firstExisting(
      refPerfDir,
      ['mlperf_log_detail.txt', 'performance/run_1/mlperf_log_detail.txt'],
      'detail log',
      '--reference-run',
    );
  }
  if (needsAcc && refAccDir !== undefined)
    accLog = firstExisting(
      refAccDir,
      ['mlperf_log_accuracy.json', 'accuracy/mlperf_log_accuracy.json'],
      'accuracy log',
      '--accuracy-run',
    );
  const scoringDataset = test === 'TEST07' ? await datasetForScoring(run) : undefined;
  if (scoringDataset) {
    // What the scoring at the end needs is checked now, not after the run.
    await checkTokenizer(o.tokenizer!);
    const spec = accuracyTarget(benchmark ?? 'llama3.1-8b');
    if (!spec) throw new UsageError(`TEST07: no accuracy scoring is known for ${String(benchmark)}`);
    try {
      await loadReferences(scoringDataset, spec, { log: '', dataset: scoringDataset, tokenizer: o.tokenizer! });
    } catch (err) {
      throw new UsageError(`TEST07: ${(err as Error).message}`);
    }
  }

  // The runs: the run's own options, no scoring (TEST07 scores here), and
  // an explicit audit.config for each, so one in the working directory never
  // leaks into a reference run.
  const base: RunBenchmarkOptions = { ...run, tokenizer: undefined, mode: undefined };
  if (scoringDataset) base.dataset = scoringDataset;
  mkdirSync(runsDir, { recursive: true });
  const records: Partial<ComplianceOutcome['records']> = {};
  const runs: Partial<ComplianceOutcome['runs']> = {};
  if (needsPerf && refPerfDir === undefined) {
    const dir = join(runsDir, 'performance');
    log(`${test}: the reference performance run (${dir})`);
    records.performance = await runBenchmark({ ...base, mode: 'PerformanceOnly', outdir: dir, auditConfig: null });
    runs.performance = dir;
    perfSummary = join(dir, 'mlperf_log_summary.txt');
    perfDetail = join(dir, 'mlperf_log_detail.txt');
  } else if (refPerfDir !== undefined) runs.performance = refPerfDir;
  if (needsAcc && refAccDir === undefined) {
    const dir = join(runsDir, 'accuracy');
    log(`${test}: the accuracy run (${dir})`);
    records.accuracy = await runBenchmark({ ...base, mode: 'AccuracyOnly', outdir: dir, auditConfig: null });
    runs.accuracy = dir;
    accLog = join(dir, 'mlperf_log_accuracy.json');
  } else if (refAccDir !== undefined) runs.accuracy = refAccDir;

  // A reference run that was stopped leaves nothing to compare with.
  for (const [what, rec] of [
    ['reference performance', records.performance],
    ['accuracy', records.accuracy],
  ] as const) {
    if (rec?.result.aborted)
      return stopped(
        o,
        `the ${what} run was aborted (${rec.result.abortReason ?? 'unknown reason'})`,
        auditSource,
        runs,
        records,
      );
  }

  const auditDir = join(runsDir, test);
  mkdirSync(auditDir, { recursive: true });
  const auditPath = join(auditDir, 'audit.config');
  writeFileSync(auditPath, auditText);
  log(`${test}: the audit run, audit.config ${auditSource} (${auditDir})`);
  const audit = await runBenchmark({ ...base, outdir: auditDir, auditConfig: auditPath });
  records.audit = audit;
  runs.audit = auditDir;

  if (audit.result.aborted)
    return stopped(
      o,
      `the audit run was aborted (${audit.result.abortReason ?? 'unknown reason'})`,
      auditSource,
      runs,
      records,
    );
  const reasons: string[] = [];
  const detailText = readFileSync(join(auditDir, 'mlperf_log_detail.txt'), 'utf8');
  if (!detailText.includes(AUDIT_FOUND)) reasons.push('the audit run did not read its audit.config');
  // A file the engine cannot parse is not applied at all: the run was an ordinary one.
  for (const e of parseDetailText(detailText, join(auditDir, 'mlperf_log_detail.txt')).entries)
    if (e.key === 'error_invalid_config') reasons.push(`audit.config not applied: ${String(e.value)}`);
  // Failed samples log empty outputs, which some checks would let through.
  const configFailed = reasons.length > 0;
  for (const [what, rec] of [
    ['reference performance', records.performance],
    ['accuracy', records.accuracy],
    ['audit', audit],
  ] as const) {
    const st = rec ? runStatusOf(rec) : null;
    if (!st || st.status === 'OK' || (st.status === 'ERRORS' && what === 'audit' && configFailed)) continue;
    reasons.push(`the ${what} run: ${st.message}`);
  }
  const auditLog = join(auditDir, 'mlperf_log_accuracy.json');
  const texts: ComplianceTexts = {};
  const scenario = audit.result.scenario;
  const spec = benchmark !== undefined ? accuracyTarget(benchmark) : undefined;

  if (test === 'TEST01') {
    const acc = await verifyTest01Accuracy(accLog!, auditLog, o.test01Dtype ?? 'byte');
    const perf = verifyTest01Performance(
      { text: readFileSync(perfDetail!, 'utf8'), path: perfDetail! },
      { text: detailText, path: join(auditDir, 'mlperf_log_detail.txt') },
    );
    texts.verifyAccuracy = acc.text;
    texts.verifyPerformance = perf.text;
    reasons.push(...acc.reasons.map((r) => `accuracy: ${r}`), ...perf.reasons.map((r) => `performance: ${r}`));
  } else if (test === 'TEST04') {
    const perf = verifyTest04Performance(
      { text: readFileSync(perfSummary!, 'utf8'), path: perfSummary! },
      {
        text: readFileSync(join(auditDir, 'mlperf_log_summary.txt'), 'utf8'),
        path: join(auditDir, 'mlperf_log_summary.txt'),
      },
    );
    texts.verifyPerformance = perf.text;
    reasons.push(...perf.reasons.map((r) => `performance: ${r}`));
  } else if (test === 'TEST06') {
    const entries = (await readAccuracyLog(auditLog, { dtype: o.tokenDtype ?? spec?.dtype ?? 'int32' })).entries;
    const r = runTest06(entries, { eosTokenId: o.eosTokenId ?? spec?.eosTokenId ?? 2, scenario });
    texts.verifyAccuracy = r.text;
    if (entries.length === 0) reasons.push('the audit run logged no samples');
    for (const [name, c] of [
      ['first token', r.firstToken],
      ['EOS', r.eos],
      ['sample length', r.sampleLength],
    ] as const) {
      if (c.pass) continue;
      const ex = c.examples
        .slice(0, 3)
        .map((e) => `qsl_idx ${e.qslIdx}: ${e.reason}`)
        .join('; ');
      reasons.push(`${name} check failed for ${c.failures} entries (${ex})`);
    }
  } else if (test === 'TEST07') {
    const report = await scoreAccuracy({
      log: auditLog,
      dataset: scoringDataset!,
      tokenizer: o.tokenizer!,
      ...(benchmark !== undefined ? { benchmark } : {}),
      scenario,
    });
    const metric =
      o.scoreMetric ?? (report.metrics.exact_match !== undefined ? 'exact_match' : report.verdicts[0]?.metric);
    if (metric === undefined)
      throw new UsageError('TEST07: the scoring gave no metric to compare; give --score-metric');
    const v = verifyTest07Score(metric, report.metrics[metric], accuracyThreshold!, formatAccuracyReport(report));
    texts.verifyAccuracy = v.text;
    reasons.push(...v.reasons);
  } else {
    const v = await verifyTest09OutputLength(auditLog, minOut!, maxOut!);
    texts.verifyOutputLen = v.text;
    reasons.push(...v.reasons);
  }

  const files = writeComplianceLayout(outdir, test, auditDir, texts);
  return {
    test,
    pass: reasons.length === 0,
    reasons,
    dir: join(outdir, test),
    files,
    auditConfigSource: auditSource,
    runs: runs as ComplianceOutcome['runs'],
    records: records as ComplianceOutcome['records'],
  };
}
