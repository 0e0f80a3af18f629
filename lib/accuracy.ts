// @x/loadgen/accuracy: scoring an accuracy log as the MLPerf reference
// scripts do (`loadgen accuracy` is scoreAccuracy plus printing), and the
// pieces it is built from. API.md, section @x/loadgen/accuracy.

// ── Scoring ─────────────────────────────────────────────────────────────────
export {
  scoreAccuracy,
  formatAccuracyReport,
  summarizeAccuracy,
  accuracyBenchmarks,
  AccuracyInputError,
} from './accuracy/score.js';
export type {
  ScoreAccuracyOptions,
  AccuracyReport,
  MetricVerdict,
  AccuracyVerdictStatus,
  SampleScore,
  InlineReferences,
  AccuracySummary,
  DatasetCounts,
} from './accuracy/score.js';
export type { CodeExecutionOptions, CodeProblem } from './accuracy/code-types.js';

// ── The per-benchmark targets ───────────────────────────────────────────────
export { ACCURACY_TARGETS, accuracyTarget } from './accuracy/targets.js';
export type {
  BenchmarkAccuracy,
  MetricTarget,
  MetricUpperLimit,
  AccuracyMetric,
  ScoringMethod,
} from './accuracy/targets.js';

// ── The accuracy log and the TEST06 checks ──────────────────────────────────
export {
  readAccuracyLog,
  parseAccuracyLog,
  decodeTokens,
  dedupByQslIdx,
  AccuracyLogError,
  TOKEN_DTYPES,
} from './accuracy/accuracy-log.js';
export type {
  AccuracyLog,
  AccuracyLogEntry,
  TokenDtype,
  ReadAccuracyLogOptions,
  Deduplicated,
} from './accuracy/accuracy-log.js';
export { runTest06 } from './accuracy/test06.js';
export type { Test06Report, Test06Check, Test06Failure, Test06Options } from './accuracy/test06.js';

// ── Detokenizing ────────────────────────────────────────────────────────────
export { loadTokenizer, TokenizerError } from './accuracy/tokenizer.js';
export type { Detokenizer, LoadTokenizerOptions, DecodeOptions } from './accuracy/tokenizer.js';

// ── ROUGE and sentence splitting (rouge_score and NLTK Punkt) ───────────────
export { RougeScorer, rougeCorpus } from './accuracy/rouge.js';
export type { RougeScore, RougeType, RougeOptions, RougeAggregate } from './accuracy/rouge.js';
export {
  sentTokenize,
  sentencesPerLine,
  punktParameters,
  loadPunktParameters,
  englishPunkt,
} from './accuracy/sentence-split.js';
export type { PunktParameters } from './accuracy/sentence-split.js';
