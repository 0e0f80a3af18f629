// Accuracy targets per benchmark: the reference model's score and the fraction
// of it a result must reach, as MLPerf's submission checker states them
// (tools/submission/submission_checker/constants.py, "accuracy-target" and
// "accuracy-upper-limit", v6.0/v6.1), plus how each benchmark's reference
// script scores a log (mlcommons/inference language/*/evaluat*.py).
//
// A metric passes when its reported value (rounded as the reference script
// prints it) is >= reference x fraction, and <= the upper limit when there is
// one — the submission checker's comparison.

import type { TokenDtype } from './accuracy-log.js';

export type AccuracyMetric =
  | 'rouge1'
  | 'rouge2'
  | 'rougeL'
  | 'rougeLsum'
  | 'gen_len'
  | 'tokens_per_sample'
  | 'gsm8k'
  | 'mbxp'
  | 'exact_match';

export interface MetricTarget {
  metric: AccuracyMetric;
  /** The reference implementation's score. */
  reference: number;
  /** Required fraction of it (0.99, 0.999, 0.9). */
  fraction: number;
}

export interface MetricUpperLimit {
  metric: AccuracyMetric;
  reference: number;
  /** Allowed multiple of it (1.1). */
  fraction: number;
}

/** How the reference script turns a log into scores. */
export type ScoringMethod =
  /** llama3.1-8b / llama2-70b: ROUGE on every sample, gen_len, gen_num (+ tokens_per_sample for llama2). */
  | 'rouge'
  /** mixtral-8x7b: ROUGE on OpenOrca rows, GSM8K exact match, MBXP (code execution: not scored here). */
  | 'mixtral'
  /** deepseek-r1: per-row answer extraction by dataset (GPQA, MMLU-Pro, MATH-500, AIME, LiveCodeBench). */
  | 'deepseek-r1'
  /** gpt-oss-120b: like deepseek-r1 with harmony-aware letters, weighted by dataset repeats, no de-duplication. */
  | 'gpt-oss';

export interface BenchmarkAccuracy {
  /** MLPerf benchmark name as the submission checker spells it. */
  name: string;
  /** Dataset preset (see DATASET_PRESETS). */
  datasetPreset: string;
  method: ScoringMethod;
  targets: readonly MetricTarget[];
  upperLimits: readonly MetricUpperLimit[];
  /** Samples in the accuracy dataset. */
  samples: number;
  /** dtype the reference SUT logs (and the scripts are run with). */
  dtype: TokenDtype;
  /** skip_special_tokens of the reference script's decode. */
  skipSpecialTokens: boolean;
  /** EOS id for the TEST06 EOS check (the model's end-of-turn token). */
  eosTokenId?: number;
  /** Column naming each row's source dataset (mixtral, deepseek-r1, gpt-oss). */
  categoryColumn?: string;
  /** Column holding the reference / ground truth. */
  referenceColumn: string;
}

const rougeTargets = (
  r1: number,
  r2: number,
  rl: number,
  rlsum: number | undefined,
  fraction: number,
): MetricTarget[] => {
  const t: MetricTarget[] = [
    { metric: 'rouge1', reference: r1, fraction },
    { metric: 'rouge2', reference: r2, fraction },
    { metric: 'rougeL', reference: rl, fraction },
  ];
  if (rlsum !== undefined) t.push({ metric: 'rougeLsum', reference: rlsum, fraction });
  return t;
};

const llama2 = (fraction: number, name: string): BenchmarkAccuracy => ({
  name,
  datasetPreset: 'llama2-70b',
  method: 'rouge',
  targets: [
    ...rougeTargets(44.4312, 22.0352, 28.6162, undefined, fraction),
    { metric: 'tokens_per_sample', reference: 294.45, fraction: 0.9 },
  ],
  upperLimits: [{ metric: 'tokens_per_sample', reference: 294.45, fraction: 1.1 }],
  samples: 24576,
  dtype: 'int32',
  skipSpecialTokens: true,
  eosTokenId: 2,
  referenceColumn: 'output',
});

const TABLE: Record<string, BenchmarkAccuracy> = {
  'llama3.1-8b': {
    name: 'llama3.1-8b',
    datasetPreset: 'llama3_1-8b',
    method: 'rouge',
    targets: [
      ...rougeTargets(38.7792, 15.9075, 24.4957, 35.793, 0.99),
      { metric: 'gen_len', reference: 8167644, fraction: 0.9 },
    ],
    upperLimits: [{ metric: 'gen_len', reference: 8167644, fraction: 1.1 }],
    samples: 13368,
    dtype: 'int32',
    skipSpecialTokens: true,
    eosTokenId: 128009,
    referenceColumn: 'output',
  },
  'llama3.1-8b-edge': {
    name: 'llama3.1-8b-edge',
    datasetPreset: 'llama3_1-8b-edge',
    method: 'rouge',
    targets: [
      ...rougeTargets(39.06, 16.1147, 24.6375, 36.124, 0.99),
      { metric: 'gen_len', reference: 3051113, fraction: 0.9 },
    ],
    upperLimits: [{ metric: 'gen_len', reference: 3051113, fraction: 1.1 }],
    samples: 5000,
    dtype: 'int32',
    skipSpecialTokens: true,
    eosTokenId: 128009,
    referenceColumn: 'output',
  },
  'llama2-70b-99': llama2(0.99, 'llama2-70b-99'),
  'llama2-70b-99.9': llama2(0.999, 'llama2-70b-99.9'),
  'mixtral-8x7b': {
    name: 'mixtral-8x7b',
    datasetPreset: 'mixtral-8x7b',
    method: 'mixtral',
    targets: [
      ...rougeTargets(45.5989, 23.3526, 30.4608, undefined, 0.99),
      { metric: 'tokens_per_sample', reference: 144.84, fraction: 0.9 },
      { metric: 'gsm8k', reference: 73.66, fraction: 0.99 },
      { metric: 'mbxp', reference: 60.16, fraction: 0.99 },
    ],
    // The checker's upper limit uses 145.9, its lower bound 144.84.
    upperLimits: [{ metric: 'tokens_per_sample', reference: 145.9, fraction: 1.1 }],
    samples: 15000,
    dtype: 'int32',
    skipSpecialTokens: true,
    eosTokenId: 2,
    categoryColumn: 'dataset',
    referenceColumn: 'gt_output',
  },
  'deepseek-r1': {
    name: 'deepseek-r1',
    datasetPreset: 'deepseek-r1',
    method: 'deepseek-r1',
    targets: [
      { metric: 'exact_match', reference: 81.3582, fraction: 0.99 },
      { metric: 'tokens_per_sample', reference: 3886.2274, fraction: 0.9 },
    ],
    upperLimits: [{ metric: 'tokens_per_sample', reference: 3886.2274, fraction: 1.1 }],
    samples: 4388,
    dtype: 'int32',
    skipSpecialTokens: true,
    eosTokenId: 1,
    categoryColumn: 'dataset',
    referenceColumn: 'ground_truth',
  },
  'gpt-oss-120b': {
    name: 'gpt-oss-120b',
    datasetPreset: 'gpt-oss-120b',
    method: 'gpt-oss',
    targets: [{ metric: 'exact_match', reference: 83.13, fraction: 0.99 }],
    // A placeholder in the checker ("TODO").
    upperLimits: [{ metric: 'tokens_per_sample', reference: 9999, fraction: 1.1 }],
    samples: 6396,
    dtype: 'int32',
    skipSpecialTokens: false,
    categoryColumn: 'dataset',
    referenceColumn: 'ground_truth',
  },
};

for (const b of Object.values(TABLE)) Object.freeze(b);

/** The built-in table, keyed by the submission checker's benchmark names. */
export const ACCURACY_TARGETS: Readonly<Record<string, BenchmarkAccuracy>> = Object.freeze(TABLE);

/**
 * The entry for a benchmark name: checker names (`llama3.1-8b`), LoadGen model
 * keys (`llama3_1-8b`), `-interactive` variants (same accuracy), and
 * `llama2-70b` for `llama2-70b-99`. Undefined when unknown.
 */
export function accuracyTarget(benchmark: string): BenchmarkAccuracy | undefined {
  let k = benchmark.trim().toLowerCase().replace(/_/g, '.');
  k = k.replace(/-interactive(?=$|-)/, '');
  if (k === 'llama2-70b') k = 'llama2-70b-99';
  return TABLE[k];
}

/** reference × fraction, computed as the checker does (float64). */
export function targetValue(t: MetricTarget | MetricUpperLimit): number {
  return t.reference * t.fraction;
}
