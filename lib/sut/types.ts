// Public option and report types of the LLM SUT adapters.

/** Which server family: decides request fields and how output ids are read. */
export type Backend = 'vllm' | 'sglang' | 'openai';
/** Which wire API: OpenAI completions (token-id prompts), chat completions, SGLang native /generate. */
export type WireApiName = 'completions' | 'chat' | 'generate';

/** Where generated token ids come from in a stream. */
export type TokenSource =
  | 'token_ids' // vLLM/SGLang `return_token_ids`: choices[].token_ids per chunk
  | 'logprobs' // `logprobs` + `return_tokens_as_token_ids`: "token_id:N" strings
  | 'output_ids' // SGLang /generate output_ids (+ meta_info.completion_tokens)
  | 'none'; // counts only (usage), no ids: the accuracy log cannot be scored

/** What a server can do, found by probing (backend 'auto') or given. */
export interface Capabilities {
  tokenSource: TokenSource;
  /** SGLang /generate: output_ids cumulative (default) or per-chunk deltas. Read robustly either way. */
  outputIds?: 'cumulative' | 'delta';
  /** Server accepts batched prompts (int[][]) in one request. */
  batchPrompts?: boolean;
}

export interface SamplingParams {
  maxTokens?: number;
  minTokens?: number;
  ignoreEos?: boolean;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  /** Extra request fields, merged last (e.g. { repetition_penalty: 1.0 }). */
  extraBody?: Record<string, unknown>;
}

export interface EndpointConfig {
  /** Base URL of the server, e.g. http://gpu1:8000 (with or without /v1). */
  url: string;
  /** Share of traffic relative to the others (least outstanding / weight); default 1. */
  weight?: number;
  /** Most requests in flight to this endpoint at once; default `maxInFlightPerEndpoint`. */
  maxInFlight?: number;
  /** GPU telemetry of this endpoint's GPUs (dcgm-exporter's /metrics): runBenchmark's energy figures per endpoint; the adapter ignores it. */
  gpuMetrics?: string | string[];
}

export interface TimeoutOptions {
  /** TCP connect; default 10 s. */
  connectMs?: number;
  /** Request written to response headers; default 300 s (SGLang sends headers with the first token). */
  firstByteMs?: number;
  /** Longest gap between two body reads; default 120 s. */
  idleMs?: number;
  /** Whole sample, retries included; default 3600 s. */
  totalMs?: number;
}

export interface RetryOptions {
  /** Retries per sample, before its first token only; default 3. */
  maxRetries?: number;
  /** First backoff; doubles each retry, with full jitter; default 100 ms. */
  baseDelayMs?: number;
  /** Backoff ceiling; default 5 s. */
  maxDelayMs?: number;
}

export interface BreakerOptions {
  /** Consecutive failures that open an endpoint's circuit; default 5. */
  failureThreshold?: number;
  /** Time open before one half-open probe request; default 5 s. */
  cooldownMs?: number;
  /**
   * When no endpoint's circuit has closed for this long (every probe failed),
   * the samples waiting for one fail at once ("no-healthy-endpoint") instead
   * of at their total deadline, and so do new ones that no probe takes;
   * traffic resumes when a probe succeeds. Default 60 s; 0 = wait for the
   * total deadline.
   */
  giveUpMs?: number;
}

/** Per-sample harness timings, absolute steady-clock ns (the engine's clock); NaN when absent. */
export interface SampleTiming {
  id: number;
  index: number;
  endpoint: number;
  attempts: number;
  scheduledNs: number;
  issuedNs: number;
  sentNs: number;
  headersNs: number;
  firstTokenNs: number;
  endNs: number;
  chunks: number;
  multiTokenChunks: number;
  tokens: number;
  maxGapNs: number;
  ok: boolean;
  /**
   * When the last attempt was handed to undici: before its connection queue
   * and its write (`sentNs`), the moment a client that times from its request
   * call would start its clock.
   */
  dispatchedNs: number;
  error?: string;
}

export interface Percentiles {
  count: number;
  mean: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

export interface EndpointReport {
  url: string;
  requests: number;
  completed: number;
  errors: number;
  retries: number;
  outputTokens: number;
  /** ms, harness side: request written to first token. */
  ttftMs: Percentiles;
  /** ms per token after the first: (end - first token) / (tokens - 1). */
  tpotMs: Percentiles;
  /** ms, request written to end of stream. */
  latencyMs: Percentiles;
  breakerOpened: number;
  errorKinds: Record<string, number>;
}

/** A sample completed without its ids: the ids received and the server's count disagree. */
export interface IdMismatch {
  /** LoadGen's sample (response) id. */
  id: number;
  /** Its dataset index (the accuracy log's qsl_idx). */
  qslIdx: number;
  /** Ids received. */
  ids: number;
  /** The server's count (usage.completion_tokens), the token count reported. */
  count: number;
}

export interface SutReport {
  backend: Backend;
  api: WireApiName;
  capabilities: Capabilities;
  workers: number;
  /** The idle window of busy polling (LlmSutOptions.busyPoll), ms; null when the threads sleep between events. */
  busyPollIdleMs: number | null;
  samples: { issued: number; completed: number; failed: number; retried: number };
  /** Most requests held at once (sent, or backing off before a retry; a batch counts once): the sum of each worker thread's peak. */
  peakInFlight: number;
  errorKinds: Record<string, number>;
  endpoints: EndpointReport[];
  chunks: { total: number; multiToken: number; multiTokenFraction: number; tokensPerChunk: number };
  /** ms between chunks of a stream, pooled over all streams. */
  interChunkGapMs: Percentiles;
  /** ms, engine issue to request write. */
  issueDelayMs: Percentiles;
  /** ms, request write to response headers. */
  headersMs: Percentiles;
  warnings: string[];
  /**
   * Samples completed without ids because the ids received disagree with the
   * server's count (usage.completion_tokens): their accuracy-log entries are
   * empty. `first`: up to 1000 of them per worker thread.
   */
  idMismatch: { samples: number; first: IdMismatch[] };
  /**
   * ms by which each thread doing the HTTP work (each worker, or the main
   * thread with `workers: 0`) found its event loop late, beyond the
   * monitor's 10 ms period: how long a read or a sample could wait for it.
   */
  eventLoopDelayMs?: Percentiles[];
  /** Present with `recordTimings: true`. */
  timings?: SampleTiming[];
}
