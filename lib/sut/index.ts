// The LLM SUT adapters: createLlmSut and what it reports.
export { createLlmSut } from './llm-sut.js';
export type { LlmSut, LlmSutOptions } from './llm-sut.js';
export { probeEndpoint } from './probe.js';
export type { ProbeResult, ProbeOptions, ModelInfo } from './probe.js';
export { EndpointError, parseEndpointUrl } from './endpoint-url.js';
export type * from './types.js';
