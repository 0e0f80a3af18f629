import { describe, expect, test } from 'vitest';

import { decodeGenerateChunk } from '../../lib/sut/wire/generate-chunks.js';
import { decodeOpenAiChunk } from '../../lib/sut/wire/openai-chunks.js';
import { buildBatchBody, buildBody, type BodyContext } from '../../lib/sut/wire/request-body.js';
import {
  CHUNK_EMPTY,
  CHUNK_ERROR,
  CHUNK_MALFORMED,
  CHUNK_TOKENS,
  StreamState,
} from '../../lib/sut/wire/stream-state.js';
import type { TokenSource } from '../../lib/sut/types.js';

function openai(chunks: string[], source: TokenSource, chat = false) {
  const st = new StreamState();
  const results = chunks.map((c) => {
    const b = Buffer.from(c).toString('latin1');
    return decodeOpenAiChunk(b, 0, b.length, st, source, chat);
  });
  return { st, results };
}

function generate(chunks: string[]) {
  const st = new StreamState();
  const results = chunks.map((c) => {
    const b = Buffer.from(c).toString('latin1');
    return decodeGenerateChunk(b, 0, b.length, st);
  });
  return { st, results };
}

describe('OpenAI-style chunks', () => {
  test('vLLM completions with return_token_ids: ids per chunk, several per chunk, usage at the end', () => {
    const { st, results } = openai(
      [
        '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" Hi","logprobs":null,"finish_reason":null,"stop_reason":null,"token_ids":[1917],"prompt_token_ids":[1,2,3]}]}',
        '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":null,"stop_reason":null,"token_ids":[5,6,7]}]}',
        '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","finish_reason":"stop","stop_reason":null,"token_ids":[2]}]}',
        '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"total_tokens":8,"completion_tokens":5}}',
      ],
      'token_ids',
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS, CHUNK_TOKENS, CHUNK_EMPTY]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([1917, 5, 6, 7, 2]);
    expect(st.serverTokens).toBe(5);
    expect(st.finishReason).toBe('stop');
  });

  test('finish_reason after token_ids is read too, with the usage of the same chunk', () => {
    const { st, results } = openai(
      [
        '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" a"},"logprobs":null,"token_ids":[7],"finish_reason":null}]}',
        '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" b"},"logprobs":null,"token_ids":[8],"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      ],
      'token_ids',
      true,
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([7, 8]);
    expect(st.finishReason).toBe('length');
    expect(st.serverTokens).toBe(2);
  });

  test('vLLM completion chunks with their nulls (token_ids, prompt_token_ids, usage)', () => {
    const { st, results } = openai(
      [
        '{"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a","logprobs":null,"finish_reason":null,"stop_reason":null,"prompt_token_ids":[1,2],"token_ids":[7]}],"usage":null}',
        '{"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" b","logprobs":null,"finish_reason":"length","stop_reason":null,"prompt_token_ids":null,"token_ids":[8]}],"usage":null}',
      ],
      'token_ids',
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([7, 8]);
    expect(st.serverTokens).toBe(-1);
    expect(st.finishReason).toBe('length');
  });

  test('SGLang chunk shape (null fields everywhere) and pretty-printed JSON with spaces', () => {
    const { st, results } = openai(
      [
        '{"id":"x","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"a","logprobs":null,"finish_reason":null,"matched_stop":null,"token_ids":[10]}],"usage":null}',
        '{ "choices" : [ { "index" : 0, "text" : "b", "finish_reason" : "length", "token_ids" : [ 11 , 12 ] } ], "usage" : { "completion_tokens" : 3 } }',
      ],
      'token_ids',
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(Array.from(st.tokens.ids.subarray(0, 3))).toEqual([10, 11, 12]);
    expect(st.serverTokens).toBe(3);
    expect(st.finishReason).toBe('length');
  });

  test('a key-like text inside a string value is not mistaken for a field', () => {
    const { st } = openai(
      ['{"choices":[{"index":0,"text":"\\"token_ids\\":[99]","finish_reason":null,"token_ids":[7]}]}'],
      'token_ids',
    );
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([7]);
  });

  test('prompt_token_ids are not output ids', () => {
    const { st } = openai(
      ['{"choices":[{"index":0,"text":"a","prompt_token_ids":[1,2,3],"token_ids":[9]}]}'],
      'token_ids',
    );
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([9]);
  });

  test('logprobs with return_tokens_as_token_ids (completions and chat)', () => {
    const c = openai(
      [
        '{"choices":[{"index":0,"text":"ab","logprobs":{"text_offset":[0,1],"token_logprobs":[-0.1,-0.2],"tokens":["token_id:11","token_id:12"],"top_logprobs":[{"token_id:11":-0.1},{"token_id:12":-0.2}]},"finish_reason":null}]}',
      ],
      'logprobs',
    );
    expect(Array.from(c.st.tokens.ids.subarray(0, c.st.tokens.length))).toEqual([11, 12]);
    const ch = openai(
      [
        '{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"token":"token_id:31","logprob":-0.5,"bytes":[97],"top_logprobs":[]}]},"finish_reason":null}]}',
      ],
      'logprobs',
      true,
    );
    expect(Array.from(ch.st.tokens.ids.subarray(0, ch.st.tokens.length))).toEqual([31]);
  });

  test('chat: the role-only first chunk carries no token; content does', () => {
    const { results, st } = openai(
      [
        '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
        '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}',
        '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}',
      ],
      'none',
      true,
    );
    expect(results).toEqual([CHUNK_EMPTY, CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(st.tokens.length).toBe(0);
    expect(st.sawText).toBe(true);
  });

  test('no ids: per-chunk usage gives each chunk its token count, even with empty text (EOS)', () => {
    const { results, st } = openai(
      [
        '{"choices":[{"index":0,"text":"a b","finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
        '{"choices":[{"index":0,"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":3,"total_tokens":4}}',
      ],
      'none',
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(st.tokenCount).toBe(3);
  });

  test('no ids and no per-chunk usage: text chunks count one, empty text none', () => {
    const { results, st } = openai(
      [
        '{"choices":[{"index":0,"text":"a","finish_reason":null}]}',
        '{"choices":[{"index":0,"text":"","finish_reason":"stop"}]}',
        '{"choices":[],"usage":{"completion_tokens":2}}',
      ],
      'none',
    );
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_EMPTY, CHUNK_EMPTY]);
    expect(st.tokenCount).toBe(2);
  });

  test('error events in both shapes, and malformed chunks', () => {
    const nested = openai(
      ['{"error": {"message": "boom", "type": "InternalServerError", "param": null, "code": 500}}'],
      'token_ids',
    );
    expect(nested.results).toEqual([CHUNK_ERROR]);
    expect(nested.st.error).toBe('boom');
    const flat = openai(
      ['{"object":"error","message":"flat boom","type":"BadRequestError","param":null,"code":400}'],
      'token_ids',
    );
    expect(flat.results).toEqual([CHUNK_ERROR]);
    expect(flat.st.error).toBe('flat boom');
    for (const bad of [
      '{"choices":[{"index":0,"text":"a","tok',
      'not json',
      '{"choices":[{"token_ids":[1,x]}]}',
      '{"weird":true',
    ]) {
      const r = openai([bad], 'token_ids');
      expect(r.results, bad).toEqual([CHUNK_MALFORMED]);
      expect(r.st.error).toMatch(/malformed/);
    }
  });
});

describe('SGLang /generate chunks', () => {
  const chunk = (text: string, ids: number[], count: number, finish: string | null = null) =>
    JSON.stringify({
      text,
      output_ids: ids,
      meta_info: {
        id: 'r',
        finish_reason: finish ? { type: finish, length: count } : null,
        prompt_tokens: 4,
        completion_tokens: count,
        cached_tokens: 0,
      },
    });

  test('cumulative output_ids: only the new tail is taken', () => {
    const { st, results } = generate([
      chunk('a', [5], 1),
      chunk('ab', [5, 6], 2),
      chunk('abcd', [5, 6, 7, 8], 4, 'length'),
    ]);
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([5, 6, 7, 8]);
    expect(st.outputIdsMode).toBe('cumulative');
    expect(st.finishReason).toBe('length');
  });

  test('cumulative output_ids longer than completion_tokens (the live list grew before serialisation): [have, count)', () => {
    const { st, results } = generate([
      chunk('a', [5, 6, 7], 1),
      chunk('ab', [5, 6, 7, 8], 2),
      chunk('ab', [5, 6, 7, 8], 2),
      chunk('abcd', [5, 6, 7, 8, 9], 4),
      chunk('abcde', [5, 6, 7, 8, 9], 5, 'length'),
    ]);
    expect(results).toEqual([CHUNK_TOKENS, CHUNK_TOKENS, CHUNK_EMPTY, CHUNK_TOKENS, CHUNK_TOKENS]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([5, 6, 7, 8, 9]);
    expect(st.outputIdsMode).toBe('cumulative');
  });

  test('run-ahead lists of any shape: compact or spaced, any step and lead, with a retraction', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const full = Array.from({ length: 40 }, (_, i) => 1000 + ((i * 7919 + round) % 5000));
      const spaced = round % 2 === 1;
      const list = (n: number) => (spaced ? `[ ${full.slice(0, n).join(' , ')} ]` : `[${full.slice(0, n).join(',')}]`);
      const st = new StreamState();
      let count = 0;
      let retracted = false;
      for (let step = 0; step < 60 && count < 40; step++) {
        if (!retracted && count > 5 && rand(10) === 0) {
          count -= 2; // a retraction: the list shrinks with the count
          retracted = true;
        } else count = Math.min(40, count + 1 + rand(3));
        const shown = Math.min(40, count + rand(4));
        const c = `{"text":null,"output_ids":${list(shown)},"meta_info":{"finish_reason":null,"completion_tokens":${count}}}`;
        expect(decodeGenerateChunk(c, 0, c.length, st)).toBeGreaterThanOrEqual(0);
      }
      expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual(full.slice(0, count));
    }
  });

  test('delta output_ids (--incremental-streaming-output)', () => {
    const { st } = generate([chunk('a', [5], 1), chunk('b', [6], 2), chunk('cd', [7, 8], 4, 'stop')]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([5, 6, 7, 8]);
    expect(st.outputIdsMode).toBe('delta');
    expect(st.serverTokens).toBe(4);
  });

  test('retraction shrinks the output', () => {
    const { st } = generate([chunk('a', [5, 6, 7], 3), chunk('a', [5, 6], 2), chunk('a', [5, 6, 9], 3)]);
    expect(Array.from(st.tokens.ids.subarray(0, st.tokens.length))).toEqual([5, 6, 9]);
  });

  test('error event and malformed chunk', () => {
    expect(generate(['{"error":{"message":"bad"}}']).results).toEqual([CHUNK_ERROR]);
    expect(generate(['{"text":"a","output_ids":[1]}']).results).toEqual([CHUNK_MALFORMED]);
  });
});

describe('request bodies', () => {
  const ctx = (over: Partial<BodyContext>): BodyContext => ({
    backend: 'vllm',
    api: 'completions',
    model: 'm',
    capabilities: { tokenSource: 'token_ids' },
    sampling: { temperature: 0, topP: 1, topK: -1, minTokens: 1, ignoreEos: false, seed: 42 },
    stream: true,
    ...over,
  });

  test('vLLM completions: token-id prompt, every sampling field, ids and usage requested', () => {
    const b = buildBody({ tokenIds: Int32Array.from([128000, 5, 6]), maxTokens: 64 }, 0, ctx({}));
    expect(JSON.parse(b.body.toString())).toEqual({
      model: 'm',
      prompt: [128000, 5, 6],
      max_tokens: 64,
      min_tokens: 1,
      ignore_eos: false,
      temperature: 0,
      top_p: 1,
      top_k: -1,
      seed: 42,
      stream: true,
      stream_options: { include_usage: true },
      return_token_ids: true,
    });
    expect(b.body.toString().slice(b.promptStart, b.promptEnd)).toBe('[128000,5,6]');
  });

  test('chat: messages, max_completion_tokens on vLLM and max_tokens elsewhere; logprobs ids', () => {
    const v = JSON.parse(
      buildBody({ text: 'hi' }, 0, ctx({ api: 'chat', capabilities: { tokenSource: 'logprobs' } })).body.toString(),
    );
    expect(v.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(v.max_completion_tokens).toBe(128);
    expect(v.logprobs).toBe(true);
    expect(v.return_tokens_as_token_ids).toBe(true);
    const s = JSON.parse(buildBody({ text: 'hi' }, 0, ctx({ api: 'chat', backend: 'sglang' })).body.toString());
    expect(s.max_tokens).toBe(128);
    expect(() => buildBody({ tokenIds: [1] }, 3, ctx({ api: 'chat' }))).toThrow(/sample 3.*text or messages/);
  });

  test('no ids: continuous usage requested', () => {
    const v = JSON.parse(buildBody({ text: 'x' }, 0, ctx({ capabilities: { tokenSource: 'none' } })).body.toString());
    expect(v.stream_options).toEqual({ include_usage: true, continuous_usage_stats: true });
    expect(v.return_token_ids).toBeUndefined();
  });

  test('SGLang generate: input_ids and sampling_params', () => {
    const g = JSON.parse(
      buildBody(
        { tokenIds: [1, 2], maxTokens: 9 },
        0,
        ctx({ api: 'generate', backend: 'sglang', capabilities: { tokenSource: 'output_ids' } }),
      ).body.toString(),
    );
    expect(g).toEqual({
      input_ids: [1, 2],
      sampling_params: {
        max_new_tokens: 9,
        min_new_tokens: 1,
        temperature: 0,
        top_p: 1,
        top_k: -1,
        ignore_eos: false,
        sampling_seed: 42,
      },
      stream: true,
    });
  });

  test('bad prompts and max tokens are named', () => {
    expect(() => buildBody({}, 7, ctx({}))).toThrow(/sample 7/);
    expect(() => buildBody({ text: 'a', maxTokens: 0 }, 2, ctx({}))).toThrow(/sample 2: max tokens/);
  });

  test('batch bodies splice the prompts into a list', () => {
    const c = ctx({ stream: false });
    const a = buildBody({ tokenIds: [1, 2] }, 0, c);
    const b = buildBody({ tokenIds: [3] }, 1, c);
    const batch = JSON.parse(buildBatchBody([a, b]).toString());
    expect(batch.prompt).toEqual([[1, 2], [3]]);
    expect(batch.stream).toBe(false);
    expect(batch.max_tokens).toBe(128);
  });
});
