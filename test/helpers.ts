// Shared test helpers: null SUTs in several completion styles, a null QSL,
// temp directories, and readers for the four log files.
//
// Nothing here asserts: the *.test.ts files do.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  firstTokenComplete,
  querySamplesComplete,
  startTest,
  type LogSettings,
  type QuerySample,
  type QuerySampleLibrary,
  type StartTestOptions,
  type SystemUnderTest,
  type TestResult,
  type TestSettings,
} from '../lib/index.js';

// ---------------------------------------------------------------------------
// Paths and constants

export const TEST_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(TEST_DIR, '..');
export const FIXTURES_DIR = join(TEST_DIR, 'fixtures');
export const DIST_INDEX = join(REPO_ROOT, 'dist', 'index.js');

/** Logs of the official LoadGen 6.0.17 (read at test time, never copied). */
export const OFFICIAL_LOGS_DIR =
  process.env.LOADGEN_OFFICIAL_LOGS ?? resolve(REPO_ROOT, '..', 'shared', 'official-logs');
export const HAVE_OFFICIAL_LOGS = existsSync(OFFICIAL_LOGS_DIR);
export function officialDir(name: string): string {
  return join(OFFICIAL_LOGS_DIR, name);
}

/** The seeds of the official mlperf.conf. */
export const MLPERF_SEEDS = {
  qslRngSeed: 2085463073848966840n,
  sampleIndexRngSeed: 2747215439041700203n,
  scheduleRngSeed: 16159082839903944936n,
} as const;

// ---------------------------------------------------------------------------
// Temp directories

const tempDirs: string[] = [];

/** A fresh, empty directory under the OS temp dir. */
export function makeTempDir(prefix = 'lg-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by makeTempDir (kept when LOADGEN_KEEP_LOGS is set). */
export function cleanupTempDirs(): void {
  if (process.env.LOADGEN_KEEP_LOGS) return;
  while (tempDirs.length > 0) {
    const d = tempDirs.pop()!;
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
}

// ---------------------------------------------------------------------------
// Null QSL

export interface NullQsl extends QuerySampleLibrary {
  loads: number[][];
  unloads: number[][];
}

export function nullQsl(totalSampleCount = 1024, performanceSampleCount = totalSampleCount, name = 'NullQSL'): NullQsl {
  const qsl: NullQsl = {
    name,
    totalSampleCount,
    performanceSampleCount,
    loads: [],
    unloads: [],
    loadSamplesToRam(indices: number[]) {
      qsl.loads.push(indices.slice());
    },
    unloadSamplesFromRam(indices: number[]) {
      qsl.unloads.push(indices.slice());
    },
  };
  return qsl;
}

// ---------------------------------------------------------------------------
// Null SUTs. Each records what it was given: `issued` (every sample, in issue
// order) and `queries` (one entry per issueQuery call).

export interface RecordingSut extends SystemUnderTest {
  issued: QuerySample[];
  queries: QuerySample[][];
  flushes: number;
}

function recording(
  name: string,
  onIssue: (samples: QuerySample[], sut: RecordingSut) => void,
  onFlush?: () => void,
): RecordingSut {
  const sut: RecordingSut = {
    name,
    issued: [],
    queries: [],
    flushes: 0,
    issueQuery(samples: QuerySample[]) {
      sut.queries.push(samples);
      for (const s of samples) sut.issued.push(s);
      onIssue(samples, sut);
    },
    flushQueries() {
      sut.flushes++;
      onFlush?.();
    },
  };
  return sut;
}

/** Completes every sample inside issueQuery. */
export function inlineSut(name = 'NullSUT'): RecordingSut {
  return recording(name, (samples) => querySamplesComplete(samples.map((s) => ({ id: s.id }))));
}

/** Completes each query after setTimeout(ms) (kind 'timeout') or setImmediate (kind 'immediate'). */
export function delayedSut(kind: 'timeout' | 'immediate', ms = 1, name = 'DelayedSUT'): RecordingSut {
  return recording(name, (samples) => {
    const done = () => querySamplesComplete(samples.map((s) => ({ id: s.id })));
    if (kind === 'timeout') setTimeout(done, ms);
    else setImmediate(done);
  });
}

/**
 * Collects the samples of one event-loop turn, then completes them in reverse
 * order of issue, one completion call per sample.
 */
export function reverseSut(name = 'ReverseSUT'): RecordingSut & { completionOrder: number[] } {
  let pending: QuerySample[] = [];
  let scheduled = false;
  const completionOrder: number[] = [];
  const drain = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    for (let i = batch.length - 1; i >= 0; i--) {
      completionOrder.push(batch[i].id);
      querySamplesComplete([{ id: batch[i].id }]);
    }
  };
  const sut = recording(name, (samples) => {
    for (const s of samples) pending.push(s);
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  }) as RecordingSut & { completionOrder: number[] };
  sut.completionOrder = completionOrder;
  return sut;
}

/** The response bytes the official null SUT logs: the QSL index as int32 LE, then an int32 0. */
export function tokenData(index: number): Int32Array {
  return Int32Array.of(index, 0);
}

export interface TokenSutOptions {
  name?: string;
  /** Tokens reported per sample; `undefined` leaves nTokens out of the response. Default 100. */
  nTokens?: number | undefined;
  /** Report the first token before completing (default true). */
  firstToken?: boolean;
  /** Complete inline (default) or after setImmediate. */
  timing?: 'inline' | 'immediate';
}

/**
 * LLM-style SUT: firstTokenComplete, then querySamplesComplete with nTokens
 * and the response bytes (int32 LE token ids) for the accuracy log.
 */
export function tokenSut(options: TokenSutOptions = {}): RecordingSut {
  const nTokens = 'nTokens' in options ? options.nTokens : 100;
  const firstToken = options.firstToken ?? true;
  const answer = (samples: QuerySample[]) => {
    if (firstToken) firstTokenComplete(samples.map((s) => ({ id: s.id, data: tokenData(s.index) })));
    querySamplesComplete(
      samples.map((s) =>
        nTokens === undefined
          ? { id: s.id, data: tokenData(s.index) }
          : { id: s.id, nTokens, data: tokenData(s.index) },
      ),
    );
  };
  return recording(options.name ?? 'NullSUT', (samples) => {
    if (options.timing === 'immediate') setImmediate(() => answer(samples));
    else answer(samples);
  });
}

// ---------------------------------------------------------------------------
// Running a test

export interface Run {
  result: TestResult;
  outdir: string;
}

/** startTest into a fresh temp outdir, with audit.config disabled unless options say otherwise. */
export async function runTest(
  sut: Parameters<typeof startTest>[0],
  qsl: QuerySampleLibrary,
  settings: Partial<TestSettings>,
  logSettings: Partial<LogSettings> = {},
  options: StartTestOptions = {},
): Promise<Run> {
  const outdir = logSettings.outdir ?? makeTempDir();
  const result = await startTest(sut, qsl, settings, { ...logSettings, outdir }, { auditConfig: null, ...options });
  return { result, outdir };
}

export function logPaths(outdir: string, prefix = 'mlperf_log_', suffix = '') {
  return {
    summary: join(outdir, `${prefix}summary${suffix}.txt`),
    detail: join(outdir, `${prefix}detail${suffix}.txt`),
    accuracy: join(outdir, `${prefix}accuracy${suffix}.json`),
    trace: join(outdir, `${prefix}trace${suffix}.json`),
  };
}

// ---------------------------------------------------------------------------
// Log readers

/** mlperf_log_summary.txt as lines (without the empty string after the final newline). */
export function readSummary(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The "label" of a summary line: the text before the first ':' (whitespace
 * kept, it is part of the format). Lines without a colon are their own label,
 * with digit runs replaced by '#' (" * Would discard 77 highest ..."). The
 * warning/error tail lines are normalised to <warnings>/<errors>.
 */
export function summaryLabel(line: string): string {
  if (/^(No warnings encountered|\d+ warnings? encountered)/.test(line)) return '<warnings>';
  if (/^(No errors encountered|\d+ (ERROR|ERRORS) encountered)/.test(line)) return '<errors>';
  const i = line.indexOf(':');
  if (i >= 0) return line.slice(0, i);
  return line.replace(/\d+/g, '#');
}

export interface MlLogMetadata {
  is_error: boolean;
  is_warning: boolean;
  file: string;
  line_no: number;
  pid: number;
  tid: number;
}

export interface DetailEntry {
  key: string;
  value: unknown;
  time_ms: number;
  namespace: string;
  event_type: string;
  metadata: MlLogMetadata;
  /** The value exactly as written (64-bit seeds lose precision in JSON.parse). */
  valueText: string;
  /** The whole line. */
  raw: string;
}

export const MLLOG_PREFIX = ':::MLLOG ';

/** Parses one detail-log line; throws if it is not ':::MLLOG ' + JSON. */
export function parseDetailLine(line: string): DetailEntry {
  if (!line.startsWith(MLLOG_PREFIX)) throw new Error(`not an MLLOG line: ${line.slice(0, 80)}`);
  const json = line.slice(MLLOG_PREFIX.length);
  const obj = JSON.parse(json) as Omit<DetailEntry, 'valueText' | 'raw'>;
  const start = json.indexOf('"value": ');
  const end = json.lastIndexOf(', "time_ms": ');
  const valueText = start >= 0 && end > start ? json.slice(start + '"value": '.length, end) : JSON.stringify(obj.value);
  return { ...obj, valueText, raw: line };
}

/** mlperf_log_detail.txt as entries; every non-empty line must parse. */
export function readDetail(path: string): DetailEntry[] {
  const text = readFileSync(path, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map(parseDetailLine);
}

export function detailValue(entries: DetailEntry[], key: string): unknown {
  const e = entries.find((x) => x.key === key);
  return e?.value;
}

export function detailValues(entries: DetailEntry[], key: string): unknown[] {
  return entries.filter((x) => x.key === key).map((x) => x.value);
}

export function detailErrors(entries: DetailEntry[]): DetailEntry[] {
  return entries.filter((e) => e.metadata.is_error);
}

export function detailWarnings(entries: DetailEntry[]): DetailEntry[] {
  return entries.filter((e) => e.metadata.is_warning);
}

export interface AccuracyEntry {
  seq_id: number;
  qsl_idx: number;
  data: string;
  token_data?: string;
  token_count?: number;
}

/** mlperf_log_accuracy.json (a JSON array). */
export function readAccuracy(path: string): AccuracyEntry[] {
  return JSON.parse(readFileSync(path, 'utf8')) as AccuracyEntry[];
}

export interface TraceEvent {
  name: string;
  ph?: string;
  id?: number;
  ts?: number;
  args?: Record<string, number>;
}

export function readTrace(path: string): { traceEvents: TraceEvent[] } {
  return JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: TraceEvent[] };
}

/**
 * Tolerant reader for trace files that are not valid JSON as a whole (the
 * official LoadGen writes `"key":""name""` in its LogDetail events): one
 * event per line, lines that do not parse are skipped.
 */
export function readTraceLines(path: string): { traceEvents: TraceEvent[] } {
  const events: TraceEvent[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim().replace(/,$/, '');
    if (!t.startsWith('{"name"')) continue;
    try {
      events.push(JSON.parse(t) as TraceEvent);
    } catch {
      // not one event per line, or not valid JSON: skipped
    }
  }
  return { traceEvents: events };
}

/** sample_idx of the trace's "Sample" begin events, ordered by sample_seq. */
export function traceSampleIndices(trace: { traceEvents: TraceEvent[] }): number[] {
  return trace.traceEvents
    .filter((e) => e.name === 'Sample' && e.ph === 'b' && e.args)
    .sort((a, b) => a.args!.sample_seq - b.args!.sample_seq)
    .map((e) => e.args!.sample_idx);
}

// ---------------------------------------------------------------------------
// Official settings from a detail log

const CAMEL_OF_REQUESTED: Record<string, keyof TestSettings> = {
  scenario: 'scenario',
  test_mode: 'mode',
  single_stream_expected_latency_ns: 'singleStreamExpectedLatencyNs',
  single_stream_target_latency_percentile: 'singleStreamTargetLatencyPercentile',
  multi_stream_expected_latency_ns: 'multiStreamExpectedLatencyNs',
  multi_stream_target_latency_percentile: 'multiStreamTargetLatencyPercentile',
  multi_stream_samples_per_query: 'multiStreamSamplesPerQuery',
  server_target_qps: 'serverTargetQps',
  server_target_latency_ns: 'serverTargetLatencyNs',
  server_target_latency_percentile: 'serverTargetLatencyPercentile',
  server_coalesce_queries: 'serverCoalesceQueries',
  server_find_peak_qps_decimals_of_precision: 'serverFindPeakQpsDecimalsOfPrecision',
  server_find_peak_qps_boundary_step_size: 'serverFindPeakQpsBoundaryStepSize',
  server_max_async_queries: 'serverMaxAsyncQueries',
  server_num_issue_query_threads: 'serverNumIssueQueryThreads',
  offline_expected_qps: 'offlineExpectedQps',
  min_duration_ms: 'minDurationMs',
  max_duration_ms: 'maxDurationMs',
  min_query_count: 'minQueryCount',
  max_query_count: 'maxQueryCount',
  qsl_rng_seed: 'qslRngSeed',
  sample_index_rng_seed: 'sampleIndexRngSeed',
  schedule_rng_seed: 'scheduleRngSeed',
  accuracy_log_rng_seed: 'accuracyLogRngSeed',
  accuracy_log_probability: 'accuracyLogProbability',
  accuracy_log_sampling_target: 'accuracyLogSamplingTarget',
  print_timestamps: 'printTimestamps',
  performance_issue_unique: 'performanceIssueUnique',
  performance_issue_same: 'performanceIssueSame',
  performance_issue_same_index: 'performanceIssueSameIndex',
  performance_sample_count_override: 'performanceSampleCountOverride',
  accuracy_sample_count_override: 'accuracySampleCountOverride',
  sample_concatenate_permutation: 'sampleConcatenatePermutation',
  use_token_latencies: 'useTokenLatencies',
  server_ttft_latency: 'ttftLatencyNs',
  server_tpot_latency: 'tpotLatencyNs',
};

const SEED_FIELDS = new Set(['qslRngSeed', 'sampleIndexRngSeed', 'scheduleRngSeed', 'accuracyLogRngSeed']);

/** The TestSettings a detail log's requested_* lines describe (seeds as bigint, exact). */
export function settingsFromRequested(entries: DetailEntry[]): Partial<TestSettings> {
  const out: Record<string, unknown> = {};
  for (const e of entries) {
    if (!e.key.startsWith('requested_')) continue;
    const name = e.key.slice('requested_'.length);
    const camel = CAMEL_OF_REQUESTED[name];
    if (!camel) throw new Error(`settingsFromRequested: no mapping for ${e.key}`);
    out[camel] = SEED_FIELDS.has(camel) ? BigInt(e.valueText) : e.value;
  }
  return out as Partial<TestSettings>;
}

/** Keys of the detail log that start with one of the prefixes, in order. */
export function keysWithPrefix(entries: DetailEntry[], prefixes: string[]): string[] {
  return entries.map((e) => e.key).filter((k) => prefixes.some((p) => k.startsWith(p)));
}

/** Counts of each value in a list. */
export function countBy<T>(items: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}
