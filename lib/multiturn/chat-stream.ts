// One streamed /v1/chat/completions request of a live conversation, through
// undici, read with the adapters' SSE reader. Unlike the adapters' hot path
// it keeps what the model said (text and tool calls), because the next
// request of the conversation is built from it. Tool calls arrive as deltas
// keyed by `index` (vLLM: id, type and name in the first delta, argument
// text after; SGLang likewise, with nulls in the fields it does not set).
import { request, type Dispatcher } from 'undici';

import { describeNetworkError } from '../sut/probe.js';
import { SseReader, type SseSink } from '../sut/sse.js';
import { utf8Of } from '../sut/json-scan.js';
import { errorMessageOf } from '../sut/wire/openai-chunks.js';
import type { RawToolCall } from './tools.js';

export interface ChatRequestResult {
  ok: boolean;
  error?: string;
  /** process.hrtime ns: request sent, first generated token (text or tool-call delta; NaN if none), end. */
  sentNs: number;
  firstTokenNs: number;
  endNs: number;
  text: string;
  toolCalls: RawToolCall[];
  finishReason: string | null;
  /** The server's counts (usage), or -1 when it sent none. */
  completionTokens: number;
  promptTokens: number;
  /** Chunks that carried text or tool-call deltas. */
  tokenChunks: number;
}

export interface ChatRequestOptions {
  dispatcher: Dispatcher;
  /** Full URL of the chat route. */
  url: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Called once, at the first generated token. */
  onFirstToken?: () => void;
}

const now = (): number => Number(process.hrtime.bigint());

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class ChatSink implements SseSink {
  text = '';
  calls: { id: string; name: string; arguments: string }[] = [];
  finish: string | null = null;
  completion = -1;
  prompt = -1;
  done = false;
  error: string | null = null;
  tokenChunks = 0;
  firstNs = NaN;

  constructor(private readonly onFirst: (() => void) | undefined) {}

  onSseData(s: string, a: number, e: number): void {
    if (this.error !== null) return;
    let ev: unknown;
    try {
      ev = JSON.parse(utf8Of(s, a, e));
    } catch {
      this.error = `malformed stream chunk: ${JSON.stringify(utf8Of(s, a, Math.min(e, a + 120)))}`;
      return;
    }
    if (!isObj(ev)) return;
    if (ev.error !== undefined && ev.error !== null) {
      this.error = errorMessageOf(ev) ?? 'error event';
      return;
    }
    if (ev.object === 'error') {
      this.error = errorMessageOf(ev) ?? 'error event';
      return;
    }
    if (isObj(ev.usage)) {
      if (typeof ev.usage.completion_tokens === 'number') this.completion = ev.usage.completion_tokens;
      if (typeof ev.usage.prompt_tokens === 'number') this.prompt = ev.usage.prompt_tokens;
    }
    const choice = Array.isArray(ev.choices) ? ev.choices[0] : undefined;
    if (!isObj(choice)) return;
    if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    const delta = isObj(choice.delta) ? choice.delta : {};
    let carried = false;
    for (const key of ['content', 'reasoning_content', 'reasoning']) {
      const v = delta[key];
      if (typeof v === 'string' && v !== '') {
        if (key === 'content') this.text += v;
        carried = true;
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (!isObj(tc)) continue;
        const i = typeof tc.index === 'number' ? tc.index : this.calls.length;
        const call = (this.calls[i] ??= { id: '', name: '', arguments: '' });
        if (typeof tc.id === 'string') call.id = tc.id;
        const fn = isObj(tc.function) ? tc.function : {};
        if (typeof fn.name === 'string' && fn.name !== '') call.name = fn.name;
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
        carried = true;
      }
    }
    if (carried) {
      this.tokenChunks++;
      if (Number.isNaN(this.firstNs)) {
        this.firstNs = now();
        this.onFirst?.();
      }
    }
  }

  onSseDone(): void {
    this.done = true;
  }
}

/** Sends one streamed chat request; never throws (failures come back with ok: false). */
export async function streamChat(o: ChatRequestOptions): Promise<ChatRequestResult> {
  const sink = new ChatSink(o.onFirstToken);
  const sentNs = now();
  const result = (error?: string): ChatRequestResult => ({
    ok: error === undefined,
    ...(error !== undefined ? { error } : {}),
    sentNs,
    firstTokenNs: sink.firstNs,
    endNs: now(),
    text: sink.text,
    toolCalls: sink.calls
      .filter(Boolean)
      .map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments })),
    finishReason: sink.finish,
    completionTokens: sink.completion,
    promptTokens: sink.prompt,
    tokenChunks: sink.tokenChunks,
  });
  try {
    const res = await request(o.url, {
      method: 'POST',
      dispatcher: o.dispatcher,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...o.headers },
      body: JSON.stringify(o.body),
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      let msg: string | null = null;
      try {
        msg = errorMessageOf(JSON.parse(text));
      } catch {
        msg = null;
      }
      return result(`HTTP ${res.statusCode}${msg ? `: ${msg}` : ''}`);
    }
    const reader = new SseReader();
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      reader.push(chunk, sink);
      if (sink.error !== null) {
        res.body.destroy();
        return result(sink.error);
      }
    }
    reader.end(sink);
    if (sink.error !== null) return result(sink.error);
    if (!sink.done) return result('the stream ended before [DONE]');
    return result();
  } catch (err) {
    return result(describeNetworkError(err));
  }
}
