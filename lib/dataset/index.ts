// Datasets as query sample libraries: readers (JSON, JSONL, Parquet), field
// mapping, MLPerf presets, a synthetic dataset and the QSL wrapper.

export { DatasetError } from './types.js';
export type { ChatMessage, Dataset, Prompt } from './types.js';
export { AUTO_COLUMNS, ROLES, PROMPT_ROLES, resolveMapping } from './mapping.js';
export type { CandidateMapping, FieldMapping, ResolvedMapping, Role, TextTemplate } from './mapping.js';
export { openDataset } from './open.js';
export type { LoadedDataset, OpenDatasetOptions } from './open.js';
export type { DatasetFormat } from './source.js';
export { DATASET_PRESETS, datasetPreset, presetKey, samplingPreset } from './presets.js';
export type { DatasetPreset, SamplingPreset } from './presets.js';
export { syntheticDataset, Sfc32 } from './synthetic.js';
export type { LengthSpec, SyntheticDataset, SyntheticOptions } from './synthetic.js';
export { datasetQsl } from './qsl.js';
export type { DatasetQslOptions } from './qsl.js';
export { readTrace, traceDataset, traceSchedule, TRACE_BLOCK_TOKENS } from './trace.js';
export type { ReadTraceOptions, TraceDataset, TraceDatasetOptions, TraceFile, TraceFormat, TraceRow } from './trace.js';
export { planTrace, lintTrace, formatTracePlan } from './trace-plan.js';
export type { TraceLintKind, TraceLintWarning, TracePlan, TracePlanOptions } from './trace-plan.js';
