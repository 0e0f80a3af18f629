// scoreAccuracy: an accuracy log, the dataset's references and the model's
// tokenizer in; the benchmark's scores (as MLPerf's reference script prints
// them), a PASS/FAIL verdict per metric and the TEST06 checks out.

import { AccuracyLogError, dedupByQslIdx, readAccuracyLog, type AccuracyLog, type AccuracyLogEntry, type TokenDtype } from './accuracy-log.js';
import { aimeCorrect, gsm8kCorrect, mathAnswersEqual, parseAimeAnswer, parseBoxed } from './exact-match.js';
import { multipleChoiceCorrect, parseMultipleChoice, type ChoiceFlavor } from './multiple-choice.js';
import { npMean, npRound, rougeCorpus } from './rouge.js';
import { englishPunkt, pyStrip, sentencesPerLine, type PunktParameters } from './sentence-split.js';
import { accuracyTarget, targetValue, ACCURACY_TARGETS, type AccuracyMetric, type BenchmarkAccuracy } from './targets.js';
import { runTest06, type Test06Report } from './test06.js';
import { loadTokenizer, type Detokenizer } from './tokenizer.js';
import { openDataset } from '../dataset/open.js';
import { DatasetError, type Dataset } from '../dataset/types.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

/** Bad input to scoreAccuracy (unknown benchmark, dataset too short, ...): the message says what to fix. */
export class AccuracyInputError extends LoadgenError {
  constructor(message: string) {
    super(ErrorCode.AccuracyInput, message);
  }
}

/** References given directly instead of a dataset file. */
export interface InlineReferences {
  /** Reference / ground truth per sample index. */
  references: readonly string[];
  /** Source dataset per sample index (mixtral: GSM8K/OpenOrca/MBXP; deepseek-r1, gpt-oss: gpqa, aime, ...). */
  categories?: readonly string[];
}

export interface ScoreAccuracyOptions {
  /** mlperf_log_accuracy.json path, or a log already read. */
  log: string | AccuracyLog;
  /**
   * Dataset file (JSON, JSONL, Parquet), the references themselves, or a
   * Dataset already open (its prompts' `reference`; categories then come
   * from `categories`).
   */
  dataset: string | InlineReferences | Dataset;
  /** Source dataset per sample index, when `dataset` is a Dataset object. */
  categories?: readonly string[];
  /** tokenizer.json path (or its directory), or a loaded tokenizer. */
  tokenizer: string | Detokenizer;
  /** Benchmark whose scoring and targets apply (default llama3.1-8b). */
  benchmark?: string;
  /** Column holding the references (default: the benchmark's). */
  referenceColumn?: string;
  /** Column naming each row's source dataset (default: the benchmark's, when it has one). */
  categoryColumn?: string;
  /** tokenizer_config.json (default: beside tokenizer.json); `null` for none. */
  tokenizerConfig?: string | null;
  /** Override tokenizer_config.json's clean_up_tokenization_spaces. */
  cleanUpTokenizationSpaces?: boolean;
  /** dtype of the log's data (default: the benchmark's, int32). */
  dtype?: TokenDtype;
  /** EOS id for the TEST06 EOS check (default: the benchmark's, else the tokenizer's, else 2). */
  eosTokenId?: number;
  /** Scenario of the run ('Offline' skips the first-token check). */
  scenario?: string;
  /** Sentence-splitter parameters for ROUGE-Lsum (default: the built-in English stand-in). */
  punkt?: PunktParameters;
  /** Keep every sample's decoded output and per-sample scores in the report. */
  keepSamples?: boolean;
}

export type AccuracyVerdictStatus = 'PASS' | 'FAIL' | 'UNKNOWN';

export interface MetricVerdict {
  metric: AccuracyMetric;
  /** The reported value (undefined when it could not be computed). */
  value?: number;
  /** reference × fraction: the value must be >= this. */
  target: number;
  reference: number;
  fraction: number;
  /** The value must be <= this, when set. */
  upperLimit?: number;
  status: AccuracyVerdictStatus;
  note?: string;
}

export interface SampleScore {
  qslIdx: number;
  output: string;
  reference: string;
  category?: string;
  /** rouge F-measures (0..1) or correctness (1/0) of this sample. */
  scores: Record<string, number>;
  extracted?: string | number | null;
}

export interface AccuracyReport {
  benchmark: string;
  method: BenchmarkAccuracy['method'];
  log: {
    path?: string;
    dtype: TokenDtype;
    entries: number;
    uniqueSamples: number;
    duplicates: number;
    truncated: boolean;
  };
  dataset: { path?: string; size: number; referenceColumn?: string; categoryColumn?: string };
  tokenizer: { path: string; configPath?: string; cleanUpTokenizationSpaces: boolean; skipSpecialTokens: boolean };
  /** The scores as the reference script prints them (rouge ×100 rounded to 4 decimals, gen_len, gen_num, ...). */
  metrics: Record<string, number>;
  /** Samples per source dataset (methods with categories). */
  categories?: Record<string, { samples: number; correct?: number }>;
  verdicts: MetricVerdict[];
  /** true when every metric with a target passes; false when one fails; null when none could be judged. */
  pass: boolean | null;
  /** Expected accuracy samples for the benchmark (a full run logs each once). */
  expectedSamples: number;
  checks: Test06Report;
  notes: string[];
  samples?: SampleScore[];
}

/** Number of Unicode code points (Python's len). */
function pyLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Python's round(x, d) for a float: half to even on exact ties of the binary value. */
export function pyRound(x: number, d: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** d;
  const y = x * f;
  const fl = Math.floor(y);
  if (y - fl === 0.5 && fl / f !== x && (fl + 0.5) / f === x) return (fl % 2 === 0 ? fl : fl + 1) / f;
  return Number(x.toFixed(d));
}

/**
 * Opens the dataset for its references: with the benchmark's preset first; a
 * file without the preset's prompt columns (a references-only conversion)
 * is read with only the reference column mapped, then with that column also
 * standing in as the prompt.
 */
async function openReferences(path: string, spec: BenchmarkAccuracy, refCol: string | undefined) {
  const ref = refCol ?? spec.referenceColumn;
  const attempts: Array<Parameters<typeof openDataset>[1]> = [
    { preset: spec.datasetPreset, ...(refCol !== undefined ? { mapping: { reference: refCol } } : {}) },
    { mapping: { reference: ref } },
    { mapping: { reference: ref, text: ref, tokenIds: null, messages: null, system: null, user: null, maxTokens: null } },
  ];
  let first: unknown;
  for (const a of attempts) {
    try {
      return await openDataset(path, a);
    } catch (err) {
      if (!(err instanceof DatasetError) || /no such file|cannot read|not a file|format/.test(err.message)) throw err;
      first ??= err;
    }
  }
  throw first;
}

async function loadReferences(
  dataset: string | InlineReferences | Dataset,
  spec: BenchmarkAccuracy,
  options: ScoreAccuracyOptions,
): Promise<{ refs: readonly string[]; cats?: readonly string[]; info: AccuracyReport['dataset'] }> {
  if (typeof dataset === 'object' && dataset !== null && typeof (dataset as Dataset).prompt === 'function') {
    const ds = dataset as Dataset;
    const refs: string[] = new Array(ds.size);
    for (let i = 0; i < ds.size; i++) {
      const r = ds.prompt(i).reference;
      if (r === undefined) throw new AccuracyInputError(`dataset '${ds.name}': sample ${i} has no reference (map the reference column)`);
      refs[i] = typeof r === 'string' ? r : r.join(' ');
    }
    if (options.categories && options.categories.length !== ds.size) {
      throw new AccuracyInputError('categories must have one entry per dataset sample');
    }
    const path = (ds as { path?: unknown }).path;
    return {
      refs,
      ...(options.categories ? { cats: options.categories } : {}),
      info: { ...(typeof path === 'string' ? { path } : {}), size: ds.size },
    };
  }
  if (typeof dataset !== 'string') {
    dataset = dataset as InlineReferences;
    if (!Array.isArray(dataset.references)) throw new AccuracyInputError('dataset.references must be an array of strings');
    if (dataset.categories && dataset.categories.length !== dataset.references.length) {
      throw new AccuracyInputError('dataset.categories must have one entry per reference');
    }
    return {
      refs: dataset.references,
      ...(dataset.categories ? { cats: dataset.categories } : {}),
      info: { size: dataset.references.length },
    };
  }
  const refCol = options.referenceColumn;
  const ds = await openReferences(dataset, spec, refCol);
  const refs: string[] = new Array(ds.size);
  for (let i = 0; i < ds.size; i++) {
    const r = ds.prompt(i).reference;
    if (r === undefined) {
      throw new AccuracyInputError(`${dataset}: row ${i} has no reference (column '${ds.columns.reference ?? '?'}'); pass --reference-column`);
    }
    refs[i] = typeof r === 'string' ? r : r.join(' ');
  }
  const info: AccuracyReport['dataset'] = { path: dataset, size: ds.size };
  if (ds.columns.reference !== undefined) info.referenceColumn = ds.columns.reference;
  const catCol = options.categoryColumn ?? spec.categoryColumn;
  if (!catCol || spec.method === 'rouge') return { refs, info };
  if (!ds.availableColumns.includes(catCol) && ds.format === 'parquet') {
    throw new AccuracyInputError(`${dataset}: no '${catCol}' column (the source dataset of each row); pass --category-column`);
  }
  // The category column read as the text role of a second, bare mapping.
  const cats = await openDataset(dataset, {
    mapping: { text: catCol, tokenIds: null, messages: null, system: null, user: null, reference: null, maxTokens: null },
  });
  const catList: string[] = new Array(cats.size);
  for (let i = 0; i < cats.size; i++) catList[i] = cats.prompt(i).text ?? '';
  info.categoryColumn = catCol;
  return { refs, cats: catList, info };
}

interface Scored {
  metrics: Record<string, number>;
  unknown: Partial<Record<AccuracyMetric, string>>;
  categories?: Record<string, { samples: number; correct?: number }>;
  samples?: SampleScore[];
}

function decodeAll(entries: readonly AccuracyLogEntry[], tok: Detokenizer, skip: boolean): string[] {
  return entries.map((e) => tok.decode(e.tokens, { skipSpecialTokens: skip }));
}

function rougeMetrics(preds: readonly string[], refs: readonly string[], punkt: PunktParameters): { metrics: Record<string, number>; per: Record<string, number[]>; pp: string[] } {
  const pp = preds.map((p) => sentencesPerLine(p, punkt));
  const rr = refs.map((r) => sentencesPerLine(r, punkt));
  const agg = rougeCorpus(pp, rr, { useStemmer: true });
  const metrics: Record<string, number> = {};
  for (const [k, v] of Object.entries(agg.mean)) metrics[k] = npRound(v * 100, 4);
  let genLen = 0;
  for (const p of pp) genLen += pyLen(p);
  metrics.gen_len = genLen;
  metrics.gen_num = pp.length;
  return { metrics, per: agg.perSample, pp };
}

function scoreRouge(spec: BenchmarkAccuracy, unique: readonly AccuracyLogEntry[], refs: readonly string[], tok: Detokenizer, o: ScoreAccuracyOptions): Scored {
  const preds = decodeAll(unique, tok, spec.skipSpecialTokens);
  const targets = unique.map((e) => refs[e.qslIdx]!);
  const { metrics, per, pp } = rougeMetrics(preds, targets, o.punkt ?? englishPunkt());
  if (spec.datasetPreset === 'llama2-70b') {
    let tokLen = 0;
    for (const e of unique) tokLen += e.tokens.length;
    metrics.gen_tok_len = tokLen;
    metrics.tokens_per_sample = pyRound(tokLen / unique.length, 1);
  }
  const out: Scored = { metrics, unknown: {} };
  if (o.keepSamples) {
    out.samples = unique.map((e, i) => ({
      qslIdx: e.qslIdx,
      output: pp[i]!,
      reference: targets[i]!,
      scores: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v[i]!])),
    }));
  }
  return out;
}

function scoreMixtral(
  spec: BenchmarkAccuracy,
  all: readonly AccuracyLogEntry[],
  unique: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
): Scored {
  const orca: AccuracyLogEntry[] = [];
  const gsm: AccuracyLogEntry[] = [];
  let mbxp = 0;
  let tokLen = 0;
  for (const e of unique) {
    tokLen += e.tokens.length;
    const c = cats[e.qslIdx];
    if (c === 'GSM8K') gsm.push(e);
    else if (c === 'OpenOrca') orca.push(e);
    else mbxp++;
  }
  const samples: SampleScore[] = [];
  let metrics: Record<string, number> = {};
  if (orca.length > 0) {
    const preds = decodeAll(orca, tok, spec.skipSpecialTokens);
    const r = rougeMetrics(preds, orca.map((e) => refs[e.qslIdx]!), o.punkt ?? englishPunkt());
    metrics = { ...r.metrics };
    delete metrics.gen_num;
    if (o.keepSamples) {
      orca.forEach((e, i) => {
        samples.push({
          qslIdx: e.qslIdx,
          output: r.pp[i]!,
          reference: refs[e.qslIdx]!,
          category: 'OpenOrca',
          scores: Object.fromEntries(Object.entries(r.per).map(([k, v]) => [k, v[i]!])),
        });
      });
    }
  } else {
    metrics.gen_len = 0;
  }
  let correct = 0;
  const gsmPreds = decodeAll(gsm, tok, spec.skipSpecialTokens);
  gsm.forEach((e, i) => {
    const ok = gsm8kCorrect(gsmPreds[i]!, refs[e.qslIdx]!);
    if (ok) correct++;
    if (o.keepSamples) samples.push({ qslIdx: e.qslIdx, output: gsmPreds[i]!, reference: refs[e.qslIdx]!, category: 'GSM8K', scores: { gsm8k: ok ? 1 : 0 } });
  });
  const unknown: Scored['unknown'] = {};
  if (gsm.length > 0) metrics.gsm8k = (100 * correct) / gsm.length;
  else unknown.gsm8k = 'no GSM8K samples in the log';
  unknown.mbxp = mbxp > 0 ? `${mbxp} MBXP samples need code execution in several languages (evaluate_mbxp): not scored here` : 'no MBXP samples in the log';
  // gen_num counts every log entry, duplicates included, as the script does.
  metrics.gen_num = all.length;
  metrics.gen_tok_len = tokLen;
  metrics.tokens_per_sample = pyRound(tokLen / all.length, 1);
  return {
    metrics,
    unknown,
    categories: { OpenOrca: { samples: orca.length }, GSM8K: { samples: gsm.length, correct }, MBXP: { samples: mbxp } },
    ...(o.keepSamples ? { samples } : {}),
  };
}

interface Grader {
  key: string;
  grade(output: string, gt: string): { correct: boolean; extracted: string | number | null } | null;
}

function graders(flavor: ChoiceFlavor): Grader[] {
  const mc = (max: string, options: string) => (out: string, gt: string) => {
    const p = parseMultipleChoice(out, max, flavor);
    return { correct: multipleChoiceCorrect(p, gt, options), extracted: p };
  };
  const list: Grader[] = [
    { key: 'gpqa', grade: mc('D', 'ABCD') },
    { key: 'mmlu_pro', grade: mc('J', 'ABCDEFGHIJ') },
    {
      key: 'math500',
      grade: (out, gt) => {
        const p = parseBoxed(out);
        return { correct: mathAnswersEqual(p, gt), extracted: p };
      },
    },
    {
      key: 'aime',
      grade: (out, gt) => {
        const p = parseAimeAnswer(out);
        return { correct: aimeCorrect(p, gt), extracted: p };
      },
    },
    // Needs running the generated code against the benchmark's tests.
    { key: 'livecodebench', grade: () => null },
  ];
  if (flavor === 'gpt-oss') list.push({ key: 'mmlu', grade: mc('J', 'ABCDEFGHIJ') });
  return list;
}

const GPT_OSS_REPEATS: Record<string, number> = { aime25: 8, gpqa_diamond: 5, livecodebench_v6: 3 };

function scoreAnswers(
  spec: BenchmarkAccuracy,
  entries: readonly AccuracyLogEntry[],
  refs: readonly string[],
  cats: readonly string[],
  tok: Detokenizer,
  o: ScoreAccuracyOptions,
  notes: string[],
): Scored {
  const flavor: ChoiceFlavor = spec.method === 'gpt-oss' ? 'gpt-oss' : 'deepseek-r1';
  const gs = graders(flavor);
  const stats: Record<string, { samples: number; correct: number }> = {};
  const perRow: number[] = [];
  const tokLens: number[] = [];
  const samples: SampleScore[] = [];
  let unscorable = 0;
  let skipped = 0;
  for (const e of entries) {
    if (e.qslIdx >= refs.length) {
      skipped++;
      continue;
    }
    const name = (cats[e.qslIdx] ?? '').toLowerCase();
    if (!name) throw new AccuracyInputError(`sample ${e.qslIdx}: empty dataset name in the category column`);
    const g = gs.find((x) => name.includes(x.key));
    if (!g) throw new AccuracyInputError(`sample ${e.qslIdx}: no evaluator for dataset '${cats[e.qslIdx]}' (known: ${gs.map((x) => x.key).join(', ')})`);
    const out = pyStrip(tok.decode(e.tokens, { skipSpecialTokens: spec.skipSpecialTokens }));
    const r = out ? g.grade(out, refs[e.qslIdx]!) : { correct: false, extracted: null };
    const st = (stats[name] ??= { samples: 0, correct: 0 });
    st.samples++;
    tokLens.push(e.tokens.length);
    if (r === null) {
      unscorable++;
      perRow.push(0);
    } else {
      if (r.correct) st.correct++;
      perRow.push(r.correct ? 100 : 0);
    }
    if (o.keepSamples) {
      samples.push({
        qslIdx: e.qslIdx,
        output: out,
        reference: refs[e.qslIdx]!,
        category: cats[e.qslIdx]!,
        scores: r === null ? {} : { exact_match: r.correct ? 1 : 0 },
        extracted: r === null ? null : r.extracted,
      });
    }
  }
  if (skipped) notes.push(`${skipped} log entries have a qsl_idx beyond the dataset and were skipped (as the reference does)`);
  const metrics: Record<string, number> = {};
  const unknown: Scored['unknown'] = {};
  if (perRow.length > 0) {
    if (flavor === 'gpt-oss') {
      let score = 0;
      let max = 0;
      for (const [name, st] of Object.entries(stats)) {
        const rep = GPT_OSS_REPEATS[name] ?? 1;
        score += st.correct / rep;
        max += st.samples / rep;
      }
      metrics.exact_match = Number(((score / max) * 100).toFixed(3));
    } else {
      metrics.exact_match = npMean(perRow);
    }
    metrics.tokens_per_sample = npMean(tokLens);
    metrics['num-samples'] = perRow.length;
  }
  if (unscorable > 0) {
    unknown.exact_match = `${unscorable} LiveCodeBench samples need their generated code run against the benchmark's tests: not scored here (counted as wrong in the value shown)`;
  }
  return { metrics, unknown, categories: stats, ...(o.keepSamples ? { samples } : {}) };
}

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
    if (!low) v.note = `below ${fmt(v.target)}`;
    else if (!high) v.note = `above the upper limit ${fmt(v.upperLimit!)}`;
    out.push(v);
  }
  // Upper limits of metrics without a lower target (gpt-oss tokens_per_sample).
  for (const u of spec.upperLimits) {
    if (spec.targets.some((t) => t.metric === u.metric)) continue;
    const value = s.metrics[u.metric];
    const limit = targetValue(u);
    const v: MetricVerdict = { metric: u.metric, target: 0, reference: u.reference, fraction: u.fraction, upperLimit: limit, status: 'UNKNOWN' };
    if (value !== undefined) {
      v.value = value;
      v.status = value <= limit ? 'PASS' : 'FAIL';
      if (v.status === 'FAIL') v.note = `above the upper limit ${fmt(limit)}`;
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
    throw new AccuracyInputError(`unknown benchmark '${benchmark}'; known: ${accuracyBenchmarks().join(', ')} (LoadGen keys such as llama3_1-8b and -interactive variants work too)`);
  }
  const notes: string[] = [];
  const dtype = options.dtype ?? spec.dtype;
  const log = typeof options.log === 'string' ? await readAccuracyLog(options.log, { dtype }) : options.log;
  if (log.entries.length === 0) throw new AccuracyInputError(`${log.path ?? 'accuracy log'}: no entries (was this an accuracy run?)`);
  const malformed = log.entries.filter((e) => e.malformed);
  if (malformed.length > 0) {
    const ex = malformed.slice(0, 3).map((e) => `seq_id ${e.seqId} (qsl_idx ${e.qslIdx}): ${e.malformed}`);
    throw new AccuracyLogError(`${log.path ?? 'accuracy log'}: ${malformed.length} entries cannot be decoded as ${log.dtype}: ${ex.join('; ')}`, log.path);
  }
  if (log.truncated) notes.push('the log has no closing "]": the run did not finish writing it; its complete entries are scored');

  const tok =
    typeof options.tokenizer === 'string'
      ? await loadTokenizer(options.tokenizer, {
          ...(options.tokenizerConfig !== undefined ? { configPath: options.tokenizerConfig } : {}),
          ...(options.cleanUpTokenizationSpaces !== undefined ? { cleanUpTokenizationSpaces: options.cleanUpTokenizationSpaces } : {}),
        })
      : options.tokenizer;

  const { refs, cats, info } = await loadReferences(options.dataset, spec, options);
  if (info.referenceColumn !== undefined && options.referenceColumn === undefined && info.referenceColumn !== spec.referenceColumn) {
    notes.push(`references read from column '${info.referenceColumn}'; ${spec.name}'s script scores against '${spec.referenceColumn}'`);
  }
  const { entries: unique, duplicates } = dedupByQslIdx(log.entries);
  const beyond = unique.filter((e) => e.qslIdx >= refs.length);
  if (beyond.length > 0 && spec.method !== 'deepseek-r1' && spec.method !== 'gpt-oss') {
    throw new AccuracyInputError(
      `${beyond.length} log entries have a qsl_idx beyond the dataset's ${refs.length} rows (first: ${beyond[0]!.qslIdx}): wrong --dataset?`,
    );
  }
  if ((spec.method === 'mixtral' || spec.method === 'deepseek-r1' || spec.method === 'gpt-oss') && !cats) {
    throw new AccuracyInputError(`${spec.name} needs each row's source dataset: give a dataset with a '${spec.categoryColumn}' column (or categories)`);
  }

  let scored: Scored;
  switch (spec.method) {
    case 'rouge':
      scored = scoreRouge(spec, unique, refs, tok, options);
      break;
    case 'mixtral':
      scored = scoreMixtral(spec, log.entries, unique, refs, cats!, tok, options);
      break;
    case 'deepseek-r1':
      scored = scoreAnswers(spec, unique, refs, cats!, tok, options, notes);
      break;
    case 'gpt-oss':
      scored = scoreAnswers(spec, log.entries, refs, cats!, tok, options, notes);
      break;
  }

  const uniqueCount = unique.length;
  if (uniqueCount !== spec.samples) {
    notes.push(
      `${uniqueCount} distinct samples in the log; a full ${spec.name} accuracy run has ${spec.samples}: targets assume the full dataset`,
    );
  }
  if (duplicates > 0) notes.push(`${duplicates} duplicate entries (same qsl_idx) ignored: the first of each is scored`);
  if (spec.method === 'deepseek-r1' || spec.method === 'gpt-oss') {
    notes.push('MATH-500 answers are compared after normalisation (string, then number), not with PRM800K\'s symbolic grader');
  }

  const verdicts = judge(spec, scored);
  const judged = verdicts.filter((v) => v.status !== 'UNKNOWN');
  const pass = verdicts.some((v) => v.status === 'FAIL') ? false : judged.length > 0 ? true : null;

  const eos = options.eosTokenId ?? spec.eosTokenId ?? tok.eosTokenIds[0] ?? 2;
  const checks = runTest06(log.entries, { eosTokenId: eos, ...(options.scenario !== undefined ? { scenario: options.scenario } : {}) });

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
  if (scored.samples) report.samples = scored.samples;
  return report;
}

/** A human-readable summary: scores, verdicts, checks, notes. */
export function formatAccuracyReport(r: AccuracyReport): string {
  const lines: string[] = [];
  lines.push(`Accuracy: ${r.benchmark} (${r.log.uniqueSamples} samples scored, ${r.log.entries} log entries${r.log.duplicates ? `, ${r.log.duplicates} duplicates` : ''})`);
  lines.push('');
  lines.push('Results');
  lines.push(`  ${JSON.stringify(r.metrics).replace(/"/g, "'").replace(/,'/g, ", '").replace(/':/g, "': ")}`);
  lines.push('');
  const w = Math.max(...r.verdicts.map((v) => v.metric.length), 6);
  for (const v of r.verdicts) {
    const val = v.value === undefined ? '-' : String(v.value);
    const bound = v.target > 0 ? `>= ${fmt(v.target)}` : '';
    const upper = v.upperLimit !== undefined ? `${bound ? ', ' : ''}<= ${fmt(v.upperLimit)}` : '';
    const how = v.target > 0 ? ` (${v.reference} x ${v.fraction})` : '';
    lines.push(`  ${v.metric.padEnd(w)}  ${val.padStart(12)}  ${v.status.padEnd(7)}  target ${bound}${upper}${how}${v.note ? `  [${v.note}]` : ''}`);
  }
  lines.push('');
  lines.push(`Verdict: ${r.pass === true ? 'PASS' : r.pass === false ? 'FAIL' : 'NO VERDICT (no target could be judged)'}`);
  const unknown = r.verdicts.filter((v) => v.status === 'UNKNOWN').map((v) => v.metric);
  if (unknown.length > 0 && r.pass !== null) lines.push(`  not judged: ${unknown.join(', ')}`);
  lines.push('');
  lines.push(`Log checks (TEST06 rules, EOS id ${r.checks.eosTokenId}):`);
  for (const l of r.checks.text.trimEnd().split('\n')) lines.push(`  ${l}`);
  for (const [name, c] of [
    ['first token', r.checks.firstToken],
    ['EOS', r.checks.eos],
    ['sample length', r.checks.sampleLength],
  ] as const) {
    if (c.failures > 0) {
      lines.push(`  ${name}: ${c.failures} entries fail, e.g. ${c.examples.slice(0, 3).map((f) => `seq_id ${f.seqId} (qsl_idx ${f.qslIdx}): ${f.reason}`).join('; ')}`);
    }
  }
  if (r.notes.length > 0) {
    lines.push('');
    lines.push('Notes:');
    for (const n of r.notes) lines.push(`  - ${n}`);
  }
  return lines.join('\n') + '\n';
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toFixed(6)));
}

/** The compact form of a report for results.json / report.html (no per-sample data). */
export interface AccuracySummary {
  benchmark: string;
  pass: boolean | null;
  samples: number;
  metrics: Record<string, number>;
  verdicts: Array<Pick<MetricVerdict, 'metric' | 'value' | 'target' | 'upperLimit' | 'status'>>;
  checksPass: boolean;
  notes: string[];
}

export function summarizeAccuracy(r: AccuracyReport): AccuracySummary {
  return {
    benchmark: r.benchmark,
    pass: r.pass,
    samples: r.log.uniqueSamples,
    metrics: { ...r.metrics },
    verdicts: r.verdicts.map((v) => ({
      metric: v.metric,
      ...(v.value !== undefined ? { value: v.value } : {}),
      target: v.target,
      ...(v.upperLimit !== undefined ? { upperLimit: v.upperLimit } : {}),
      status: v.status,
    })),
    checksPass: r.checks.pass,
    notes: [...r.notes],
  };
}
