// Reads one run directory: mlperf_log_detail.txt (':::MLLOG {json}' lines),
// mlperf_log_summary.txt and, when present, our results.json. Works on logs
// of the official LoadGen and on ours. An interrupted run may leave the last
// detail line cut short: that line is dropped and the run marked truncated,
// so its logs stay readable; a bad line anywhere else is an error.
import { existsSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';

import type { LatencyStats } from '../core/result.js';
import { RESULTS_SCHEMA, type ResultsJson } from '../results/results-json.js';
import { runLeftIncomplete } from '../resume/run-state.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

export class LogReadError extends LoadgenError {
  constructor(message: string) {
    super(ErrorCode.LogRead, message);
  }
}

export interface MlLogEntry {
  key: string;
  value: unknown;
  /** The value as written (64-bit seeds are not exact as JSON numbers). */
  valueText: string;
  timeMs: number;
  isError: boolean;
  isWarning: boolean;
  /** 1-based line number. */
  line: number;
}

export interface DetailLog {
  path: string;
  entries: MlLogEntry[];
  /** The last line was incomplete (an interrupted write) and was skipped. */
  truncated: boolean;
}

export interface SummaryLog {
  path: string;
  text: string;
  /** "Label : value" lines, label trimmed, first occurrence. */
  fields: Record<string, string>;
  result: 'VALID' | 'INVALID' | null;
  recommendations: string[];
  earlyStopping: { text: string; ttftText: string; tpotText: string };
  warnings: number | null;
  errors: number | null;
}

const PREFIX = ':::MLLOG ';

/** The raw text of the "value" member (what JSON.parse would round). */
function rawValue(json: string): string {
  const start = json.indexOf('"value": ');
  const end = json.lastIndexOf(', "time_ms": ');
  return start >= 0 && end > start ? json.slice(start + 9, end) : '';
}

function parseLine(line: string): Omit<MlLogEntry, 'line'> | null {
  if (!line.startsWith(PREFIX)) return null;
  const json = line.slice(PREFIX.length);
  let obj: {
    key?: unknown;
    value?: unknown;
    time_ms?: unknown;
    metadata?: { is_error?: unknown; is_warning?: unknown };
  };
  try {
    obj = JSON.parse(json) as typeof obj;
  } catch {
    return null;
  }
  if (typeof obj !== 'object' || obj === null || typeof obj.key !== 'string') return null;
  return {
    key: obj.key,
    value: obj.value,
    valueText: rawValue(json) || JSON.stringify(obj.value ?? null),
    timeMs: typeof obj.time_ms === 'number' ? obj.time_ms : NaN,
    isError: obj.metadata?.is_error === true,
    isWarning: obj.metadata?.is_warning === true,
  };
}

/** Parses detail-log text; `path` only names the file in errors. */
export function parseDetailText(text: string, path: string): DetailLog {
  const lines = text.split('\n');
  // Text ending in '\n' leaves an empty last element: every line was complete.
  const last = lines.length - 1;
  const entries: MlLogEntry[] = [];
  let truncated = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const e = parseLine(raw);
    if (e) {
      entries.push({ ...e, line: i + 1 });
      continue;
    }
    if (i === last) {
      truncated = true;
      continue;
    }
    throw new LogReadError(
      `${path}:${i + 1}: malformed detail log line (expected ':::MLLOG {json}'): ${raw.slice(0, 80)}`,
    );
  }
  return { path, entries, truncated };
}

export function parseSummaryText(text: string, path: string): SummaryLog {
  const fields: Record<string, string> = {};
  const recommendations: string[] = [];
  const es = { text: [] as string[], ttftText: [] as string[], tpotText: [] as string[] };
  let section: 'none' | 'recommendations' | keyof typeof es = 'none';
  let result: SummaryLog['result'] = null;
  let warnings: number | null = null;
  let errors: number | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || /^=+$/.test(line)) {
      section = 'none';
      continue;
    }
    const w = /^(No|\d+) warnings? encountered/.exec(line);
    if (w) {
      warnings = w[1] === 'No' ? 0 : Number(w[1]);
      continue;
    }
    const e = /^(No|\d+) (?:errors|ERRORS?) encountered/.exec(line);
    if (e) {
      errors = e[1] === 'No' ? 0 : Number(e[1]);
      continue;
    }
    if (line === 'Recommendations:') section = 'recommendations';
    else if (line === 'Early Stopping Result:') section = 'text';
    else if (line === 'TTFT Early Stopping Result:') section = 'ttftText';
    else if (line === 'TPOT Early Stopping Result:') section = 'tpotText';
    else if (section !== 'none' && /^\s/.test(line)) {
      // Bullets start with " * "; continuation lines of a wrapped bullet only with spaces.
      const target = section === 'recommendations' ? recommendations : es[section];
      if (/^\s*\*\s/.test(line) || target.length === 0) target.push(line.replace(/^\s*\*\s*/, '').trim());
      else target[target.length - 1] += ` ${line.trim()}`;
    } else {
      section = 'none';
      const at = line.indexOf(':');
      if (at > 0) {
        const label = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (!(label in fields)) fields[label] = value;
        if (label === 'Result is') result = value === 'VALID' ? 'VALID' : value === 'INVALID' ? 'INVALID' : null;
      }
    }
  }
  const join = (xs: string[]) => xs.map((x) => ` * ${x}`).join('\n');
  return {
    path,
    text,
    fields,
    result,
    recommendations,
    earlyStopping: { text: join(es.text), ttftText: join(es.ttftText), tpotText: join(es.tpotText) },
    warnings,
    errors,
  };
}

/** The normalized view of one run that `loadgen report` prints and `--aggregate` merges. */
export interface RunSummary {
  dir: string;
  /** 'official' when the detail log names a LoadGen build other than ours. */
  origin: 'ours' | 'official' | 'unknown';
  loadgenVersion: string | null;
  testDatetime: string | null;
  sutName: string | null;
  scenario: string | null;
  mode: string | null;
  /** null: no performance result (AccuracyOnly, or the run stopped before its results). */
  valid: boolean | null;
  criteria: {
    perfConstraintsMet: boolean | null;
    minDurationMet: boolean | null;
    minQueriesMet: boolean | null;
    earlyStoppingMet: boolean | null;
  } | null;
  invalidReasons: string[];
  earlyStopping: { text: string; ttftText: string; tpotText: string };
  metric: { name: string; value: number; unit: string } | null;
  qps: number | null;
  samplesPerSecond: number | null;
  tokensPerSecond: number | null;
  completedSamplesPerSecond: number | null;
  scheduledSamplesPerSecond: number | null;
  latency: LatencyStats | null;
  queryLatency: LatencyStats | null;
  ttft: LatencyStats | null;
  tpot: LatencyStats | null;
  queries: number | null;
  samples: number | null;
  effective: {
    targetQps: number | null;
    samplesPerQuery: number | null;
    minDurationMs: number | null;
    minQueryCount: number | null;
    targetLatencyNs: number | null;
  };
  errors: number;
  warnings: number;
  errorMessages: string[];
  /** The run did not finish writing its logs (truncated detail log, or no result lines in a performance run). */
  incomplete: boolean;
  truncated: boolean;
  files: { detail: string | null; summary: string | null; results: string | null; trace: string | null };
}

export interface RunLogs {
  summary: RunSummary;
  detail: DetailLog | null;
  summaryLog: SummaryLog | null;
  results: ResultsJson | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function latencyFrom(
  get: (k: string) => unknown,
  min: string,
  max: string,
  mean: string,
  pct: (p: string) => string,
): LatencyStats | null {
  const v = {
    min: num(get(min)),
    max: num(get(max)),
    mean: num(get(mean)),
    p50: num(get(pct('50.00'))),
    p90: num(get(pct('90.00'))),
    p95: num(get(pct('95.00'))),
    p97: num(get(pct('97.00'))),
    p99: num(get(pct('99.00'))),
    p999: num(get(pct('99.90'))),
  };
  if (v.max === null && v.p50 === null) return null;
  const n = (x: number | null) => x ?? NaN;
  return {
    min: n(v.min),
    max: n(v.max),
    mean: n(v.mean),
    p50: n(v.p50),
    p90: n(v.p90),
    p95: n(v.p95),
    p97: n(v.p97),
    p99: n(v.p99),
    p999: n(v.p999),
  };
}

/** A summary figure ("1033.26", "2.33314e+06"). */
function fieldNum(s: SummaryLog | null, label: string): number | null {
  const v = s?.fields[label];
  if (v === undefined) return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
}

function summarize(
  dir: string,
  detail: DetailLog | null,
  s: SummaryLog | null,
  files: RunSummary['files'],
): RunSummary {
  const map = new Map<string, unknown>();
  const errorMessages: string[] = [];
  let errorLines = 0;
  let warningLines = 0;
  for (const e of detail?.entries ?? []) {
    if (!map.has(e.key)) map.set(e.key, e.value);
    if (e.isError) {
      errorLines++;
      if (errorMessages.length < 50)
        errorMessages.push(`${e.key}: ${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)}`);
    }
    if (e.isWarning) warningLines++;
  }
  const get = (k: string) => map.get(k);
  const version = str(get('loadgen_version'));
  // Our engine writes "6.0.17 @ x-loadgen-<version>"; the official one "6.0.17 @ <git rev or NA>".
  const origin: RunSummary['origin'] =
    version === null ? 'unknown' : /x-loadgen/i.test(version) || files.results ? 'ours' : 'official';
  const scenario = str(get('effective_scenario')) ?? s?.fields.Scenario ?? null;
  const mode = str(get('effective_test_mode')) ?? s?.fields.Mode ?? null;
  const validity = str(get('result_validity'));
  const valid =
    validity === 'VALID'
      ? true
      : validity === 'INVALID'
        ? false
        : s?.result === 'VALID'
          ? true
          : s?.result === 'INVALID'
            ? false
            : null;
  const yes = (label: string) => (s?.fields[label] === undefined ? null : s.fields[label] === 'Yes');
  const criteria =
    valid === null
      ? null
      : {
          perfConstraintsMet: bool(get('result_perf_constraints_met')) ?? yes('Performance constraints satisfied'),
          minDurationMet: bool(get('result_min_duration_met')) ?? yes('Min duration satisfied'),
          minQueriesMet: bool(get('result_min_queries_met')) ?? yes('Min queries satisfied'),
          earlyStoppingMet: bool(get('early_stopping_met')) ?? yes('Early stopping satisfied'),
        };
  const reasonText = str(get('result_invalid_reason'));
  const invalidReasons =
    s && s.recommendations.length > 0
      ? s.recommendations
      : reasonText
        ? reasonText
            .split(/(?<=\.)\s+(?=[A-Z])/)
            .map((x) => x.trim())
            .filter(Boolean)
        : [];
  const esText = (k: string, fallback: string | undefined) => {
    const v = str(get(k));
    if (v === null || v === '') return fallback ?? '';
    // The detail log joins the summary's lines with two spaces: one line per " * " bullet again.
    const bullets = v
      .split(/(?:^|\s)\*\s+/)
      .map((b) => b.replace(/\s+/g, ' ').trim())
      .filter(Boolean);
    return bullets.map((b) => ` * ${b}`).join('\n');
  };
  const latency = latencyFrom(
    get,
    'result_min_latency_ns',
    'result_max_latency_ns',
    'result_mean_latency_ns',
    (p) => `result_${p}_percentile_latency_ns`,
  );
  const queryLatency = latencyFrom(
    get,
    'result_min_query_latency_ns',
    'result_max_query_latency_ns',
    'result_mean_query_latency_ns',
    (p) => `result_${p}_percentile_per_query_latency_ns`,
  );
  const ttft = latencyFrom(
    get,
    'result_first_token_min_latency_ns',
    'result_first_token_max_latency_ns',
    'result_first_token_mean_latency_ns',
    (p) => `result_first_token_${p}_percentile_latency_ns`,
  );
  const tpot = latencyFrom(
    get,
    'result_time_to_output_token_min',
    'result_time_to_output_token_max',
    'result_time_to_output_token_mean',
    (p) => `result_time_per_output_token_${p}_percentile_ns`,
  );
  const completed = num(get('result_completed_samples_per_sec')) ?? fieldNum(s, 'Completed samples per second');
  const scheduled = num(get('result_scheduled_samples_per_sec')) ?? fieldNum(s, 'Scheduled samples per second');
  const offline = num(get('result_samples_per_second')) ?? fieldNum(s, 'Samples per second');
  const ssQps = num(get('result_qps_with_loadgen_overhead')) ?? fieldNum(s, 'QPS w/ loadgen overhead');
  const tokens =
    num(get('result_completed_tokens_per_second')) ??
    num(get('result_tokens_per_second')) ??
    (scenario === 'SingleStream' ? num(get('result_token_throughput_with_loadgen_overhead')) : null) ??
    fieldNum(s, 'Completed tokens per second') ??
    fieldNum(s, 'Tokens per second');
  const queries = num(get('result_query_count'));
  const spq = num(get('effective_samples_per_query'));
  let samplesPerSecond: number | null = null;
  let qps: number | null = null;
  let metric: RunSummary['metric'] = null;
  if (valid !== null || latency) {
    if (scenario === 'Server') {
      samplesPerSecond = qps = completed;
      if (completed !== null) metric = { name: 'completed samples per second', value: completed, unit: 'samples/s' };
    } else if (scenario === 'Offline') {
      samplesPerSecond = qps = offline;
      if (offline !== null) metric = { name: 'samples per second', value: offline, unit: 'samples/s' };
    } else if (scenario === 'SingleStream' || scenario === 'MultiStream') {
      qps = ssQps;
      samplesPerSecond = ssQps !== null && spq !== null ? ssQps * spq : ssQps;
      const pctl = num(get('effective_target_latency_percentile')) ?? (scenario === 'SingleStream' ? 0.9 : 0.99);
      const src = scenario === 'MultiStream' ? queryLatency : latency;
      const key = Math.abs(pctl - 0.99) < 1e-9 ? 'p99' : Math.abs(pctl - 0.9) < 1e-9 ? 'p90' : null;
      const label = Object.keys(s?.fields ?? {}).find(
        (k) => /th percentile latency \(ns\)$/.test(k) && !/first token/.test(k),
      );
      const value = label ? fieldNum(s, label) : src && key ? src[key] : null;
      if (value !== null) metric = { name: 'latency at target percentile', value, unit: 'ns' };
    }
  }
  const numErrors = num(get('num_errors'));
  const noResults =
    (mode === 'PerformanceOnly' || mode === 'SubmissionRun' || mode === 'FindPeakPerformance') && valid === null;
  return {
    dir,
    origin,
    loadgenVersion: version,
    testDatetime: str(get('test_datetime')),
    sutName: str(get('sut_name')) ?? s?.fields['SUT name'] ?? null,
    scenario,
    mode,
    valid,
    criteria,
    invalidReasons: valid === false ? invalidReasons : [],
    earlyStopping: {
      text: esText('early_stopping_result', s?.earlyStopping.text),
      ttftText: esText('early_stopping_ttft_result', s?.earlyStopping.ttftText),
      tpotText: esText('early_stopping_tpot_result', s?.earlyStopping.tpotText),
    },
    metric,
    qps,
    samplesPerSecond,
    tokensPerSecond: tokens,
    completedSamplesPerSecond: completed,
    scheduledSamplesPerSecond: scheduled,
    latency,
    queryLatency,
    ttft,
    tpot,
    queries,
    samples: queries !== null && spq !== null ? queries * spq : null,
    effective: {
      targetQps: num(get('effective_target_qps')),
      samplesPerQuery: spq,
      minDurationMs: num(get('effective_min_duration_ms')),
      minQueryCount: num(get('effective_min_query_count')),
      targetLatencyNs: num(get('effective_target_latency_ns')),
    },
    errors: Math.max(numErrors ?? 0, s?.errors ?? 0, errorLines),
    warnings: Math.max(s?.warnings ?? 0, warningLines),
    errorMessages,
    // run-state.json (written by `loadgen run`) also knows a run killed on the spot, or one with accuracy samples left undone.
    incomplete: (detail?.truncated ?? false) || noResults || runLeftIncomplete(dir),
    truncated: detail?.truncated ?? false,
    files,
  };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new LogReadError(`${path}: cannot read: ${(err as Error).message}`);
  }
}

function readResultsJson(path: string): ResultsJson {
  let obj: unknown;
  try {
    obj = JSON.parse(readText(path));
  } catch (err) {
    if (err instanceof LogReadError) throw err;
    throw new LogReadError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  const o = obj as Partial<ResultsJson>;
  if (typeof o !== 'object' || o === null || o.schema !== RESULTS_SCHEMA)
    throw new LogReadError(`${path}: not a ${RESULTS_SCHEMA} file`);
  if (o.schemaVersion !== 1)
    throw new LogReadError(`${path}: schemaVersion ${String(o.schemaVersion)} is not supported (this tool reads 1)`);
  return o as ResultsJson;
}

/** The log files of a run directory (prefix mlperf_log_, no suffix: the defaults of both LoadGens). */
export function runFiles(dir: string): RunSummary['files'] {
  const at = (name: string) => (existsSync(join(dir, name)) ? join(dir, name) : null);
  return {
    detail: at('mlperf_log_detail.txt'),
    summary: at('mlperf_log_summary.txt'),
    results: at('results.json'),
    trace: at('mlperf_log_trace.json'),
  };
}

/** Reads a run directory. Throws LogReadError for a missing directory, no logs, or a malformed log. */
export function readRunLogs(dir: string): RunLogs {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch {
    throw new LogReadError(`${dir}: no such directory`);
  }
  if (!st.isDirectory()) throw new LogReadError(`${dir}: not a directory`);
  const files = runFiles(dir);
  if (!files.detail && !files.summary)
    throw new LogReadError(`${dir}: no MLPerf logs (mlperf_log_detail.txt or mlperf_log_summary.txt)`);
  const detail = files.detail ? parseDetailText(readText(files.detail), files.detail) : null;
  if (detail && detail.entries.length === 0 && !files.summary)
    throw new LogReadError(`${files.detail}: no MLLOG lines`);
  const summaryLog = files.summary ? parseSummaryText(readText(files.summary), files.summary) : null;
  const results = files.results ? readResultsJson(files.results) : null;
  return { summary: summarize(dir, detail, summaryLog, files), detail, summaryLog, results };
}
