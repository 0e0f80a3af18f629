// @x/loadgen: the MLPerf Inference LoadGen for TypeScript.
export { startTest, abortTest, createNativeNullSut, TestAbortedError } from './start-test.js';
export type { QuerySample, SystemUnderTest, QuerySampleLibrary, StartTestOptions, NativeNullSut } from './start-test.js';
export {
  querySamplesComplete,
  firstTokenComplete,
  completeSample,
  firstTokenSample,
  querySamplesCompleteIds,
} from './complete.js';
export type { QuerySampleResponse } from './complete.js';
export {
  TestScenario,
  TestMode,
  LoggingMode,
  SettingsError,
  defaultTestSettings,
  defaultLogSettings,
  settingName,
} from './settings.js';
export type { TestSettings, LogSettings, Seed } from './settings.js';
export { loadSettings, builtinBenchmarks, ConfigError } from './load-settings.js';
export type { LoadSettingsOptions } from './load-settings.js';
export type { TestResult, LatencyStats } from './result.js';
export { native as nativeBinding, bindingPath } from './binding.js';

import { native } from './binding.js';
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
export type { Simulator, SimulatorOptions, SimFlavor, SimFaultRule, SimFaultKind, SimRequestRecord, SimRequestInfo, SimStats } from './sim/index.js';
