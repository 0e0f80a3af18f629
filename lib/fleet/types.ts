// Types of the `servers:` section (what a config file says), of one server
// once expanded (what gets started), and of what a run records about them.

export type ServerBackend = 'vllm' | 'sglang' | 'custom' | 'simulator';

/**
 * Engine settings, typed, rendered to each backend's own flags (see
 * render.ts for the flag each key becomes on vLLM and on SGLang).
 */
export interface EngineArgs {
  tensorParallelSize?: number;
  pipelineParallelSize?: number;
  dataParallelSize?: number;
  /** vLLM --max-num-seqs; SGLang --max-running-requests. */
  maxNumSeqs?: number;
  /** vLLM --max-num-batched-tokens; SGLang --chunked-prefill-size. */
  maxNumBatchedTokens?: number;
  /** vLLM --max-model-len; SGLang --context-length. */
  maxModelLen?: number;
  kvCacheDtype?: string;
  /** false: vLLM --enforce-eager; SGLang --disable-cuda-graph. */
  cudaGraphs?: boolean;
  /** vLLM --gpu-memory-utilization; SGLang --mem-fraction-static. */
  gpuMemoryUtilization?: number;
  dtype?: string;
  quantization?: string;
  /** vLLM --seed; SGLang --random-seed. */
  seed?: number;
  /** vLLM --[no-]enable-prefix-caching; SGLang --disable-radix-cache when false. */
  enablePrefixCaching?: boolean;
  trustRemoteCode?: boolean;
  servedModelName?: string;
  streamInterval?: number;
}

export interface SshOptions {
  /** Remote user (default: ssh's own default). */
  user?: string;
  /** ssh port. */
  port?: number;
  /** ssh -i. */
  identityFile?: string;
  /** Extra `-o Key=Value` options. */
  options?: string[];
  /** Remote directory to cd into first. */
  workdir?: string;
  /** ssh -F: an ssh config file (host aliases, ProxyJump...). */
  configFile?: string;
}

/** One entry of `servers:`, checked (spec.ts). Several servers can come from one entry (GPU groups, nodes). */
export interface ServerSpec {
  name: string;
  backend: ServerBackend;
  model?: string;
  /** custom: the command (argv), with {port} {host} {model} {name} {gpus} placeholders. */
  command?: string[];
  /** The program that starts vLLM or SGLang (default `vllm`, `python3`). */
  executable?: string;
  /** simulator: the flavour it impersonates. */
  flavor?: 'vllm' | 'sglang';
  /** GPU ids to spread over (split into tensor-parallel groups); none = CUDA_VISIBLE_DEVICES left alone. */
  gpus?: number[];
  /** First server's port (the next groups get +1, +2, ...); 'auto' = free ports (local only). */
  port: number | 'auto';
  /** Listen address passed to the server. */
  host: string;
  /** SSH nodes to start the servers on (each gets every group); none = this machine. */
  nodes?: string[];
  ssh?: SshOptions;
  engineArgs: EngineArgs;
  extraArgs: string[];
  env: Record<string, string>;
  /** simulator: `loadgen sim` options (camelCase of its flags). */
  simulator: Record<string, string | number | boolean>;
  healthPath: string;
  startupTimeoutS: number;
  stopGraceS: number;
  /** Requests sent to each server before the measured run (0 = none). */
  warmupRequests: number;
  /** Endpoint options for the adapter. */
  weight?: number;
  maxInFlight?: number;
}

/** One server to start: a spec with its group of GPUs, node and port decided. */
export interface PlannedServer {
  name: string;
  spec: ServerSpec;
  gpus: number[] | null;
  node: string | null;
  port: number;
  /** Base URL the harness sends to. */
  url: string;
  /** The command run on the node (before any ssh wrapping). */
  argv: string[];
  /** Environment set for it (CUDA_VISIBLE_DEVICES, the spec's env). */
  env: Record<string, string>;
  /** What is spawned here: argv itself, or ssh wrapping it. */
  spawnArgv: string[];
  /**
   * spawnArgv as one shell-quoted line, for logs and results: the spec's
   * `env` values as *** and secrets redacted (lib/core/redact.ts).
   */
  commandLine: string;
}

export type FleetEventKind =
  | 'started'
  | 'healthy'
  | 'warmed-up'
  | 'exited'
  | 'crashed'
  | 'stopped'
  | 'killed'
  | 'start-failed'
  | 'unhealthy';

export interface FleetEvent {
  server: string;
  kind: FleetEventKind;
  /** ISO 8601. */
  at: string;
  message: string;
  exitCode?: number | null;
  signal?: string | null;
  /** Last lines of the server's log, for failures. */
  logTail?: string[];
}

/** What results.json says about one server. */
export interface ServerRecord {
  name: string;
  backend: ServerBackend;
  model: string | null;
  url: string;
  node: string | null;
  gpus: number[] | null;
  port: number;
  pid: number | null;
  commandLine: string;
  /** The command on its node, secret flag values (--api-key X) as ***. */
  argv: string[];
  /** Names of the environment variables set for it (values are never recorded). */
  env: string[];
  engineArgs: EngineArgs;
  extraArgs: string[];
  /** From /version (vLLM) or /get_server_info (SGLang). */
  version: string | null;
  /** SGLang's /get_server_info (its effective ServerArgs), when answered. */
  serverInfo: Record<string, unknown> | null;
  /** max_model_len from /v1/models, when answered. */
  maxModelLen: number | null;
  /** vLLM's own start-up log lines: its non-default args and its whole engine configuration (verbatim). */
  loggedConfig: { nonDefaultArgs: string | null; engineConfig: string | null };
  log: string;
  /** Seconds from spawn to a healthy /health. */
  loadSeconds: number | null;
  exit: { code: number | null; signal: string | null; how: 'stopped' | 'killed' | 'crashed' | 'exited' } | null;
}

export interface FleetRecord {
  servers: ServerRecord[];
  events: FleetEvent[];
}
