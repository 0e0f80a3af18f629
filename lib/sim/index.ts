// The endpoint simulator: a fake vLLM / SGLang HTTP server for testing SUT
// adapters (wire formats, continuous batching, faults, per-request records).
export { startSimulator } from './server.js';
export type {
  SimFlavor,
  SimulatorOptions,
  Simulator,
  SimStats,
  SimRequestInfo,
  SimRequestRecord,
  SimFaultRule,
  SimFaultKind,
} from './types.js';
