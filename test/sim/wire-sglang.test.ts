// Exact wire shapes of the SGLang-flavoured simulator.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { startSimulator, type Simulator } from '../../lib/sim/index.js';
import { hashIds } from '../../lib/sim/tokens.js';
import { httpCall, post, sseData, sseJson } from './helpers.js';

const expectedIds = (prompt: number[], n: number): number[] =>
  Array.from({ length: n }, (_, pos) => 1000 + ((hashIds(prompt) + 7 * pos) % 30000));
const text = (ids: number[]): string => ids.map((id) => (id === 2 ? '' : ` t${id}`)).join('');

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ flavor: 'sglang', model: 'qwen', maxModelLen: 128 });
});
afterAll(async () => {
  await sim.close();
});

describe('SGLang /generate', () => {
  test('streaming, cumulative output_ids and text (default); finish_reason null then a length object', async () => {
    const r = await post(sim.url, '/generate', {
      input_ids: [1, 2, 3],
      sampling_params: { max_new_tokens: 3, temperature: 0 },
      stream: true,
      rid: 'r1',
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(sseData(r.body).at(-1)).toBe('[DONE]');
    const ids = expectedIds([1, 2, 3], 3);
    const events = sseJson(r.body);
    expect(events).toHaveLength(3);
    events.forEach((e, i) => {
      expect(Object.keys(e)).toEqual(['text', 'output_ids', 'meta_info']);
      expect(e.output_ids).toEqual(ids.slice(0, i + 1));
      expect(e.text).toBe(text(ids.slice(0, i + 1)));
      expect(e.meta_info).toEqual({
        id: 'r1',
        finish_reason: i === 2 ? { type: 'length', length: 3 } : null,
        prompt_tokens: 3,
        completion_tokens: i + 1,
        cached_tokens: 0,
      });
    });
  });

  test('delta mode: output_ids and text are per-chunk deltas, completion_tokens stays cumulative', async () => {
    const delta = await startSimulator({ flavor: 'sglang', sglangOutputIds: 'delta', tokensPerChunk: 2 });
    try {
      const r = await post(delta.url, '/generate', {
        input_ids: [4, 5],
        sampling_params: { max_new_tokens: 5 },
        stream: true,
      });
      const ids = expectedIds([4, 5], 5);
      const events = sseJson(r.body);
      // SGLang cadence: first token at once, then when the decode counter is a multiple of the interval, then the end.
      expect(events.map((e) => e.output_ids)).toEqual([[ids[0]], [ids[1]], ids.slice(2, 4), [ids[4]]]);
      expect(events.map((e) => e.meta_info.completion_tokens)).toEqual([1, 2, 4, 5]);
      expect(events.map((e) => e.text).join('')).toBe(text(ids));
      const info = JSON.parse((await httpCall(delta.url, '/get_server_info')).body);
      expect(info.stream_interval).toBe(2);
      expect(info.incremental_streaming_output).toBe(true);
    } finally {
      await delta.close();
    }
  });

  test('EOS stop: {"type":"stop","matched":<eos>}, EOS id in output_ids but not in text; ignore_eos and min_new_tokens', async () => {
    const eos = await startSimulator({ flavor: 'sglang', eosAfter: 2 });
    try {
      const r = await post(eos.url, '/generate', {
        input_ids: [7],
        sampling_params: { max_new_tokens: 10 },
        stream: true,
      });
      const last = sseJson(r.body).at(-1)!;
      const ids = expectedIds([7], 1);
      expect(last.output_ids).toEqual([ids[0], 2]);
      expect(last.text).toBe(text(ids));
      expect(last.meta_info.finish_reason).toEqual({ type: 'stop', matched: 2 });
      expect(last.meta_info.completion_tokens).toBe(2);

      const ig = JSON.parse(
        (await post(eos.url, '/generate', { input_ids: [7], sampling_params: { max_new_tokens: 6, ignore_eos: true } }))
          .body,
      );
      expect(ig.meta_info.completion_tokens).toBe(6);
      expect(ig.meta_info.finish_reason).toEqual({ type: 'length', length: 6 });

      const min = JSON.parse(
        (
          await post(eos.url, '/generate', {
            input_ids: [7],
            sampling_params: { max_new_tokens: 6, min_new_tokens: 4 },
          })
        ).body,
      );
      expect(min.meta_info.completion_tokens).toBe(4);
      expect(min.output_ids.at(-1)).toBe(2);
    } finally {
      await eos.close();
    }
  });

  test('non-stream single and batch; text input; default max_new_tokens 128', async () => {
    const one = JSON.parse(
      (await post(sim.url, '/generate', { input_ids: [1, 2], sampling_params: { max_new_tokens: 2 } })).body,
    );
    expect(Object.keys(one)).toEqual(['text', 'output_ids', 'meta_info']);
    expect(one.output_ids).toEqual(expectedIds([1, 2], 2));
    expect(one.meta_info.finish_reason).toEqual({ type: 'length', length: 2 });
    expect(typeof one.meta_info.e2e_latency).toBe('number');

    const batch = JSON.parse(
      (
        await post(sim.url, '/generate', {
          input_ids: [[1, 2], [3]],
          sampling_params: [{ max_new_tokens: 1 }, { max_new_tokens: 2 }],
        })
      ).body,
    );
    expect(Array.isArray(batch)).toBe(true);
    expect(batch.map((b: any) => b.meta_info.completion_tokens)).toEqual([1, 2]);
    expect(batch[1].output_ids).toEqual(expectedIds([3], 2));

    const t = JSON.parse((await post(sim.url, '/generate', { text: 'hello world' })).body);
    expect(t.meta_info.prompt_tokens).toBe(3);
    // Default 128 new tokens, capped by the 128-token context: 128 - 3 prompt tokens.
    expect(t.meta_info.completion_tokens).toBe(125);
  });

  test('batched streaming: chunks carry index', async () => {
    const r = await post(sim.url, '/generate', {
      text: ['a', 'b c'],
      sampling_params: { max_new_tokens: 2 },
      stream: true,
    });
    const events = sseJson(r.body);
    expect(events).toHaveLength(4);
    expect(events.map((e) => e.index).sort()).toEqual([0, 0, 1, 1]);
  });

  test('return_logprob: meta_info.output_token_logprobs', async () => {
    const one = JSON.parse(
      (
        await post(sim.url, '/generate', {
          input_ids: [1, 2],
          sampling_params: { max_new_tokens: 2 },
          return_logprob: true,
        })
      ).body,
    );
    expect(one.meta_info.output_token_logprobs.map((x: any[]) => x[1])).toEqual(one.output_ids);
  });

  test('/generate errors: {"error":{"message"}} with 400', async () => {
    for (const body of [
      {},
      { text: 'a', input_ids: [1] },
      { input_ids: [] },
      { input_ids: [1], sampling_params: { max_new_tokens: 'x' } },
    ]) {
      const r = await post(sim.url, '/generate', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const parsed = JSON.parse(r.body);
      expect(Object.keys(parsed)).toEqual(['error']);
      expect(Object.keys(parsed.error)).toEqual(['message']);
    }
    const long = await post(sim.url, '/generate', { input_ids: Array.from({ length: 128 }, () => 9) });
    expect(JSON.parse(long.body).error.message).toBe(
      "The input (128 tokens) is longer than the model's context length (128 tokens).",
    );
  });
});

describe('SGLang OpenAI routes', () => {
  test('completions stream: "usage":null, "logprobs":null, "matched_stop":null on every chunk; no usage chunk by default', async () => {
    const r = await post(sim.url, '/v1/completions', {
      model: 'anything',
      prompt: [1, 2],
      max_tokens: 2,
      stream: true,
      return_token_ids: true,
    });
    expect(r.status).toBe(200);
    const events = sseJson(r.body);
    expect(events).toHaveLength(2);
    const ids = expectedIds([1, 2], 2);
    events.forEach((e, i) => {
      expect(Object.keys(e)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
      expect(e.id).toMatch(/^[0-9a-f]{32}$/);
      // SGLang echoes whatever model name was asked for.
      expect(e.model).toBe('anything');
      expect(e.usage).toBeNull();
      expect(e.choices[0]).toEqual({
        index: 0,
        text: ` t${ids[i]}`,
        logprobs: null,
        finish_reason: i === 1 ? 'length' : null,
        matched_stop: null,
      });
    });
  });

  test('include_usage: final usage chunk without nulls; stream_options without stream is accepted', async () => {
    const r = await post(sim.url, '/v1/completions', {
      prompt: [1, 2],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    const last = sseJson(r.body).at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 2, total_tokens: 4, completion_tokens: 2 });
    const ns = await post(sim.url, '/v1/completions', {
      prompt: [1],
      max_tokens: 1,
      stream_options: { include_usage: true },
    });
    expect(ns.status).toBe(200);
  });

  test('stream_options {} keeps usage off (SGLang default); continuous_usage_stats works on its own', async () => {
    const a = sseJson(
      (await post(sim.url, '/v1/completions', { prompt: [1], max_tokens: 2, stream: true, stream_options: {} })).body,
    );
    expect(a.every((e) => e.choices.length === 1 && e.usage === null)).toBe(true);
    const b = sseJson(
      (
        await post(sim.url, '/v1/completions', {
          prompt: [1],
          max_tokens: 2,
          stream: true,
          stream_options: { continuous_usage_stats: true },
        })
      ).body,
    );
    expect(b.map((e) => e.usage.completion_tokens)).toEqual([1, 2]);
    expect(b.every((e) => e.choices.length === 1)).toBe(true);
  });

  test('EOS: finish_reason stop with matched_stop = EOS id', async () => {
    const eos = await startSimulator({ flavor: 'sglang', eosAfter: 1 });
    try {
      const e = sseJson((await post(eos.url, '/v1/completions', { prompt: [1], max_tokens: 5, stream: true })).body);
      expect(e).toHaveLength(1);
      expect(e[0]!.choices[0]).toMatchObject({ text: '', finish_reason: 'stop', matched_stop: 2 });
    } finally {
      await eos.close();
    }
  });

  test('chat stream: role chunk then content; headers wait for the first output', async () => {
    const r = await post(sim.url, '/v1/chat/completions', {
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 2,
      stream: true,
    });
    const events = sseJson(r.body);
    expect(events[0]!.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '' },
      logprobs: null,
      finish_reason: null,
      matched_stop: null,
    });
    expect(events[0]!.usage).toBeNull();
    expect(events[1]!.object).toBe('chat.completion.chunk');
    expect(events.at(-1)!.choices[0].finish_reason).toBe('length');
    const rec = sim.records().at(-1)!;
    expect(rec.headersNs).not.toBeNull();
    expect(rec.headersNs!).toBeGreaterThanOrEqual(rec.firstTokenNs! - 1_000_000);
  });

  test('errors use the flat ErrorResponse shape', async () => {
    const r = await post(sim.url, '/v1/completions', { prompt: [1], max_tokens: 0 });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual(['object', 'message', 'type', 'param', 'code']);
    expect(body).toMatchObject({ object: 'error', type: 'BadRequestError', code: 400 });
    const bad = await httpCall(sim.url, '/v1/chat/completions', { method: 'POST', rawBody: 'not json' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).object).toBe('error');
    const ctx = await post(sim.url, '/v1/completions', { prompt: [1, 2], max_tokens: 127 });
    expect(JSON.parse(ctx.body).message).toMatch(
      /^Requested token count exceeds the model's maximum context length of 128 tokens/,
    );
  });
});

describe('SGLang info routes', () => {
  test('/health, /health_generate: 200', async () => {
    expect((await httpCall(sim.url, '/health')).status).toBe(200);
    expect((await httpCall(sim.url, '/health_generate')).status).toBe(200);
  });

  test('/get_server_info and /server_info carry version and server args', async () => {
    for (const path of ['/get_server_info', '/server_info']) {
      const info = JSON.parse((await httpCall(sim.url, path)).body);
      expect(info).toMatchObject({
        version: '0.5.4',
        model_path: 'qwen',
        context_length: 128,
        max_running_requests: 256,
      });
      expect(info.internal_states[0]).toHaveProperty('avg_spec_accept_length');
    }
  });

  test('/get_model_info', async () => {
    const info = JSON.parse((await httpCall(sim.url, '/get_model_info')).body);
    expect(info).toMatchObject({ model_path: 'qwen', is_generation: true });
  });

  test('/v1/models: owned_by sglang', async () => {
    const body = JSON.parse((await httpCall(sim.url, '/v1/models')).body);
    expect(body.data[0]).toMatchObject({ id: 'qwen', owned_by: 'sglang', max_model_len: 128, root: 'qwen' });
  });

  test('/version is not served by the SGLang flavour (read /get_server_info)', async () => {
    const r = await httpCall(sim.url, '/version');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).object).toBe('error');
  });

  test('/metrics: sglang names', async () => {
    const text = (await httpCall(sim.url, '/metrics')).body;
    for (const name of [
      'sglang:num_running_reqs{model_name="qwen"}',
      'sglang:num_queue_reqs{model_name="qwen"}',
      'sglang:prompt_tokens_total{model_name="qwen"}',
      'sglang:generation_tokens_total{model_name="qwen"}',
      'sglang:time_to_first_token_seconds_bucket{',
      'sglang:time_to_first_token_seconds_count{',
      'sglang:token_usage{',
    ]) {
      expect(text).toContain(name);
    }
  });
});
