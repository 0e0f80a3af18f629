// `loadgen run --conversations FILE --multiturn replay|live`: what the run
// pipeline needs from a conversation file. Replay hands runBenchmark a
// Dataset of chat prompts (one a turn) for the usual adapter; live hands it
// a SUT of its own (one sample a conversation). Either way the record gets a
// `multiturn` section at the end.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { UsageError } from '../core/errors.js';
import type { Dataset, Prompt } from '../dataset/types.js';
import type { TestSettings } from '../core/settings.js';
import type { SimulatorOptions } from '../sim/types.js';
import type { LlmSut } from '../sut/llm-sut.js';
import type { Backend, EndpointConfig, SamplingParams, SutReport } from '../sut/types.js';
import { createLiveSut, type LiveSut } from './live-sut.js';
import { readConversations } from './read.js';
import { replayDataset, type ReplayDataset } from './replay.js';
import { replayReport } from './report.js';
import type { ToolAnswerSources, ToolHandler } from './tools.js';
import { ConversationError, type Conversation, type MultiturnMode, type MultiturnReport } from './types.js';

/** RunBenchmarkOptions.conversations. */
export interface ConversationsSpec {
  /** A conversation file: JSONL, JSON or Parquet; native, ShareGPT or OpenAI-messages records. */
  path: string;
  /** replay (default): a turn is a sample, history as recorded; live: a conversation is a sample, history from the model. */
  mode?: MultiturnMode;
  /** Live: conversations in progress at once (default 64). */
  maxConcurrent?: number;
  /** Live: a JSON file of tool results by tool name, for calls the dataset has no recorded result for. */
  toolResults?: string;
  /** Live: a module whose default (or `handler`) export answers tool calls: (call) => result. */
  toolHandler?: string;
  /** Live: think times are scaled by this (default 1; 0 skips them). */
  thinkTimeScale?: number;
}

/** Just what is read from the run's options (a subset of RunBenchmarkOptions). */
export interface ConversationRunOptions {
  conversations?: ConversationsSpec;
  api?: string;
  backend?: Backend | 'auto';
  model?: string;
  apiKey?: string;
  sampling?: SamplingParams;
  simulator?: SimulatorOptions;
  dataset?: unknown;
}

export interface OpenedConversations<O extends ConversationRunOptions> {
  mode: MultiturnMode;
  conversations: readonly Conversation[];
  /** The run's options with the dataset (and for replay the chat API) in place. */
  options: O;
  /** Live: the SUT to use instead of createLlmSut. */
  liveSut(endpoints: readonly (string | EndpointConfig)[], log: (m: string) => void): Promise<LiveSut>;
  /** The record's multiturn section, once the test settled. */
  report(llm: LlmSut | null, sut: SutReport | null): MultiturnReport | null;
}

async function loadHandler(path: string): Promise<ToolHandler> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`--tool-handler ${path}: cannot load the module: ${(err as Error).message}`);
  }
  const fn = typeof mod.default === 'function' ? mod.default : mod.handler;
  if (typeof fn !== 'function')
    throw new UsageError(`--tool-handler ${path}: the module must export a function (default export or 'handler')`);
  return fn as ToolHandler;
}

function loadResults(path: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--tool-results ${path}: ${code === 'ENOENT' ? 'no such file' : `not JSON: ${(err as Error).message}`}`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UsageError(`--tool-results ${path}: expected a JSON object of tool name → result`);
  return data as Record<string, unknown>;
}

/** Live: a Dataset view (a conversation's opening messages) so the record and the logs name what ran. */
function liveDataset(conversations: readonly Conversation[], path: string): Dataset & { path: string } {
  return {
    name: 'conversations (live)',
    size: conversations.length,
    path,
    prompt: (i: number): Prompt => {
      const c = conversations[i]!;
      const messages = c.system !== undefined ? [{ role: 'system', content: c.system }] : [];
      return { messages: [...messages, { role: 'user', content: c.turns[0]!.user }] };
    },
  };
}

/**
 * Reads the conversation file and shapes the run: checks the flags that go
 * with each mode, turns the simulator's prefix cache on, and (live) relaxes
 * LoadGen's TPOT bound unless the user set one, because a conversation's
 * "TPOT" spans think times and later turns (the per-turn TPOT is in the
 * multiturn section).
 */
export async function openConversations<O extends ConversationRunOptions>(
  options: O,
  settings: TestSettings,
  userFields: ReadonlySet<string>,
  log: (m: string) => void,
): Promise<OpenedConversations<O>> {
  const spec = options.conversations!;
  const mode = spec.mode ?? 'replay';
  if (mode !== 'replay' && mode !== 'live')
    throw new UsageError(`--multiturn must be replay or live, got ${String(mode)}`);
  if (options.dataset !== undefined)
    throw new UsageError('--conversations and --dataset/--synthetic exclude each other');
  if (options.api !== undefined && options.api !== 'chat')
    throw new UsageError(`--conversations needs the chat API (got --api ${options.api})`);
  if (mode === 'replay') {
    for (const [v, flag] of [
      [spec.maxConcurrent, '--max-concurrent-conversations'],
      [spec.toolResults, '--tool-results'],
      [spec.toolHandler, '--tool-handler'],
    ] as const) {
      if (v !== undefined)
        throw new UsageError(
          `${flag} applies to --multiturn live (replay sends the recorded history and answers no tool calls)`,
        );
    }
  }
  if (spec.toolResults !== undefined && spec.toolHandler !== undefined)
    throw new UsageError('--tool-results and --tool-handler exclude each other');
  let conversations: Conversation[];
  try {
    conversations = await readConversations(spec.path);
  } catch (err) {
    if (err instanceof ConversationError) throw new UsageError(err.message);
    throw err;
  }
  const turns = conversations.reduce((a, c) => a + c.turns.length, 0);
  log(
    `conversations: ${spec.path}: ${conversations.length} conversations, ${turns} turns (${mode}: one sample ${mode === 'live' ? 'a conversation' : 'a turn'})`,
  );

  let replay: ReplayDataset | null = null;
  let dataset: Dataset;
  if (mode === 'replay') {
    try {
      replay = replayDataset(conversations, { name: 'conversations (replay)' });
    } catch (err) {
      if (err instanceof ConversationError) throw new UsageError(err.message);
      throw err;
    }
    dataset = Object.assign(replay, { path: spec.path });
  } else {
    dataset = liveDataset(conversations, spec.path);
    if (settings.useTokenLatencies && !userFields.has('tpotLatencyNs')) {
      settings.tpotLatencyNs = 3600e9;
      log(
        "note: live conversations: LoadGen's TPOT bound is off (a conversation's TPOT spans think times and later turns); per-turn TTFT/TPOT are in results.json multiturn",
      );
    }
  }
  const sources: ToolAnswerSources = {};
  if (spec.toolResults !== undefined) sources.results = loadResults(spec.toolResults);
  if (spec.toolHandler !== undefined) sources.handler = await loadHandler(spec.toolHandler);

  return {
    mode,
    conversations,
    options: {
      ...options,
      api: 'chat' as const,
      dataset,
      simulator: { prefixCache: true, ...(options.simulator ?? {}) },
    },
    liveSut: (endpoints, warnLog) =>
      createLiveSut({
        endpoints,
        conversations,
        backend: options.backend,
        model: options.model,
        apiKey: options.apiKey,
        sampling: options.sampling,
        maxConcurrentConversations: spec.maxConcurrent,
        thinkTimeScale: spec.thinkTimeScale,
        tools: sources,
        onWarning: (m) => warnLog(`warning: ${m}`),
      }),
    report: (llm, sut) => {
      if (mode === 'live') return llm && 'multiturnReport' in llm ? (llm as LiveSut).multiturnReport() : null;
      return replay ? replayReport(replay, sut?.timings) : null;
    },
  };
}
