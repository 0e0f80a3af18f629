// The exact JSON shapes each server writes, per flavour and route. Objects
// are built in the servers' field order and serialised with JSON.stringify
// (compact, like pydantic's model_dump_json).
//
// vLLM streams follow its exclude_unset serialisation: fields it never sets
// are absent (token_ids only with return_token_ids, prompt_token_ids on the
// first chunk of a choice, usage only with continuous_usage_stats). SGLang
// serialises intermediate chunks without exclude_none, so "usage":null,
// "logprobs":null and "matched_stop":null are present on every chunk; its
// final usage chunk drops the nulls.
import type { Sequence } from './engine.js';
import type { ResolvedOptions } from './options.js';
import type { GenRequest, PromptPlan } from './requests.js';
import { tokenLogprob, tokenPiece, tokenText } from './tokens.js';

/** One output stream of a request: prompt x sample. */
export interface Choice {
  /** OpenAI choice index (prompt_idx * n + sample) or /generate batch index. */
  index: number;
  prompt: PromptPlan;
  seq: Sequence;
  /** Generated tokens already written to the client. */
  sent: number;
  /** Characters of text already written (logprobs text_offset; SGLang delta text). */
  textSent: number;
  /** Chat: the role-only chunk was written. */
  roleSent: boolean;
  /** The 'retract-first-token' fault took this choice's tokens back once. */
  retracted?: boolean;
}

interface UsageCounts {
  prompt: number;
  completion: number;
}

export function sseEvent(payload: object | string): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

export class Wire {
  private readonly vllm: boolean;

  constructor(
    private readonly opts: ResolvedOptions,
    private readonly req: GenRequest,
  ) {
    this.vllm = opts.flavor === 'vllm';
  }

  text(ids: readonly number[]): string {
    let s = '';
    for (const id of ids) s += tokenText(id, this.opts.eosTokenId);
    return s;
  }

  private finishReason(c: Choice, last: boolean): string | null {
    return last ? c.seq.finishReason : null;
  }

  /** vLLM stop_reason: the matched stop string/token, null for EOS and length. SGLang matched_stop: the EOS id. */
  private matchedStop(c: Choice, last: boolean): number | null {
    return last && c.seq.finishReason === 'stop' ? this.opts.eosTokenId : null;
  }

  private usage(u: UsageCounts, withDetailsNull: boolean): object {
    const out: Record<string, unknown> = {
      prompt_tokens: u.prompt,
      total_tokens: u.prompt + u.completion,
      completion_tokens: u.completion,
    };
    if (withDetailsNull) out.prompt_tokens_details = null;
    return out;
  }

  private completionLogprobs(ids: readonly number[], textOffset: number): object {
    const eos = this.opts.eosTokenId;
    const offsets: number[] = [];
    const lps: number[] = [];
    const tokens: string[] = [];
    const tops: Array<Record<string, number>> = [];
    let off = textOffset;
    for (const id of ids) {
      const piece = this.req.tokensAsIds ? `token_id:${id}` : tokenPiece(id, eos);
      offsets.push(off);
      off += tokenText(id, eos).length;
      lps.push(tokenLogprob(id));
      tokens.push(piece);
      tops.push({ [piece]: tokenLogprob(id) });
    }
    return { text_offset: offsets, token_logprobs: lps, tokens, top_logprobs: tops };
  }

  private chatLogprobs(ids: readonly number[]): object {
    const eos = this.opts.eosTokenId;
    const k = this.req.logprobs ?? 0;
    return {
      content: ids.map((id) => {
        const token = this.req.tokensAsIds ? `token_id:${id}` : tokenPiece(id, eos);
        const entry = { token, logprob: tokenLogprob(id), bytes: [...Buffer.from(token, 'utf8')] };
        return { ...entry, top_logprobs: k > 0 ? [entry] : [] };
      }),
    };
  }

  private chunkHead(object: string): Record<string, unknown> {
    return { id: this.req.id, object, created: this.req.created, model: this.req.model };
  }

  // ---------------------------------------------------------------- streams

  /** A /v1/completions chunk carrying `ids` (the choice's tokens [from, from+ids.length)). */
  completionChunk(c: Choice, ids: readonly number[], last: boolean, usage: UsageCounts | null): string {
    const text = this.text(ids);
    const logprobs = this.req.logprobs !== null ? this.completionLogprobs(ids, c.textSent) : null;
    const head = this.chunkHead('text_completion');
    if (this.vllm) {
      const choice: Record<string, unknown> = {
        index: c.index,
        text,
        logprobs,
        finish_reason: this.finishReason(c, last),
        stop_reason: null,
      };
      // Serialised without exclude_unset: unset fields are written as null
      // (the token-id fields exist only on servers that know return_token_ids).
      if (this.opts.returnTokenIds) {
        const want = this.req.returnTokenIds;
        choice.prompt_token_ids = want && c.sent === 0 ? c.prompt.ids : null;
        choice.token_ids = want ? ids : null;
      }
      head.choices = [choice];
      head.usage = usage ? this.usage(usage, false) : null;
    } else {
      head.choices = [
        {
          index: c.index,
          text,
          logprobs,
          finish_reason: this.finishReason(c, last),
          matched_stop: this.matchedStop(c, last),
        },
      ];
      head.usage = usage ? this.usage(usage, true) : null;
    }
    return sseEvent(head);
  }

  /**
   * The end of a vLLM chat choice: finish_reason (stop_reason on the last
   * chunk) then token_ids, as vLLM writes them, or token_ids first
   * (finishAfterTokenIds) for a server that orders them the other way.
   */
  private chatTail(
    choice: Record<string, unknown>,
    last: boolean,
    finish: string | null,
    ids: readonly number[],
  ): void {
    const withIds = this.req.returnTokenIds;
    if (this.opts.finishAfterTokenIds && withIds) choice.token_ids = ids;
    choice.finish_reason = finish;
    if (last) choice.stop_reason = null;
    if (!this.opts.finishAfterTokenIds && withIds) choice.token_ids = ids;
  }

  /** The role-only first chunk of a chat choice. */
  chatRoleChunk(c: Choice, firstEver: boolean, usage: UsageCounts | null): string {
    const head = this.chunkHead('chat.completion.chunk');
    const delta = { role: 'assistant', content: '' };
    if (this.vllm) {
      head.choices = [{ index: c.index, delta, logprobs: null, finish_reason: null }];
      if (usage) head.usage = this.usage(usage, false);
      // vLLM puts prompt_token_ids on the root of the first chunk ever.
      if (this.req.returnTokenIds && firstEver) head.prompt_token_ids = c.prompt.ids;
    } else {
      head.choices = [{ index: c.index, delta, logprobs: null, finish_reason: null, matched_stop: null }];
      head.usage = usage ? this.usage(usage, true) : null;
    }
    return sseEvent(head);
  }

  chatChunk(c: Choice, ids: readonly number[], last: boolean, usage: UsageCounts | null): string {
    const head = this.chunkHead('chat.completion.chunk');
    const delta = { content: this.text(ids) };
    const logprobs = this.req.logprobs !== null ? this.chatLogprobs(ids) : null;
    if (this.vllm) {
      const choice: Record<string, unknown> = { index: c.index, delta, logprobs };
      this.chatTail(choice, last, this.finishReason(c, last), ids);
      head.choices = [choice];
      if (usage) head.usage = this.usage(usage, false);
    } else {
      head.choices = [
        {
          index: c.index,
          delta,
          logprobs,
          finish_reason: this.finishReason(c, last),
          matched_stop: this.matchedStop(c, last),
        },
      ];
      head.usage = usage ? this.usage(usage, true) : null;
    }
    return sseEvent(head);
  }

  /**
   * A chat chunk of a tool-calling choice carrying its tokens [from, upTo):
   * token 0 opens the call (id, type, name), every later token streams a
   * piece of the arguments' JSON text; the last chunk says 'tool_calls'.
   * vLLM serialises the deltas without unset fields; SGLang's keep their
   * nulls (its ToolCall/FunctionResponse models).
   */
  chatToolChunk(c: Choice, from: number, upTo: number, last: boolean, usage: UsageCounts | null): string {
    const call = c.prompt.toolCall!;
    const args = call.pieces.slice(Math.max(0, from - 1), Math.max(0, upTo - 1)).join('');
    const head = this.chunkHead('chat.completion.chunk');
    const finish = last ? 'tool_calls' : null;
    if (this.vllm) {
      const fn: Record<string, unknown> = from === 0 ? { name: call.name } : {};
      if (from > 0 || args !== '') fn.arguments = args;
      const tc = from === 0 ? { id: call.id, type: 'function', index: 0, function: fn } : { index: 0, function: fn };
      const choice: Record<string, unknown> = { index: c.index, delta: { tool_calls: [tc] }, logprobs: null };
      this.chatTail(choice, last, finish, c.seq.ids.slice(from, upTo));
      head.choices = [choice];
      if (usage) head.usage = this.usage(usage, false);
    } else {
      const tc = {
        id: from === 0 ? call.id : null,
        index: 0,
        type: 'function',
        function: { name: from === 0 ? call.name : null, arguments: args },
      };
      const delta = { role: null, content: null, reasoning_content: null, tool_calls: [tc] };
      head.choices = [{ index: c.index, delta, logprobs: null, finish_reason: finish, matched_stop: null }];
      head.usage = usage ? this.usage(usage, true) : null;
    }
    return sseEvent(head);
  }

  /** The usage-only chunk before [DONE] (choices: []). */
  usageChunk(u: UsageCounts): string {
    const head = this.chunkHead(this.req.api === 'chat' ? 'chat.completion.chunk' : 'text_completion');
    head.choices = [];
    head.usage = this.usage(u, false);
    return sseEvent(head);
  }

  private generateMeta(
    c: Choice,
    upTo: number,
    last: boolean,
    from: number,
    e2eNs: number | null,
  ): Record<string, unknown> {
    const seq = c.seq;
    let finish: object | null = null;
    if (last) {
      finish =
        seq.finishReason === 'stop'
          ? { type: 'stop', matched: this.opts.eosTokenId }
          : { type: 'length', length: upTo };
    }
    const meta: Record<string, unknown> = {
      id: c.prompt.rid,
      finish_reason: finish,
      prompt_tokens: c.prompt.ids.length,
      completion_tokens: upTo,
      cached_tokens: 0,
    };
    if (this.req.returnLogprob) {
      meta.output_token_logprobs = seq.ids.slice(from, upTo).map((id) => [tokenLogprob(id), id, null]);
    }
    if (e2eNs !== null) meta.e2e_latency = e2eNs / 1e9;
    return meta;
  }

  /**
   * A /generate stream chunk. Cumulative mode: text and output_ids hold
   * everything so far; delta mode: only what is new in this chunk.
   */
  generateChunk(c: Choice, upTo: number, last: boolean): string {
    const delta = this.opts.sglangOutputIds === 'delta';
    const from = delta ? c.sent : 0;
    const ids = c.seq.ids.slice(from, upTo);
    const text = this.text(ids);
    if (!delta && !last) {
      // outputIdsAhead: the ids the engine will have appended by the time
      // SGLang serialises its live list (never beyond the sequence's end).
      const seq = c.seq;
      const end = Math.min(seq.target, upTo + this.opts.outputIdsAhead);
      for (let pos = upTo; pos < end; pos++)
        ids.push(pos + 1 >= seq.target && seq.stopsOnEos ? this.opts.eosTokenId : seq.idAt(pos));
    }
    const out: Record<string, unknown> = {
      text,
      output_ids: ids,
      meta_info: this.generateMeta(c, upTo, last, from, null),
    };
    if (this.req.batched) out.index = c.index;
    return sseEvent(out);
  }

  /** A /generate chunk that takes back every token sent so far (completion_tokens 0). */
  generateRetraction(c: Choice): string {
    const out: Record<string, unknown> = {
      text: '',
      output_ids: [],
      meta_info: this.generateMeta(c, 0, false, 0, null),
    };
    if (this.req.batched) out.index = c.index;
    return sseEvent(out);
  }

  // ------------------------------------------------------------ non-stream

  nonStreamBody(choices: readonly Choice[], e2eNs: number): unknown {
    const req = this.req;
    if (req.api === 'generate') {
      const items = choices.map((c) => ({
        text: this.text(c.seq.ids),
        output_ids: c.seq.ids,
        meta_info: this.generateMeta(c, c.seq.ids.length, true, 0, e2eNs),
      }));
      return req.batched ? items : items[0];
    }
    let promptTotal = 0;
    for (const p of req.prompts) promptTotal += p.ids.length;
    let completion = 0;
    for (const c of choices) completion += c.seq.ids.length;
    const usage = this.usage({ prompt: promptTotal, completion }, true);

    if (req.api === 'completions') {
      const out = this.chunkHead('text_completion');
      out.choices = choices.map((c) => {
        const ids = c.seq.ids;
        const logprobs = req.logprobs !== null ? this.completionLogprobs(ids, 0) : null;
        if (this.vllm) {
          const choice: Record<string, unknown> = {
            index: c.index,
            text: this.text(ids),
            logprobs,
            finish_reason: c.seq.finishReason,
            stop_reason: null,
            prompt_logprobs: null,
          };
          if (this.opts.returnTokenIds) {
            choice.token_ids = req.returnTokenIds ? ids : null;
            choice.prompt_token_ids = req.returnTokenIds ? c.prompt.ids : null;
          }
          return choice;
        }
        return {
          index: c.index,
          text: this.text(ids),
          logprobs,
          finish_reason: c.seq.finishReason,
          matched_stop: this.matchedStop(c, true),
        };
      });
      if (this.vllm) {
        out.service_tier = null;
        out.system_fingerprint = null;
      }
      out.usage = usage;
      if (this.vllm) out.kv_transfer_params = null;
      return out;
    }

    // chat
    const out = this.chunkHead('chat.completion');
    out.choices = choices.map((c) => {
      const ids = c.seq.ids;
      const logprobs = req.logprobs !== null ? this.chatLogprobs(ids) : null;
      const call = c.prompt.toolCall;
      if (call) {
        // A tool call answers with no content and finish_reason 'tool_calls'.
        const toolCalls = [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }];
        const message = this.vllm
          ? {
              role: 'assistant',
              content: null,
              refusal: null,
              annotations: null,
              audio: null,
              function_call: null,
              tool_calls: toolCalls,
              reasoning_content: null,
            }
          : {
              role: 'assistant',
              content: null,
              reasoning_content: null,
              tool_calls: toolCalls.map((t) => ({ ...t, index: 0 })),
            };
        return this.vllm
          ? { index: c.index, message, logprobs: null, finish_reason: 'tool_calls', stop_reason: null }
          : { index: c.index, message, logprobs: null, finish_reason: 'tool_calls', matched_stop: null };
      }
      if (this.vllm) {
        const choice: Record<string, unknown> = {
          index: c.index,
          message: {
            role: 'assistant',
            content: this.text(ids),
            refusal: null,
            annotations: null,
            audio: null,
            function_call: null,
            tool_calls: [],
            reasoning_content: null,
          },
          logprobs,
          finish_reason: c.seq.finishReason,
          stop_reason: null,
        };
        if (this.opts.returnTokenIds) choice.token_ids = req.returnTokenIds ? ids : null;
        return choice;
      }
      return {
        index: c.index,
        message: { role: 'assistant', content: this.text(ids), reasoning_content: null, tool_calls: null },
        logprobs,
        finish_reason: c.seq.finishReason,
        matched_stop: this.matchedStop(c, true),
      };
    });
    if (this.vllm) {
      out.service_tier = null;
      out.system_fingerprint = null;
    }
    out.usage = usage;
    if (this.vllm) {
      out.prompt_logprobs = null;
      if (this.opts.returnTokenIds) out.prompt_token_ids = req.returnTokenIds ? (choices[0]?.prompt.ids ?? null) : null;
      out.kv_transfer_params = null;
    }
    return out;
  }
}
