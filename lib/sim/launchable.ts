// The simulator as a server a harness launches and supervises like vLLM or
// SGLang: an engine-like start-up log, a load phase (503 on every route, or
// no listening port at all), and scripted failures (fail at start, crash
// after a time or a number of generation requests). `loadgen sim` uses it
// when any of these behaviours, or a vLLM/SGLang-style engine flag, is given.
import { startSimulator } from './server.js';
import type { SimFaultRule, SimRequestInfo, Simulator, SimulatorOptions } from './types.js';

export interface LaunchBehaviour {
  /** Time the "model" takes to load; 0 = ready at once. */
  loadTimeMs?: number;
  /** Keep the port closed while loading (vLLM opens it once the engine is built) instead of answering 503. */
  refuseWhileLoading?: boolean;
  /** Log a start-up error and exit 1 before listening. */
  failAtStart?: boolean;
  /** Exit 1 this long after becoming ready. */
  crashAfterMs?: number;
  /** Exit 1 once this many generation requests have arrived (after ready). */
  crashAfterRequests?: number;
  /** Engine flags given on the command line (logged as vLLM logs its non-default args). */
  engineArgs?: Record<string, unknown>;
}

type Level = 'INFO' | 'WARNING' | 'ERROR';

function stamp(): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** One log line in the flavour's style (vLLM: `LEVEL MM-DD hh:mm:ss [file] msg`; SGLang: `[date time] msg`). */
function logger(
  flavor: 'vllm' | 'sglang',
  err: NodeJS.WritableStream,
): (level: Level, where: string, msg: string) => void {
  return (level, where, msg) => {
    if (flavor === 'vllm') err.write(`(APIServer pid=${process.pid}) ${level} ${stamp()} [${where}] ${msg}\n`);
    else
      err.write(
        `[${new Date().toISOString().replace('T', ' ').slice(0, 19)}] ${level === 'INFO' ? '' : `${level} `}${msg}\n`,
      );
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs the simulator with a start-up phase and scripted failures until SIGINT/SIGTERM (or the scripted crash). */
export async function runLaunchable(
  options: SimulatorOptions,
  b: LaunchBehaviour,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<void> {
  const flavor = options.flavor ?? 'vllm';
  const log = logger(flavor, err);
  const version = options.version ?? (flavor === 'vllm' ? '0.11.0' : '0.5.4');
  const model = options.model ?? 'sim-model';
  if (flavor === 'vllm') {
    log('INFO', 'api_server.py:1885', `vLLM API server version ${version} (simulated)`);
    log('INFO', 'utils.py:328', `non-default args: ${JSON.stringify({ model, ...(b.engineArgs ?? {}) })}`);
  } else {
    log(
      'INFO',
      'server_args.py',
      `server_args=ServerArgs(${Object.entries({ model_path: model, ...(b.engineArgs ?? {}) })
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')}) (simulated, version ${version})`,
    );
  }
  if (b.failAtStart) {
    log('ERROR', 'core.py:700', 'EngineCore failed to start.');
    err.write('RuntimeError: simulated start-up failure (--fail-at-start)\n');
    process.exitCode = 1;
    return;
  }

  const userFaults: SimFaultRule[] = options.faults ?? [];
  const loadMs = b.loadTimeMs ?? 0;
  let ready = false;
  let generationRequests = 0;
  let crashing = false;
  const crash = (why: string): void => {
    if (crashing) return;
    crashing = true;
    log('ERROR', 'core.py:710', `EngineCore encountered a fatal error: ${why}`);
    err.write('RuntimeError: simulated engine crash\n');
    // Abrupt, like a dead engine process: open connections are reset.
    process.exit(1);
  };
  const userLength = options.outputLength;
  const simOptions: SimulatorOptions = { ...options };
  if (b.crashAfterRequests !== undefined) {
    // The output-length hook sees every generation request (not /health polls): count them there.
    simOptions.outputLength = (info: SimRequestInfo): number => {
      if (info.promptIndex === 0 && ready && ++generationRequests === b.crashAfterRequests) {
        setTimeout(() => crash(`after ${generationRequests} requests (--crash-after-requests)`), 0);
      }
      return typeof userLength === 'function' ? userLength(info) : (userLength ?? info.maxTokens);
    };
  }

  const loadingLines = async (): Promise<void> => {
    const shards = 4;
    for (let i = 0; i <= shards; i++) {
      err.write(
        `Loading safetensors checkpoint shards: ${Math.round((i * 100) / shards)}% Completed | ${i}/${shards}\n`,
      );
      if (i < shards) await sleep(loadMs / shards);
    }
    log('INFO', 'default_loader.py:267', `Loading weights took ${(loadMs / 1000).toFixed(2)} seconds`);
    log(
      'INFO',
      'kv_cache_utils.py:1087',
      `GPU KV cache size: ${(options.maxRunningSeqs ?? 256) * (options.maxModelLen ?? 8192)} tokens`,
    );
  };

  let sim: Simulator;
  if (b.refuseWhileLoading) {
    await loadingLines();
    sim = await startSimulator(simOptions);
  } else {
    // Listening at once, 503 everywhere until loaded (SGLang while starting, newer vLLM while warming up).
    sim = await startSimulator({
      ...simOptions,
      faults: loadMs > 0 ? [{ kind: 'status', status: 503 }, ...userFaults] : userFaults,
    });
    log('INFO', 'launcher.py:46', `Started server process [${process.pid}], listening on ${sim.url}`);
    if (loadMs > 0) {
      await loadingLines();
      sim.clearFaults();
      if (userFaults.length) sim.injectFaults(userFaults);
    }
  }
  ready = true;
  log('INFO', 'api_server.py:1971', `Starting ${flavor === 'vllm' ? 'vLLM' : 'SGLang'} API server on ${sim.url}`);
  err.write('INFO:     Application startup complete.\n');
  out.write(`${sim.url}\n`);
  if (b.crashAfterMs !== undefined)
    setTimeout(() => crash(`after ${b.crashAfterMs} ms (--crash-after-ms)`), b.crashAfterMs).unref();

  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      err.write(`INFO:     Shutting down (${signal})\n`);
      sim.close().then(resolve, resolve);
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
  err.write('INFO:     Finished server process\n');
}

// vLLM and SGLang engine flags `loadgen sim` accepts, so that a launcher can
// start it with the same command-line shape as the real servers. Those that
// mean something here are mapped; the others are only logged.
// [flag, commander attribute, takes a value]
const ENGINE_FLAGS: ReadonlyArray<readonly [string, string, boolean]> = [
  ['--model-path', 'modelPath', true],
  ['--served-model-name', 'servedModelName', true],
  ['--tensor-parallel-size', 'tensorParallelSize', true],
  ['--tp-size', 'tpSize', true],
  ['--pipeline-parallel-size', 'pipelineParallelSize', true],
  ['--pp-size', 'ppSize', true],
  ['--data-parallel-size', 'dataParallelSize', true],
  ['--dp-size', 'dpSize', true],
  ['--max-num-seqs', 'maxNumSeqs', true],
  ['--max-running-requests', 'maxRunningRequests', true],
  ['--max-num-batched-tokens', 'maxNumBatchedTokens', true],
  ['--chunked-prefill-size', 'chunkedPrefillSize', true],
  ['--context-length', 'contextLength', true],
  ['--kv-cache-dtype', 'kvCacheDtype', true],
  ['--enforce-eager', 'enforceEager', false],
  ['--disable-cuda-graph', 'disableCudaGraph', false],
  ['--gpu-memory-utilization', 'gpuMemoryUtilization', true],
  ['--mem-fraction-static', 'memFractionStatic', true],
  ['--dtype', 'dtype', true],
  ['--quantization', 'quantization', true],
  ['--seed', 'seed', true],
  ['--random-seed', 'randomSeed', true],
  ['--enable-prefix-caching', 'enablePrefixCaching', false],
  ['--no-enable-prefix-caching', 'enablePrefixCaching', false],
  ['--disable-radix-cache', 'disableRadixCache', false],
  ['--trust-remote-code', 'trustRemoteCode', false],
  ['--stream-interval', 'streamInterval', true],
  ['--api-key', 'apiKey', true],
];

/** The engine flags as [flag, attribute, takes a value], for registering them (hidden) on `loadgen sim`. */
export function engineFlagList(): ReadonlyArray<readonly [string, string, boolean]> {
  return ENGINE_FLAGS;
}

function positiveInt(flag: string, v: unknown): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag}: expected an integer >= 1, got ${String(v)}`);
  return n;
}

/**
 * Applies the engine flags that change the simulator (model names, batch
 * slots, context window, stream interval) and returns every engine flag
 * given, for the start-up log.
 */
export function applyEngineFlags(flags: Record<string, unknown>, o: SimulatorOptions): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const [, attr] of ENGINE_FLAGS) {
    const v = flags[attr];
    // Numbers logged as numbers, as vLLM's own log shows them.
    if (v === undefined) continue;
    // A key is never logged.
    if (attr === 'apiKey') given[attr] = '***';
    else given[attr] = typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  // vLLM's --api-key: a Bearer key on the /v1 routes only.
  if (typeof flags.apiKey === 'string') {
    o.requireAuthorization = `Bearer ${flags.apiKey}`;
    o.authorizationScope = 'v1';
  }
  // vLLM serves under --served-model-name, else the model path; SGLang likewise.
  const model = (flags.servedModelName ?? flags.modelPath) as string | undefined;
  if (model !== undefined) o.model = model;
  const seqs = flags.maxNumSeqs ?? flags.maxRunningRequests;
  if (seqs !== undefined) o.maxRunningSeqs = positiveInt('--max-num-seqs', seqs);
  if (flags.contextLength !== undefined) o.maxModelLen = positiveInt('--context-length', flags.contextLength);
  if (flags.streamInterval !== undefined) o.tokensPerChunk = positiveInt('--stream-interval', flags.streamInterval);
  return given;
}
