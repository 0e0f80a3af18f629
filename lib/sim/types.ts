// Public types of the endpoint simulator (an HTTP server that impersonates a
// vLLM or SGLang server so SUT adapters can be tested without a GPU).

/** Which server the simulator impersonates (routes, chunk fields, error shapes). */
export type SimFlavor = 'vllm' | 'sglang';

/** What the simulator knows about one prompt when it asks `outputLength`. */
export interface SimRequestInfo {
  flavor: SimFlavor;
  /** Route path, e.g. '/v1/completions' or '/generate'. */
  path: string;
  /** The parsed JSON request body. */
  body: unknown;
  /** Index of this prompt in a batched request (0 otherwise). */
  promptIndex: number;
  /** Prompt length in tokens. */
  promptTokens: number;
  /** The request's output cap (max_tokens / max_completion_tokens / max_new_tokens, or its default). */
  maxTokens: number;
  /** The x-request-id header, or null. */
  requestId: string | null;
}

export type SimFaultKind =
  | 'status'
  | 'reset-before'
  | 'reset-during'
  | 'stall'
  | 'malformed-chunk'
  | 'error-event'
  | 'slow-headers'
  | 'malformed-tool-call'
  | 'retract-first-token';

/**
 * A fault rule. Rules are tried in order for each request (control routes
 * under /_sim excepted); the first one that matches hits it, and a request is
 * hit by at most one rule. What each kind does:
 *
 * - 'status': answers `status` at once (error body in the flavour's shape,
 *   Retry-After for 429/503 when retryAfterS is set); nothing is generated.
 * - 'reset-before': destroys the socket (RST) before any response byte.
 * - 'reset-during': streams: closes the socket once `afterTokens` tokens were
 *   written (headers and those chunks arrive, no [DONE]); non-stream: sends
 *   the headers and half the body, then closes.
 * - 'stall': streams: stops writing after `afterTokens` tokens for `ms` (or
 *   until the client gives up); generation goes on and the tokens made
 *   meanwhile arrive coalesced in one chunk. afterTokens 0 = before the
 *   headers. Non-stream: delays the headers (afterTokens 0) or the body.
 * - 'malformed-chunk': streams: writes one truncated JSON `data:` event after
 *   `afterTokens` tokens, then the stream continues normally to [DONE];
 *   non-stream: a truncated JSON body (with a matching content-length).
 * - 'error-event': streams: after `afterTokens` tokens, a `data: {"error":…}`
 *   event in the flavour's shape, then `data: [DONE]` (HTTP status stays 200);
 *   non-stream generation: HTTP 500 with the flavour's error body.
 * - 'slow-headers': nothing is written before `ms` after the request arrived;
 *   then the response proceeds (streams coalesce what was generated meanwhile).
 * - 'malformed-tool-call': a chat response that calls a tool carries
 *   arguments cut in half (not valid JSON); other responses are unchanged.
 * - 'retract-first-token': SGLang /generate streams: after the chunk with
 *   the first token, a chunk takes every token back (completion_tokens 0)
 *   and the output restarts with a different first id, as a speculative
 *   decoder that retracts would; the first token a client timed is then not
 *   the output's (what MLPerf's TEST06 first-token check catches). Other
 *   APIs are unchanged.
 */
export interface SimFaultRule {
  kind: SimFaultKind;
  /** How many requests this rule may hit (default Infinity). */
  count?: number;
  match?: {
    /** Exact request path (no query string), e.g. '/v1/completions'. */
    path?: string;
    /** Hit only every Nth request that matches the path (counted from injection). */
    every?: number;
  };
  /** 'status': the HTTP status to answer with. */
  status?: 400 | 429 | 500 | 503;
  /** 'status' 429/503: value of the Retry-After header, in seconds. */
  retryAfterS?: number;
  /**
   * 'reset-during' | 'stall' | 'malformed-chunk' | 'error-event': fire before
   * the first write at which at least this many tokens were already written
   * (default 0). If the stream ends first, the fault fires just before the
   * stream terminator instead, so it always shows.
   */
  afterTokens?: number;
  /** 'stall': pause length (default: forever, until the client closes). 'slow-headers': header delay (required). */
  ms?: number;
}

/** What the simulator saw and did for one request. Times are process.hrtime.bigint() ns as numbers (CLOCK_MONOTONIC). */
export interface SimRequestRecord {
  /** Arrival order, from 0 over the simulator's life (clearRecords does not reset it). */
  seq: number;
  /** The x-request-id header, or null. */
  requestId: string | null;
  method: string;
  path: string;
  /** The parsed JSON body (null when absent or not JSON). */
  body: unknown;
  /** When the whole request body had been read. */
  receivedNs: number;
  /** When the response headers were written (null if never). */
  headersNs: number | null;
  /** When the first chunk carrying a generated token was written (non-stream: the response write). */
  firstTokenNs: number | null;
  /** When the response ended, the socket was destroyed or the client went away (null while in flight). */
  endNs: number | null;
  /** HTTP status sent (0 if no status line was ever sent). */
  status: number;
  /** Prompt tokens over all prompts of the request. */
  promptTokens: number;
  /** Generated tokens actually written to the client, over all choices. */
  outputTokens: number;
  /** SSE events written (every `data:` event: role, tokens, usage, error, malformed, [DONE]); 0 for non-stream. */
  chunks: number;
  /** Kind of the fault rule that hit this request, or null. */
  fault: SimFaultKind | null;
  /** Prompt tokens found in the prefix cache (their prefill is skipped); absent when the cache is off. */
  cachedTokens?: number;
  /** Chat: the tool the response called (tools offered and named in the last user message), if any. */
  toolCall?: string;
  /** True if the client closed the connection before the response ended. */
  clientAborted: boolean;
}

export interface SimStats {
  /** Sequences in the running batch (one per prompt x n). */
  running: number;
  /** Sequences waiting for a batch slot. */
  waiting: number;
  /** Requests received (control routes excluded). */
  totalRequests: number;
  /** Tokens generated by the engine. */
  totalTokens: number;
  /** Requests refused with 401 for a missing or wrong Authorization (requireAuthorization). */
  unauthorized: number;
}

export interface SimulatorOptions {
  flavor?: SimFlavor;
  /** Listen address (default '127.0.0.1'). */
  host?: string;
  /** Listen port (default 0: ephemeral). */
  port?: number;
  /** Served model name (default 'sim-model'). */
  model?: string;
  /** Context window (default 8192). */
  maxModelLen?: number;
  /** Reported server version (default '0.11.0' for vllm, '0.5.4' for sglang). */
  version?: string;

  /** Batch slots (default 256); the waiting queue is an unbounded FIFO. */
  maxRunningSeqs?: number;
  /** Prefill cost added to the step that admits a sequence (default 0). */
  prefillNsPerToken?: number;
  /** Base time of one decode step (default 0: as fast as possible). */
  decodeStepNs?: number;
  /** Step time added per running sequence (default 0). */
  decodeStepNsPerSeq?: number;
  /**
   * Hit step due times to within microseconds by polling the last sub-millisecond
   * with setImmediate (default true). false: timers only, steps up to ~1 ms late,
   * no CPU spent waiting (e.g. when sharing a small machine with the client).
   */
  precisePacing?: boolean;

  /** Overrides the request's max tokens as the generation length. */
  outputLength?: number | ((req: SimRequestInfo) => number);
  /** Stop with finish_reason 'stop' after this many tokens (the last is EOS) unless ignore_eos. */
  eosAfter?: number;
  /** EOS token id (default 2). */
  eosTokenId?: number;
  /** Server stream interval: tokens per chunk (default 1; first chunk 1 token, last chunk flushes). */
  tokensPerChunk?: number;

  /**
   * Prefix cache (default false): full blocks of a prompt whose prefix was
   * seen before are not prefilled again (vLLM --enable-prefix-caching,
   * SGLang's radix cache); records and /metrics show the hits.
   */
  prefixCache?: boolean;
  /** Tokens per cache block (default 16). */
  prefixCacheBlockTokens?: number;

  /** vLLM `return_token_ids` support (default true; false = ignored like an older server). */
  returnTokenIds?: boolean;
  /** vLLM `return_tokens_as_token_ids` support with logprobs (default true). */
  logprobsTokenIds?: boolean;
  /** SGLang /generate streaming output_ids (and text): cumulative (default) or delta. */
  sglangOutputIds?: 'cumulative' | 'delta';
  /**
   * SGLang /generate cumulative streams: each intermediate chunk's output_ids
   * holds up to this many ids beyond its meta_info.completion_tokens, as when
   * SGLang serialises its live output list after more tokens were appended
   * (default 0).
   */
  outputIdsAhead?: number;
  /**
   * vLLM chat streams without return_token_ids: the chunks carrying any of
   * the first N generated tokens (the last chunk aside) are not sent,
   * logprobs included, as an older vLLM's reasoning or tool parser
   * withholds them; usage still counts them (default 0).
   */
  parserWithholds?: number;
  /** vLLM chat chunks: finish_reason (and stop_reason) written after token_ids (default false). */
  finishAfterTokenIds?: boolean;
  /** Streams end with `data: [DONE]` (default true; false: the stream just ends after its last chunk). */
  sseDone?: boolean;

  /** Fault rules active from the start. */
  faults?: SimFaultRule[];
  /** Keep per-request records (default true). */
  record?: boolean;
  /** Most records kept; the oldest are dropped (default 1e6). */
  maxRecords?: number;
  /**
   * The exact Authorization header every request must carry (e.g. 'Basic
   * dXNlcjpwdw==' or 'Bearer KEY'); others get 401 on every route, /health
   * and /metrics included. Default: none required.
   */
  requireAuthorization?: string;
  /**
   * Where requireAuthorization applies: 'all' routes (default), or 'v1' only
   * (/v1/...), as vLLM's --api-key does: /health, /metrics and /version stay open.
   */
  authorizationScope?: 'all' | 'v1';

  /**
   * The simulated GPUs behind the server (default 1), served in
   * dcgm-exporter's format at /dcgm/metrics (docs/energy.md). Each draws
   * gpuIdleWatts (default 70) plus gpuWattsPerSeq (default 8) per running
   * sequence, up to gpuMaxWatts (default 700).
   */
  gpus?: number;
  gpuIdleWatts?: number;
  gpuWattsPerSeq?: number;
  gpuMaxWatts?: number;
  /** The GPUs' modelName label (default 'NVIDIA H100 80GB HBM3'). */
  gpuModelName?: string;
}

export interface Simulator {
  /** e.g. 'http://127.0.0.1:40123' */
  readonly url: string;
  readonly port: number;
  readonly flavor: SimFlavor;
  /** The simulated GPUs' telemetry in dcgm-exporter's format: `${url}/dcgm/metrics` (for --gpu-metrics). */
  readonly gpuMetricsUrl: string;
  /**
   * Exact energy of the simulated GPUs between two instants (process.hrtime
   * ns as numbers, the clock of records and of the adapter's timings), J;
   * from the start to now by default.
   */
  gpuEnergyJoules(fromNs?: number, toNs?: number): number;
  stats(): SimStats;
  /** Snapshot copies of the kept records, oldest first. */
  records(): SimRequestRecord[];
  clearRecords(): void;
  /** Appends rules (validated; throws on a bad rule). */
  injectFaults(rules: SimFaultRule[]): void;
  clearFaults(): void;
  /** Closes the server and every open socket; resolves when done. Safe to call twice. */
  close(): Promise<void>;
}
