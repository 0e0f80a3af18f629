// Presets for the MLPerf Inference LLM datasets: which columns hold the prompt
// and the reference, the per-sample output cap, and the sampling values the
// MLPerf reference harnesses send (mlcommons/inference, see
// shared/PROTOCOLS.md sections 3 and 4).

import { DatasetError } from './types.js';
import type { CandidateMapping, TextTemplate } from './mapping.js';

/**
 * Sampling values of a reference harness. A field is absent when the reference
 * does not send it (the server default then applies: send it explicitly).
 */
export interface SamplingPreset {
  maxTokens?: number;
  minTokens?: number;
  temperature?: number;
  topP?: number;
  /** -1 (or 0 in new vLLM) means no top-k limit. */
  topK?: number;
  seed?: number;
  ignoreEos?: boolean;
}

export interface DatasetPreset {
  /** The preset key (MLPerf model key, e.g. `llama3_1-8b`). */
  readonly name: string;
  readonly description: string;
  /** Official file names (after any pickle → Parquet/JSONL conversion). */
  readonly files: readonly string[];
  /** Candidate columns per role: the first present one is used. */
  readonly mapping: CandidateMapping;
  /**
   * Text prompt built from a per-row template (used when its column is present;
   * otherwise the `text` mapping applies).
   */
  readonly textTemplate?: TextTemplate;
  /** Output cap per sample. */
  readonly maxTokens: number;
  /** Reference sampling values; empty when there is no MLPerf reference. */
  readonly sampling: SamplingPreset;
  /** Samples in the official dataset. */
  readonly totalSampleCount?: number;
  /** `performance_sample_count` from mlperf.conf. */
  readonly performanceSampleCount?: number;
  /** Server-scenario p99 limits from mlperf.conf (ms). */
  readonly serverLatency?: { readonly ttftMs: number; readonly tpotMs: number };
}

const llama31_8b_sampling: SamplingPreset = Object.freeze({
  maxTokens: 128,
  minTokens: 1,
  temperature: 0,
  topP: 1,
  topK: 1,
  seed: 42,
});

const cnnMapping: CandidateMapping = Object.freeze({
  tokenIds: ['tok_input'],
  text: ['input'],
  reference: ['output'],
});

// cnn_eval.json rows carry `instruction: {"llama": "...{input}..."}`: tok_input
// is that template filled with the article and encoded (BOS included), so the
// matching text prompt is the same template, not the bare article.
const cnnTemplate: TextTemplate = Object.freeze({ column: 'instruction', key: 'llama' });

const table: Record<string, DatasetPreset> = {
  'llama3_1-8b': {
    name: 'llama3_1-8b',
    description: 'Llama 3.1 8B, CNN/DailyMail summarisation (datacenter)',
    files: ['cnn_eval.json'],
    mapping: cnnMapping,
    textTemplate: cnnTemplate,
    maxTokens: 128,
    sampling: llama31_8b_sampling,
    totalSampleCount: 13368,
    performanceSampleCount: 13368,
    serverLatency: { ttftMs: 2000, tpotMs: 100 },
  },
  'llama3_1-8b-edge': {
    name: 'llama3_1-8b-edge',
    description: 'Llama 3.1 8B, CNN/DailyMail summarisation, 5000-sample edge subset',
    files: ['sample_cnn_eval_5000.json'],
    mapping: cnnMapping,
    textTemplate: cnnTemplate,
    maxTokens: 128,
    sampling: llama31_8b_sampling,
    totalSampleCount: 5000,
    performanceSampleCount: 5000,
  },
  'llama2-70b': {
    name: 'llama2-70b',
    description: 'Llama 2 70B chat, OpenOrca (pickle converted to Parquet/JSONL)',
    files: ['open_orca_gpt4_tokenized_llama.sampled_24576.parquet', 'processed-data.parquet'],
    // `input` is the Llama-2 chat-formatted prompt (for /v1/completions); chat
    // messages come from the raw system prompt and question instead.
    mapping: Object.freeze({
      tokenIds: ['tok_input'],
      text: ['input'],
      system: ['system_prompt'],
      user: ['question'],
      reference: ['output'],
    }),
    maxTokens: 1024,
    // Greedy (SUT.py: num_beams 1, no sampling; SUT_API server path: temperature 0).
    sampling: Object.freeze({ maxTokens: 1024, minTokens: 1, temperature: 0 }),
    totalSampleCount: 24576,
    performanceSampleCount: 24576,
    serverLatency: { ttftMs: 2000, tpotMs: 200 },
  },
  'mixtral-8x7b': {
    name: 'mixtral-8x7b',
    description: 'Mixtral 8x7B: OpenOrca + GSM8K + MBXP (pickle converted to Parquet/JSONL)',
    files: ['09292024_mixtral_15k_mintoken2_v1.parquet', '2024.06.06_mixtral_15k_v4.parquet'],
    // evaluate-accuracy.py scores against `gt_output`; `ref_output` is the
    // reference model's own output (older conversions may only have that).
    mapping: Object.freeze({
      tokenIds: ['tok_input'],
      text: ['input'],
      reference: ['gt_output', 'ref_output'],
    }),
    maxTokens: 1024,
    // SUT.py gen_kwargs: greedy (do_sample False, num_beams 1), max_new_tokens 1024, min_new_tokens 2.
    sampling: Object.freeze({ maxTokens: 1024, minTokens: 2, temperature: 0 }),
    totalSampleCount: 15000,
    performanceSampleCount: 15000,
    serverLatency: { ttftMs: 2000, tpotMs: 200 },
  },
  'deepseek-r1': {
    name: 'deepseek-r1',
    description: 'DeepSeek-R1 (mlcommons/endpoints Parquet, or the pickle converted)',
    files: ['deepseek_r1_eval.parquet', 'mlperf_deepseek_r1_dataset_4388_fp8_eval.parquet'],
    mapping: Object.freeze({
      tokenIds: ['input_tokens', 'tok_input'],
      text: ['text_input'],
      reference: ['ground_truth', 'gt_output'],
    }),
    maxTokens: 20000,
    sampling: Object.freeze({ maxTokens: 20000, temperature: 0, topP: 1, seed: 42 }),
    totalSampleCount: 4388,
    performanceSampleCount: 4388,
    serverLatency: { ttftMs: 2000, tpotMs: 80 },
  },
  'gpt-oss-120b': {
    name: 'gpt-oss-120b',
    description: 'gpt-oss-120b (Parquet; the reference sends token ids to SGLang /generate)',
    files: ['acc_eval_inputs.parquet'],
    mapping: Object.freeze({
      tokenIds: ['input_tokens', 'tok_input'],
      reference: ['ground_truth'],
    }),
    maxTokens: 32768,
    // generation_config.json of the reference: max_new_tokens 32768, temperature 1.0, top_k -1, top_p 1.0.
    sampling: Object.freeze({ maxTokens: 32768, temperature: 1, topK: -1, topP: 1 }),
    totalSampleCount: 6396,
    performanceSampleCount: 6396,
    serverLatency: { ttftMs: 3000, tpotMs: 80 },
  },
  dummy: {
    name: 'dummy',
    description: 'mlcommons/endpoints dummy_1k.jsonl (text_input, ref_output)',
    files: ['dummy_1k.jsonl'],
    mapping: Object.freeze({ text: ['text_input'], reference: ['ref_output'] }),
    maxTokens: 128,
    sampling: Object.freeze({}),
    totalSampleCount: 1000,
  },
};

for (const p of Object.values(table)) Object.freeze(p);

/** The preset table, keyed by MLPerf model key. */
export const DATASET_PRESETS: Readonly<Record<string, DatasetPreset>> = Object.freeze(table);

/** Canonical preset key: lower case, `.` → `_` (llama3.1-8b → llama3_1-8b), `-interactive` dropped. */
export function presetKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\./g, '_')
    .replace(/-interactive$/, '');
}

/** The preset for a benchmark name (aliases: `llama3.1-8b`, `*-interactive`); DatasetError if unknown. */
export function datasetPreset(name: string): DatasetPreset {
  const p = DATASET_PRESETS[presetKey(name)];
  if (!p) {
    throw new DatasetError(
      `unknown dataset preset '${name}'; known presets: ${Object.keys(DATASET_PRESETS).join(', ')}`,
    );
  }
  return p;
}

/** The MLPerf reference sampling values for a benchmark (a fresh copy); DatasetError if unknown. */
export function samplingPreset(benchmark: string): SamplingPreset {
  return { ...datasetPreset(benchmark).sampling };
}
