// Parsing and validation of generation requests (/v1/completions,
// /v1/chat/completions, /generate) into one normalised plan. Every
// validation failure throws a SimHttpError with the server's wording where
// it is known, so it is answered as a JSON error before any streaming.
import { SimHttpError } from './errors.js';
import type { ResolvedOptions } from './options.js';
import { hashIds, tokenizeChat, tokenizeText, type ChatMessageLike } from './tokens.js';
import { planToolCall, type ToolCallPlan } from './tool-calls.js';
import type { SimRequestInfo } from './types.js';

export type Api = 'completions' | 'chat' | 'generate';

export interface PromptPlan {
  ids: number[];
  hash: number;
  /** The request's output cap for this prompt. */
  maxTokens: number;
  /** Tokens this prompt will generate (per sample). */
  target: number;
  /** Whether generation ends on EOS (finish 'stop') rather than on length. */
  stopsOnEos: boolean;
  /** SGLang rid (meta_info.id). */
  rid: string;
  /** Prompt tokens found in the prefix cache (set by the server when the cache is on). */
  cachedTokens?: number;
  /** Chat with tools: the call this response makes instead of text. */
  toolCall?: ToolCallPlan;
}

export interface GenRequest {
  api: Api;
  path: string;
  stream: boolean;
  prompts: PromptPlan[];
  /** Samples per prompt (OpenAI `n`). */
  n: number;
  /** /generate with a list input: the answer is a list (non-stream) and chunks carry `index`. */
  batched: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** vLLM return_token_ids, honoured only when the server has the capability. */
  returnTokenIds: boolean;
  /** Completions: top-k logprobs count; chat: top_logprobs; null = no logprobs. */
  logprobs: number | null;
  tokensAsIds: boolean;
  /** /generate return_logprob. */
  returnLogprob: boolean;
  /** Tokens per chunk after the first. */
  streamInterval: number;
  /** Response id (cmpl-…, chatcmpl-…, or SGLang's hex id). */
  id: string;
  /** Model name echoed in responses. */
  model: string;
  created: number;
}

type Body = Record<string, unknown>;

function bad(message: string, param: string | null = null): SimHttpError {
  return new SimHttpError(400, message, param);
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function optBool(body: Body, key: string, dflt: boolean): boolean {
  const v = body[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw bad(`${key}: Input should be a valid boolean`, key);
  return v;
}

function optInt(body: Body, key: string, min: number, where = key): number | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (!isInt(v)) throw bad(`${where}: Input should be a valid integer`, key);
  if (v < min) throw bad(`${where} must be at least ${min}, got ${v}.`, key);
  return v;
}

export function hexId(): string {
  let s = '';
  for (let i = 0; i < 4; i++)
    s += Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return s;
}

function isIdList(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => isInt(x));
}

function checkIds(ids: number[], param: string): number[] {
  if (ids.length === 0) throw bad('The prompt cannot be empty.', param);
  for (const id of ids) if (id < 0) throw bad(`Token ids must be non-negative, got ${id}.`, param);
  return ids;
}

/** The four OpenAI prompt forms (str | str[] | int[] | int[][]) -> prompt id lists. */
function parsePromptField(v: unknown, param: string): number[][] {
  if (typeof v === 'string') return [tokenizeText(v)];
  if (!Array.isArray(v) || v.length === 0) {
    throw bad(`${param} must be a string, a list of strings, a list of token ids or a list of token-id lists`, param);
  }
  if (isIdList(v)) return [checkIds(v, param)];
  if (v.every((x) => typeof x === 'string')) return (v as string[]).map(tokenizeText);
  if (v.every((x) => isIdList(x))) return (v as number[][]).map((ids) => checkIds(ids, param));
  throw bad(`${param} must be a string, a list of strings, a list of token ids or a list of token-id lists`, param);
}

function parseMessages(v: unknown): ChatMessageLike[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('messages: Field required (a non-empty list)', 'messages');
  return v.map((m, i) => {
    if (typeof m !== 'object' || m === null || typeof (m as Body).role !== 'string') {
      throw bad(`messages[${i}] must be an object with a string 'role'`, 'messages');
    }
    const { role, content } = m as Body;
    let text = '';
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      // Content parts: only the text parts count.
      text = content
        .map((p) =>
          typeof p === 'object' && p !== null && typeof (p as Body).text === 'string'
            ? ((p as Body).text as string)
            : '',
        )
        .join(' ');
    } else if (content !== undefined && content !== null) {
      throw bad(`messages[${i}].content must be a string or a list of parts`, 'messages');
    }
    return { role: role as string, content: text };
  });
}

function contextErrors(opts: ResolvedOptions, inputLen: number, maxTokens: number, explicit: boolean): void {
  const C = opts.maxModelLen;
  if (opts.flavor === 'vllm') {
    if (inputLen >= C) {
      throw bad(
        `This model's maximum context length is ${C} tokens. However, your request has ${inputLen} input tokens. ` +
          'Please reduce the length of the input messages.',
        'input_tokens',
      );
    }
    if (explicit && inputLen + maxTokens > C) {
      throw bad(
        `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ` +
          `${C} tokens and your request has ${inputLen} input tokens (${maxTokens} > ${C} - ${inputLen}).`,
        'max_tokens',
      );
    }
  } else {
    if (inputLen >= C) {
      throw bad(`The input (${inputLen} tokens) is longer than the model's context length (${C} tokens).`);
    }
    if (explicit && inputLen + maxTokens > C) {
      throw bad(
        `Requested token count exceeds the model's maximum context length of ${C} tokens. You requested a total of ` +
          `${inputLen + maxTokens} tokens: ${inputLen} tokens from the input messages and ${maxTokens} tokens for the ` +
          'completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.',
      );
    }
  }
}

/** Generation length for one prompt: outputLength override, context cap, then EOS. */
function planLength(
  opts: ResolvedOptions,
  info: SimRequestInfo,
  minTokens: number,
  ignoreEos: boolean,
): { target: number; stopsOnEos: boolean } {
  let target = info.maxTokens;
  if (opts.outputLength !== undefined) {
    const v = typeof opts.outputLength === 'function' ? opts.outputLength(info) : opts.outputLength;
    if (!isInt(v) || v < 1)
      throw new SimHttpError(500, `simulator outputLength returned ${String(v)} (need an integer >= 1)`);
    target = v;
  }
  // Reaching the context window ends generation with 'length', as in vLLM.
  target = Math.max(1, Math.min(target, opts.maxModelLen - info.promptTokens));
  if (opts.eosAfter !== undefined && !ignoreEos) {
    // min_tokens suppresses EOS until that many tokens exist.
    const eosAt = Math.max(opts.eosAfter, minTokens);
    if (eosAt <= target) return { target: eosAt, stopsOnEos: true };
  }
  return { target, stopsOnEos: false };
}

export interface ParseContext {
  opts: ResolvedOptions;
  path: string;
  body: unknown;
  requestId: string | null;
}

function asBody(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('The request body must be a JSON object.');
  }
  return body as Body;
}

function streamOptions(
  opts: ResolvedOptions,
  b: Body,
  stream: boolean,
): { includeUsage: boolean; continuousUsage: boolean } {
  const so = b.stream_options;
  if (so === undefined || so === null) return { includeUsage: false, continuousUsage: false };
  if (typeof so !== 'object' || Array.isArray(so)) throw bad('stream_options must be an object', 'stream_options');
  if (opts.flavor === 'vllm' && !stream) {
    throw bad('Stream options can only be defined when `stream=True`.', 'stream_options');
  }
  const s = so as Body;
  if (opts.flavor === 'vllm') {
    // vLLM: include_usage defaults to true once the object is present;
    // continuous stats only count when usage is on.
    const includeUsage = optBool(s, 'include_usage', true);
    return { includeUsage, continuousUsage: includeUsage && optBool(s, 'continuous_usage_stats', false) };
  }
  // SGLang: usage is off unless asked; continuous stats are independent of it.
  return {
    includeUsage: optBool(s, 'include_usage', false),
    continuousUsage: optBool(s, 'continuous_usage_stats', false),
  };
}

function checkModel(opts: ResolvedOptions, b: Body): string {
  const model = b.model;
  if (model === undefined || model === null) return opts.model;
  if (typeof model !== 'string') throw bad('model: Input should be a valid string', 'model');
  // SGLang does not check the model name (it echoes it); vLLM refuses unknown names.
  if (opts.flavor === 'vllm' && model !== opts.model) {
    throw new SimHttpError(404, `The model \`${model}\` does not exist.`, 'model');
  }
  return model;
}

function openAiId(ctx: ParseContext, prefix: string, b: Body): string {
  if (ctx.opts.flavor === 'sglang') return typeof b.rid === 'string' ? b.rid : hexId();
  // vLLM bases its id on X-Request-Id, then on the request_id field.
  const base = ctx.requestId ?? (typeof b.request_id === 'string' ? b.request_id : hexId());
  return `${prefix}${base}`;
}

/** /v1/completions and /v1/chat/completions. */
export function parseOpenAi(ctx: ParseContext, api: 'completions' | 'chat'): GenRequest {
  const { opts } = ctx;
  const b = asBody(ctx.body);
  const model = checkModel(opts, b);
  const stream = optBool(b, 'stream', false);
  const usage = streamOptions(opts, b, stream);

  let prompts: number[][];
  if (api === 'completions') {
    if (b.prompt === undefined || b.prompt === null) throw bad('prompt: Field required', 'prompt');
    prompts = parsePromptField(b.prompt, 'prompt');
  } else {
    prompts = [tokenizeChat(parseMessages(b.messages))];
  }

  const n = optInt(b, 'n', 1) ?? 1;
  if (n > 64) throw bad(`n must be at most 64, got ${n}.`, 'n');
  let maxTokens: number | null;
  if (api === 'chat') {
    maxTokens = optInt(b, 'max_completion_tokens', 1) ?? optInt(b, 'max_tokens', 1);
  } else {
    maxTokens = optInt(b, 'max_tokens', 1, 'max_tokens');
  }
  const explicit = maxTokens !== null;
  const minTokens = optInt(b, 'min_tokens', 0) ?? 0;
  const ignoreEos = optBool(b, 'ignore_eos', false);
  const streamIntervalReq = opts.flavor === 'vllm' ? optInt(b, 'stream_interval', 1) : null;

  let logprobs: number | null = null;
  if (api === 'completions') {
    logprobs = optInt(b, 'logprobs', 0);
  } else if (optBool(b, 'logprobs', false)) {
    logprobs = optInt(b, 'top_logprobs', 0) ?? 0;
  }

  const plans: PromptPlan[] = prompts.map((ids, promptIndex) => {
    // Completions default to 16 tokens; chat defaults to what is left of the context.
    const cap = maxTokens ?? (api === 'chat' ? opts.maxModelLen - ids.length : 16);
    contextErrors(opts, ids.length, cap, explicit);
    if (minTokens > cap)
      throw bad(`min_tokens must be less than or equal to max_tokens=${cap}, got ${minTokens}.`, 'min_tokens');
    const info: SimRequestInfo = {
      flavor: opts.flavor,
      path: ctx.path,
      body: ctx.body,
      promptIndex,
      promptTokens: ids.length,
      maxTokens: cap,
      requestId: ctx.requestId,
    };
    const { target, stopsOnEos } = planLength(opts, info, minTokens, ignoreEos);
    const plan: PromptPlan = { ids, hash: hashIds(ids), maxTokens: cap, target, stopsOnEos, rid: '' };
    if (api === 'chat') {
      // A tool call's length is its argument pieces, whatever the output cap.
      const call = planToolCall(opts.flavor, b.tools, b.tool_choice, b.messages);
      if (call) Object.assign(plan, { toolCall: call, target: 1 + call.pieces.length, stopsOnEos: false });
    }
    return plan;
  });

  return {
    api,
    path: ctx.path,
    stream,
    prompts: plans,
    n,
    batched: plans.length > 1,
    ...usage,
    returnTokenIds: opts.flavor === 'vllm' && opts.returnTokenIds && optBool(b, 'return_token_ids', false),
    logprobs,
    tokensAsIds: opts.flavor === 'vllm' && opts.logprobsTokenIds && optBool(b, 'return_tokens_as_token_ids', false),
    returnLogprob: false,
    streamInterval: Math.max(opts.tokensPerChunk, streamIntervalReq ?? 1),
    id: openAiId(ctx, api === 'chat' ? 'chatcmpl-' : 'cmpl-', b),
    model,
    created: Math.floor(Date.now() / 1000),
  };
}

/** SGLang's native /generate. */
export function parseGenerate(ctx: ParseContext): GenRequest {
  const { opts } = ctx;
  const b = asBody(ctx.body);
  const hasText = b.text !== undefined && b.text !== null;
  const hasIds = b.input_ids !== undefined && b.input_ids !== null;
  if (hasText === hasIds) throw bad('Either text or input_ids should be provided.');

  let prompts: number[][];
  let batched: boolean;
  if (hasText) {
    if (typeof b.text === 'string') {
      prompts = [tokenizeText(b.text)];
      batched = false;
    } else if (Array.isArray(b.text) && b.text.length > 0 && b.text.every((t) => typeof t === 'string')) {
      prompts = (b.text as string[]).map(tokenizeText);
      batched = true;
    } else {
      throw bad('text must be a string or a non-empty list of strings', 'text');
    }
  } else if (isIdList(b.input_ids)) {
    prompts = [checkIds(b.input_ids, 'input_ids')];
    batched = false;
  } else if (Array.isArray(b.input_ids) && b.input_ids.length > 0 && b.input_ids.every((x) => isIdList(x))) {
    prompts = (b.input_ids as number[][]).map((ids) => checkIds(ids, 'input_ids'));
    batched = true;
  } else {
    throw bad('input_ids must be a list of token ids or a non-empty list of token-id lists', 'input_ids');
  }

  const sp = b.sampling_params ?? {};
  let perPrompt: Body[];
  if (Array.isArray(sp)) {
    if (sp.length !== prompts.length) throw bad('sampling_params list must match the batch size', 'sampling_params');
    perPrompt = sp.map((s) => asSampling(s));
  } else {
    perPrompt = prompts.map(() => asSampling(sp));
  }

  let rids: string[];
  if (b.rid === undefined || b.rid === null) rids = prompts.map(() => hexId());
  else if (typeof b.rid === 'string') rids = batched ? prompts.map((_, i) => `${b.rid as string}_${i}`) : [b.rid];
  else if (Array.isArray(b.rid) && b.rid.length === prompts.length && b.rid.every((r) => typeof r === 'string')) {
    rids = b.rid as string[];
  } else throw bad('rid must be a string or a list of strings matching the batch', 'rid');

  const plans = prompts.map((ids, promptIndex): PromptPlan => {
    const s = perPrompt[promptIndex]!;
    const explicit = s.max_new_tokens !== undefined && s.max_new_tokens !== null;
    // SGLang's default is 128; the simulator needs at least one token.
    const cap = optInt(s, 'max_new_tokens', 1, 'sampling_params.max_new_tokens') ?? 128;
    contextErrors(opts, ids.length, cap, explicit);
    const minTokens = optInt(s, 'min_new_tokens', 0, 'sampling_params.min_new_tokens') ?? 0;
    const ignoreEos = optBool(s, 'ignore_eos', false);
    const info: SimRequestInfo = {
      flavor: opts.flavor,
      path: ctx.path,
      body: ctx.body,
      promptIndex,
      promptTokens: ids.length,
      maxTokens: cap,
      requestId: ctx.requestId,
    };
    const { target, stopsOnEos } = planLength(opts, info, minTokens, ignoreEos);
    return { ids, hash: hashIds(ids), maxTokens: cap, target, stopsOnEos, rid: rids[promptIndex]! };
  });

  return {
    api: 'generate',
    path: ctx.path,
    stream: optBool(b, 'stream', false),
    prompts: plans,
    n: 1,
    batched,
    includeUsage: false,
    continuousUsage: false,
    returnTokenIds: false,
    logprobs: null,
    tokensAsIds: false,
    returnLogprob: optBool(b, 'return_logprob', false),
    streamInterval: opts.tokensPerChunk,
    id: plans[0]!.rid,
    model: opts.model,
    created: Math.floor(Date.now() / 1000),
  };
}

function asSampling(v: unknown): Body {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw bad('sampling_params must be an object', 'sampling_params');
  return v as Body;
}
