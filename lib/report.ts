// @x/loadgen/report: a run's files. Reading run directories (ours and the
// official LoadGen's), merging several runs (`loadgen report --aggregate`),
// and writing results.json, result_summary.json and report.html from a
// RunRecord. API.md, section @x/loadgen/report.

// ── Reading a run directory ─────────────────────────────────────────────────
export { readRunLogs, LogReadError } from './report/read-logs.js';
export type { RunLogs, RunSummary, DetailLog, SummaryLog, MlLogEntry } from './report/read-logs.js';
export { readRunState, RUN_STATE_FILE } from './resume/run-state.js';
export type { RunState, RunStateName } from './resume/run-state.js';
export { readJournal } from './resume/journal-reader.js';
export type { JournalContents } from './resume/journal-reader.js';
export type { JournalRecord } from './resume/journal-format.js';

// ── The run's own status beside LoadGen's verdict ───────────────────────────
export { runStatusOf, latencyFigures, overallVerdict } from './results/run-status.js';
export type { RunStatus as RunOutcome, RunStatusName, OverallVerdict, LatencyFigures } from './results/run-status.js';

// ── Merging runs ────────────────────────────────────────────────────────────
export { aggregateRuns, loadAggregateInputs, AGGREGATE_SCHEMA, AGGREGATE_SCHEMA_VERSION } from './report/aggregate.js';
export type { AggregatedResults, AggregatedRun, AggregateInput, MergedLatency, RunStatus } from './report/aggregate.js';

// ── Writing the result files of a RunRecord ─────────────────────────────────
export { writeRunOutputs, RESULT_FILES } from './results/write-outputs.js';
export { buildResultsJson, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION } from './results/results-json.js';
export { buildResultSummary } from './results/result-summary.js';
export { buildReportHtml } from './results/report-html.js';
export type { RunRecord, TimelinePoint, RunEndpointInfo } from './results/run-record.js';
export type { ResultsJson, MsStats, EndpointResult, VerdictStatus } from './results/results-json.js';
export type { ResultSummaryJson, SeriesSummary } from './results/result-summary.js';
