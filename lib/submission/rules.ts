// The values MLPerf's submission checker v6.1 judges a result by, restated
// from mlcommons/inference tools/submission/submission_checker (constants.py,
// configuration/configuration.py and checks/*.py at b66003e, Aug 2026). Only
// the LLM benchmarks this harness runs are listed; the checker's other models
// are not in scope. The table of required compliance tests lives in
// lib/compliance/required-tests.ts.

export type CheckerScenario = 'Offline' | 'Server' | 'Interactive' | 'SingleStream' | 'MultiStream';

/** Ns per ms. */
const MS = 1_000_000;

/** The seeds every closed result must use (the checker compares the effective_* seeds to these). */
export const CHECKER_SEEDS = {
  qslRngSeed: 2085463073848966840n,
  sampleIndexRngSeed: 2747215439041700203n,
  scheduleRngSeed: 16159082839903944936n,
} as const;

/** The shortest min_duration a performance run may be configured with (600 s); e2e-rag is exempt. */
export const CHECKER_MIN_DURATION_MS = 600_000;

/** Largest mlperf_log_accuracy.json the checker accepts in accuracy/ (10 KiB): the file must be truncated. */
export const MAX_ACCURACY_LOG_BYTES = 10 * 1024;

/** What the official truncation keeps: this many characters from the start and from the end. */
export const TRUNCATE_VIEWABLE = 4096;

export const VALID_DIVISIONS = ['closed', 'open'] as const;
export type Division = (typeof VALID_DIVISIONS)[number];

export const VALID_AVAILABILITIES = ['available', 'preview', 'rdi'];
export const VALID_SYSTEM_TYPES = ['datacenter', 'edge', 'datacenter,edge', 'edge,datacenter'];

/** One benchmark's figures in the v6.1 table. */
export interface CheckerBenchmark {
  /** performance-sample-count: effective_performance_sample_count must be at least this. */
  performanceSampleCount: number;
  /** Accuracy samples a full accuracy run logs (accuracy-sample-count, else dataset-size). */
  accuracySampleCount: number;
  /** min-queries per scenario (judged only where early stopping is not used: Offline). */
  minQueries: Partial<Record<CheckerScenario, number>>;
  /** OFFLINE_MIN_SPQ_SINCE_V4: closed Offline runs need at least this many samples per query. */
  offlineMinSamplesPerQuery: number;
  /** latency-constraint, ns (the early-stopping target latency must not exceed it). */
  latencyConstraintNs: Partial<Record<CheckerScenario, number>>;
  /** LLM_LATENCY_LIMITS, ns: p99 TTFT and TPOT must be strictly below these. */
  tokenLimitsNs: Partial<Record<'Server' | 'Interactive', { ttft: number; tpot: number }>>;
  /** required-scenarios-datacenter / -edge and the optional ones (one of Interactive or Server when both are optional). */
  required: { datacenter: CheckerScenario[]; edge: CheckerScenario[] };
  optional: CheckerScenario[];
  /** Whether get_llm_models() lists it (token latencies required). */
  llm: boolean;
  /** ENDPOINTS_ALLOWED_MODELS: may be submitted in the endpoints result format. */
  endpointsAllowed: boolean;
}

const LLM_OFFLINE_ONLY = { datacenter: ['Offline'] as CheckerScenario[], edge: [] as CheckerScenario[] };

export const CHECKER_BENCHMARKS: Readonly<Record<string, CheckerBenchmark>> = {
  'llama3.1-8b': {
    performanceSampleCount: 13368,
    accuracySampleCount: 13368,
    minQueries: { SingleStream: 1024, Server: 270336, Offline: 1 },
    offlineMinSamplesPerQuery: 13368,
    latencyConstraintNs: { Server: 20_000 * MS },
    tokenLimitsNs: { Server: { ttft: 2000 * MS, tpot: 100 * MS }, Interactive: { ttft: 500 * MS, tpot: 30 * MS } },
    required: LLM_OFFLINE_ONLY,
    optional: ['Interactive', 'Server'],
    llm: true,
    endpointsAllowed: true,
  },
  'llama3.1-8b-edge': {
    performanceSampleCount: 5000,
    accuracySampleCount: 5000,
    minQueries: { SingleStream: 1024, Offline: 1 },
    offlineMinSamplesPerQuery: 5000,
    latencyConstraintNs: {},
    tokenLimitsNs: {},
    required: { datacenter: [], edge: ['SingleStream', 'Offline'] },
    optional: [],
    llm: true,
    endpointsAllowed: true,
  },
  'llama2-70b-99.9': {
    performanceSampleCount: 24576,
    accuracySampleCount: 24576,
    minQueries: { SingleStream: 1024, Server: 270336, Offline: 1 },
    offlineMinSamplesPerQuery: 24576,
    latencyConstraintNs: { Server: 20_000 * MS },
    tokenLimitsNs: { Server: { ttft: 2000 * MS, tpot: 200 * MS }, Interactive: { ttft: 450 * MS, tpot: 40 * MS } },
    required: LLM_OFFLINE_ONLY,
    optional: ['Interactive', 'Server'],
    llm: true,
    endpointsAllowed: false,
  },
  'deepseek-r1': {
    performanceSampleCount: 4388,
    accuracySampleCount: 4388,
    minQueries: { SingleStream: 1024, Server: 270336, Offline: 1 },
    offlineMinSamplesPerQuery: 4388,
    latencyConstraintNs: { Server: 60_000 * MS },
    tokenLimitsNs: { Server: { ttft: 2000 * MS, tpot: 80 * MS }, Interactive: { ttft: 1500 * MS, tpot: 15 * MS } },
    required: LLM_OFFLINE_ONLY,
    optional: ['Interactive', 'Server'],
    llm: true,
    endpointsAllowed: true,
  },
  'gpt-oss-120b': {
    performanceSampleCount: 6396,
    accuracySampleCount: 4395,
    minQueries: { SingleStream: 1024, Server: 270336, Offline: 1 },
    offlineMinSamplesPerQuery: 6396,
    latencyConstraintNs: { Server: 60_000 * MS },
    tokenLimitsNs: { Server: { ttft: 3000 * MS, tpot: 80 * MS }, Interactive: { ttft: 2000 * MS, tpot: 15 * MS } },
    required: LLM_OFFLINE_ONLY,
    optional: ['Interactive', 'Server'],
    llm: true,
    endpointsAllowed: true,
  },
  'qwen3-vl-235b-a22b': {
    performanceSampleCount: 48289,
    // Interactive scores the 8000-sample subset.
    accuracySampleCount: 48289,
    minQueries: { SingleStream: 1024, Server: 270336, Offline: 1 },
    offlineMinSamplesPerQuery: 48289,
    latencyConstraintNs: { Server: 12_000 * MS, Interactive: 1500 * MS },
    tokenLimitsNs: {},
    required: LLM_OFFLINE_ONLY,
    optional: ['Interactive', 'Server'],
    llm: false,
    endpointsAllowed: true,
  },
};

/** Accuracy samples the checker expects for a benchmark and scenario (qwen3-vl's Interactive uses its 8000-row subset). */
export function expectedAccuracySamples(benchmark: string, scenario: string): number | undefined {
  if (benchmark === 'qwen3-vl-235b-a22b' && scenario === 'Interactive') return 8000;
  return CHECKER_BENCHMARKS[benchmark]?.accuracySampleCount;
}

/** Scenarios where the checker judges early stopping rather than the minimum query count. */
export function usesEarlyStopping(scenario: string): boolean {
  return scenario === 'Server' || scenario === 'SingleStream' || scenario === 'MultiStream';
}

/**
 * The checker's benchmark name (the folder under results/<system>/) and the
 * scenario folder for one of our model keys and a run's scenario. Our
 * `-interactive` keys run LoadGen's Server scenario with the tighter token
 * bounds; v6.1 files them under the Interactive scenario of the base model.
 */
export function checkerBenchmark(model: string, scenario: string): { benchmark: string; scenario: string } {
  let key = model.trim().toLowerCase().replace(/_/g, '.');
  let scen = scenario;
  if (key.endsWith('-interactive')) {
    key = key.slice(0, -'-interactive'.length);
    if (scen === 'Server') scen = 'Interactive';
  }
  // v6.1 keeps only the 99.9 variant of llama2-70b.
  if (key === 'llama2-70b' || key === 'llama2-70b-99') key = 'llama2-70b-99.9';
  return { benchmark: key, scenario: scen };
}

/** SYSTEM_DESC_REQUIRED_FIELDS: every one must be present in systems/<system>.json. */
export const SYSTEM_REQUIRED_FIELDS = [
  'division',
  'submitter',
  'status',
  'system_name',
  'number_of_nodes',
  'host_processor_model_name',
  'host_processors_per_node',
  'host_processor_core_count',
  'host_memory_capacity',
  'host_storage_capacity',
  'host_storage_type',
  'accelerators_per_node',
  'accelerator_model_name',
  'accelerator_memory_capacity',
  'framework',
  'operating_system',
  'system_type',
  'other_software_stack',
  'host_processor_frequency',
  'host_processor_caches',
  'host_memory_configuration',
  'host_processor_interconnect',
  'host_networking',
  'host_networking_topology',
  'accelerator_frequency',
  'accelerator_host_interconnect',
  'accelerator_interconnect',
  'accelerator_interconnect_topology',
  'accelerator_memory_configuration',
  'accelerator_on-chip_memories',
  'cooling',
  'hw_notes',
  'sw_notes',
  'host_network_card_count',
  'system_type_detail',
] as const;

/** SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS: these may not be empty. */
export const SYSTEM_MEANINGFUL_FIELDS = [
  'division',
  'submitter',
  'system_type',
  'status',
  'system_name',
  'number_of_nodes',
  'host_processor_model_name',
  'host_processors_per_node',
  'host_processor_core_count',
  'host_memory_capacity',
  'host_memory_configuration',
  'host_storage_capacity',
  'host_storage_type',
  'host_networking',
  'host_network_card_count',
  'host_networking_topology',
  'accelerators_per_node',
  'accelerator_model_name',
  'accelerator_memory_capacity',
  'accelerator_host_interconnect',
  'accelerator_memory_configuration',
  'accelerator_interconnect',
  'cooling',
  'framework',
  'operating_system',
  'other_software_stack',
] as const;

/** SYSTEM_IMP_REQUIRED_FILES: the fields of measurements.json, each non-empty. */
export const MEASUREMENTS_FIELDS = [
  'input_data_types',
  'retraining',
  'starting_weights_filename',
  'weight_data_types',
  'weight_transformations',
] as const;

/** REQUIRED_MEASURE_FILES: beside measurements.json, non-empty (user.conf is not required of endpoints results). */
export const MEASUREMENT_FILES = ['user.conf', 'README.md'] as const;

/** REQUIRED_PERF_FILES and REQUIRED_ACC_FILES. */
export const PERFORMANCE_FILES = ['mlperf_log_summary.txt', 'mlperf_log_detail.txt'] as const;
export const ACCURACY_FILES = [
  'mlperf_log_summary.txt',
  'mlperf_log_detail.txt',
  'accuracy.txt',
  'mlperf_log_accuracy.json',
] as const;

/** TEST09: the mean output length of the performance run must lie in this range (endpoints results). */
export const TEST09_OUTPUT_TOKENS = { low: 1150.38, high: 1406.02 } as const;

/** ENDPOINTS_COMPLIANCE_MAPPING: the audit file an endpoints result carries per compliance test. */
export const ENDPOINTS_AUDIT_NAMES: Readonly<Record<string, string>> = {
  TEST01: 'accuracy_in_performance_test',
  TEST04: 'output_caching_test',
  TEST06: 'consistency_output_test',
  TEST07: 'accuracy_in_performance_full_test',
  TEST08: 'accuracy_in_performance_dlrmv3_test',
};
