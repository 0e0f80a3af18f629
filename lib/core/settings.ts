// TestSettings as a plain camelCase object: the official C++ field names,
// the official defaults, validation that names the bad field, and the
// mapping to the engine's snake_case names.
import { ErrorCode, LoadgenError } from './errors.js';

export const TestScenario = {
  SingleStream: 'SingleStream',
  MultiStream: 'MultiStream',
  Server: 'Server',
  Offline: 'Offline',
} as const;
export type TestScenario = (typeof TestScenario)[keyof typeof TestScenario];

export const TestMode = {
  SubmissionRun: 'SubmissionRun',
  AccuracyOnly: 'AccuracyOnly',
  PerformanceOnly: 'PerformanceOnly',
  FindPeakPerformance: 'FindPeakPerformance',
} as const;
export type TestMode = (typeof TestMode)[keyof typeof TestMode];

export const LoggingMode = {
  AsyncPoll: 'AsyncPoll',
  EndOfTestOnly: 'EndOfTestOnly',
  Synchronous: 'Synchronous',
} as const;
export type LoggingMode = (typeof LoggingMode)[keyof typeof LoggingMode];

/** A 64-bit seed: a bigint, or a decimal string. */
export type Seed = bigint | string | number;

export interface TestSettings {
  scenario: TestScenario;
  mode: TestMode;
  singleStreamExpectedLatencyNs: number;
  singleStreamTargetLatencyPercentile: number;
  multiStreamExpectedLatencyNs: number;
  multiStreamTargetLatencyPercentile: number;
  multiStreamSamplesPerQuery: number;
  serverTargetQps: number;
  serverTargetLatencyNs: number;
  serverTargetLatencyPercentile: number;
  serverCoalesceQueries: boolean;
  serverFindPeakQpsDecimalsOfPrecision: number;
  serverFindPeakQpsBoundaryStepSize: number;
  serverMaxAsyncQueries: number;
  serverNumIssueQueryThreads: number;
  offlineExpectedQps: number;
  sampleConcatenatePermutation: boolean;
  minDurationMs: number;
  maxDurationMs: number;
  minQueryCount: number;
  maxQueryCount: number;
  qslRngSeed: Seed;
  sampleIndexRngSeed: Seed;
  scheduleRngSeed: Seed;
  accuracyLogRngSeed: Seed;
  accuracyLogProbability: number;
  accuracyLogSamplingTarget: number;
  test05: boolean;
  test05QslRngSeed: Seed;
  test05SampleIndexRngSeed: Seed;
  test05ScheduleRngSeed: Seed;
  printTimestamps: boolean;
  performanceIssueUnique: boolean;
  performanceIssueSame: boolean;
  performanceIssueSameIndex: number;
  performanceSampleCountOverride: number;
  accuracySampleCountOverride: number;
  useTokenLatencies: boolean;
  /** The official server_ttft_latency, in ns. */
  ttftLatencyNs: number;
  /** The official server_tpot_latency, in ns. */
  tpotLatencyNs: number;
  inferTokenLatencies: boolean;
  tokenLatencyScalingFactor: number;
  /**
   * Not MLPerf (Server only): a closed loop with this many queries in flight, each completion issuing the next
   * (`vllm bench serve --max-concurrency`'s meaning); 0 = off. serverTargetQps then only sizes how many queries
   * are generated (set it at or above the rate the loop will reach).
   */
  closedLoopConcurrency: number;
  /** Not MLPerf unless 1 (Server only): the shape of gamma inter-arrival gaps, as vLLM's --burstiness; < 1 is burstier. */
  serverBurstiness: number;
  /** Not MLPerf (Server only): the ramp-up's first rate; 0 = no ramp. The rate grows to serverTargetQps. */
  rampStartQps: number;
  /** The ramp-up's length in ms (with rampStartQps). */
  rampDurationMs: number;
  /** The ramp-up grows exponentially rather than linearly. */
  rampExponential: boolean;
}

export interface LogSettings {
  outdir: string;
  prefix: string;
  suffix: string;
  prefixWithDatetime: boolean;
  copySummaryToStdout: boolean;
  copyDetailToStdout: boolean;
  enableTrace: boolean;
  logMode: LoggingMode;
}

// 'rate': any finite number (the engine corrects a negative one to 1 and logs
// error_invalid_test_settings, as the official one does); 'probability': any
// finite number (1 or more logs every sample, 0 or less none).
type Kind = 'scenario' | 'mode' | 'double' | 'rate' | 'percentile' | 'probability' | 'uint' | 'int' | 'bool' | 'seed';

// camelCase field → [official C++ field, kind, default]. The defaults are the official struct's.
const FIELDS: Record<keyof TestSettings, [string, Kind, unknown]> = {
  scenario: ['scenario', 'scenario', 'SingleStream'],
  mode: ['mode', 'mode', 'PerformanceOnly'],
  singleStreamExpectedLatencyNs: ['single_stream_expected_latency_ns', 'double', 1000000],
  singleStreamTargetLatencyPercentile: ['single_stream_target_latency_percentile', 'percentile', 0.9],
  multiStreamExpectedLatencyNs: ['multi_stream_expected_latency_ns', 'double', 8000000],
  multiStreamTargetLatencyPercentile: ['multi_stream_target_latency_percentile', 'percentile', 0.99],
  multiStreamSamplesPerQuery: ['multi_stream_samples_per_query', 'uint', 8],
  serverTargetQps: ['server_target_qps', 'rate', 1],
  serverTargetLatencyNs: ['server_target_latency_ns', 'uint', 100000000],
  serverTargetLatencyPercentile: ['server_target_latency_percentile', 'percentile', 0.99],
  serverCoalesceQueries: ['server_coalesce_queries', 'bool', false],
  serverFindPeakQpsDecimalsOfPrecision: ['server_find_peak_qps_decimals_of_precision', 'int', 1],
  serverFindPeakQpsBoundaryStepSize: ['server_find_peak_qps_boundary_step_size', 'double', 1],
  serverMaxAsyncQueries: ['server_max_async_queries', 'uint', 0],
  serverNumIssueQueryThreads: ['server_num_issue_query_threads', 'uint', 0],
  offlineExpectedQps: ['offline_expected_qps', 'rate', 1],
  sampleConcatenatePermutation: ['sample_concatenate_permutation', 'bool', false],
  minDurationMs: ['min_duration_ms', 'uint', 10000],
  maxDurationMs: ['max_duration_ms', 'uint', 0],
  minQueryCount: ['min_query_count', 'uint', 100],
  maxQueryCount: ['max_query_count', 'uint', 0],
  qslRngSeed: ['qsl_rng_seed', 'seed', 0n],
  sampleIndexRngSeed: ['sample_index_rng_seed', 'seed', 0n],
  scheduleRngSeed: ['schedule_rng_seed', 'seed', 0n],
  accuracyLogRngSeed: ['accuracy_log_rng_seed', 'seed', 0n],
  accuracyLogProbability: ['accuracy_log_probability', 'probability', 0],
  accuracyLogSamplingTarget: ['accuracy_log_sampling_target', 'uint', 0],
  test05: ['test05', 'bool', false],
  test05QslRngSeed: ['test05_qsl_rng_seed', 'seed', 0n],
  test05SampleIndexRngSeed: ['test05_sample_index_rng_seed', 'seed', 0n],
  test05ScheduleRngSeed: ['test05_schedule_rng_seed', 'seed', 0n],
  printTimestamps: ['print_timestamps', 'bool', false],
  performanceIssueUnique: ['performance_issue_unique', 'bool', false],
  performanceIssueSame: ['performance_issue_same', 'bool', false],
  performanceIssueSameIndex: ['performance_issue_same_index', 'uint', 0],
  performanceSampleCountOverride: ['performance_sample_count_override', 'uint', 0],
  accuracySampleCountOverride: ['accuracy_sample_count_override', 'uint', 0],
  useTokenLatencies: ['use_token_latencies', 'bool', false],
  ttftLatencyNs: ['server_ttft_latency', 'uint', 100000000],
  tpotLatencyNs: ['server_tpot_latency', 'uint', 100000000],
  inferTokenLatencies: ['infer_token_latencies', 'bool', false],
  tokenLatencyScalingFactor: ['token_latency_scaling_factor', 'uint', 0],
  // Our issue policies beyond MLPerf's (the engine logs them only when used).
  closedLoopConcurrency: ['closed_loop_concurrency', 'uint', 0],
  serverBurstiness: ['server_burstiness', 'double', 1],
  rampStartQps: ['ramp_start_qps', 'double', 0],
  rampDurationMs: ['ramp_duration_ms', 'uint', 0],
  rampExponential: ['ramp_exponential', 'bool', false],
};

/** The settings that are ours, not the official TestSettings' (issue policies beyond MLPerf's). */
export const EXTENSION_SETTINGS: readonly (keyof TestSettings)[] = [
  'closedLoopConcurrency',
  'serverBurstiness',
  'rampStartQps',
  'rampDurationMs',
  'rampExponential',
];

/** A name for the non-MLPerf issue policy these settings ask for, or null for MLPerf's own. */
export function nonMlperfIssuePolicy(s: Partial<TestSettings>): string | null {
  if ((s.scenario ?? 'SingleStream') !== 'Server') return null;
  const parts: string[] = [];
  if ((s.closedLoopConcurrency ?? 0) > 0) return `closed loop, concurrency ${s.closedLoopConcurrency}`;
  if ((s.serverBurstiness ?? 1) !== 1) parts.push(`gamma arrivals, burstiness ${s.serverBurstiness}`);
  if ((s.rampStartQps ?? 0) > 0)
    parts.push(
      `${s.rampExponential ? 'exponential' : 'linear'} ramp from ${s.rampStartQps} QPS over ${s.rampDurationMs ?? 0} ms`,
    );
  return parts.length ? parts.join(', ') : null;
}

const SCENARIOS = Object.values(TestScenario) as string[];
const MODES = Object.values(TestMode) as string[];
const UINT64_MAX = (1n << 64n) - 1n;

export class SettingsError extends LoadgenError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(ErrorCode.Settings, message);
  }
}

/** The official defaults, as a complete settings object. */
export function defaultTestSettings(): TestSettings {
  const out: Record<string, unknown> = {};
  for (const [k, [, , def]] of Object.entries(FIELDS)) out[k] = def;
  return out as unknown as TestSettings;
}

const OFFICIAL_TO_CAMEL: Record<string, keyof TestSettings> = Object.fromEntries(
  Object.entries(FIELDS).map(([camel, [official]]) => [official, camel as keyof TestSettings]),
);

/** The camelCase name of an official field (or a camelCase name itself), or undefined. */
export function settingName(name: string): keyof TestSettings | undefined {
  if (name in FIELDS) return name as keyof TestSettings;
  return OFFICIAL_TO_CAMEL[name];
}

function seedToString(field: string, v: unknown): string {
  let big: bigint;
  if (typeof v === 'bigint') big = v;
  else if (typeof v === 'string' && /^\d+$/.test(v.trim())) big = BigInt(v.trim());
  else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) big = BigInt(v);
  else
    throw new SettingsError(
      field,
      `${field} must be a 64-bit unsigned seed (bigint or decimal string), got ${describe(v)}`,
    );
  if (big < 0n || big > UINT64_MAX)
    throw new SettingsError(field, `${field} is out of the 64-bit unsigned range: ${big}`);
  return big.toString();
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  return String(v);
}

/**
 * Validates a partial settings object (camelCase, or the official snake_case
 * names) against the defaults and returns the engine's snake_case form.
 * Throws SettingsError naming the field on any bad value or unknown key.
 */
export function toEngineSettings(
  partial: Partial<TestSettings> | Record<string, unknown>,
): Record<string, number | boolean | string> {
  if (partial === null || typeof partial !== 'object') {
    throw new SettingsError('settings', `settings must be an object, got ${describe(partial)}`);
  }
  const merged: Record<string, unknown> = { ...defaultTestSettings() };
  for (const [key, value] of Object.entries(partial)) {
    const camel = settingName(key);
    if (!camel) throw new SettingsError(key, `unknown setting '${key}'`);
    if (value === undefined) continue;
    merged[camel] = value;
  }
  const out: Record<string, number | boolean | string> = {};
  for (const [camel, [official, kind]] of Object.entries(FIELDS)) {
    const v = merged[camel];
    switch (kind) {
      case 'scenario':
        if (typeof v !== 'string' || !SCENARIOS.includes(v)) {
          throw new SettingsError(camel, `scenario must be one of ${SCENARIOS.join(', ')}, got ${describe(v)}`);
        }
        out[official] = SCENARIOS.indexOf(v);
        break;
      case 'mode':
        if (typeof v !== 'string' || !MODES.includes(v)) {
          throw new SettingsError(camel, `mode must be one of ${MODES.join(', ')}, got ${describe(v)}`);
        }
        // Engine numbering follows the official enum: Submission, Accuracy, Performance, FindPeak.
        out[official] = ['SubmissionRun', 'AccuracyOnly', 'PerformanceOnly', 'FindPeakPerformance'].indexOf(v);
        break;
      case 'double':
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
          throw new SettingsError(camel, `${camel} must be a finite number >= 0, got ${describe(v)}`);
        }
        out[official] = v;
        break;
      case 'rate':
      case 'probability':
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new SettingsError(camel, `${camel} must be a finite number, got ${describe(v)}`);
        out[official] = v;
        break;
      case 'percentile':
        // Checked below, for the run's own scenario only: the official engine
        // never reads another scenario's percentile.
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new SettingsError(camel, `${camel} must be a finite number, got ${describe(v)}`);
        out[official] = v;
        break;
      case 'uint':
        if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
          out[official] = Number(v);
          break;
        }
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
          throw new SettingsError(camel, `${camel} must be a non-negative integer, got ${describe(v)}`);
        }
        out[official] = v;
        break;
      case 'int':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 15) {
          throw new SettingsError(camel, `${camel} must be an integer from 0 to 15, got ${describe(v)}`);
        }
        out[official] = v;
        break;
      case 'bool':
        if (typeof v !== 'boolean') throw new SettingsError(camel, `${camel} must be a boolean, got ${describe(v)}`);
        out[official] = v;
        break;
      case 'seed':
        out[official] = seedToString(camel, v);
        break;
    }
  }
  checkScenarioFields(merged.scenario as TestScenario, merged);
  return out;
}

// What the official engine cannot run with: a value it would divide by zero
// with, or a percentile that indexes past the sorted latencies. Everything
// else it accepts (correcting some values and logging an error, as the
// engine here does too), so this refuses nothing more.
function checkScenarioFields(scenario: TestScenario, s: Record<string, unknown>): void {
  const percentile = (field: keyof TestSettings) => {
    const v = s[field] as number;
    if (!(v >= 0 && v < 1)) {
      throw new SettingsError(
        field,
        `${field} must be a fraction in [0, 1) (e.g. 0.99 for the 99th percentile), got ${describe(v)}`,
      );
    }
  };
  const positive = (field: keyof TestSettings, why: string) => {
    if ((s[field] as number) <= 0)
      throw new SettingsError(
        field,
        `${field} must be > 0 in the ${scenario} scenario (${why}), got ${describe(s[field])}`,
      );
  };
  switch (scenario) {
    case 'SingleStream':
      positive('singleStreamExpectedLatencyNs', 'the engine divides by it');
      percentile('singleStreamTargetLatencyPercentile');
      break;
    case 'MultiStream':
      positive('multiStreamExpectedLatencyNs', 'the engine divides by it');
      percentile('multiStreamTargetLatencyPercentile');
      positive('multiStreamSamplesPerQuery', 'a query needs at least one sample');
      break;
    case 'Server':
      // A negative rate is corrected to 1 with an error in the detail log; 0
      // would make every arrival gap infinite.
      if (s.serverTargetQps === 0)
        throw new SettingsError(
          'serverTargetQps',
          'serverTargetQps must not be 0 in the Server scenario (no query after the first would ever be scheduled)',
        );
      percentile('serverTargetLatencyPercentile');
      if (s.serverBurstiness === 0)
        throw new SettingsError(
          'serverBurstiness',
          'serverBurstiness must be > 0 (the shape of gamma inter-arrival gaps)',
        );
      if ((s.rampStartQps as number) > 0 && (s.rampDurationMs as number) === 0)
        throw new SettingsError('rampDurationMs', 'rampDurationMs must be > 0 when rampStartQps is set');
      if (
        (s.closedLoopConcurrency as number) > 0 &&
        ((s.serverBurstiness as number) !== 1 || (s.rampStartQps as number) > 0)
      )
        throw new SettingsError(
          'closedLoopConcurrency',
          'closedLoopConcurrency cannot be combined with serverBurstiness or a ramp (a closed loop has no arrival schedule)',
        );
      break;
    case 'Offline':
      // offlineExpectedQps 0 sizes the query by min_query_count alone.
      break;
  }
}

/**
 * performance_issue_same_index indexes the loaded performance set: past its
 * end the official engine reads out of range, so it is refused here.
 */
export function checkIssueSameIndex(
  settings: Record<string, number | boolean | string>,
  qslPerformanceSampleCount: number,
): void {
  if (settings.performance_issue_same !== true || settings.performance_issue_unique === true) return;
  const override = settings.performance_sample_count_override as number;
  const count = override !== 0 ? override : qslPerformanceSampleCount;
  const index = settings.performance_issue_same_index as number;
  if (index >= count) {
    throw new SettingsError(
      'performanceIssueSameIndex',
      `performanceIssueSameIndex ${index} is past the loaded performance set (performance sample count ${count})`,
    );
  }
}

/** Converts the engine's snake_case form back to typed camelCase settings. */
export function fromEngineSettings(raw: Record<string, number | boolean | string>): TestSettings {
  const out: Record<string, unknown> = {};
  for (const [camel, [official, kind]] of Object.entries(FIELDS)) {
    const v = raw[official];
    if (v === undefined) continue;
    switch (kind) {
      case 'scenario':
        out[camel] = SCENARIOS[Number(v)];
        break;
      case 'mode':
        out[camel] = ['SubmissionRun', 'AccuracyOnly', 'PerformanceOnly', 'FindPeakPerformance'][Number(v)];
        break;
      case 'seed':
        out[camel] = BigInt(String(v));
        break;
      case 'uint':
        out[camel] = Number(v);
        break;
      default:
        out[camel] = v;
    }
  }
  return out as unknown as TestSettings;
}

export function defaultLogSettings(): LogSettings {
  return {
    outdir: '.',
    prefix: 'mlperf_log_',
    suffix: '',
    prefixWithDatetime: false,
    copySummaryToStdout: false,
    copyDetailToStdout: false,
    enableTrace: true,
    logMode: 'AsyncPoll',
  };
}

export function toEngineLogSettings(partial: Partial<LogSettings> | undefined): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaultLogSettings() };
  const defaults = defaultLogSettings() as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(partial ?? {})) {
    if (!(k in defaults)) throw new SettingsError(k, `unknown log setting '${k}'`);
    if (v === undefined) continue;
    if (typeof v !== typeof defaults[k]) {
      throw new SettingsError(k, `log setting ${k} must be a ${typeof defaults[k]}, got ${describe(v)}`);
    }
    merged[k] = v;
  }
  const modes = Object.values(LoggingMode) as string[];
  if (!modes.includes(merged.logMode as string)) {
    throw new SettingsError('logMode', `logMode must be one of ${modes.join(', ')}`);
  }
  if ((merged.outdir as string).length === 0) throw new SettingsError('outdir', 'outdir must not be empty');
  return { ...merged, logMode: modes.indexOf(merged.logMode as string) };
}
