// Finding out what an endpoint is: vLLM, SGLang or another OpenAI-compatible
// server, its version and models, and what its streams carry (token ids or
// not, cumulative or delta output ids). Version numbers are not trusted:
// one tiny request shows what the server actually sends.
import { request } from 'undici';

import { endpointRequestInfo, parseEndpointUrl } from './endpoint-url.js';
import { SseReader, type SseSink } from './sse.js';
import type { Backend, Capabilities, TokenSource, WireApiName } from './types.js';
import { apiPath } from './wire/request-body.js';
import { decodeGenerateChunk } from './wire/generate-chunks.js';
import { decodeOpenAiChunk, errorMessageOf } from './wire/openai-chunks.js';
import { CHUNK_ERROR, CHUNK_MALFORMED, CHUNK_TOKENS, StreamState } from './wire/stream-state.js';

export interface ModelInfo {
  id: string;
  maxModelLen: number | null;
  ownedBy: string | null;
}

export interface ProbeResult {
  url: string;
  healthy: boolean;
  /** Why the endpoint is not usable, when it is not. */
  error: string | null;
  backend: Backend | null;
  version: string | null;
  models: ModelInfo[];
  capabilities: Capabilities | null;
  /** The test request: time to first token and generation rate, harness side. */
  ttftMs: number | null;
  tokensPerSecond: number | null;
}

export interface ProbeOptions {
  /** Skip detection and use this backend. */
  backend?: Backend;
  api?: WireApiName;
  model?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Send the test request (default true). */
  testRequest?: boolean;
}

interface Fetched {
  status: number;
  text: string;
}

async function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Fetched> {
  const res = await request(url, {
    method: 'GET',
    headers,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Health and, when healthy, backend, version, models and capabilities of one endpoint. */
export async function probeEndpoint(given: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const { origin, prefix } = parseEndpointUrl(given);
  // http://user:pw@host: Basic authorization (in place of one in options.headers), the URL shown without it.
  const { url, headers } = endpointRequestInfo(given, options.headers ?? {});
  const timeoutMs = options.timeoutMs ?? 10_000;
  const out: ProbeResult = {
    url,
    healthy: false,
    error: null,
    backend: null,
    version: null,
    models: [],
    capabilities: null,
    ttftMs: null,
    tokensPerSecond: null,
  };
  const base = origin + prefix;
  let health: Fetched;
  try {
    health = await get(`${base}/health`, headers, timeoutMs);
  } catch (err) {
    out.error = describeNetworkError(err);
    return out;
  }
  const [version, serverInfo, models] = await Promise.all([
    get(`${base}/version`, headers, timeoutMs).catch(() => null),
    get(`${base}/get_server_info`, headers, timeoutMs).catch(() => null),
    get(`${base}/v1/models`, headers, timeoutMs).catch(() => null),
  ]);
  const modelList =
    models && models.status === 200 ? (json(models.text) as { data?: unknown[] } | undefined) : undefined;
  for (const m of Array.isArray(modelList?.data) ? modelList.data : []) {
    const o = m as { id?: unknown; max_model_len?: unknown; owned_by?: unknown };
    if (typeof o.id === 'string') {
      out.models.push({
        id: o.id,
        maxModelLen: typeof o.max_model_len === 'number' ? o.max_model_len : null,
        ownedBy: typeof o.owned_by === 'string' ? o.owned_by : null,
      });
    }
  }
  const info =
    serverInfo && serverInfo.status === 200 ? (json(serverInfo.text) as { version?: unknown } | undefined) : undefined;
  const ver = version && version.status === 200 ? (json(version.text) as { version?: unknown } | undefined) : undefined;
  const owner = out.models[0]?.ownedBy;
  let backend: Backend;
  if (options.backend) backend = options.backend;
  else if (owner === 'sglang' || (info && typeof info === 'object' && 'version' in info)) backend = 'sglang';
  else if (owner === 'vllm') backend = 'vllm';
  else backend = 'openai';
  out.backend = backend;
  out.version =
    typeof info?.version === 'string' ? info.version : typeof ver?.version === 'string' ? ver.version : null;

  if (health.status !== 200 && out.models.length === 0) {
    out.error = `GET /health answered ${health.status} and /v1/models gave no model`;
    return out;
  }
  out.healthy = true;
  if (options.testRequest === false) return out;

  const api: WireApiName = options.api ?? (backend === 'sglang' ? 'generate' : 'completions');
  const model = options.model ?? out.models[0]?.id ?? 'default';
  try {
    const test = await testRequest(base, api, backend, model, headers, timeoutMs);
    out.capabilities = test.capabilities;
    out.ttftMs = test.ttftMs;
    out.tokensPerSecond = test.tokensPerSecond;
  } catch (err) {
    out.healthy = false;
    out.error = `test request failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return out;
}

interface TestOutcome {
  capabilities: Capabilities;
  ttftMs: number | null;
  tokensPerSecond: number | null;
}

// A 4-token streamed request asking for ids the ways the backend may give them.
async function testRequest(
  base: string,
  api: WireApiName,
  backend: Backend,
  model: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<TestOutcome> {
  const maxTokens = 4;
  if (api === 'generate') {
    const body = {
      input_ids: [1, 2, 3, 4],
      sampling_params: { max_new_tokens: maxTokens, min_new_tokens: maxTokens, temperature: 0, ignore_eos: true },
      stream: true,
    };
    const r = await streamOnce(`${base}${apiPath(api)}`, body, headers, timeoutMs, (t, s, e, st) =>
      decodeGenerateChunk(t, s, e, st),
    );
    const caps: Capabilities = {
      tokenSource: 'output_ids',
      outputIds: r.state.outputIdsMode === 'delta' ? 'delta' : 'cumulative',
      batchPrompts: true,
    };
    return { capabilities: caps, ttftMs: r.ttftMs, tokensPerSecond: r.tokensPerSecond };
  }
  const chat = api === 'chat';
  const base1: Record<string, unknown> = {
    model,
    max_tokens: maxTokens,
    min_tokens: maxTokens,
    ignore_eos: true,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (chat) base1.messages = [{ role: 'user', content: 'Say hello.' }];
  else base1.prompt = [1, 2, 3, 4];
  // Ask for every id mechanism at once, then see which one answered.
  const body = {
    ...base1,
    return_token_ids: true,
    logprobs: chat ? true : 1,
    ...(chat ? { top_logprobs: 0 } : {}),
    return_tokens_as_token_ids: true,
  };
  const path = `${base}${apiPath(api)}`;
  let ids: Awaited<ReturnType<typeof streamOnce>>;
  try {
    ids = await streamOnce(path, body, headers, timeoutMs, (t, s, e, st) =>
      decodeOpenAiChunk(t, s, e, st, 'token_ids', chat),
    );
  } catch (err) {
    // A strict server may refuse the id fields: counts only, then.
    if (!(err instanceof Error && err.message.startsWith('HTTP 400'))) throw err;
    const plain = await streamOnce(path, base1, headers, timeoutMs, (t, s, e, st) =>
      decodeOpenAiChunk(t, s, e, st, 'none', chat),
    );
    return {
      capabilities: { tokenSource: 'none', batchPrompts: false },
      ttftMs: plain.ttftMs,
      tokensPerSecond: plain.tokensPerSecond,
    };
  }
  let source: TokenSource = 'none';
  let r = ids;
  if (ids.state.tokens.length > 0) source = 'token_ids';
  else {
    const lp = await streamOnce(path, body, headers, timeoutMs, (t, s, e, st) =>
      decodeOpenAiChunk(t, s, e, st, 'logprobs', chat),
    );
    if (lp.state.tokens.length > 0) {
      source = 'logprobs';
      r = lp;
    }
  }
  const caps: Capabilities = { tokenSource: source, batchPrompts: !chat && backend !== 'openai' };
  return { capabilities: caps, ttftMs: r.ttftMs, tokensPerSecond: r.tokensPerSecond };
}

export type Decode = (text: string, s: number, e: number, st: StreamState) => number;

/** One streamed request: its decoded state, TTFT and generation rate (throws on a non-200 answer or an error event). */
export async function streamOnce(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
  decode: Decode,
) {
  const state = new StreamState();
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  let failure: string | null = null;
  const sink: SseSink = {
    onSseData(text, s, e) {
      const r = decode(text, s, e, state);
      if (r === CHUNK_TOKENS) {
        last = performance.now();
        if (!first) first = last;
      } else if (r === CHUNK_ERROR || r === CHUNK_MALFORMED) failure ??= state.error;
    },
    onSseDone() {},
  };
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    throw new Error(`HTTP ${res.statusCode} from ${url}: ${errorMessageOf(json(text)) ?? text.slice(0, 200)}`);
  }
  const reader = new SseReader();
  for await (const chunk of res.body) reader.push(chunk as Buffer, sink);
  reader.end(sink);
  if (failure) throw new Error(failure);
  const n = state.tokenCount;
  return {
    state,
    ttftMs: first ? first - t0 : null,
    tokensPerSecond: first && last > first && n > 1 ? ((n - 1) * 1000) / (last - first) : null,
  };
}

export function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const msg = e.cause?.message ?? e.message ?? String(err);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
}
