// Live conversations: the history is built from the model's own answers.
//
// What a sample is: one LoadGen sample = one conversation (QSL index =
// conversation index). LoadGen's scheduler decides when conversations start
// (Server: Poisson arrivals; Offline: all at once), and this SUT bounds how
// many run at once (maxConcurrentConversations; the rest wait in a FIFO).
// Turn k+1 is sent only after turn k completed and its think time passed.
//
// What its latency is: from LoadGen's issue to the last token of the last
// turn (think times and tool rounds included). firstTokenComplete is called
// at the first token of the first turn, so LoadGen's TTFT is the first
// turn's TTFT (queueing behind the concurrency bound included). Per-turn
// TTFT and TPOT are measured by the harness for every request and reported
// in the run's `multiturn` section.
//
// It has the LlmSut interface, so `runBenchmark` and its progress line, the
// results and the report treat it like the adapter (figures per endpoint,
// one timing per conversation).
import { Agent } from 'undici';

import { native } from '../core/binding.js';
import { completeSample, firstTokenSample } from '../core/complete.js';
import type { QuerySample, QuerySampleLibrary, SystemUnderTest } from '../core/start-test.js';
import { EndpointError, endpointRequestInfo, parseEndpointUrl } from '../sut/endpoint-url.js';
import { registerSecret } from '../core/redact.js';
import type { LlmSut } from '../sut/llm-sut.js';
import { probeEndpoint } from '../sut/probe.js';
import { bump, percentiles } from '../sut/stats.js';
import type {
  Backend,
  Capabilities,
  EndpointConfig,
  EndpointReport,
  SampleTiming,
  SamplingParams,
  SutReport,
} from '../sut/types.js';
import { openAiSamplingFields } from '../sut/wire/request-body.js';
import { streamChat } from './chat-stream.js';
import { buildMultiturnReport, type TurnRequest } from './report.js';
import { ToolAnswerer, countMatches, parseToolCall, type ParsedToolCall, type ToolAnswerSources } from './tools.js';
import type { Conversation, ConversationOutcome, MultiturnReport, ToolFigures, WireMessage } from './types.js';

export interface LiveSutOptions {
  /** Servers; conversation i always goes to endpoint i mod n, so its prefix stays in one cache. */
  endpoints: readonly (string | EndpointConfig)[];
  conversations: readonly Conversation[];
  backend?: Backend | 'auto';
  /** Served model name; default: the first of /v1/models. */
  model?: string;
  /** Defaults: temperature 0, top_p 1, max tokens 128 (a turn's max_tokens wins). */
  sampling?: SamplingParams;
  /** Conversations in progress at once (default 64); later ones wait their turn. */
  maxConcurrentConversations?: number;
  /** Tool rounds (model calls, harness answers) allowed in one turn before it counts as failed (default 4). */
  maxToolRounds?: number;
  /** Where tool answers come from besides the dataset's recorded results. */
  tools?: ToolAnswerSources;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Per request: headers and longest gap between reads (default 300 s). */
  requestTimeoutMs?: number;
  /** Think times are scaled by this (default 1; 0 skips them). */
  thinkTimeScale?: number;
  onWarning?: (message: string) => void;
}

export interface LiveSut extends LlmSut {
  /** Per-turn and per-conversation figures (call after the test settled). */
  multiturnReport(): MultiturnReport;
  /** Every request sent so far, in order: conversation, turn and tool round (for tests and debugging). */
  requestLog(): readonly {
    conversation: string;
    turn: number;
    round: number;
    sentNs: number;
    endNs: number;
    ok: boolean;
  }[];
}

interface Endpoint {
  url: string;
  headers: Record<string, string>;
  chatUrl: string;
  requests: number;
  completed: number;
  errors: number;
  outputTokens: number;
  ttft: number[];
  tpot: number[];
  latency: number[];
  errorKinds: Record<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function errorKind(message: string): string {
  const m = /^HTTP (\d+)/.exec(message);
  if (m) return `http_${m[1]}`;
  if (message.startsWith('malformed')) return 'malformed_chunk';
  if (message.includes('before [DONE]')) return 'stream_cut';
  if (/tool rounds/.test(message)) return 'tool_loop';
  return message.includes('error') ? 'error_event' : 'network';
}

export async function createLiveSut(o: LiveSutOptions): Promise<LiveSut> {
  if (!Array.isArray(o.conversations) || o.conversations.length === 0)
    throw new TypeError('createLiveSut: give at least one conversation');
  if (!Array.isArray(o.endpoints) || o.endpoints.length === 0)
    throw new EndpointError('createLiveSut: give at least one endpoint URL');
  const maxConcurrent = o.maxConcurrentConversations ?? 64;
  if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1)
    throw new RangeError(`maxConcurrentConversations must be an integer >= 1, got ${String(maxConcurrent)}`);
  const maxRounds = o.maxToolRounds ?? 4;
  const thinkScale = o.thinkTimeScale ?? 1;
  const timeoutMs = o.requestTimeoutMs ?? 300_000;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.apiKey) {
    registerSecret(o.apiKey);
    headers.authorization = `Bearer ${o.apiKey}`;
  }
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    (o.onWarning ?? ((x: string) => process.emitWarning(x, { code: 'LOADGEN_MULTITURN' })))(m);
  };

  // http://user:pw@host: Basic authorization (in place of an API key), the URL kept without it.
  const given = o.endpoints.map((e) => (typeof e === 'string' ? e : e.url));
  for (const u of given) parseEndpointUrl(u);
  const auth = given.map((u) => endpointRequestInfo(u, headers));
  const urls = auth.map((a) => a.url);
  for (const a of auth)
    if (a.replaced)
      warn(
        `endpoint ${a.url}: its URL's user and password are sent (HTTP Basic) in place of the API key or Authorization header`,
      );
  const probes = await Promise.all(
    urls.map((url, i) =>
      probeEndpoint(url, {
        backend: o.backend === 'auto' ? undefined : o.backend,
        api: 'chat',
        model: o.model,
        headers: auth[i]!.headers,
        testRequest: false,
      }),
    ),
  );
  const healthy = probes.filter((p) => p.healthy);
  if (healthy.length === 0)
    throw new EndpointError(
      `no endpoint answered the health check: ${probes.map((p) => `${p.url}: ${p.error ?? 'unhealthy'}`).join('; ')}`,
    );
  if (healthy.length < probes.length)
    warn(`${probes.length - healthy.length} endpoint(s) failed the health check; their conversations fail`);
  const backend: Backend = o.backend && o.backend !== 'auto' ? o.backend : (healthy[0]!.backend ?? 'openai');
  const model = o.model ?? healthy[0]!.models[0]?.id ?? 'default';
  const capabilities: Capabilities = { tokenSource: 'none' };
  const sampling: SamplingParams = { temperature: 0, topP: 1, ...(o.sampling ?? {}) };
  const endpoints: Endpoint[] = urls.map((url, i) => {
    const { origin, prefix } = parseEndpointUrl(url);
    return {
      url,
      headers: auth[i]!.headers,
      chatUrl: `${origin}${prefix}/v1/chat/completions`,
      requests: 0,
      completed: 0,
      errors: 0,
      outputTokens: 0,
      ttft: [],
      tpot: [],
      latency: [],
      errorKinds: {},
    };
  });
  const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: maxConcurrent + 8 });

  // Run state.
  const queue: { sample: QuerySample; issuedNs: number }[] = [];
  let running = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];
  // One outcome per conversation run (LoadGen may issue a conversation more than once).
  const outcomes: ConversationOutcome[] = [];
  const requests: TurnRequest[] = [];
  const log: { conversation: string; turn: number; round: number; sentNs: number; endNs: number; ok: boolean }[] = [];
  const timings: SampleTiming[] = [];
  const errorKinds: Record<string, number> = {};
  const issueDelays: number[] = [];
  const tools: ToolFigures = {
    requestsWithTools: 0,
    responsesWithToolCalls: 0,
    toolCallRate: null,
    toolCalls: 0,
    malformed: 0,
    expected: 0,
    matched: 0,
    argumentAccuracy: null,
  };
  let issued = 0;
  let peakRunning = 0; // conversations at once (one request each at a time)
  let chunks = 0;

  const wakeIdle = (): void => {
    if (running > 0 || queue.length > 0) return;
    const w = idleWaiters;
    idleWaiters = [];
    for (const f of w) f();
  };

  function requestBody(conv: Conversation, k: number, messages: WireMessage[]): Record<string, unknown> {
    const turn = conv.turns[k]!;
    const max = turn.maxTokens ?? sampling.maxTokens ?? 128;
    const b: Record<string, unknown> = { model, messages, stream: true, stream_options: { include_usage: true } };
    b[backend === 'vllm' ? 'max_completion_tokens' : 'max_tokens'] = max;
    openAiSamplingFields(b, sampling);
    const offered = turn.tools ?? conv.tools;
    if (offered && offered.length > 0) b.tools = offered;
    if (sampling.extraBody) Object.assign(b, sampling.extraBody);
    return b;
  }

  async function runConversation(sample: QuerySample, issuedNs: number): Promise<void> {
    const ci = sample.index;
    const conv = o.conversations[ci]!;
    const ep = endpoints[ci % endpoints.length]!;
    const startNs = native.nowNs();
    issueDelays.push(startNs - issuedNs);
    const timing: SampleTiming = {
      id: sample.id,
      index: ci,
      endpoint: ci % endpoints.length,
      attempts: 1,
      scheduledNs: issuedNs,
      issuedNs,
      dispatchedNs: startNs,
      sentNs: startNs,
      headersNs: NaN,
      firstTokenNs: NaN,
      endNs: NaN,
      chunks: 0,
      multiTokenChunks: 0,
      tokens: 0,
      maxGapNs: 0,
      ok: false,
    };
    let firstSent = false;
    let tokens = 0;
    let done = 0;
    let failure: { turn: number; error: string } | null = null;
    const messages: WireMessage[] = [];
    if (conv.system !== undefined) messages.push({ role: 'system', content: conv.system });
    const answerer = (k: number) => new ToolAnswerer(conv.turns[k]!.toolResults ?? [], o.tools ?? {});

    turns: for (let k = 0; k < conv.turns.length; k++) {
      const turn = conv.turns[k]!;
      if (k > 0 && turn.thinkTimeMs && thinkScale > 0) await sleep(turn.thinkTimeMs * thinkScale);
      if (closed) {
        failure = { turn: k, error: 'the SUT was closed' };
        break;
      }
      messages.push({ role: 'user', content: turn.user });
      const made: ParsedToolCall[] = [];
      const answers = answerer(k);
      for (let round = 0; ; round++) {
        const body = requestBody(conv, k, messages);
        ep.requests++;
        const r = await streamChat({
          dispatcher,
          url: ep.chatUrl,
          body,
          headers: ep.headers,
          timeoutMs,
          onFirstToken: () => {
            if (firstSent) return;
            firstSent = true;
            timing.firstTokenNs = native.nowNs();
            firstTokenSample(sample.id);
          },
        });
        log.push({ conversation: conv.id, turn: k, round, sentNs: r.sentNs, endNs: r.endNs, ok: r.ok });
        const n = r.completionTokens >= 0 ? r.completionTokens : r.tokenChunks;
        const ttft = r.firstTokenNs - r.sentNs;
        const tpot = n > 1 ? (r.endNs - r.firstTokenNs) / (n - 1) : NaN;
        requests.push({
          turn: k,
          ok: r.ok,
          ttftNs: ttft,
          tpotNs: tpot,
          latencyNs: r.endNs - r.sentNs,
          promptTokens: r.promptTokens,
        });
        chunks += r.tokenChunks;
        if (body.tools) tools.requestsWithTools++;
        if (!r.ok) {
          ep.errors++;
          bump(ep.errorKinds, errorKind(r.error!));
          bump(errorKinds, errorKind(r.error!));
          failure = { turn: k, error: r.error! };
          break turns;
        }
        ep.completed++;
        ep.outputTokens += n;
        ep.ttft.push(ttft);
        ep.tpot.push(tpot);
        ep.latency.push(r.endNs - r.sentNs);
        tokens += n;
        if (r.toolCalls.length === 0) {
          messages.push({ role: 'assistant', content: r.text });
          break;
        }
        // The model called tools: answer them and let it continue the turn.
        tools.responsesWithToolCalls++;
        const parsed = r.toolCalls.map(parseToolCall);
        tools.toolCalls += parsed.length;
        tools.malformed += parsed.filter((c) => c.args === null).length;
        made.push(...parsed);
        messages.push({
          role: 'assistant',
          content: r.text === '' ? null : r.text,
          tool_calls: r.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
        for (const c of parsed) {
          let content: string;
          try {
            content = await answers.answer(c, conv.id, k);
          } catch (err) {
            content = JSON.stringify({ error: `the tool handler threw: ${(err as Error).message}` });
          }
          messages.push({ role: 'tool', tool_call_id: c.id, content });
        }
        if (round + 1 >= maxRounds) {
          failure = { turn: k, error: `the model still called tools after ${maxRounds} tool rounds` };
          bump(errorKinds, 'tool_loop');
          break turns;
        }
      }
      if (turn.expectedToolCalls) {
        tools.expected += turn.expectedToolCalls.length;
        tools.matched += countMatches(turn.expectedToolCalls, made);
      }
      done++;
    }

    const endNs = native.nowNs();
    timing.endNs = endNs;
    timing.tokens = failure ? 0 : tokens;
    timing.ok = failure === null;
    if (failure) timing.error = failure.error;
    timings.push(timing);
    const outcome: ConversationOutcome = {
      id: conv.id,
      ok: failure === null,
      turnsCompleted: done,
      turns: conv.turns.length,
      latencyMs: failure ? null : (endNs - issuedNs) / 1e6,
    };
    if (failure) Object.assign(outcome, { error: failure.error, failedTurn: failure.turn });
    outcomes.push(outcome);
    // A failed conversation completes its sample with no tokens, as the adapter does with a failed request.
    completeSample(sample.id, failure ? 0 : tokens);
  }

  function pump(): void {
    while (running < maxConcurrent && queue.length > 0 && !closed) {
      const { sample, issuedNs } = queue.shift()!;
      running++;
      if (running > peakRunning) peakRunning = running;
      runConversation(sample, issuedNs)
        .catch((err: unknown) => {
          warn(`conversation ${sample.index}: ${(err as Error).message}`);
          completeSample(sample.id, 0);
        })
        .finally(() => {
          running--;
          pump();
          wakeIdle();
        });
    }
  }

  const sut: SystemUnderTest = {
    name: 'LiveConversationSUT',
    issueQuery(samples: QuerySample[]): void {
      const t = native.nowNs();
      for (const s of samples) queue.push({ sample: s, issuedNs: t });
      issued += samples.length;
      pump();
    },
    flushQueries(): void {},
  };
  const qsl: QuerySampleLibrary = {
    name: 'conversations',
    totalSampleCount: o.conversations.length,
    performanceSampleCount: o.conversations.length,
    loadSamplesToRam: () => undefined,
    unloadSamplesFromRam: () => undefined,
  };

  function endpointReport(e: Endpoint): EndpointReport {
    return {
      url: e.url,
      requests: e.requests,
      completed: e.completed,
      errors: e.errors,
      retries: 0,
      outputTokens: e.outputTokens,
      ttftMs: percentiles(e.ttft, 1e-6),
      tpotMs: percentiles(e.tpot, 1e-6),
      latencyMs: percentiles(e.latency, 1e-6),
      breakerOpened: 0,
      errorKinds: { ...e.errorKinds },
    };
  }

  return {
    sut,
    qsl,
    backend,
    api: 'chat',
    model,
    capabilities,
    probes,
    async report(): Promise<SutReport> {
      const failed = timings.filter((t) => !t.ok).length;
      const outputTokens = endpoints.reduce((a, e) => a + e.outputTokens, 0);
      return {
        backend,
        api: 'chat',
        capabilities,
        workers: 0,
        busyPollIdleMs: null,
        samples: { issued, completed: timings.length, failed, retried: 0 },
        peakInFlight: peakRunning,
        errorKinds: { ...errorKinds },
        endpoints: endpoints.map(endpointReport),
        chunks: {
          total: chunks,
          multiToken: 0,
          multiTokenFraction: 0,
          tokensPerChunk: chunks > 0 ? outputTokens / chunks : 0,
        },
        interChunkGapMs: percentiles([]),
        issueDelayMs: percentiles(issueDelays, 1e-6),
        headersMs: percentiles([]),
        warnings: [...warnings],
        idMismatch: { samples: 0, first: [] },
        timings: timings.map((t) => ({ ...t })),
      };
    },
    multiturnReport(): MultiturnReport {
      const t: ToolFigures = {
        ...tools,
        toolCallRate: tools.requestsWithTools > 0 ? tools.responsesWithToolCalls / tools.requestsWithTools : null,
        argumentAccuracy: tools.expected > 0 ? tools.matched / tools.expected : null,
      };
      return buildMultiturnReport({
        mode: 'live',
        outcomes,
        totalTurns: outcomes.reduce((a, x) => a + x.turns, 0),
        requests,
        tools: tools.requestsWithTools > 0 || tools.expected > 0 ? t : null,
      });
    },
    requestLog: () => log.map((x) => ({ ...x })),
    idle(): Promise<void> {
      if (running === 0 && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close(): Promise<void> {
      closed = true;
      queue.length = 0;
      // In-flight streams are cut (their conversations fail), as the adapter's close does.
      await dispatcher.destroy().catch(() => undefined);
      wakeIdle();
    },
  };
}
