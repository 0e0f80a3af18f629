// Everything one run produced, in memory: what `loadgen run` (or a harness)
// hands to the writers of results.json, result_summary.json and report.html.
// The writers read only this, so a custom harness can write the same files.
import type { TraceReplayReport } from './trace-replay.js';
import type { FleetRecord } from '../fleet/types.js';
import type { TestResult } from '../core/result.js';
import type { Percentiles, SutReport } from '../sut/types.js';
import type { MultiturnReport } from '../multiturn/types.js';
import type { BudgetReport } from '../cost/budget.js';
import type { CostReport } from '../cost/cost.js';
import type { Goodput } from '../cost/goodput.js';
import type { TokenAccounting } from '../cost/token-accounting.js';
import type { ServerMetricsReport } from '../metrics/summary.js';
import type { EnergyReport } from '../metrics/energy.js';
import type { ServerStateReport } from '../metrics/server-state.js';
import type { WarmupReport } from '../sut/warmup.js';
import type { ResumeInfo } from '../resume/journal-session.js';
import type { AccuracySummary } from '../accuracy/score.js';

/** What lands in RunRecord.accuracy: the summary, or why scoring failed. */
export type RunAccuracy = (AccuracySummary & { file: string }) | { error: string };

/** One periodic observation during the run (from testProgress() and the SUT). */
export interface TimelinePoint {
  /** ms since the test started. */
  tMs: number;
  issuedSamples: number;
  completedSamples: number;
  /** Requests in flight at that moment (issued - completed - failed). */
  inFlight: number;
  /** Output tokens completed so far (0 when unknown). */
  outputTokens: number;
  errors: number;
}

/** What the harness measured of its own process over the test (lib/run/harness-usage.ts). */
export interface HarnessUsage {
  /** The test's wall time, s. */
  wallSeconds: number;
  /** CPU time (user + system) of the whole process over the test, every thread: the built-in simulator's too in a simulated run. */
  cpuSeconds: number;
  /** The cores the process may use (os.availableParallelism()). */
  cores: number;
  /** The main thread's event-loop delay over the test, ms beyond the monitor's 10 ms period. */
  mainEventLoopDelayMs: Percentiles;
}

export interface RunEndpointInfo {
  url: string;
  backend: string;
  api: string;
  model: string;
  /** Server version from /version or /get_server_info, when probed. */
  serverVersion?: string | null;
}

export interface RunRecord {
  tool: { name: string; version: string; engineVersion: string };
  /** ISO 8601. */
  startedAt: string;
  endedAt: string;
  /** argv of the command that ran it, when a CLI did. */
  command: string[] | null;
  /** MLPerf model key (e.g. 'llama3_1-8b') or null. */
  benchmark: string | null;
  /** The settings passed to startTest (camelCase TestSettings fields). */
  settings: Record<string, unknown>;
  dataset: { name: string; path: string | null; size: number; preset: string | null };
  /** Empty for a custom SUT; 'simulator' URLs for the built-in simulator. */
  endpoints: RunEndpointInfo[];
  /** True when the run used the embedded simulator (no --endpoint). */
  simulated: boolean;
  result: TestResult;
  /** The LLM adapter's report (per-endpoint stats; timings when recorded). */
  sut: SutReport | null;
  /** Sampled about once a second (may be empty). */
  timeline: TimelinePoint[];
  /** Where the MLPerf logs are. */
  outdir: string;
  /** Optional extra sections (accuracy scores, cost, ...), written as they are. */
  extra?: Record<string, unknown>;
  /** Multi-turn runs (--conversations): per-turn and per-conversation figures, tool calls. */
  multiturn?: MultiturnReport | null;
  /** Prompt and output tokens per sample, per endpoint and for the run (lib/cost/token-accounting.ts). */
  tokens?: TokenAccounting | null;
  /** Samples that met the latency targets. */
  goodput?: Goodput | null;
  /** What the run cost, when a GPU price was given. */
  cost?: CostReport | null;
  /** The run's budgets, what was used, and the one that stopped it. */
  budget?: BudgetReport | null;
  /** The servers' own /metrics over the run. */
  serverMetrics?: ServerMetricsReport | null;
  /** The GPUs' energy over the test window from their telemetry (--gpu-metrics; docs/energy.md). */
  energy?: EnergyReport | null;
  /** Each server's identity, its load before the run, its start time and prefix-cache counters at start and end. */
  serverState?: ServerStateReport | null;
  /** The warm-up requests sent before the test (--warmup N), outside every other figure. */
  warmup?: WarmupReport | null;
  /** The sample journal (accuracy and submission runs) and what a resume restored. */
  resume?: ResumeInfo | null;
  /** Servers the run started (`servers:` in the config): effective configuration, versions, logs, events such as crashes. */
  servers?: FleetRecord;
  /** Accuracy scores of an accuracy or submission run given a tokenizer (lib/run/run-accuracy.ts). */
  accuracy?: RunAccuracy | null;
  /** The harness's CPU and main-thread event-loop delay over the test: input of the measurement verdict (lib/results/measurement.ts). */
  harnessUsage?: HarnessUsage | null;
  /** A trace replay (--trace): what the trace asked for and the issue-time error against its times. */
  trace?: TraceReplayReport | null;
}
