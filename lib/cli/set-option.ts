// `--set key=value`: any TestSettings field by its camelCase API name
// (minDurationMs=5000), its official C++ field name (min_duration_ms=5000),
// or its official mlperf.conf key in the conf file's units
// (min_duration=5000: ms; target_latency: ms; *_percentile and
// accuracy_log_probability: percent). All three spellings end up as one
// camelCase field with the API's units, so they are interchangeable.
import { defaultTestSettings, settingName, type TestScenario, type TestSettings } from '../core/settings.js';
import { UsageError } from './errors.js';

type Field = keyof TestSettings;
type ConfKind = 'uint' | 'double' | 'bool' | 'seed';

/** An mlperf.conf key: the field it sets (per scenario when it depends on it) and its unit factor. */
interface ConfKey {
  field: Field | Partial<Record<TestScenario, Field>>;
  kind: ConfKind;
  /** conf value × scale = API value (ms → ns: 1e6; percent → fraction: 0.01). */
  scale?: number;
}

const MS = 1e6;
const PERCENT = 0.01;

// The keys the official FromConfig reads (native/engine/config.cc has the same
// list), with the fields they set. A key that names a per-scenario field
// applies to the run's scenario.
const CONF_KEYS: Record<string, ConfKey> = {
  // Refused with a pointer to --mode (the conf file's 0-3 code).
  mode: { field: 'mode', kind: 'uint' },
  use_token_latencies: { field: 'useTokenLatencies', kind: 'bool' },
  ttft_latency: { field: 'ttftLatencyNs', kind: 'uint', scale: MS },
  tpot_latency: { field: 'tpotLatencyNs', kind: 'uint', scale: MS },
  infer_token_latencies: { field: 'inferTokenLatencies', kind: 'bool' },
  token_latency_scaling_factor: { field: 'tokenLatencyScalingFactor', kind: 'uint' },
  target_latency_percentile: {
    field: {
      SingleStream: 'singleStreamTargetLatencyPercentile',
      MultiStream: 'multiStreamTargetLatencyPercentile',
      Server: 'serverTargetLatencyPercentile',
    },
    kind: 'double',
    scale: PERCENT,
  },
  target_latency: {
    field: {
      SingleStream: 'singleStreamExpectedLatencyNs',
      MultiStream: 'multiStreamExpectedLatencyNs',
      Server: 'serverTargetLatencyNs',
    },
    kind: 'double',
    scale: MS,
  },
  target_qps: { field: { Server: 'serverTargetQps', Offline: 'offlineExpectedQps' }, kind: 'double' },
  samples_per_query: { field: 'multiStreamSamplesPerQuery', kind: 'uint' },
  coalesce_queries: { field: 'serverCoalesceQueries', kind: 'bool' },
  max_async_queries: { field: 'serverMaxAsyncQueries', kind: 'uint' },
  performance_issue_unique: { field: 'performanceIssueUnique', kind: 'bool' },
  performance_issue_same: { field: 'performanceIssueSame', kind: 'bool' },
  performance_issue_same_index: { field: 'performanceIssueSameIndex', kind: 'uint' },
  sample_concatenate_permutation: { field: 'sampleConcatenatePermutation', kind: 'bool' },
  min_duration: { field: 'minDurationMs', kind: 'uint' },
  max_duration: { field: 'maxDurationMs', kind: 'uint' },
  min_query_count: { field: 'minQueryCount', kind: 'uint' },
  max_query_count: { field: 'maxQueryCount', kind: 'uint' },
  performance_sample_count_override: { field: 'performanceSampleCountOverride', kind: 'uint' },
  accuracy_sample_count_override: { field: 'accuracySampleCountOverride', kind: 'uint' },
  print_timestamps: { field: 'printTimestamps', kind: 'bool' },
  accuracy_log_rng_seed: { field: 'accuracyLogRngSeed', kind: 'seed' },
  accuracy_log_sampling_target: { field: 'accuracyLogSamplingTarget', kind: 'uint' },
  accuracy_log_probability: { field: 'accuracyLogProbability', kind: 'double', scale: PERCENT },
  qsl_rng_seed: { field: 'qslRngSeed', kind: 'seed' },
  sample_index_rng_seed: { field: 'sampleIndexRngSeed', kind: 'seed' },
  schedule_rng_seed: { field: 'scheduleRngSeed', kind: 'seed' },
  test05: { field: 'test05', kind: 'bool' },
  test05_qsl_rng_seed: { field: 'test05QslRngSeed', kind: 'seed' },
  test05_sample_index_rng_seed: { field: 'test05SampleIndexRngSeed', kind: 'seed' },
  test05_schedule_rng_seed: { field: 'test05ScheduleRngSeed', kind: 'seed' },
};

/** Official mlperf.conf key names (for help text and tests). */
export function confKeyNames(): string[] {
  return Object.keys(CONF_KEYS);
}

/** Splits `key=value`; the value may contain '='. */
export function splitAssignment(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`--set ${JSON.stringify(text)}: expected key=value (e.g. --set min_duration=5000)`);
  const key = text.slice(0, at).trim();
  const value = text.slice(at + 1).trim();
  if (value === '') throw new UsageError(`--set ${key}: no value after '='`);
  return [key, value];
}

function parseNumber(key: string, raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`setting ${key}: expected a number, got ${JSON.stringify(raw)}`);
  return n;
}

function parseBool(key: string, raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  const s = String(raw).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw new UsageError(`setting ${key}: expected true/false (or 1/0), got ${JSON.stringify(raw)}`);
}

function parseSeed(key: string, raw: unknown): string {
  const s =
    typeof raw === 'bigint'
      ? raw.toString()
      : typeof raw === 'number' && Number.isSafeInteger(raw)
        ? String(raw)
        : String(raw).trim();
  if (!/^\d+$/.test(s) || BigInt(s) >= 1n << 64n)
    throw new UsageError(`setting ${key}: expected a 64-bit unsigned integer seed, got ${JSON.stringify(raw)}`);
  return s;
}

function integer(key: string, n: number): number {
  // Rounding absorbs float noise from unit scaling (0.3 ms × 1e6).
  const r = Math.round(n);
  if (Math.abs(r - n) > 1e-6 * Math.max(1, Math.abs(n)) || r < 0 || !Number.isSafeInteger(r)) {
    throw new UsageError(`setting ${key}: expected a non-negative integer in its units, got ${n}`);
  }
  return r;
}

/** Fields that have a flag of their own: --set would fight it. */
const OWN_FLAG: Partial<Record<Field, string>> = { scenario: '--scenario', mode: '--mode' };

/**
 * One setting from the user (--set, or the config file's `settings:` map) as
 * [camelCase field, value in API units]. `scenario` picks the field of
 * per-scenario conf keys such as target_latency.
 */
export function parseSetting(key: string, raw: unknown, scenario: TestScenario): [Field, unknown] {
  const conf = CONF_KEYS[key];
  // A name that is both an mlperf.conf key and a struct field (e.g.
  // accuracy_log_probability) is read in the conf file's units: snake_case
  // names come from conf files. The camelCase name keeps the API's units.
  if (conf) {
    let field: Field | undefined;
    if (typeof conf.field === 'string') field = conf.field;
    else {
      field = conf.field[scenario];
      if (!field) {
        const where = Object.keys(conf.field).join(', ');
        throw new UsageError(`setting ${key}: applies to ${where}, not to the ${scenario} scenario`);
      }
    }
    if (OWN_FLAG[field]) throw new UsageError(`setting ${key}: use ${OWN_FLAG[field]} instead of --set`);
    const scale = conf.scale ?? 1;
    switch (conf.kind) {
      case 'bool':
        return [field, parseBool(key, raw)];
      case 'seed':
        return [field, parseSeed(key, raw)];
      case 'uint':
        return [field, integer(key, parseNumber(key, raw) * scale)];
      case 'double': {
        const v = parseNumber(key, raw) * scale;
        // ns fields are integers in the engine; keep them whole.
        return [field, field.endsWith('Ns') ? integer(key, v) : v];
      }
    }
  }
  const field = settingName(key);
  if (!field) throw new UsageError(`unknown setting '${key}'${suggest(key)}`);
  if (OWN_FLAG[field]) throw new UsageError(`setting ${key}: use ${OWN_FLAG[field]} instead of --set`);
  const dflt = (defaultTestSettings() as unknown as Record<string, unknown>)[field];
  if (typeof dflt === 'boolean') return [field, parseBool(key, raw)];
  if (typeof dflt === 'bigint') return [field, parseSeed(key, raw)];
  const n = parseNumber(key, raw);
  return [field, Number.isInteger(dflt) && !isFractional(field) ? integer(key, n) : n];
}

// Fields whose default happens to be a whole number but that take fractions.
function isFractional(field: Field): boolean {
  return (
    field === 'serverTargetQps' ||
    field === 'offlineExpectedQps' ||
    field === 'serverFindPeakQpsBoundaryStepSize' ||
    field.endsWith('Percentile') ||
    field === 'accuracyLogProbability' ||
    field.endsWith('ExpectedLatencyNs')
  );
}

// Edit distance, for "did you mean".
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

function suggest(key: string): string {
  const names = [...Object.keys(defaultTestSettings()), ...Object.keys(CONF_KEYS)];
  let best = '';
  let bestD = Infinity;
  for (const n of names) {
    const d = distance(key.toLowerCase(), n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  return bestD <= Math.max(2, key.length / 4)
    ? ` (did you mean '${best}'?)`
    : ' (a TestSettings field such as minDurationMs, or an mlperf.conf key such as min_duration)';
}

/** `--set` assignments (later ones win) as camelCase settings in API units. */
export function parseSetOptions(assignments: readonly string[], scenario: TestScenario): Partial<TestSettings> {
  const out: Record<string, unknown> = {};
  for (const a of assignments) {
    const [key, value] = splitAssignment(a);
    const [field, v] = parseSetting(key, value, scenario);
    out[field] = v;
  }
  return out as Partial<TestSettings>;
}

/** A config file's `settings:` map (values may be YAML/JSON numbers or booleans). */
export function parseSettingsMap(map: Record<string, unknown>, scenario: TestScenario): Partial<TestSettings> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(map)) {
    if (value === null || typeof value === 'object')
      throw new UsageError(`setting ${key}: expected a number, boolean or string, got ${JSON.stringify(value)}`);
    const [field, v] = parseSetting(key, value, scenario);
    out[field] = v;
  }
  return out as Partial<TestSettings>;
}
