// What runBenchmark is given: its options, the defaults of a simulated run,
// and the settings composed from them in layers (official table, user.conf,
// the simulator's quick-run defaults, the target QPS, the overrides).
import { UsageError } from '../core/errors.js';
import { builtinBenchmarks, loadSettings } from '../core/load-settings.js';
import {
  defaultTestSettings,
  toEngineSettings,
  type TestMode,
  type TestScenario,
  type TestSettings,
} from '../core/settings.js';
import type { OpenDatasetOptions } from '../dataset/open.js';
import type { SyntheticOptions } from '../dataset/synthetic.js';
import type { Dataset } from '../dataset/types.js';
import type { ConversationsSpec } from '../multiturn/run-conversations.js';
import type { SimulatorOptions } from '../sim/types.js';
import type {
  Backend,
  EndpointConfig,
  RetryOptions,
  SamplingParams,
  TimeoutOptions,
  WireApiName,
} from '../sut/types.js';
import type { RunExtrasOptions } from './run-extras.js';
import type { TraceSpec } from './run-trace.js';

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
  /** Trace replay (Server, performance mode; not an MLPerf scenario): the trace is the dataset and the schedule; excludes `dataset`. */
  trace?: TraceSpec;
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
  /** The adapter's threads poll instead of sleeping (LlmSutOptions.busyPoll). */
  /** Request timeouts of the adapter (LlmSutOptions.timeouts: first byte 300 s, idle 120 s, total 3600 s by default). */
  timeouts?: TimeoutOptions;
  /** Retries of the adapter (LlmSutOptions.retry: 3 per sample, before its first token, by default). */
  retry?: RetryOptions;
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
  /**
   * With `benchmark`: a performance run whose settings MLPerf's submission
   * checker v6.1 would reject (lib/submission/preflight.ts) is refused with a
   * UsageError before anything runs; without it the findings are warnings.
   */
  strictMlperf?: boolean;
  /** Run even when an endpoint has requests that are not this run's (another client); default false: refuse (ServerBusyError). */
  allowBusyServer?: boolean;
  /** Requests sent before the test (dataset prompts, the adapter's bodies), excluded from every figure; default 0. */
  warmup?: number;
  /** Write results.json (and the other files when the writers are present); default true. */
  writeOutputs?: boolean;
  /** The audit.config the engine applies (StartTestOptions.auditConfig): default ./audit.config when it exists; null: none. */
  auditConfig?: string | null;
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

const SEED_FIELDS = [
  'qslRngSeed',
  'sampleIndexRngSeed',
  'scheduleRngSeed',
  'accuracyLogRngSeed',
  'test05QslRngSeed',
  'test05SampleIndexRngSeed',
  'test05ScheduleRngSeed',
] as const;

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
export function composeSettings(
  o: Pick<
    RunBenchmarkOptions,
    'scenario' | 'mode' | 'benchmark' | 'mlperfConf' | 'userConf' | 'settings' | 'targetQps'
  >,
  simulated: boolean,
): ComposedSettings {
  const notes: string[] = [];
  const scenario = o.scenario;
  if (o.mlperfConf !== undefined && o.benchmark === undefined)
    throw new UsageError('--mlperf-conf needs --benchmark (the model key whose entries to read)');
  if (o.benchmark !== undefined && o.mlperfConf === undefined && !builtinBenchmarks().includes(o.benchmark)) {
    throw new UsageError(
      `unknown benchmark '${o.benchmark}'; the built-in table has: ${builtinBenchmarks().join(', ')} (or give --mlperf-conf)`,
    );
  }
  // No benchmark: entries for model '*' only; a name no table uses.
  const model = o.benchmark ?? '*';
  const official = loadSettings({ model, scenario, mlperfConf: o.mlperfConf });
  let settings: TestSettings;
  let userFields = new Set<string>();
  if (o.benchmark !== undefined) {
    settings = o.userConf
      ? loadSettings({ model, scenario, mlperfConf: o.mlperfConf, userConf: o.userConf })
      : official;
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
      for (const f of userFields)
        (settings as unknown as Record<string, unknown>)[f] = (withUser as unknown as Record<string, unknown>)[f];
    }
  }
  for (const k of Object.keys(o.settings ?? {})) userFields.add(k);
  if (o.targetQps !== undefined) {
    if (!(typeof o.targetQps === 'number' && o.targetQps > 0 && Number.isFinite(o.targetQps)))
      throw new UsageError(`--target-qps must be a number > 0, got ${String(o.targetQps)}`);
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
    if (applied.length)
      notes.push(`simulated-run defaults: ${applied.join(', ')} (override with --set or --target-qps)`);
  }
  Object.assign(settings, o.settings ?? {});
  settings.scenario = scenario;
  if (o.mode !== undefined) settings.mode = o.mode;
  if (settings.mode === 'FindPeakPerformance' && scenario !== 'Server')
    throw new UsageError('find-peak mode needs the Server scenario');
  // Seeds as decimal strings: the settings go into results.json as they are.
  for (const f of SEED_FIELDS) (settings as unknown as Record<string, unknown>)[f] = String(settings[f]);
  // Refuse a bad value now, before a simulator or a server is touched.
  toEngineSettings(settings);
  return { settings, userFields, notes };
}
