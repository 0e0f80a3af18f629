// Exact wire shapes of the vLLM-flavoured simulator.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { startSimulator, type Simulator } from '../../lib/sim/index.js';
import { hashIds, tokenizeText } from '../../lib/sim/tokens.js';
import { httpCall, post, sseData, sseJson, tokenIdChunks } from './helpers.js';

const expectedIds = (prompt: number[], n: number): number[] =>
  Array.from({ length: n }, (_, pos) => 1000 + ((hashIds(prompt) + 7 * pos) % 30000));

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ flavor: 'vllm', model: 'm1', maxModelLen: 64 });
});
afterAll(async () => {
  await sim.close();
});

describe('vLLM /v1/completions streaming', () => {
  test('chunk shape: pydantic-compact JSON without exclude_unset (unset fields null), one token per chunk, [DONE]', async () => {
    const r = await post(sim.url, '/v1/completions', { model: 'm1', prompt: [5, 6, 7], max_tokens: 3, stream: true });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(r.headers['transfer-encoding']).toBe('chunked');
    // Every event is exactly `data: <json>\n\n`, and the stream ends with [DONE].
    expect(r.body.endsWith('data: [DONE]\n\n')).toBe(true);
    const data = sseData(r.body);
    for (const d of data) expect(d).not.toMatch(/":\s|,\s"/);
    expect(data.at(-1)).toBe('[DONE]');
    expect(data).toHaveLength(4);
    const ids = expectedIds([5, 6, 7], 3);
    const chunks = sseJson(r.body);
    chunks.forEach((c, i) => {
      expect(Object.keys(c)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
      expect(c.usage).toBeNull();
      expect(c.id).toMatch(/^cmpl-[0-9a-f]{32}$/);
      expect(c.object).toBe('text_completion');
      expect(c.model).toBe('m1');
      expect(Number.isInteger(c.created)).toBe(true);
      expect(c.choices).toHaveLength(1);
      const last = i === 2;
      expect(c.choices[0]).toEqual({
        index: 0,
        text: ` t${ids[i]}`,
        logprobs: null,
        finish_reason: last ? 'length' : null,
        stop_reason: null,
        prompt_token_ids: null,
        token_ids: null,
      });
      // vLLM's field order (completion/protocol.py), nulls included.
      expect(Object.keys(c.choices[0])).toEqual([
        'index',
        'text',
        'logprobs',
        'finish_reason',
        'stop_reason',
        'prompt_token_ids',
        'token_ids',
      ]);
    });
    // The same id on every chunk, and JSON without spaces (like model_dump_json).
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(data[0]).toBe(JSON.stringify(chunks[0]));
  });

  test('return_token_ids: delta token_ids per chunk, prompt_token_ids on the first chunk only', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [9, 8],
      max_tokens: 4,
      stream: true,
      return_token_ids: true,
    });
    const chunks = sseJson(r.body);
    expect(chunks[0]!.choices[0].prompt_token_ids).toEqual([9, 8]);
    for (const c of chunks.slice(1)) expect(c.choices[0].prompt_token_ids).toBeNull();
    expect(tokenIdChunks(r.body)).toEqual(expectedIds([9, 8], 4).map((id) => [id]));
  });

  test('text prompts get a BOS and one token per word', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: 'hello big world',
      max_tokens: 1,
      stream: true,
      return_token_ids: true,
    });
    const first = sseJson(r.body)[0]!;
    expect(first.choices[0].prompt_token_ids).toEqual(tokenizeText('hello big world'));
    expect(first.choices[0].prompt_token_ids).toHaveLength(4);
    expect(first.choices[0].prompt_token_ids[0]).toBe(1);
  });

  test('stream_options {} turns usage on (vLLM default include_usage=true): final usage-only chunk', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [1, 2, 3],
      max_tokens: 2,
      stream: true,
      stream_options: {},
    });
    const events = sseJson(r.body);
    const usage = events.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 3, total_tokens: 5, completion_tokens: 2 });
    expect(Object.keys(usage.usage)).toEqual(['prompt_tokens', 'total_tokens', 'completion_tokens']);
    // Content chunks carry no usage without continuous_usage_stats.
    for (const e of events.slice(0, -1)) expect(e.usage).toBeNull();
    expect(sseData(r.body).at(-1)).toBe('[DONE]');
  });

  test('include_usage=false: no usage chunk at all', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [1, 2, 3],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: false, continuous_usage_stats: true },
    });
    for (const e of sseJson(r.body)) {
      expect(e.usage).toBeNull();
      expect(e.choices.length).toBe(1);
    }
  });

  test('continuous_usage_stats: running completion_tokens on every chunk', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [4, 4],
      max_tokens: 3,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
    const events = sseJson(r.body);
    expect(events.map((e) => e.usage.completion_tokens)).toEqual([1, 2, 3, 3]);
    expect(events[1]!.usage).toEqual({ prompt_tokens: 2, total_tokens: 4, completion_tokens: 2 });
  });

  test('batched prompts (int[][]): choice index per prompt, usage summed', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [
        [10, 11],
        [12, 13, 14],
      ],
      max_tokens: 2,
      stream: true,
      return_token_ids: true,
      stream_options: { include_usage: true },
    });
    const events = sseJson(r.body);
    const byIndex = new Map<number, number[]>();
    for (const e of events.filter((x) => x.choices.length > 0)) {
      const c = e.choices[0];
      byIndex.set(c.index, [...(byIndex.get(c.index) ?? []), ...c.token_ids]);
    }
    expect(byIndex.get(0)).toEqual(expectedIds([10, 11], 2));
    expect(byIndex.get(1)).toEqual(expectedIds([12, 13, 14], 2));
    expect(events.at(-1)!.usage).toEqual({ prompt_tokens: 5, total_tokens: 9, completion_tokens: 4 });
  });

  test('batched text prompts (str[]) work too', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: ['a b', 'c'], max_tokens: 1 });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body.choices.map((c: any) => c.index)).toEqual([0, 1]);
    expect(body.usage.prompt_tokens).toBe(3 + 2);
  });

  test('logprobs + return_tokens_as_token_ids: tokens are "token_id:<id>"', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [3, 3],
      max_tokens: 2,
      stream: true,
      logprobs: 1,
      return_tokens_as_token_ids: true,
    });
    const ids = expectedIds([3, 3], 2);
    const lps = sseJson(r.body).map((e) => e.choices[0].logprobs);
    expect(lps.map((l) => l.tokens)).toEqual(ids.map((id) => [`token_id:${id}`]));
    expect(Object.keys(lps[0])).toEqual(['text_offset', 'token_logprobs', 'tokens', 'top_logprobs']);
    expect(lps[1].text_offset).toEqual([` t${ids[0]}`.length]);
  });

  test('x-request-id becomes the response id', async () => {
    const r = await post(
      sim.url,
      '/v1/completions',
      { prompt: [1, 2], max_tokens: 1 },
      { headers: { 'x-request-id': 'abc-123' } },
    );
    expect(JSON.parse(r.body).id).toBe('cmpl-abc-123');
  });
});

describe('vLLM /v1/completions non-streaming', () => {
  test('response shape with and without return_token_ids', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: [7, 7, 7], max_tokens: 2, return_token_ids: true });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const body = JSON.parse(r.body);
    const ids = expectedIds([7, 7, 7], 2);
    expect(body).toMatchObject({ object: 'text_completion', model: 'm1' });
    expect(body.choices[0]).toEqual({
      index: 0,
      text: ids.map((id) => ` t${id}`).join(''),
      logprobs: null,
      finish_reason: 'length',
      stop_reason: null,
      prompt_logprobs: null,
      token_ids: ids,
      prompt_token_ids: [7, 7, 7],
    });
    expect(body.usage).toEqual({
      prompt_tokens: 3,
      total_tokens: 5,
      completion_tokens: 2,
      prompt_tokens_details: null,
    });

    const plain = JSON.parse((await post(sim.url, '/v1/completions', { prompt: [7, 7, 7], max_tokens: 2 })).body);
    expect(plain.choices[0].token_ids).toBeNull();
    expect(plain.choices[0].prompt_token_ids).toBeNull();
  });

  test('max_tokens defaults to 16', async () => {
    const body = JSON.parse((await post(sim.url, '/v1/completions', { prompt: [1] })).body);
    expect(body.usage.completion_tokens).toBe(16);
  });
});

describe('vLLM /v1/chat/completions', () => {
  const messages = [{ role: 'user', content: 'hi there' }];

  test('stream: role-only first chunk, then content deltas with token_ids; prompt_token_ids on the first chunk root', async () => {
    const r = await post(sim.url, '/v1/chat/completions', {
      messages,
      max_completion_tokens: 3,
      stream: true,
      return_token_ids: true,
    });
    expect(r.status).toBe(200);
    const events = sseJson(r.body);
    expect(events).toHaveLength(4);
    const role = events[0]!;
    expect(role.object).toBe('chat.completion.chunk');
    expect(role.id).toMatch(/^chatcmpl-/);
    expect(role.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
    expect(Array.isArray(role.prompt_token_ids)).toBe(true);
    const deltas = events.slice(1);
    expect(deltas.map((e) => e.choices[0].token_ids.length)).toEqual([1, 1, 1]);
    expect(deltas[0]!.choices[0]).toEqual({
      index: 0,
      delta: { content: ` t${deltas[0]!.choices[0].token_ids[0]}` },
      logprobs: null,
      finish_reason: null,
      token_ids: deltas[0]!.choices[0].token_ids,
    });
    expect(deltas[2]!.choices[0].finish_reason).toBe('length');
    expect(deltas[2]!.choices[0].stop_reason).toBeNull();
    for (const e of deltas) expect('prompt_token_ids' in e).toBe(false);
  });

  test('the role chunk and the first content chunk arrive in the same write', async () => {
    const r = await post(sim.url, '/v1/chat/completions', { messages, max_tokens: 2, stream: true });
    expect(r.reads[0]!.text.split('\n\n').filter(Boolean).length).toBeGreaterThanOrEqual(2);
  });

  test('max_tokens (deprecated) works; no cap means the rest of the context', async () => {
    const a = JSON.parse((await post(sim.url, '/v1/chat/completions', { messages, max_tokens: 2 })).body);
    expect(a.usage.completion_tokens).toBe(2);
    const b = JSON.parse((await post(sim.url, '/v1/chat/completions', { messages })).body);
    expect(b.usage.completion_tokens).toBe(64 - b.usage.prompt_tokens);
    expect(b.choices[0].finish_reason).toBe('length');
  });

  test('non-stream shape', async () => {
    const body = JSON.parse(
      (await post(sim.url, '/v1/chat/completions', { messages, max_completion_tokens: 2, return_token_ids: true }))
        .body,
    );
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.role).toBe('assistant');
    expect(body.choices[0].message.content).toMatch(/^ t\d+ t\d+$/);
    expect(body.choices[0].token_ids).toHaveLength(2);
    expect(Array.isArray(body.prompt_token_ids)).toBe(true);
  });

  test('chat logprobs with token ids', async () => {
    const r = await post(sim.url, '/v1/chat/completions', {
      messages,
      max_completion_tokens: 1,
      stream: true,
      logprobs: true,
      return_tokens_as_token_ids: true,
    });
    const content = sseJson(r.body)[1]!.choices[0].logprobs.content;
    expect(content).toHaveLength(1);
    expect(content[0].token).toMatch(/^token_id:\d+$/);
  });
});

describe('vLLM errors and info routes', () => {
  test('prompt + max_tokens > max_model_len: 400 with vLLM wording, nested error shape', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: [1, 2, 3, 4], max_tokens: 61 });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({
      message:
        "'max_tokens' or 'max_completion_tokens' is too large: 61. This model's maximum context length is 64 tokens and your request has 4 input tokens (61 > 64 - 4).",
      type: 'BadRequestError',
      param: 'max_tokens',
      code: 400,
    });
  });

  test('a streaming request that fails validation gets JSON, not SSE', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: [1, 2, 3, 4], max_tokens: 100, stream: true });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/json');
  });

  test('prompt too long', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: Array.from({ length: 64 }, () => 5), max_tokens: 1 });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.message).toMatch(
      /maximum context length is 64 tokens\. However, your request has 64 input tokens/,
    );
  });

  test('stream_options without stream: 400', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [1],
      max_tokens: 1,
      stream_options: { include_usage: true },
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.param).toBe('stream_options');
  });

  test('unknown model: 404 NotFoundError', async () => {
    const r = await post(sim.url, '/v1/completions', { model: 'nope', prompt: [1], max_tokens: 1 });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).error).toMatchObject({
      message: 'The model `nope` does not exist.',
      type: 'NotFoundError',
      code: 404,
    });
  });

  test('bad inputs: 400 in the nested shape; unknown fields are ignored', async () => {
    for (const body of [
      { prompt: [] },
      { prompt: [-1] },
      { prompt: [1], max_tokens: 'x' },
      { prompt: [1], max_tokens: 0 },
      {},
      { prompt: [[1], 'a'] },
    ]) {
      const r = await post(sim.url, '/v1/completions', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(r.body).error.code).toBe(400);
    }
    const ok = await post(sim.url, '/v1/completions', {
      prompt: [1],
      max_tokens: 1,
      some_sglang_field: true,
      top_k: 5,
    });
    expect(ok.status).toBe(200);
  });

  test('invalid JSON body: 400', async () => {
    const r = await httpCall(sim.url, '/v1/completions', { method: 'POST', rawBody: '{"prompt": [1' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.type).toBe('BadRequestError');
  });

  test('/health: 200, empty body', async () => {
    const r = await httpCall(sim.url, '/health');
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
  });

  test('/v1/models', async () => {
    const body = JSON.parse((await httpCall(sim.url, '/v1/models')).body);
    expect(body.object).toBe('list');
    expect(body.data[0]).toMatchObject({
      id: 'm1',
      object: 'model',
      owned_by: 'vllm',
      root: 'm1',
      parent: null,
      max_model_len: 64,
    });
    expect(Array.isArray(body.data[0].permission)).toBe(true);
  });

  test('/version', async () => {
    expect(JSON.parse((await httpCall(sim.url, '/version')).body)).toEqual({ version: '0.11.0' });
  });

  test('SGLang-only routes and unknown routes: 404 in vLLM shape; wrong method: 405', async () => {
    for (const path of ['/generate', '/get_server_info', '/nope']) {
      const r = await post(sim.url, path, {});
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body)).toEqual({
        error: { message: 'Not Found', type: 'Not Found', param: null, code: 404 },
      });
    }
    const r = await httpCall(sim.url, '/v1/completions');
    expect(r.status).toBe(405);
  });

  test('/metrics: Prometheus text with vLLM names and labels', async () => {
    const r = await httpCall(sim.url, '/metrics');
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    const text = r.body;
    for (const name of [
      'vllm:num_requests_running{model_name="m1",engine="0"}',
      'vllm:num_requests_waiting{model_name="m1",engine="0"}',
      'vllm:kv_cache_usage_perc{',
      'vllm:prompt_tokens_total{',
      'vllm:generation_tokens_total{',
      'vllm:request_success_total{model_name="m1",engine="0",finished_reason="length"}',
      'vllm:time_to_first_token_seconds_bucket{model_name="m1",engine="0",le="0.001"}',
      'vllm:time_to_first_token_seconds_bucket{model_name="m1",engine="0",le="+Inf"}',
      'vllm:time_to_first_token_seconds_sum{',
      'vllm:time_to_first_token_seconds_count{',
      '# TYPE vllm:time_to_first_token_seconds histogram',
      '# TYPE vllm:prompt_tokens counter',
    ]) {
      expect(text).toContain(name);
    }
    const gen = /vllm:generation_tokens_total\{[^}]*\} (\S+)/.exec(text)!;
    expect(Number(gen[1])).toBeGreaterThan(0);
  });
});

describe('capability switches (older vLLM)', () => {
  test('returnTokenIds=false: return_token_ids is ignored; logprobsTokenIds=false: token strings', async () => {
    const old = await startSimulator({
      flavor: 'vllm',
      returnTokenIds: false,
      logprobsTokenIds: false,
      version: '0.9.2',
    });
    try {
      const r = await post(old.url, '/v1/completions', {
        prompt: [1, 2],
        max_tokens: 2,
        stream: true,
        return_token_ids: true,
        logprobs: 0,
        return_tokens_as_token_ids: true,
      });
      for (const e of sseJson(r.body)) {
        expect('token_ids' in e.choices[0]).toBe(false);
        expect('prompt_token_ids' in e.choices[0]).toBe(false);
        expect(e.choices[0].logprobs.tokens[0]).toMatch(/^ t\d+$/);
      }
      const ns = JSON.parse(
        (await post(old.url, '/v1/completions', { prompt: [1, 2], max_tokens: 2, return_token_ids: true })).body,
      );
      expect('token_ids' in ns.choices[0]).toBe(false);
      expect(JSON.parse((await httpCall(old.url, '/version')).body).version).toBe('0.9.2');
    } finally {
      await old.close();
    }
  });
});
