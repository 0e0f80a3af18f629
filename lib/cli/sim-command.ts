// `loadgen sim`: runs the endpoint simulator as a standalone server (for SUT
// adapters or benchmarks in another process) until SIGINT/SIGTERM.
import { InvalidArgumentError, Option, type Command } from 'commander';

import { applyEngineFlags, engineFlagList, runLaunchable, type LaunchBehaviour } from '../sim/launchable.js';
import { startSimulator } from '../sim/server.js';
import type { SimFaultRule, SimulatorOptions, Simulator } from '../sim/types.js';

/** The parsed flags of `loadgen sim` (commander's camel-cased names). */
export interface SimFlags {
  port?: number;
  host?: string;
  flavor?: 'vllm' | 'sglang';
  model?: string;
  maxModelLen?: number;
  serverVersion?: string;
  maxRunningSeqs?: number;
  decodeStepMs?: number;
  decodeStepMsPerSeq?: number;
  precisePacing?: boolean;
  prefillUsPerToken?: number;
  tokensPerChunk?: number;
  outputLength?: number;
  eosAfter?: number;
  eosTokenId?: number;
  sglangOutputIds?: 'cumulative' | 'delta';
  outputIdsAhead?: number;
  parserWithholds?: number;
  finishAfterTokenIds?: boolean;
  sseDone?: boolean;
  prefixCache?: boolean;
  prefixCacheBlockTokens?: number;
  returnTokenIds?: boolean;
  logprobsTokenIds?: boolean;
  faults?: SimFaultRule[];
  record?: boolean;
  maxRecords?: number;
  gpus?: number;
  gpuIdleWatts?: number;
  gpuWattsPerSeq?: number;
  gpuMaxWatts?: number;
}

function integer(min: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!/^\s*-?\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };
}

function nonNegative(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}

function flavor(v: string): 'vllm' | 'sglang' {
  if (v !== 'vllm' && v !== 'sglang') throw new InvalidArgumentError("expected 'vllm' or 'sglang'");
  return v;
}

function outputIds(v: string): 'cumulative' | 'delta' {
  if (v !== 'cumulative' && v !== 'delta') throw new InvalidArgumentError("expected 'cumulative' or 'delta'");
  return v;
}

function faultsJson(v: string): SimFaultRule[] {
  try {
    const parsed: unknown = JSON.parse(v);
    return (Array.isArray(parsed) ? parsed : [parsed]) as SimFaultRule[];
  } catch (err) {
    throw new InvalidArgumentError(`expected JSON fault rules: ${(err as Error).message}`);
  }
}

/** Flags -> simulator options (ms and us become ns; the port defaults per flavour like the real servers). */
export function simOptionsFromFlags(flags: SimFlags): SimulatorOptions {
  const f = flags.flavor ?? 'vllm';
  const o: SimulatorOptions = { flavor: f, port: flags.port ?? (f === 'vllm' ? 8000 : 30000) };
  if (flags.host !== undefined) o.host = flags.host;
  if (flags.model !== undefined) o.model = flags.model;
  if (flags.maxModelLen !== undefined) o.maxModelLen = flags.maxModelLen;
  if (flags.serverVersion !== undefined) o.version = flags.serverVersion;
  if (flags.maxRunningSeqs !== undefined) o.maxRunningSeqs = flags.maxRunningSeqs;
  if (flags.decodeStepMs !== undefined) o.decodeStepNs = Math.round(flags.decodeStepMs * 1e6);
  if (flags.decodeStepMsPerSeq !== undefined) o.decodeStepNsPerSeq = Math.round(flags.decodeStepMsPerSeq * 1e6);
  if (flags.precisePacing === false) o.precisePacing = false;
  if (flags.prefillUsPerToken !== undefined) o.prefillNsPerToken = Math.round(flags.prefillUsPerToken * 1e3);
  if (flags.tokensPerChunk !== undefined) o.tokensPerChunk = flags.tokensPerChunk;
  if (flags.outputLength !== undefined) o.outputLength = flags.outputLength;
  if (flags.eosAfter !== undefined) o.eosAfter = flags.eosAfter;
  if (flags.eosTokenId !== undefined) o.eosTokenId = flags.eosTokenId;
  if (flags.sglangOutputIds !== undefined) o.sglangOutputIds = flags.sglangOutputIds;
  if (flags.outputIdsAhead !== undefined) o.outputIdsAhead = flags.outputIdsAhead;
  if (flags.parserWithholds !== undefined) o.parserWithholds = flags.parserWithholds;
  if (flags.finishAfterTokenIds === true) o.finishAfterTokenIds = true;
  if (flags.sseDone === false) o.sseDone = false;
  if (flags.prefixCache === true) o.prefixCache = true;
  if (flags.prefixCacheBlockTokens !== undefined) o.prefixCacheBlockTokens = flags.prefixCacheBlockTokens;
  if (flags.returnTokenIds === false) o.returnTokenIds = false;
  if (flags.logprobsTokenIds === false) o.logprobsTokenIds = false;
  if (flags.faults !== undefined) o.faults = flags.faults;
  if (flags.record === false) o.record = false;
  if (flags.maxRecords !== undefined) o.maxRecords = flags.maxRecords;
  if (flags.gpus !== undefined) o.gpus = flags.gpus;
  if (flags.gpuIdleWatts !== undefined) o.gpuIdleWatts = flags.gpuIdleWatts;
  if (flags.gpuWattsPerSeq !== undefined) o.gpuWattsPerSeq = flags.gpuWattsPerSeq;
  if (flags.gpuMaxWatts !== undefined) o.gpuMaxWatts = flags.gpuMaxWatts;
  return o;
}

/** Starts the simulator, prints its URL, and closes it on SIGINT/SIGTERM. Resolves after the close. */
export async function runSim(options: SimulatorOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const sim: Simulator = await startSimulator(options);
  out.write(`${sim.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      sim.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description(
      'run an endpoint simulator that speaks the vLLM or SGLang HTTP API (prints its URL; stops on SIGINT/SIGTERM)',
    )
    .option('--port <n>', 'listen port (0 = ephemeral; default 8000 for vllm, 30000 for sglang)', integer(0))
    .option('--host <addr>', 'listen address', '127.0.0.1')
    .option('--flavor <name>', 'server to impersonate: vllm | sglang', flavor, 'vllm')
    .option('--model <name>', 'served model name', 'sim-model')
    .option('--max-model-len <n>', 'context window in tokens', integer(2))
    .option('--server-version <v>', 'version reported by /version or /get_server_info')
    .option('--max-running-seqs <n>', 'batch slots (continuous batching)', integer(1))
    .option('--decode-step-ms <ms>', 'base time of one decode step', nonNegative)
    .option('--decode-step-ms-per-seq <ms>', 'decode step time added per running sequence', nonNegative)
    .option('--no-precise-pacing', 'wait on timers only (steps up to ~1 ms late, no CPU spent polling)')
    .option('--prefill-us-per-token <us>', 'prefill time per prompt token', nonNegative)
    .option('--tokens-per-chunk <n>', 'server stream interval (tokens per SSE chunk)', integer(1))
    .option('--output-length <n>', 'generate this many tokens whatever max_tokens says', integer(1))
    .option('--eos-after <n>', 'stop with EOS after this many tokens (unless ignore_eos)', integer(1))
    .option('--eos-token-id <n>', 'EOS token id', integer(0))
    .option('--sglang-output-ids <mode>', '/generate streaming output_ids: cumulative | delta', outputIds)
    .option(
      '--output-ids-ahead <n>',
      "/generate cumulative streams: output_ids run up to n ids past the chunk's completion_tokens",
      integer(0),
    )
    .option(
      '--parser-withholds <n>',
      'vLLM chat without return_token_ids: the chunks of the first n tokens are not sent (an older parser)',
      integer(0),
    )
    .option('--finish-after-token-ids', 'vLLM chat chunks: finish_reason written after token_ids')
    .option('--no-sse-done', 'streams end without data: [DONE]')
    .option('--prefix-cache', 'model a prefix cache: cached full blocks of a prompt are not prefilled again')
    .option('--prefix-cache-block-tokens <n>', 'tokens per prefix-cache block (default 16)', integer(1))
    .option('--no-return-token-ids', 'ignore return_token_ids, like vLLM before 0.10.2')
    .option('--no-logprobs-token-ids', 'ignore return_tokens_as_token_ids')
    .option('--faults <json>', 'fault rules (JSON array) active from the start', faultsJson)
    .option('--no-record', 'keep no per-request records')
    .option('--max-records <n>', 'records kept (oldest dropped)', integer(1))
    .option('--gpus <n>', 'simulated GPUs served at /dcgm/metrics (dcgm-exporter format; default 1)', integer(1))
    .option('--gpu-idle-watts <w>', "each GPU's power with an empty batch (default 70)", nonNegative)
    .option('--gpu-watts-per-seq <w>', "each GPU's power added per running sequence (default 8)", nonNegative)
    .option('--gpu-max-watts <w>', "each GPU's power cap (default 700)", nonNegative)
    // As a launched server (loadgen serve / run with servers:): start-up phase and scripted failures.
    .option(
      '--load-time-ms <ms>',
      'simulated model loading: 503 on every route (or no port, see next) until done',
      nonNegative,
    )
    .option(
      '--refuse-while-loading',
      'open the port only once loaded, as vLLM does (default: 503 while loading, as SGLang)',
    )
    .option('--fail-at-start', 'log a start-up error and exit 1')
    .option('--crash-after-ms <ms>', 'exit 1 this long after becoming ready', nonNegative)
    .option('--crash-after-requests <n>', 'exit 1 once this many generation requests arrived', integer(1))
    .action(async (flags: SimFlags & LaunchBehaviour & Record<string, unknown>) => {
      const options = simOptionsFromFlags(flags);
      const engineArgs = applyEngineFlags(flags, options);
      const launched =
        Object.keys(engineArgs).length > 0 ||
        flags.loadTimeMs !== undefined ||
        flags.refuseWhileLoading ||
        flags.failAtStart ||
        flags.crashAfterMs !== undefined ||
        flags.crashAfterRequests !== undefined;
      if (!launched) return runSim(options);
      const { loadTimeMs, refuseWhileLoading, failAtStart, crashAfterMs, crashAfterRequests } = flags;
      await runLaunchable(options, {
        loadTimeMs,
        refuseWhileLoading,
        failAtStart,
        crashAfterMs,
        crashAfterRequests,
        engineArgs,
      });
    });
  // vLLM/SGLang engine flags, accepted so a launcher can pass them (hidden: most are only logged).
  const sim = program.commands.find((c) => c.name() === 'sim')!;
  for (const [flag, , value] of engineFlagList())
    sim.addOption(new Option(value ? `${flag} <value>` : flag).hideHelp());
}
