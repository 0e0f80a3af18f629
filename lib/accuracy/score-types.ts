// The options and the report of scoreAccuracy (score.ts), and the error it
// throws for bad input; shared by the references, the scoring methods and
// the report's formatting.
import { ErrorCode, LoadgenError } from '../core/errors.js';
import type { Dataset } from '../dataset/types.js';
import type { AccuracyLog, TokenDtype } from './accuracy-log.js';
import type { CodeExecutionOptions, CodeProblem } from './code-types.js';
import type { PunktParameters } from './sentence-split.js';
import type { AccuracyMetric, BenchmarkAccuracy } from './targets.js';
import type { Test06Report } from './test06.js';
import type { Detokenizer } from './tokenizer.js';

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
  /** Read only the first `limit` rows of a dataset file (a run's --limit: its log holds no other rows). */
  limit?: number;
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
  /** How generated programs (LiveCodeBench) are run: sandbox, limits, workers, progress. */
  codeExecution?: CodeExecutionOptions;
  /**
   * Each sample's tests for code execution, when `dataset` is not a file
   * (a file's LiveCodeBench columns are read from it).
   */
  codeProblems?: ReadonlyArray<CodeProblem | undefined>;
}

/** What happened to one source dataset's samples. */
export interface DatasetCounts {
  /** Samples of this dataset in the log (as scored: gpt-oss counts every repeat). */
  samples: number;
  /** Graded correct (a program: every test passed). */
  passed: number;
  /** Graded wrong (no answer, a wrong answer, a program that failed a test, crashed or broke a limit). */
  failed: number;
  /** Programs stopped at a time limit (wrong, counted apart from `failed`). */
  timedOut: number;
  /** Entries with no tokens (failed samples), included in `failed`. */
  empty: number;
  /**
   * Samples that could not be graded: a LiveCodeBench program without tests
   * (counted wrong in the score); an MBXP row of a language the reference
   * leaves out or whose toolchain is missing (not in `mbxp`).
   */
  unscored: number;
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
  /** A program's run: passed, failed, timeout or error, with the first failing test. */
  execution?: string;
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
    /** Entries with no tokens (failed samples), scored as empty answers. */
    empty: number;
  };
  dataset: { path?: string; size: number; referenceColumn?: string; categoryColumn?: string };
  tokenizer: { path: string; configPath?: string; cleanUpTokenizationSpaces: boolean; skipSpecialTokens: boolean };
  /** The scores as the reference script prints them (rouge ×100 rounded to 4 decimals, gen_len, gen_num, ...). */
  metrics: Record<string, number>;
  /** Samples per source dataset (methods with categories). */
  categories?: Record<string, { samples: number; correct?: number }>;
  /** Per source dataset: samples, passed, failed, timed out, empty, unscored (deepseek-r1, gpt-oss; mixtral's MBXP per language, `MBXP/<lang>`). */
  datasets?: Record<string, DatasetCounts>;
  verdicts: MetricVerdict[];
  /** true when every metric with a target passes; false when one fails; null when none could be judged. */
  pass: boolean | null;
  /** Expected accuracy samples for the benchmark (a full run logs each once). */
  expectedSamples: number;
  checks: Test06Report;
  notes: string[];
  samples?: SampleScore[];
}

/** What a scoring method gives: the metrics, and why any metric could not be computed. */
export interface Scored {
  metrics: Record<string, number>;
  unknown: Partial<Record<AccuracyMetric, string>>;
  categories?: Record<string, { samples: number; correct?: number }>;
  datasets?: Record<string, DatasetCounts>;
  samples?: SampleScore[];
}
