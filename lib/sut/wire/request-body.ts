// Request bodies per wire API and backend, built once per sample when the
// QSL loads it (never on the issue path). Every sampling field is sent
// explicitly: both vLLM and SGLang otherwise take defaults from the model's
// generation_config.json.
import { DatasetError, type Prompt } from '../../dataset/types.js';
import type { Backend, Capabilities, SamplingParams, WireApiName } from '../types.js';

export interface BodyContext {
  backend: Backend;
  api: WireApiName;
  model: string;
  capabilities: Capabilities;
  sampling: SamplingParams;
  stream: boolean;
}

export interface BuiltBody {
  body: Buffer;
  /** The prompt's JSON value is body[promptStart, promptEnd): batches splice these. */
  promptStart: number;
  promptEnd: number;
  maxTokens: number;
}

export const DEFAULT_MAX_TOKENS = 128;
const MARK = '\u0000prompt\u0000';
const MARK_JSON = JSON.stringify(MARK);

export function apiPath(api: WireApiName): string {
  return api === 'completions' ? '/v1/completions' : api === 'chat' ? '/v1/chat/completions' : '/generate';
}

function promptValue(prompt: Prompt, api: WireApiName, index: number): unknown {
  const ids = prompt.tokenIds;
  if (api === 'chat') {
    if (prompt.messages && prompt.messages.length > 0) return prompt.messages;
    if (typeof prompt.text === 'string') return [{ role: 'user', content: prompt.text }];
    throw new DatasetError(
      `sample ${index}: the chat API needs a text or messages prompt, and this sample has token ids only`,
      undefined,
      index,
    );
  }
  if (ids && ids.length > 0) return Array.from(ids);
  if (typeof prompt.text === 'string') return prompt.text;
  if (prompt.messages && prompt.messages.length > 0) {
    throw new DatasetError(`sample ${index}: a chat-messages prompt needs the chat API (--api chat)`, undefined, index);
  }
  throw new DatasetError(`sample ${index}: the prompt has neither token ids nor text`, undefined, index);
}

/** The JSON body for one sample. */
export function buildBody(prompt: Prompt, index: number, ctx: BodyContext): BuiltBody {
  // A sample's own output bounds (a trace's lengths) over the run's.
  const sp =
    prompt.minTokens === undefined && prompt.ignoreEos === undefined
      ? ctx.sampling
      : {
          ...ctx.sampling,
          ...(prompt.minTokens !== undefined ? { minTokens: prompt.minTokens } : {}),
          ...(prompt.ignoreEos !== undefined ? { ignoreEos: prompt.ignoreEos } : {}),
        };
  const maxTokens = prompt.maxTokens ?? sp.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new DatasetError(
      `sample ${index}: max tokens must be a positive integer, got ${String(maxTokens)}`,
      undefined,
      index,
    );
  }
  const value = promptValue(prompt, ctx.api, index);
  const o: Record<string, unknown> = {};
  if (ctx.api === 'generate') {
    o[Array.isArray(value) ? 'input_ids' : 'text'] = MARK;
    const s: Record<string, unknown> = { max_new_tokens: maxTokens };
    samplingFields(s, sp, SGLANG_NAMES);
    o.sampling_params = s;
    o.stream = ctx.stream;
  } else {
    o.model = ctx.model;
    o[ctx.api === 'chat' ? 'messages' : 'prompt'] = MARK;
    if (ctx.api === 'chat' && prompt.tools && prompt.tools.length > 0) o.tools = prompt.tools;
    // vLLM's chat prefers max_completion_tokens; SGLang and other servers read max_tokens.
    o[ctx.api === 'chat' && ctx.backend === 'vllm' ? 'max_completion_tokens' : 'max_tokens'] = maxTokens;
    openAiSamplingFields(o, sp);
    o.stream = ctx.stream;
    if (ctx.stream) {
      // Usage gives the server's own token count; without ids, per-chunk usage gives per-chunk counts.
      o.stream_options =
        ctx.capabilities.tokenSource === 'none'
          ? { include_usage: true, continuous_usage_stats: true }
          : { include_usage: true };
    }
    if (ctx.capabilities.tokenSource === 'token_ids') o.return_token_ids = true;
    if (ctx.capabilities.tokenSource === 'logprobs') {
      o.logprobs = ctx.api === 'chat' ? true : 1;
      if (ctx.api === 'chat') o.top_logprobs = 0;
      o.return_tokens_as_token_ids = true;
    }
  }
  if (sp.extraBody) Object.assign(o, sp.extraBody);
  const text = JSON.stringify(o);
  const at = text.indexOf(MARK_JSON);
  const promptJson = JSON.stringify(value);
  const full = text.slice(0, at) + promptJson + text.slice(at + MARK_JSON.length);
  const head = Buffer.byteLength(text.slice(0, at));
  const body = Buffer.from(full);
  return { body, promptStart: head, promptEnd: head + Buffer.byteLength(promptJson), maxTokens };
}

type SamplingField = 'minTokens' | 'ignoreEos' | 'temperature' | 'topP' | 'topK' | 'seed';

/** Request field names of the sampling parameters (max tokens is placed by the caller). */
const OPENAI_NAMES: Record<SamplingField, string> = {
  minTokens: 'min_tokens',
  ignoreEos: 'ignore_eos',
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  seed: 'seed',
};
/** SGLang's /generate `sampling_params`. */
const SGLANG_NAMES: Record<SamplingField, string> = {
  ...OPENAI_NAMES,
  minTokens: 'min_new_tokens',
  seed: 'sampling_seed',
};
const SAMPLING_FIELDS = Object.keys(OPENAI_NAMES) as SamplingField[];

function samplingFields(o: Record<string, unknown>, sp: SamplingParams, names: Record<SamplingField, string>): void {
  for (const f of SAMPLING_FIELDS) if (sp[f] !== undefined) o[names[f]] = sp[f];
}

/** The sampling fields of an OpenAI-style request (completions or chat), each only when set. */
export function openAiSamplingFields(o: Record<string, unknown>, sp: SamplingParams): void {
  samplingFields(o, sp, OPENAI_NAMES);
}

/**
 * One request for several samples (Offline batching): the first body with
 * its prompt replaced by the list of all prompts. All samples must share the
 * same non-prompt fields (same max tokens).
 */
export function buildBatchBody(bodies: readonly { body: Buffer; promptStart: number; promptEnd: number }[]): Buffer {
  const first = bodies[0];
  const parts: Buffer[] = [first.body.subarray(0, first.promptStart), Buffer.from('[')];
  for (let i = 0; i < bodies.length; i++) {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(bodies[i].body.subarray(bodies[i].promptStart, bodies[i].promptEnd));
  }
  parts.push(Buffer.from(']'), first.body.subarray(first.promptEnd));
  return Buffer.concat(parts);
}
