// @x/loadgen: the MLPerf Inference LoadGen for TypeScript.
export { startTest, abortTest, createNativeNullSut, TestAbortedError } from './core/start-test.js';
export { holdCpuIdleLatency, CPU_DMA_LATENCY } from './core/cpu-idle-latency.js';
export type { CpuIdleLatencyHold } from './core/cpu-idle-latency.js';
export type { QuerySample, SystemUnderTest, QuerySampleLibrary, StartTestOptions, NativeNullSut } from './core/start-test.js';
export {
  querySamplesComplete,
  firstTokenComplete,
  completeSample,
  firstTokenSample,
  querySamplesCompleteIds,
} from './core/complete.js';
export type { QuerySampleResponse } from './core/complete.js';
export {
  TestScenario,
  TestMode,
  LoggingMode,
  SettingsError,
  defaultTestSettings,
  defaultLogSettings,
  settingName,
} from './core/settings.js';
export type { TestSettings, LogSettings, Seed } from './core/settings.js';
export { loadSettings, builtinBenchmarks, ConfigError } from './core/load-settings.js';
export type { LoadSettingsOptions } from './core/load-settings.js';
export type { TestResult, LatencyStats } from './core/result.js';
export { native as nativeBinding, bindingPath } from './core/binding.js';

import { native } from './core/binding.js';
/** Progress of the running test (samples issued and completed so far). */
export function testProgress(): { running: boolean; issuedSamples: number; completedSamples: number; elapsedNs: number } {
  return native.progress();
}
export const engineVersion: string = native.engineVersion;
export const compatibleLoadgenVersion: string = native.compatibleLoadgenVersion;
export { createLlmSut, probeEndpoint, EndpointError, parseEndpointUrl } from './sut/index.js';
export type * from './sut/index.js';
export type { Dataset, Prompt, ChatMessage } from './dataset/types.js';
export { DatasetError } from './dataset/types.js';
export { openDataset, syntheticDataset, datasetQsl, samplingPreset, datasetPreset, DATASET_PRESETS } from './dataset/index.js';
export type { OpenDatasetOptions, LoadedDataset, FieldMapping, LengthSpec, SamplingPreset, DatasetPreset } from './dataset/index.js';
export { startSimulator } from './sim/index.js';
export { readConversations, replayDataset, createLiveSut, toConversation, fromShareGpt, fromOpenAiMessages, astMatch, ConversationError } from './multiturn/index.js';
export type { Conversation, Turn, MultiturnReport, LiveSut, LiveSutOptions, ReplayDataset, ToolHandler, ToolInvocation } from './multiturn/index.js';
export type { Simulator, SimulatorOptions, SimFlavor, SimFaultRule, SimFaultKind, SimRequestRecord, SimRequestInfo, SimStats } from './sim/index.js';
export { writeRunOutputs, RESULT_FILES } from './results/write-outputs.js';
export { buildResultsJson, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION } from './results/results-json.js';
export { buildResultSummary } from './results/result-summary.js';
export { buildReportHtml } from './results/report-html.js';
export type { RunRecord, TimelinePoint, RunEndpointInfo } from './results/run-record.js';
export type { ResultsJson, MsStats, EndpointResult, VerdictStatus } from './results/results-json.js';
export type { ResultSummaryJson, SeriesSummary } from './results/result-summary.js';
export { runStatusOf, latencyFigures, overallVerdict } from './results/run-status.js';
export type { RunStatus, RunStatusName, OverallVerdict, LatencyFigures } from './results/run-status.js';
export { ExitCode } from './cli/exit-codes.js';
export { readRunLogs, LogReadError } from './report/read-logs.js';
export type { RunLogs, RunSummary, DetailLog, SummaryLog, MlLogEntry } from './report/read-logs.js';
export { aggregateRuns, loadAggregateInputs, AGGREGATE_SCHEMA, AGGREGATE_SCHEMA_VERSION } from './report/aggregate.js';
export type { AggregatedResults, AggregatedRun, AggregateInput, MergedLatency } from './report/aggregate.js';
export { UsageError, EndpointFailure } from './cli/errors.js';
export { runBenchmark, composeSettings, SIMULATOR_DEFAULTS, SIMULATED_RUN_DEFAULTS, SYNTHETIC_DEFAULTS, GENERIC_LLM_BOUNDS } from './run/run-benchmark.js';
export type { RunBenchmarkOptions, DatasetSpec, RunProgress, RunStage } from './run/run-benchmark.js';
export { scoreAccuracy, formatAccuracyReport, summarizeAccuracy, accuracyBenchmarks, AccuracyInputError } from './accuracy/score.js';
export type { ScoreAccuracyOptions, AccuracyReport, MetricVerdict, AccuracyVerdictStatus, SampleScore, InlineReferences, AccuracySummary } from './accuracy/score.js';
export { readAccuracyLog, parseAccuracyLog, decodeTokens, dedupByQslIdx, AccuracyLogError, TOKEN_DTYPES } from './accuracy/accuracy-log.js';
export type { AccuracyLog, AccuracyLogEntry, TokenDtype, ReadAccuracyLogOptions } from './accuracy/accuracy-log.js';
export { runTest06 } from './accuracy/test06.js';
export type { Test06Report, Test06Check, Test06Options } from './accuracy/test06.js';
export { loadTokenizer, TokenizerError } from './accuracy/tokenizer.js';
export type { Detokenizer, LoadTokenizerOptions } from './accuracy/tokenizer.js';
export { RougeScorer, rougeCorpus, rougeTokenize } from './accuracy/rouge.js';
export type { RougeScore, RougeType } from './accuracy/rouge.js';
export { porterStem } from './accuracy/porter-stemmer.js';
export { sentTokenize, sentencesPerLine, punktParameters, loadPunktParameters, englishPunkt } from './accuracy/sentence-split.js';
export type { PunktParameters } from './accuracy/sentence-split.js';
export { ACCURACY_TARGETS, accuracyTarget } from './accuracy/targets.js';
export type { BenchmarkAccuracy, MetricTarget, AccuracyMetric } from './accuracy/targets.js';
export { registerAccuracyCommand, runAccuracyCommand } from './cli/accuracy-command.js';
export { Fleet } from './fleet/fleet.js';
export { runWithFleet } from './run/run-fleet.js';
export { parseServersSection, ENGINE_ARG_KINDS } from './fleet/spec.js';
export { planServers, gpuGroups } from './fleet/plan.js';
export { renderCommand, renderEnv, flagsFor } from './fleet/render.js';
export { sshArgv, commandLine, shellQuote } from './fleet/ssh.js';
export { parseGpuList, perGpu, tensorParallelGroups, cudaVisibleDevices } from './fleet/gpus.js';
export type { ServerSpec, EngineArgs, ServerBackend, SshOptions, PlannedServer, FleetRecord, ServerRecord, FleetEvent } from './fleet/types.js';
export { readRunState, RUN_STATE_FILE } from './resume/run-state.js';
export type { RunState, RunStateName } from './resume/run-state.js';
export { readJournal } from './resume/journal-reader.js';
export type { JournalRecord } from './resume/journal-format.js';
export type { ResumeInfo } from './resume/journal-session.js';
export { parsePrometheusText } from './metrics/prom-text.js';
export type { PromSample } from './metrics/prom-text.js';
export { MetricsScraper } from './metrics/scraper.js';
export { snapshotOf } from './metrics/server-snapshot.js';
export type { ServerSnapshot } from './metrics/server-snapshot.js';
export { METRIC_NAMES } from './metrics/metric-names.js';
export type { ServerMetricsReport, EndpointServerMetrics } from './metrics/summary.js';
export type { CostReport } from './cost/cost.js';
export type { Goodput, GoodputTargets } from './cost/goodput.js';
export type { TokenAccounting } from './cost/token-accounting.js';
export type { BudgetLimits, BudgetReport } from './cost/budget.js';
export type { PricingInput, EndpointPrice } from './cost/pricing.js';
