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

/**
 * `launcher: slurm`: the servers run as job steps of one Slurm allocation
 * (salloc --no-shell, then one srun step per server), cancelled at the end.
 */
export interface SlurmOptions {
  partition?: string;
  account?: string;
  /** Nodes to allocate; each runs `serversPerNode` servers. */
  nodes: number;
  serversPerNode: number;
  /** GPUs per server: --gres=gpu:N on each step, N x servers-per-node per node on the allocation. */
  gpusPerServer?: number;
  /** --time (Slurm's forms: MM, HH:MM:SS, D-HH...). */
  timeLimit?: string;
  /** Extra salloc options (allocation: --exclusive, --reservation=..., --qos=...). */
  allocOptions: string[];
  /** Extra srun options for every server step. */
  srunOptions: string[];
  /** pyxis/enroot: --container-image, --container-mounts, --container-workdir on each step. */
  containerImage?: string;
  containerMounts?: string;
  containerWorkdir?: string;
  /** --chdir of the steps. */
  workdir?: string;
  /** Seconds to wait for the allocation (default: the spec's startup-timeout-s). */
  queueTimeoutS?: number;
  /**
   * salloc (default): one allocation per entry, servers as srun steps run here.
   * sbatch-het: every such entry one component of ONE heterogeneous batch job whose script starts the servers.
   */
  mode?: 'salloc' | 'sbatch-het';
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
  /** Set for `launcher: slurm` (then `nodes` is not). */
  slurm?: SlurmOptions;
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
  /** How it is started: here, through ssh, or as a Slurm job step. */
  launcher: 'local' | 'ssh' | 'slurm';
  /** Slurm: the allocation's job id. */
  jobId?: string;
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
  launcher: 'local' | 'ssh' | 'slurm';
  /** Slurm: the job whose step it was (null otherwise). */
  jobId: string | null;
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

/** One Slurm allocation a fleet held. */
export interface SlurmJobRecord {
  /** The `servers:` entry it was allocated for. */
  spec: string;
  jobId: string;
  nodes: string[];
  partition: string | null;
  /** Whether scancel was run on it at the end. */
  cancelled: boolean;
}

export interface FleetRecord {
  servers: ServerRecord[];
  events: FleetEvent[];
  /** Slurm allocations ([] when no server used `launcher: slurm`). */
  slurmJobs: SlurmJobRecord[];
}
