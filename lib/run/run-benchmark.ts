// runBenchmark: the whole `loadgen run` pipeline as a function, for harness
// authors: settings (official table + user.conf + overrides) → dataset →
// the built-in simulator or the given endpoints → createLlmSut → startTest →
// a complete RunRecord, with the output files written into `outdir`.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { native, packageRoot } from '../core/binding.js';
import { openDataset, type LoadedDataset, type OpenDatasetOptions } from '../dataset/open.js';
import { DATASET_PRESETS, presetKey } from '../dataset/presets.js';
import { syntheticDataset, type SyntheticOptions } from '../dataset/synthetic.js';
import { DatasetError, type Dataset } from '../dataset/types.js';
import { builtinBenchmarks, loadSettings } from '../core/load-settings.js';
import { toJsonText } from '../results/json-text.js';
import { buildResultsJson } from '../results/results-json.js';
import type { RunEndpointInfo, RunRecord, TimelinePoint } from '../results/run-record.js';
import { redactRecord, writeRunOutputs } from '../results/write-outputs.js';
import { redactArgv, redactText, registerSecret, scrubText } from '../core/redact.js';
import { defaultTestSettings, toEngineSettings, type TestMode, type TestScenario, type TestSettings } from '../core/settings.js';
import { startSimulator } from '../sim/server.js';
import type { Simulator, SimulatorOptions } from '../sim/types.js';
import { startTest, TestAbortedError } from '../core/start-test.js';
import { EndpointError, parseEndpointUrl } from '../sut/endpoint-url.js';
import { createLlmSut, type LlmSut } from '../sut/llm-sut.js';
import type { Backend, EndpointConfig, RetryOptions, SamplingParams, SampleTiming, SutReport, TimeoutOptions, WireApiName } from '../sut/types.js';
import type { TestResult } from '../core/result.js';
import { EndpointFailure, UsageError } from '../core/errors.js';
import { openConversations, type ConversationsSpec } from '../multiturn/run-conversations.js';
import { RunExtras, type RunExtrasOptions } from './run-extras.js';
import { checkOutputDir, createOutputDir } from './output-dir.js';
import { checkTokenizer, modeIsScored, scoreRun } from './run-accuracy.js';

/** A dataset file to open (see openDataset), or synthetic prompts. */
export type DatasetSpec = ({ path: string } & OpenDatasetOptions) | { synthetic: Partial<SyntheticOptions> };

export interface RunProgress {
  elapsedMs: number;
  issued: number;
  completed: number;
  /** Issued and not yet completed. */
  inFlight: number;
  /** Samples completed per second over the last few seconds. */
  qps: number;
  /** Output tokens per second over the last few seconds (null until the adapter was asked). */
  tokensPerSecond: number | null;
  /** Samples that failed so far (null until the adapter was asked). */
  errors: number | null;
  /** Requests that failed so far, as they fail (retried ones too; a sample that waits for a retry or a healthy endpoint is not failed yet); null until the adapter was asked. */
  requestErrors?: number | null;
  /** A rough estimate of the time left, or null when it cannot be told. */
  remainingMs: number | null;
}

export type RunStage = 'setup' | 'test' | 'finishing';

export interface RunBenchmarkOptions extends RunExtrasOptions {
  scenario: TestScenario;
  /** Default: PerformanceOnly (or the mode user.conf sets). */
  mode?: TestMode;
  /** MLPerf model key (e.g. 'llama3_1-8b'): its official settings, dataset preset and reference sampling. */
  benchmark?: string;
  /** A mlperf.conf to use instead of the built-in table (needs `benchmark`). */
  mlperfConf?: string;
  /** user.conf applied on top (model `*` entries only when there is no `benchmark`). */
  userConf?: string;
  /** Setting overrides (camelCase fields, API units), applied last. */
  settings?: Partial<TestSettings>;
  /** Server: serverTargetQps; Offline: offlineExpectedQps. */
  targetQps?: number;
  /** Servers to send to; none = the built-in simulator. */
  endpoints?: readonly (string | EndpointConfig)[];
  /** Options of the built-in simulator (used when there are no endpoints). */
  simulator?: SimulatorOptions;
  backend?: Backend | 'auto';
  api?: WireApiName;
  model?: string;
  apiKey?: string;
  /** A Dataset, a file to open, or synthetic prompts; default: a small synthetic dataset. */
  dataset?: Dataset | DatasetSpec;
  /** Multi-turn: a conversation file, replayed (a turn is a sample) or live (a conversation is a sample); excludes `dataset`. */
  conversations?: ConversationsSpec;
  /** Sampling fields sent with every request (over the benchmark's reference values). */
  sampling?: SamplingParams;
  /** Most requests in flight at once over all endpoints. */
  concurrency?: number;
  /** Adapter worker threads (default: CPU count - 1). */
  workers?: number;
  /** Linux PM QoS bound on CPU idle exit latency held during the test, µs (StartTestOptions.cpuIdleLatencyUs). */
  cpuIdleLatencyUs?: number;
  /** Request timeouts of the adapter (LlmSutOptions.timeouts: first byte 300 s, idle 120 s, total 3600 s by default). */
  timeouts?: TimeoutOptions;
  /** Retries of the adapter (LlmSutOptions.retry: 3 per sample, before its first token, by default). */
  retry?: RetryOptions;
  /** The adapter's threads poll instead of sleeping (LlmSutOptions.busyPoll). */
  busyPoll?: boolean | { idleMs?: number };
  /** Where the MLPerf logs and the result files go. */
  outdir: string;
  /** argv to record (secrets removed by the caller). */
  command?: string[] | null;
  /** Ctrl-C ends the test with the logs written (default true). */
  handleSigint?: boolean;
  /** Called about once a second while the test runs. */
  onProgress?: (p: RunProgress) => void;
  /** Notes and warnings (default: stderr). */
  log?: (message: string) => void;
  /** Told when the run moves from setup to the test and on to writing results. */
  onStage?: (stage: RunStage) => void;
  /** tokenizer.json: accuracy and submission runs are scored at the end (accuracy.json, results.json, report.html). */
  tokenizer?: string;
  /** Write results.json (and the other files when the writers are present); default true. */
  writeOutputs?: boolean;
}

/** The built-in simulator's defaults: a small, quick model (4 ms decode steps, 32 batch slots, timers only). */
export const SIMULATOR_DEFAULTS: Readonly<SimulatorOptions> = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  model: 'sim-llm-8b',
  maxRunningSeqs: 32,
  decodeStepNs: 4_000_000,
  prefillNsPerToken: 10_000,
  // The simulator shares the machine with the harness: no CPU spent polling.
  precisePacing: false,
});

/** The default synthetic dataset: 1024 prompts of 128 tokens asking for 32. */
export const SYNTHETIC_DEFAULTS = Object.freeze({ size: 1024, inputLength: 128, outputLength: 32 });

/**
 * Settings the built-in simulator runs with unless the user set them: a 10 s
 * test, and a target rate its 32 slots × 4 ms steps sustain (for Offline,
 * enough samples to outlast the minimum duration).
 */
export const SIMULATED_RUN_DEFAULTS: Readonly<Partial<TestSettings>> = Object.freeze({
  minDurationMs: 10_000,
  serverTargetQps: 50,
  offlineExpectedQps: 250,
});

/**
 * Without --benchmark: token latencies on (this is an LLM harness), with
 * bounds any healthy server meets at p99 (TTFT 1 s, TPOT 100 ms), so the
 * verdict is about the run's length and errors until real bounds are set.
 */
export const GENERIC_LLM_BOUNDS: Readonly<Partial<TestSettings>> = Object.freeze({
  useTokenLatencies: true,
  ttftLatencyNs: 1_000_000_000,
  tpotLatencyNs: 100_000_000,
});

const SEED_FIELDS = ['qslRngSeed', 'sampleIndexRngSeed', 'scheduleRngSeed', 'accuracyLogRngSeed', 'test05QslRngSeed', 'test05SampleIndexRngSeed', 'test05ScheduleRngSeed'] as const;

function stderrLog(message: string): void {
  process.stderr.write(`${redactText(message)}\n`);
}

/** The fields whose values differ between two settings objects. */
function changedFields(a: TestSettings, b: TestSettings): Set<string> {
  const out = new Set<string>();
  for (const k of Object.keys(a) as (keyof TestSettings)[]) if (String(a[k]) !== String(b[k])) out.add(k);
  return out;
}

export interface ComposedSettings {
  settings: TestSettings;
  /** Fields the user chose (user.conf, overrides, target QPS): defaults do not replace them. */
  userFields: Set<string>;
  notes: string[];
}

/**
 * The settings of a run, in layers: the benchmark's official values (or the
 * API defaults with the mlperf.conf seeds and token latencies on), user.conf,
 * the simulator's quick-run defaults where the user chose nothing, the
 * target QPS, then the overrides.
 */
export function composeSettings(o: Pick<RunBenchmarkOptions, 'scenario' | 'mode' | 'benchmark' | 'mlperfConf' | 'userConf' | 'settings' | 'targetQps'>, simulated: boolean): ComposedSettings {
  const notes: string[] = [];
  const scenario = o.scenario;
  if (o.mlperfConf !== undefined && o.benchmark === undefined) throw new UsageError('--mlperf-conf needs --benchmark (the model key whose entries to read)');
  if (o.benchmark !== undefined && o.mlperfConf === undefined && !builtinBenchmarks().includes(o.benchmark)) {
    throw new UsageError(`unknown benchmark '${o.benchmark}'; the built-in table has: ${builtinBenchmarks().join(', ')} (or give --mlperf-conf)`);
  }
  // No benchmark: entries for model '*' only; a name no table uses.
  const model = o.benchmark ?? '*';
  const official = loadSettings({ model, scenario, mlperfConf: o.mlperfConf });
  let settings: TestSettings;
  let userFields = new Set<string>();
  if (o.benchmark !== undefined) {
    settings = o.userConf ? loadSettings({ model, scenario, mlperfConf: o.mlperfConf, userConf: o.userConf }) : official;
    if (o.userConf) userFields = changedFields(settings, official);
  } else {
    // The API defaults with the official seeds (every MLPerf run reads them
    // from mlperf.conf) and the generic LLM bounds.
    settings = { ...defaultTestSettings(), ...GENERIC_LLM_BOUNDS };
    for (const f of SEED_FIELDS) (settings as unknown as Record<string, unknown>)[f] = official[f];
    // MultiStream's p99 early stopping cannot pass below the official 662
    // queries: fewer would only ever give INVALID.
    if (scenario === 'MultiStream') settings.minQueryCount = official.minQueryCount;
    if (o.userConf) {
      const withUser = loadSettings({ model, scenario, userConf: o.userConf });
      userFields = changedFields(withUser, official);
      for (const f of userFields) (settings as unknown as Record<string, unknown>)[f] = (withUser as unknown as Record<string, unknown>)[f];
    }
  }
  for (const k of Object.keys(o.settings ?? {})) userFields.add(k);
  if (o.targetQps !== undefined) {
    if (!(typeof o.targetQps === 'number' && o.targetQps > 0 && Number.isFinite(o.targetQps))) throw new UsageError(`--target-qps must be a number > 0, got ${String(o.targetQps)}`);
    if (scenario === 'Server') settings.serverTargetQps = o.targetQps;
    else if (scenario === 'Offline') settings.offlineExpectedQps = o.targetQps;
    else throw new UsageError(`--target-qps applies to the Server and Offline scenarios, not ${scenario}`);
    userFields.add(scenario === 'Server' ? 'serverTargetQps' : 'offlineExpectedQps');
  }
  if (simulated) {
    const applied: string[] = [];
    for (const [k, v] of Object.entries(SIMULATED_RUN_DEFAULTS)) {
      if (userFields.has(k)) continue;
      if (k === 'serverTargetQps' && scenario !== 'Server') continue;
      if (k === 'offlineExpectedQps' && scenario !== 'Offline') continue;
      (settings as unknown as Record<string, unknown>)[k] = v;
      applied.push(`${k}=${String(v)}`);
    }
    if (applied.length) notes.push(`simulated-run defaults: ${applied.join(', ')} (override with --set or --target-qps)`);
  }
  Object.assign(settings, o.settings ?? {});
  settings.scenario = scenario;
  if (o.mode !== undefined) settings.mode = o.mode;
  if (settings.mode === 'FindPeakPerformance' && scenario !== 'Server') throw new UsageError('find-peak mode needs the Server scenario');
  // Seeds as decimal strings: the settings go into results.json as they are.
  for (const f of SEED_FIELDS) (settings as unknown as Record<string, unknown>)[f] = String(settings[f]);
  // Refuse a bad value now, before a simulator or a server is touched.
  toEngineSettings(settings);
  return { settings, userFields, notes };
}

function isDataset(d: unknown): d is Dataset {
  return !!d && typeof (d as Dataset).prompt === 'function';
}

async function buildDataset(o: RunBenchmarkOptions, log: (m: string) => void): Promise<{ dataset: Dataset; path: string | null; preset: string | null }> {
  const d = o.dataset;
  if (isDataset(d)) {
    // An opened file keeps its path and preset in the record.
    const opened = d as Partial<LoadedDataset>;
    return { dataset: d, path: typeof opened.path === 'string' ? resolve(opened.path) : null, preset: opened.preset?.name ?? null };
  }
  if (d === undefined || 'synthetic' in d) {
    const spec = { ...SYNTHETIC_DEFAULTS, ...(d && 'synthetic' in d ? d.synthetic : {}) };
    const ds = syntheticDataset({ name: 'synthetic', ...spec });
    const len = (l: unknown) => (typeof l === 'number' ? String(l) : JSON.stringify(l));
    if (d === undefined) log(`dataset: synthetic, ${ds.size} prompts of ${len(spec.inputLength)} tokens, up to ${len(spec.outputLength)} output tokens (give --dataset for real prompts)`);
    return { dataset: ds, path: null, preset: null };
  }
  const { path, ...rest } = d;
  // The benchmark's dataset preset applies to its file unless another preset is named.
  const preset = rest.preset ?? (o.benchmark && DATASET_PRESETS[presetKey(o.benchmark)] ? presetKey(o.benchmark) : undefined);
  const ds = await openDataset(path, { ...rest, ...(preset ? { preset } : {}) });
  for (const n of ds.notes) log(`dataset: ${n}`);
  const cols = Object.entries(ds.columns).map(([role, col]) => `${role}=${col}`).join(', ');
  log(`dataset: ${path}: ${ds.size} samples (${ds.format}; ${cols || 'template'})`);
  return { dataset: ds, path: resolve(path), preset: preset ?? null };
}

/** Splits a total in-flight cap over the endpoints (each gets at least 1). */
export function splitConcurrency(endpoints: readonly (string | EndpointConfig)[], concurrency: number | undefined): (string | EndpointConfig)[] {
  if (concurrency === undefined) return [...endpoints];
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be an integer >= 1, got ${String(concurrency)}`);
  if (concurrency < endpoints.length) throw new UsageError(`--concurrency ${concurrency} is less than the number of endpoints (${endpoints.length}): each needs at least 1`);
  const k = endpoints.length;
  return endpoints.map((e, i) => {
    const c: EndpointConfig = typeof e === 'string' ? { url: e } : { ...e };
    const share = Math.floor(concurrency / k) + (i < concurrency % k ? 1 : 0);
    c.maxInFlight = c.maxInFlight !== undefined ? Math.min(c.maxInFlight, share) : share;
    return c;
  });
}

function checkEndpoints(endpoints: readonly (string | EndpointConfig)[]): void {
  for (const e of endpoints) {
    const url = typeof e === 'string' ? e : e?.url;
    try {
      parseEndpointUrl(String(url));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
}

/**
 * Accuracy passes and aborted tests end without a results block, so the
 * summary's counts are 0: take the samples the engine completed (its
 * progress holds the finished test's totals until the next test starts) and
 * the output tokens the adapter counted (plus those of samples restored from
 * the journal).
 */
export function countUnsummarized(result: TestResult, report: SutReport | null, restoredTokens = 0): void {
  if (result.metric !== null) return;
  const p = native.progress();
  const samples = p.completedSamples;
  const spq = result.scenario === 'MultiStream' ? Math.max(1, result.effective.samplesPerQuery) : 1;
  // With --resume, the samples completed from the journal count too.
  const tokens = (report ? report.endpoints.reduce((a, e) => a + e.outputTokens, 0) : 0) + restoredTokens;
  // Offline issues everything as one query.
  const queries = result.scenario === 'Offline' ? (p.issuedSamples > 0 ? 1 : 0) : Math.floor(samples / spq);
  result.counts = { ...result.counts, samples, queries, tokens: Math.max(result.counts.tokens, tokens) };
}

/** The adapter's timeouts and retries, refused before anything starts (createLlmSut would only see them after the simulator is up). */
function checkRequestLimits(o: Pick<RunBenchmarkOptions, 'timeouts' | 'retry'>): void {
  for (const [k, flag] of [['firstByteMs', '--timeout-first-byte'], ['idleMs', '--timeout-idle'], ['totalMs', '--timeout-total'], ['connectMs', 'timeouts.connectMs']] as const) {
    const v = o.timeouts?.[k];
    if (v !== undefined && !(typeof v === 'number' && v > 0 && v <= 2 ** 31 - 1)) throw new UsageError(`${flag} (timeouts.${k}) must be a number of milliseconds > 0, got ${String(v)}`);
  }
  const n = o.retry?.maxRetries;
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) throw new UsageError(`--retries (retry.maxRetries) must be an integer >= 0, got ${String(n)}`);
}

/** Adds output tokens and failures to the timeline from the per-sample timings (exact, after the run). */
export function fillTimeline(points: TimelinePoint[], startNs: number | null, timings: readonly SampleTiming[] | undefined): void {
  if (startNs === null || !timings || timings.length === 0) return;
  const ends = timings.filter((t) => Number.isFinite(t.endNs)).sort((a, b) => a.endNs - b.endNs);
  let i = 0;
  let tokens = 0;
  let errors = 0;
  for (const p of points) {
    const until = startNs + p.tMs * 1e6;
    while (i < ends.length && ends[i].endNs <= until) {
      if (ends[i].ok) tokens += ends[i].tokens;
      else errors++;
      i++;
    }
    p.outputTokens = tokens;
    p.errors = errors;
  }
}

/** Estimated time left, from the settings and the progress so far; null when it cannot be told. */
export function estimateRemainingMs(s: TestSettings, datasetSize: number, p: { elapsedMs: number; issued: number; completed: number; qps: number }): number | null {
  const left = Math.max(0, s.minDurationMs - p.elapsedMs);
  if (s.mode === 'AccuracyOnly') {
    const total = s.accuracySampleCountOverride || datasetSize;
    return p.qps > 0 ? Math.max(0, ((total - p.completed) / p.qps) * 1000) : null;
  }
  if (s.mode !== 'PerformanceOnly') return null;
  switch (s.scenario) {
    case 'Server': {
      const count = Math.max(s.minQueryCount, (s.serverTargetQps * s.minDurationMs) / 1000);
      return Math.max(left, ((count - p.issued) / s.serverTargetQps) * 1000);
    }
    case 'Offline':
      return p.qps > 0 ? ((p.issued - p.completed) / p.qps) * 1000 : null;
    default:
      return left;
  }
}

/** results.json as text when the files were not written (it is what writeRunOutputs writes). */
export function recordToJson(record: RunRecord): string {
  return scrubText(toJsonText(buildResultsJson(redactRecord(record))));
}

/** Writes results.json, result_summary.json and report.html into record.outdir; returns their paths. */
export async function writeRunFiles(record: RunRecord): Promise<string[]> {
  return (await writeRunOutputs(record)).files;
}

/** The version in @x/loadgen's package.json. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Samples the running test once a tick: the engine's counters (cheap) for
 * the timeline and the progress line, and the adapter's figures (tokens,
 * failures) less often, so that asking for them costs ~1% of the main thread.
 */
class ProgressSampler {
  readonly timeline: TimelinePoint[] = [];
  /** The test's start on the engine's clock (ns), once known. */
  startNs: number | null = null;
  private last: { atMs: number; tokens: number; errors: number; requestErrors: number; completed: number } | null = null;
  private prev: { atMs: number; tokens: number } | null = null;
  private reportEveryMs = 2000;
  private nextReportAt = 0;
  private busy = false;
  private readonly window: { t: number; completed: number }[] = [];
  private callbackFailed = false;

  constructor(
    private readonly llm: LlmSut,
    private readonly settings: TestSettings,
    private readonly datasetSize: number,
    private readonly onProgress: ((p: RunProgress) => void) | undefined,
    private readonly log: (m: string) => void,
    private readonly live: Int32Array | null = null,
  ) {
    if (live !== null) this.reportEveryMs = 1000;
  }

  private askAdapter(atMs: number): void {
    if (this.live !== null) {
      // The adapter's shared counters: no report (which copies every per-sample array) mid-run.
      this.prev = this.last;
      this.last = { atMs, tokens: this.live[0], errors: this.live[2], requestErrors: this.live.length > 3 ? this.live[3] : this.live[2], completed: this.live[1] };
      return;
    }
    if (this.busy) return;
    this.busy = true;
    const t0 = performance.now();
    this.llm
      .report()
      .then((r) => {
        this.reportEveryMs = Math.max(2000, (performance.now() - t0) * 100);
        this.prev = this.last;
        const tokens = r.endpoints.reduce((a, e) => a + e.outputTokens, 0);
        const requestErrors = r.endpoints.reduce((a, e) => a + e.errors, 0);
        this.last = { atMs, tokens, errors: r.samples.failed, requestErrors: Math.max(requestErrors, r.samples.failed), completed: r.samples.completed - r.samples.failed };
      })
      .catch(() => undefined)
      .finally(() => {
        this.busy = false;
      });
  }

  tick(): void {
    const p = native.progress();
    if (!p.running) return;
    const elapsedMs = p.elapsedNs / 1e6;
    this.startNs ??= native.nowNs() - p.elapsedNs;
    const inFlight = p.issuedSamples - p.completedSamples;
    this.timeline.push({ tMs: Math.round(elapsedMs), issuedSamples: p.issuedSamples, completedSamples: p.completedSamples, inFlight, outputTokens: this.last?.tokens ?? 0, errors: this.last?.errors ?? 0 });
    // The sample rate over the last ~5 ticks.
    this.window.push({ t: elapsedMs, completed: p.completedSamples });
    if (this.window.length > 6) this.window.shift();
    const w0 = this.window[0];
    const qps = this.window.length > 1 && elapsedMs > w0.t ? ((p.completedSamples - w0.completed) * 1000) / (elapsedMs - w0.t) : 0;
    // Ticks come about 1 s apart: a little slack keeps a 2 s period from becoming 3 s.
    if (elapsedMs + 100 >= this.nextReportAt) {
      this.nextReportAt = elapsedMs + this.reportEveryMs;
      this.askAdapter(elapsedMs);
    }
    // Between two adapter reports: their token rate; after the first: the
    // current sample rate times the tokens per completed sample so far.
    const { last, prev } = this;
    let tps: number | null = null;
    if (last && prev && last.atMs > prev.atMs) tps = ((last.tokens - prev.tokens) * 1000) / (last.atMs - prev.atMs);
    else if (last && last.completed > 0) tps = qps * (last.tokens / last.completed);
    if (!this.onProgress || this.callbackFailed) return;
    try {
      this.onProgress({
        elapsedMs,
        issued: p.issuedSamples,
        completed: p.completedSamples,
        inFlight,
        qps,
        tokensPerSecond: tps,
        errors: last ? last.errors : null,
        requestErrors: last ? last.requestErrors : null,
        remainingMs: estimateRemainingMs(this.settings, this.datasetSize, { elapsedMs, issued: p.issuedSamples, completed: p.completedSamples, qps }),
      });
    } catch (err) {
      // A failing progress callback must not end the run.
      this.callbackFailed = true;
      this.log(`warning: the progress callback threw (${(err as Error).message}); no more progress reports`);
    }
  }
}

/** Runs one benchmark end to end and returns its record (aborted runs too: see record.result.aborted). */
export async function runBenchmark(options: RunBenchmarkOptions): Promise<RunRecord> {
  if (!options || typeof options !== 'object') throw new UsageError('runBenchmark: options must be an object');
  const given = options.log ?? stderrLog;
  // Every message through the redaction rule (lib/core/redact.ts), whoever prints it.
  const log = (m: string): void => given(redactText(m));
  registerSecret(options.apiKey);
  const stage = options.onStage ?? (() => undefined);
  if (!['SingleStream', 'MultiStream', 'Server', 'Offline'].includes(options.scenario)) {
    throw new UsageError(`scenario must be SingleStream, MultiStream, Server or Offline, got ${String(options.scenario)}`);
  }
  if (typeof options.outdir !== 'string' || options.outdir === '') throw new UsageError('an output directory is required');
  const endpointsIn = options.endpoints ?? [];
  const simulated = endpointsIn.length === 0;
  checkEndpoints(endpointsIn);
  if (options.workers !== undefined && !(Number.isSafeInteger(options.workers) && options.workers >= 0)) {
    throw new UsageError(`--workers must be an integer >= 0, got ${String(options.workers)}`);
  }
  if (options.api === 'generate' && (options.backend === 'vllm' || options.backend === 'openai')) {
    throw new UsageError(`the generate API is SGLang's native route; backend ${options.backend} does not have it (use --api completions or chat)`);
  }
  checkRequestLimits(options);
  const composed = composeSettings(options, simulated);
  const settings = composed.settings;
  // Checked now, created once every other input is checked: a usage error leaves nothing behind.
  const outdir = checkOutputDir(options.outdir);
  if (options.tokenizer !== undefined) await checkTokenizer(options.tokenizer);
  // Conversations: replay gives the dataset (chat API), live a SUT of its own (lib/multiturn/run-conversations.ts).
  const conversations = options.conversations ? await openConversations(options, settings, composed.userFields, log) : null;
  if (conversations) options = conversations.options;
  const { dataset, path: datasetPath, preset } = await buildDataset(options, log);
  // Journal, resume, budget and pricing checks: refusals come before any server is touched.
  const extras = RunExtras.prepare(options, settings, outdir, dataset, simulated ? 1 : endpointsIn.length, log);
  if (settings.performanceSampleCountOverride > dataset.size) {
    log(`note: the benchmark's performance sample count is ${settings.performanceSampleCountOverride}; the dataset has ${dataset.size} samples, so the run uses ${dataset.size}`);
  }
  createOutputDir(outdir);

  let sim: Simulator | null = null;
  let llm: LlmSut | null = null;
  try {
    let endpoints: (string | EndpointConfig)[] = [...endpointsIn];
    if (simulated) {
      const flavor = options.simulator?.flavor ?? (options.backend === 'sglang' || options.api === 'generate' ? 'sglang' : 'vllm');
      try {
        sim = await startSimulator({ ...SIMULATOR_DEFAULTS, flavor, ...(options.simulator ?? {}) });
      } catch (err) {
        throw new UsageError(`simulator: ${(err as Error).message}`);
      }
      log(`simulated run: no --endpoint given, so a built-in ${flavor} simulator serves '${options.simulator?.model ?? SIMULATOR_DEFAULTS.model}' at ${sim.url}`);
      endpoints = [sim.url];
    }
    for (const n of composed.notes) log(n);
    if (!simulated && settings.scenario === 'Server' && !composed.userFields.has('serverTargetQps') && settings.serverTargetQps === 1) {
      log('note: Server at the default target of 1 QPS: set --target-qps');
    }
    const benchmarkPreset = options.benchmark && DATASET_PRESETS[presetKey(options.benchmark)] ? options.benchmark : undefined;
    if (options.benchmark && !benchmarkPreset) log(`note: no reference sampling values are known for ${options.benchmark}; the adapter's defaults apply`);
    if (conversations?.mode === 'live' && (options.timeouts || options.retry)) log('note: --timeout-* and --retries apply to the request adapter; live multi-turn conversations keep their own 300 s per-request timeout');
    if (conversations?.mode === 'live' && options.busyPoll) log('note: --busy-poll applies to the adapter\'s worker threads; live multi-turn conversations run on the main thread and sleep between events');
    try {
      llm = conversations?.mode === 'live' ? await conversations.liveSut(splitConcurrency(endpoints, options.concurrency), log) : await createLlmSut({
        endpoints: splitConcurrency(endpoints, options.concurrency),
        dataset,
        backend: options.backend ?? 'auto',
        api: options.api,
        model: options.model,
        benchmark: benchmarkPreset,
        sampling: options.sampling,
        workers: options.workers,
        busyPoll: options.busyPoll,
        timeouts: options.timeouts,
        retry: options.retry,
        apiKey: options.apiKey,
        recordTimings: true,
        journal: extras.journalTarget,
        counters: extras.counters,
        onWarning: (m) => log(`warning: ${m}`),
      });
    } catch (err) {
      if (err instanceof EndpointError) throw new EndpointFailure(err.message);
      if (err instanceof DatasetError) throw new UsageError(err.message);
      throw err;
    }
    const probes = llm.probes;
    const endpointInfo: RunEndpointInfo[] = probes.map((p) => ({ url: p.url, backend: llm!.backend, api: llm!.api, model: llm!.model, serverVersion: p.version }));
    log(`sut: ${llm.backend} ${llm.api} API, model '${llm.model}', ${probes.length} endpoint${probes.length > 1 ? 's' : ''} (${probes.filter((p) => p.healthy).length} healthy), token ids from ${llm.capabilities.tokenSource}`);

    const engineSide = await extras.begin(llm, endpoints.map((e) => (typeof e === 'string' ? e : e.url)), benchmarkPreset, options.sampling, options.command ? redactArgv(options.command) : null);
    const sampler = new ProgressSampler(llm, settings, dataset.size, options.onProgress, log, extras.counters ? new Int32Array(extras.counters) : null);
    const startedAt = new Date().toISOString();
    stage('test');
    const timer = setInterval(() => sampler.tick(), 1000);
    let result: TestResult;
    try {
      extras.testStarted();
      result = await startTest(engineSide.sut, engineSide.qsl, settings, { outdir }, { handleSigint: options.handleSigint !== false, cpuIdleLatencyUs: options.cpuIdleLatencyUs });
    } catch (err) {
      if (err instanceof TestAbortedError) result = err.result;
      // A prompt the API cannot take (found while building request bodies) is the user's input.
      else if (err instanceof DatasetError) throw new UsageError(err.message);
      else if (err && typeof err === 'object' && 'result' in err && (err as { result?: TestResult }).result) {
        // A callback threw: the logs are written; report it with the record.
        log(`error: ${String((err as { message?: unknown }).message)}`);
        result = (err as { result: TestResult }).result;
      } else throw err;
    } finally {
      clearInterval(timer);
      extras.testEnded();
    }
    stage('finishing');
    const endedAt = new Date().toISOString();
    // After an abort, requests may still be generating: do not wait for them (close() ends them).
    if (!result.aborted) await llm.idle().catch(() => undefined);
    let report: SutReport | null = null;
    try {
      report = await llm.report();
    } catch (err) {
      log(`warning: the adapter report could not be read: ${(err as Error).message}`);
    }
    fillTimeline(sampler.timeline, sampler.startNs, report?.timings);
    countUnsummarized(result, report, extras.journal?.restoredTokens ?? 0);

    const record: RunRecord = {
      tool: { name: '@x/loadgen', version: packageVersion(), engineVersion: native.engineVersion },
      startedAt,
      endedAt,
      command: options.command ? redactArgv(options.command) : null,
      benchmark: options.benchmark ?? null,
      settings: { ...settings } as unknown as Record<string, unknown>,
      dataset: { name: dataset.name, path: datasetPath, size: dataset.size, preset },
      endpoints: endpointInfo,
      simulated,
      result,
      sut: report,
      timeline: sampler.timeline,
      outdir,
    };
    Object.assign(record, await extras.finish(llm, record));
    if (conversations) record.multiturn = conversations.report(llm, report);
    if (options.tokenizer !== undefined) {
      if (modeIsScored(result.mode)) record.accuracy = await scoreRun(result, dataset, outdir, { tokenizer: options.tokenizer }, options.benchmark ?? null, log);
      else log('note: --tokenizer scores accuracy and submission runs; this performance run has no outputs to score');
    }
    if (options.writeOutputs !== false) await writeRunFiles(record);
    return record;
  } finally {
    await llm?.close().catch(() => undefined);
    await sim?.close().catch(() => undefined);
  }
}
