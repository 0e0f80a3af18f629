// @x/loadgen: the MLPerf Inference LoadGen for TypeScript.
//
// The main entry: the LoadGen API (tests, completion, settings, results),
// the LLM server adapter, datasets, the simulator, whole runs, reading run
// logs, and the errors a caller catches. The other areas are subpath entries:
// @x/loadgen/accuracy, /report, /multiturn, /fleet and /metrics (lib/*.ts).
// API.md has a heading per runtime name; test/house/api.test.ts keeps this
// entry at 60 runtime names or fewer.
import { native } from './core/binding.js';

// ── Running a test ──────────────────────────────────────────────────────────
export { startTest, abortTest, createNativeNullSut } from './core/start-test.js';
export type {
  QuerySample,
  SystemUnderTest,
  QuerySampleLibrary,
  StartTestOptions,
  NativeNullSut,
} from './core/start-test.js';
export { holdCpuIdleLatency } from './core/cpu-idle-latency.js';
export type { CpuIdleLatencyHold } from './core/cpu-idle-latency.js';

/** Progress of the running test (samples issued and completed so far). */
export function testProgress(): {
  running: boolean;
  issuedSamples: number;
  completedSamples: number;
  elapsedNs: number;
} {
  return native.progress();
}

// ── Completing samples (main thread or worker_threads) ──────────────────────
export {
  querySamplesComplete,
  firstTokenComplete,
  completeSample,
  firstTokenSample,
  querySamplesCompleteIds,
} from './core/complete.js';
export type { QuerySampleResponse } from './core/complete.js';

// ── Settings ────────────────────────────────────────────────────────────────
export { TestScenario, TestMode, LoggingMode, defaultTestSettings, defaultLogSettings } from './core/settings.js';
export type { TestSettings, LogSettings, Seed } from './core/settings.js';
export { loadSettings, builtinBenchmarks } from './core/load-settings.js';
export type { LoadSettingsOptions } from './core/load-settings.js';

// ── Results of a test, and the engine's version ─────────────────────────────
export type { TestResult, LatencyStats } from './core/result.js';
/** Version of the engine in the loaded addon. */
export const engineVersion: string = native.engineVersion;
/** Version of the official MLPerf LoadGen whose behaviour the engine follows. */
export const compatibleLoadgenVersion: string = native.compatibleLoadgenVersion;

// ── LLM servers: the SUT adapter and probing ────────────────────────────────
export { createLlmSut, probeEndpoint } from './sut/index.js';
export type { LlmSut, LlmSutOptions, ProbeResult, ProbeOptions, ModelInfo } from './sut/index.js';
export type * from './sut/types.js';

// ── Datasets ────────────────────────────────────────────────────────────────
export {
  openDataset,
  syntheticDataset,
  datasetQsl,
  samplingPreset,
  datasetPreset,
  DATASET_PRESETS,
  readTrace,
  traceDataset,
  traceSchedule,
  planTrace,
} from './dataset/index.js';
export type {
  TraceFile,
  TraceRow,
  TraceFormat,
  ReadTraceOptions,
  TraceDataset,
  TraceDatasetOptions,
  TracePlan,
  TracePlanOptions,
  TraceLintWarning,
} from './dataset/index.js';
export type { Dataset, Prompt, ChatMessage } from './dataset/types.js';
export type {
  OpenDatasetOptions,
  LoadedDataset,
  FieldMapping,
  LengthSpec,
  SyntheticOptions,
  SyntheticDataset,
  DatasetQslOptions,
  SamplingPreset,
  DatasetPreset,
  DatasetFormat,
} from './dataset/index.js';

// ── The endpoint simulator ──────────────────────────────────────────────────
export { startSimulator } from './sim/index.js';
export type {
  Simulator,
  SimulatorOptions,
  SimFlavor,
  SimFaultRule,
  SimFaultKind,
  SimRequestRecord,
  SimRequestInfo,
  SimStats,
} from './sim/index.js';

// ── Whole runs (`loadgen run` as a function) ────────────────────────────────
export { runBenchmark } from './run/run-benchmark.js';
export type { RunBenchmarkOptions, DatasetSpec, RunProgress, RunStage } from './run/run-benchmark.js';
// ── Sweeps (`loadgen sweep` as a function): capacity search and load curves ─
export { runSweep } from './run/sweep.js';
export type {
  RunSweepOptions,
  SweepOutcome,
  SweepJson,
  SweepPoint,
  SweepCapacity,
  SweepDimension,
} from './run/sweep.js';
export type { RunRecord, TimelinePoint, RunEndpointInfo } from './results/run-record.js';
// The types of the record's sections (tokens, goodput, cost, budget, server metrics, resume, multi-turn).
export type { PricingInput, EndpointPrice } from './cost/pricing.js';
export type { BudgetLimits, BudgetReport } from './cost/budget.js';
export type { CostReport } from './cost/cost.js';
export type { Goodput, GoodputTargets } from './cost/goodput.js';
export type { TokenAccounting } from './cost/token-accounting.js';
export type { ServerMetricsReport, EndpointServerMetrics } from './metrics/summary.js';
export type { EnergyReport, EnergySourceReport, GpuEnergy } from './metrics/energy.js';
export type { ResumeInfo } from './resume/journal-session.js';
export type { MultiturnReport } from './multiturn/types.js';

// ── Reading a run's logs (more in @x/loadgen/report) ────────────────────────
export { readRunLogs } from './report/read-logs.js';
export type { RunLogs, RunSummary, DetailLog, SummaryLog, MlLogEntry } from './report/read-logs.js';

// ── Errors: every one is a LoadgenError with a stable `code` ────────────────
export { LoadgenError, ErrorCode, UsageError, EndpointFailure } from './core/errors.js';
export { SettingsError } from './core/settings.js';
export { ConfigError } from './core/load-settings.js';
export { TestAbortedError } from './core/start-test.js';
export { DatasetError } from './dataset/types.js';
export { EndpointError } from './sut/index.js';
export { LogReadError } from './report/read-logs.js';
