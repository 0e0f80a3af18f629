// scoreAccuracy: an accuracy log, the dataset's references and the model's
// tokenizer in; the benchmark's scores (as MLPerf's reference script prints
// them), a PASS/FAIL verdict per metric and the TEST06 checks out. The
// references are read by references.ts, each method scored by
// score-methods.ts, the report formatted by format-report.ts.
import { AccuracyLogError, dedupByQslIdx, readAccuracyLog } from './accuracy-log.js';
import { formatLimit } from './format-report.js';
import { loadReferences } from './references.js';
import { readMbxpIds } from './code-mbxp.js';
import { readCodeProblems } from './code-tests.js';
import { scoreAnswers } from './score-answers.js';
import { scoreMixtral, scoreRouge } from './score-methods.js';
import {
  AccuracyInputError,
  type AccuracyReport,
  type MetricVerdict,
  type ScoreAccuracyOptions,
  type Scored,
} from './score-types.js';
import { accuracyTarget, targetValue, ACCURACY_TARGETS, type BenchmarkAccuracy } from './targets.js';
import { runTest06 } from './test06.js';
import { loadTokenizer } from './tokenizer.js';

export { AccuracyInputError } from './score-types.js';
export type {
  AccuracyReport,
  DatasetCounts,
  AccuracyVerdictStatus,
  InlineReferences,
  MetricVerdict,
  SampleScore,
  ScoreAccuracyOptions,
} from './score-types.js';
export { formatAccuracyReport, summarizeAccuracy, type AccuracySummary } from './format-report.js';

function judge(spec: BenchmarkAccuracy, s: Scored): MetricVerdict[] {
  const out: MetricVerdict[] = [];
  for (const t of spec.targets) {
    const value = s.metrics[t.metric];
    const upper = spec.upperLimits.find((u) => u.metric === t.metric);
    const v: MetricVerdict = {
      metric: t.metric,
      target: targetValue(t),
      reference: t.reference,
      fraction: t.fraction,
      status: 'UNKNOWN',
    };
    if (upper) v.upperLimit = targetValue(upper);
    const why = s.unknown[t.metric];
    if (value !== undefined) v.value = value;
    if (why !== undefined || value === undefined || Number.isNaN(value)) {
      v.note = why ?? 'not computed';
      out.push(v);
      continue;
    }
    const low = value >= v.target;
    const high = v.upperLimit === undefined || value <= v.upperLimit;
    v.status = low && high ? 'PASS' : 'FAIL';
    if (!low) v.note = `below ${formatLimit(v.target)}`;
    else if (!high) v.note = `above the upper limit ${formatLimit(v.upperLimit!)}`;
    out.push(v);
  }
  // Upper limits of metrics without a lower target (gpt-oss tokens_per_sample).
  for (const u of spec.upperLimits) {
    if (spec.targets.some((t) => t.metric === u.metric)) continue;
    const value = s.metrics[u.metric];
    const limit = targetValue(u);
    const v: MetricVerdict = {
      metric: u.metric,
      target: 0,
      reference: u.reference,
      fraction: u.fraction,
      upperLimit: limit,
      status: 'UNKNOWN',
    };
    if (value !== undefined) {
      v.value = value;
      v.status = value <= limit ? 'PASS' : 'FAIL';
      if (v.status === 'FAIL') v.note = `above the upper limit ${formatLimit(limit)}`;
    }
    out.push(v);
  }
  return out;
}

/** Known benchmark names for messages. */
export function accuracyBenchmarks(): string[] {
  return Object.keys(ACCURACY_TARGETS);
}

/**
 * Scores an accuracy log as the benchmark's MLPerf reference script does and
 * judges each metric against the benchmark's target. Throws
 * AccuracyInputError / AccuracyLogError / TokenizerError / DatasetError for
 * bad input.
 */
export async function scoreAccuracy(options: ScoreAccuracyOptions): Promise<AccuracyReport> {
  const benchmark = options.benchmark ?? 'llama3.1-8b';
  const spec = accuracyTarget(benchmark);
  if (!spec) {
    throw new AccuracyInputError(
      `unknown benchmark '${benchmark}'; known: ${accuracyBenchmarks().join(', ')} (LoadGen keys such as llama3_1-8b and -interactive variants work too)`,
    );
  }
  if (options.limit !== undefined && !(Number.isSafeInteger(options.limit) && options.limit > 0))
    throw new AccuracyInputError(`limit must be a positive integer, got ${String(options.limit)}`);
  const notes: string[] = [];
  const dtype = options.dtype ?? spec.dtype;
  const log = typeof options.log === 'string' ? await readAccuracyLog(options.log, { dtype }) : options.log;
  if (log.entries.length === 0)
    throw new AccuracyInputError(`${log.path ?? 'accuracy log'}: no entries (was this an accuracy run?)`);
  const malformed = log.entries.filter((e) => e.malformed);
  if (malformed.length > 0) {
    const ex = malformed.slice(0, 3).map((e) => `seq_id ${e.seqId} (qsl_idx ${e.qslIdx}): ${e.malformed}`);
    throw new AccuracyLogError(
      `${log.path ?? 'accuracy log'}: ${malformed.length} entries cannot be decoded as ${log.dtype}: ${ex.join('; ')}`,
      log.path,
    );
  }
  if (log.truncated)
    notes.push('the log has no closing "]": the run did not finish writing it; its complete entries are scored');

  const tok =
    typeof options.tokenizer === 'string'
      ? await loadTokenizer(options.tokenizer, {
          ...(options.tokenizerConfig !== undefined ? { configPath: options.tokenizerConfig } : {}),
          ...(options.cleanUpTokenizationSpaces !== undefined
            ? { cleanUpTokenizationSpaces: options.cleanUpTokenizationSpaces }
            : {}),
        })
      : options.tokenizer;

  const { refs, cats, info } = await loadReferences(options.dataset, spec, options);
  if (
    info.referenceColumn !== undefined &&
    options.referenceColumn === undefined &&
    info.referenceColumn !== spec.referenceColumn
  ) {
    notes.push(
      `references read from column '${info.referenceColumn}'; ${spec.name}'s script scores against '${spec.referenceColumn}'`,
    );
  }
  const { entries: unique, duplicates } = dedupByQslIdx(log.entries);
  const beyond = unique.filter((e) => e.qslIdx >= refs.length);
  if (beyond.length > 0 && spec.method !== 'deepseek-r1' && spec.method !== 'gpt-oss') {
    throw new AccuracyInputError(
      `${beyond.length} log entries have a qsl_idx beyond the dataset's ${refs.length} rows (first: ${beyond[0]!.qslIdx}): wrong --dataset?`,
    );
  }
  if ((spec.method === 'mixtral' || spec.method === 'deepseek-r1' || spec.method === 'gpt-oss') && !cats) {
    throw new AccuracyInputError(
      `${spec.name} needs each row's source dataset: give a dataset with a '${spec.categoryColumn}' column (or categories)`,
    );
  }

  let scored: Scored;
  switch (spec.method) {
    case 'rouge':
      scored = scoreRouge(spec, unique, refs, tok, options);
      break;
    case 'mixtral': {
      const hasMbxp = unique.some((e) => {
        const c = cats![e.qslIdx];
        return c !== 'GSM8K' && c !== 'OpenOrca';
      });
      const ids =
        hasMbxp && typeof options.dataset === 'string' ? await readMbxpIds(options.dataset, options.limit) : undefined;
      scored = await scoreMixtral(spec, log.entries, unique, refs, cats!, tok, options, ids, notes);
      break;
    }
    case 'deepseek-r1':
    case 'gpt-oss': {
      const hasCode = cats!.some((c) => c.toLowerCase().includes('livecodebench'));
      const problems =
        options.codeProblems ??
        (hasCode && typeof options.dataset === 'string'
          ? await readCodeProblems(options.dataset, options.limit)
          : undefined);
      // gpt-oss scores every entry (its repeats), deepseek-r1 the first of each qsl_idx.
      const rows = spec.method === 'gpt-oss' ? log.entries : unique;
      scored = await scoreAnswers(spec, rows, refs, cats!, tok, options, notes, problems);
      break;
    }
  }

  const emptyEntries = log.entries.filter((e) => e.tokens.length === 0).length;
  if (emptyEntries > 0 && spec.method !== 'deepseek-r1' && spec.method !== 'gpt-oss') {
    notes.push(
      `${emptyEntries} log entries have no tokens (failed samples): scored as empty outputs, as the reference does`,
    );
  }
  const uniqueCount = unique.length;
  if (uniqueCount !== spec.samples) {
    notes.push(
      `${uniqueCount} distinct samples in the log; a full ${spec.name} accuracy run has ${spec.samples}: targets assume the full dataset`,
    );
  }
  if (duplicates > 0) notes.push(`${duplicates} duplicate entries (same qsl_idx) ignored: the first of each is scored`);

  const verdicts = judge(spec, scored);
  const judged = verdicts.filter((v) => v.status !== 'UNKNOWN');
  const pass = verdicts.some((v) => v.status === 'FAIL') ? false : judged.length > 0 ? true : null;

  const eos = options.eosTokenId ?? spec.eosTokenId ?? tok.eosTokenIds[0] ?? 2;
  const checks = runTest06(log.entries, {
    eosTokenId: eos,
    ...(options.scenario !== undefined ? { scenario: options.scenario } : {}),
  });

  const report: AccuracyReport = {
    benchmark: spec.name,
    method: spec.method,
    log: {
      ...(log.path !== undefined ? { path: log.path } : {}),
      dtype: log.dtype,
      entries: log.entries.length,
      uniqueSamples: uniqueCount,
      duplicates,
      truncated: log.truncated,
      empty: emptyEntries,
    },
    dataset: info,
    tokenizer: {
      path: tok.path,
      ...(tok.configPath !== undefined ? { configPath: tok.configPath } : {}),
      cleanUpTokenizationSpaces: tok.cleanUpTokenizationSpaces,
      skipSpecialTokens: spec.skipSpecialTokens,
    },
    metrics: scored.metrics,
    verdicts,
    pass,
    expectedSamples: spec.samples,
    checks,
    notes,
  };
  if (scored.categories) report.categories = scored.categories;
  if (scored.datasets) report.datasets = scored.datasets;
  if (scored.samples) report.samples = scored.samples;
  return report;
}
