// The two files mlcommons/endpoints writes beside result_summary.json, so a
// run directory holds the whole endpoints result format that MLPerf's
// submission checker v6.1 reads (its parsers/endpoints_parser.py):
// config.yaml, the resolved run configuration in endpoints' BenchmarkConfig
// schema (config/schema.py @ea332753, every model there forbids unknown
// keys, so only its own field names appear), and accuracy/accuracy_results.json
// with one accuracy_scores entry (commands/benchmark/accuracy.py's shape).
// Values we do not know (sampling settings the server applied, say) are left
// out, and endpoints' defaults say what a missing field means.
import { stringify } from 'yaml';

import type { AccuracySummary } from '../accuracy/score.js';
import type { RunRecord } from './run-record.js';

export const ENDPOINTS_CONFIG_FILE = 'config.yaml';
export const ACCURACY_RESULTS_FILE = 'accuracy_results.json';
/** accuracy_results.json lives in this subfolder of the run, as endpoints writes it. */
export const ACCURACY_RESULTS_DIR = 'accuracy';

/** A 64-bit seed as an exact integer (the settings hold them as decimal strings, bigints or numbers). */
function seed(v: unknown): bigint | number | null {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return null;
}

function positive(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

/** endpoints' load pattern for a LoadGen scenario (its LoadPattern model; MultiStream has no equivalent). */
function loadPattern(record: RunRecord): Record<string, unknown> {
  const r = record.result;
  const s = record.settings;
  switch (r.scenario) {
    case 'Server':
      // Our closed loop is endpoints' concurrency pattern (neither is an MLPerf scenario).
      if (positive(s.closedLoopConcurrency) !== null)
        return { type: 'concurrency', target_concurrency: positive(s.closedLoopConcurrency) };
      return {
        type: 'poisson',
        target_qps: positive(s.serverTargetQps) ?? positive(r.effective.targetQps),
        use_legacy_loadgen_qps_metrics: true,
      };
    case 'Offline':
      return { type: 'max_throughput', target_qps: positive(s.offlineExpectedQps) ?? positive(r.effective.targetQps) };
    case 'SingleStream':
      return { type: 'concurrency', target_concurrency: 1 };
    case 'MultiStream':
      return { type: 'concurrency', target_concurrency: positive(r.effective.samplesPerQuery) ?? 8 };
  }
}

/**
 * The run's configuration as endpoints' config.yaml: `type` is offline or
 * online (the checker reads it as the scenario and files online under
 * Server, or Interactive by folder name), the runtime block carries
 * min_duration_ms and the two seeds the checker compares, `submission_ref`
 * names the MLPerf benchmark.
 */
export function buildEndpointsConfig(record: RunRecord): Record<string, unknown> {
  const r = record.result;
  const s = record.settings;
  const offline = r.scenario === 'Offline';
  const type = offline ? 'offline' : 'online';
  const accuracy = r.mode === 'AccuracyOnly';
  const endpoint = record.endpoints[0];
  const api = endpoint?.backend === 'sglang' && endpoint.api === 'generate' ? 'sglang' : 'openai';
  const runtime: Record<string, unknown> = {
    min_duration_ms: typeof s.minDurationMs === 'number' ? s.minDurationMs : 0,
    max_duration_ms: typeof s.maxDurationMs === 'number' ? s.maxDurationMs : 0,
    scheduler_random_seed: seed(s.scheduleRngSeed),
    dataloader_random_seed: seed(s.sampleIndexRngSeed),
  };
  const model: Record<string, unknown> = { name: endpoint?.model || record.dataset.name || 'unknown' };
  // Our adapter streams every request (first-token times need it).
  model.streaming = 'on';
  const dataset: Record<string, unknown> = {
    name: accuracy ? 'accuracy' : 'performance',
    type: accuracy ? 'accuracy' : 'performance',
    path: record.dataset.path ?? record.dataset.name,
  };
  if (record.dataset.size > 0) dataset.samples = record.dataset.size;
  const config: Record<string, unknown> = {
    name: `loadgen_${record.benchmark ?? 'run'}_${r.scenario}`.toLowerCase(),
    version: '1.0',
    type,
    benchmark_mode: type,
    model_params: model,
    datasets: [dataset],
    settings: { runtime, load_pattern: loadPattern(record) },
    endpoint_config: {
      endpoints: record.endpoints.map((e) => e.url),
      // Never the key itself: the file records only that the run used one or not.
      api_key: null,
      api_type: api,
    },
    report_dir: null,
  };
  return config;
}

/** config.yaml's text (YAML 1.1 quoting, so PyYAML reads 'on' as a string and the 64-bit seeds as integers). */
export function endpointsConfigYaml(record: RunRecord): string {
  const header = `# The resolved configuration of this run in mlcommons/endpoints' config schema, written by ${record.tool.name} ${record.tool.version}.\n`;
  return header + stringify(buildEndpointsConfig(record), { version: '1.1', lineWidth: 0 });
}

export interface AccuracyResultsJson {
  average_accuracy?: number;
  accuracy_scores: Array<Record<string, unknown>>;
}

/**
 * accuracy_results.json from an accuracy summary: one entry of dataset_type
 * "accuracy" whose total_samples the checker compares with the benchmark's
 * accuracy sample count, and whose `score` is the headline (exact_match
 * when the benchmark scores answers, else the metrics object, as endpoints'
 * ROUGE scorer reports a dict).
 */
export function buildAccuracyResults(
  summary: AccuracySummary,
  dataset: { name: string; referenceColumn?: string | null },
): AccuracyResultsJson {
  const metrics = summary.metrics;
  const headline = typeof metrics.exact_match === 'number' ? metrics.exact_match : { ...metrics };
  const entry: Record<string, unknown> = {
    dataset_name: dataset.name,
    extractor: null,
    ground_truth_column: dataset.referenceColumn ?? null,
    score: headline,
    unit_samples: summary.samples,
    num_repeats: 1,
    total_samples: summary.samples,
    complete: true,
    dataset_type: 'accuracy',
    // Ours beside endpoints' keys: the benchmark, every metric and its verdict against the MLPerf target.
    mlperf: {
      benchmark: summary.benchmark,
      pass: summary.pass,
      metrics: { ...metrics },
      verdicts: summary.verdicts,
      // Per source dataset (deepseek-r1, gpt-oss-120b): samples, passed, failed, timedOut, empty, unscored.
      ...(summary.datasets ? { datasets: structuredClone(summary.datasets) } : {}),
    },
  };
  const out: AccuracyResultsJson = { accuracy_scores: [entry] };
  if (typeof headline === 'number') out.average_accuracy = headline;
  return out;
}

/** The run's accuracy summary when it was scored (accuracy and submission runs given a tokenizer). */
export function scoredAccuracy(record: RunRecord): AccuracySummary | null {
  const a = record.accuracy;
  if (!a || 'error' in a) return null;
  return a;
}
