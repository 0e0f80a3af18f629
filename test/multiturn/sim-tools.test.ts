// The simulator's tool calls (vLLM and SGLang shapes, streamed and not), the
// malformed-tool-call fault, and its prefix cache.
import { afterEach, describe, expect, it } from 'vitest';

import { startSimulator } from '../../lib/sim/server.js';
import type { Simulator } from '../../lib/sim/types.js';
import { httpCall, post, sseJson } from '../sim/helpers.js';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } },
        required: ['city'],
      },
    },
  },
];

let sim: Simulator | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

/** Joins the streamed tool-call deltas of a chat stream. */
function streamedCall(body: string): { id: string | null; name: string | null; args: string; finish: string | null } {
  let id: string | null = null;
  let name: string | null = null;
  let args = '';
  let finish: string | null = null;
  for (const e of sseJson(body)) {
    const ch = e.choices?.[0];
    if (!ch) continue;
    if (ch.finish_reason) finish = ch.finish_reason;
    for (const tc of ch.delta?.tool_calls ?? []) {
      expect(tc.index).toBe(0);
      if (tc.id) id = tc.id;
      if (tc.function?.name) name = tc.function.name;
      if (typeof tc.function?.arguments === 'string') args += tc.function.arguments;
    }
  }
  return { id, name, args, finish };
}

describe('simulator tool calls', () => {
  for (const flavor of ['vllm', 'sglang'] as const) {
    it(`${flavor}: streams a call to the tool named in the last user message`, async () => {
      sim = await startSimulator({ flavor });
      const res = await post(sim.url, '/v1/chat/completions', {
        model: 'sim-model',
        stream: true,
        messages: [{ role: 'user', content: 'please call get_weather city=Paris days=3 metric=true.' }],
        tools: TOOLS,
      });
      expect(res.status).toBe(200);
      const call = streamedCall(res.body);
      expect(call.name).toBe('get_weather');
      expect(call.finish).toBe('tool_calls');
      expect(call.id).toMatch(flavor === 'vllm' ? /^chatcmpl-tool-[0-9a-f]{32}$/ : /^call_[0-9a-f]{24}$/);
      expect(JSON.parse(call.args)).toEqual({ city: 'Paris', days: 3, metric: true });
      // vLLM drops unset fields; SGLang keeps its nulls.
      const first = sseJson(res.body).find((e) => e.choices?.[0]?.delta?.tool_calls);
      if (flavor === 'vllm') expect(first!.choices[0].delta).not.toHaveProperty('content');
      else expect(first!.choices[0].delta.content).toBeNull();
      expect(sim.records().at(-1)!.toolCall).toBe('get_weather');
    });

    it(`${flavor}: non-streamed call, and text again after the tool answered`, async () => {
      sim = await startSimulator({ flavor });
      const messages = [{ role: 'user', content: 'get_time zone=UTC' }];
      const res = await post(sim.url, '/v1/chat/completions', { model: 'sim-model', messages, tools: TOOLS });
      const body = JSON.parse(res.body);
      expect(body.choices[0].finish_reason).toBe('tool_calls');
      const tc = body.choices[0].message.tool_calls[0];
      expect(tc.type).toBe('function');
      expect(tc.function.name).toBe('get_time');
      expect(JSON.parse(tc.function.arguments)).toEqual({ zone: 'UTC' });
      expect(body.choices[0].message.content).toBeNull();
      const after = await post(sim.url, '/v1/chat/completions', {
        model: 'sim-model',
        max_tokens: 4,
        messages: [
          ...messages,
          { role: 'assistant', content: null, tool_calls: [tc] },
          { role: 'tool', tool_call_id: tc.id, content: '12:00' },
        ],
        tools: TOOLS,
      });
      const text = JSON.parse(after.body);
      expect(text.choices[0].finish_reason).toBe('length');
      expect(text.choices[0].message.content).toMatch(/^( t\d+){4}$/);
    });
  }

  it('no tool named: plain text; tool_choice none: plain text', async () => {
    sim = await startSimulator();
    for (const extra of [{}, { tool_choice: 'none' }]) {
      const content = extra.tool_choice ? 'get_time zone=UTC' : 'what time is it';
      const res = await post(sim.url, '/v1/chat/completions', {
        model: 'sim-model',
        max_tokens: 3,
        messages: [{ role: 'user', content }],
        tools: TOOLS,
        ...extra,
      });
      expect(JSON.parse(res.body).choices[0].finish_reason).toBe('length');
    }
  });

  it('the malformed-tool-call fault cuts the arguments', async () => {
    sim = await startSimulator({ faults: [{ kind: 'malformed-tool-call', count: 1 }] });
    const res = await post(sim.url, '/v1/chat/completions', {
      model: 'sim-model',
      stream: true,
      messages: [{ role: 'user', content: 'get_weather city=Oslo' }],
      tools: TOOLS,
    });
    const call = streamedCall(res.body);
    expect(call.name).toBe('get_weather');
    expect(() => JSON.parse(call.args)).toThrow();
    expect(sim.records()[0]!.fault).toBe('malformed-tool-call');
  });
});

describe('simulator prefix cache', () => {
  it('a prompt that extends a seen one has its shared blocks cached; /metrics counts them', async () => {
    sim = await startSimulator({ prefixCache: true, prefixCacheBlockTokens: 4 });
    const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const first = [{ role: 'user', content: words(20, 'a') }];
    const second = [...first, { role: 'assistant', content: words(5, 'b') }, { role: 'user', content: words(6, 'c') }];
    await post(sim.url, '/v1/chat/completions', { model: 'sim-model', max_tokens: 2, messages: first });
    await post(sim.url, '/v1/chat/completions', { model: 'sim-model', max_tokens: 2, messages: second });
    const [r1, r2] = sim.records();
    expect(r1!.cachedTokens).toBe(0);
    // The first prompt's full blocks (of 4 tokens) are the second one's prefix.
    expect(r2!.cachedTokens).toBe(Math.floor(r1!.promptTokens / 4) * 4);
    expect(r2!.promptTokens - r2!.cachedTokens!).toBeLessThan(r2!.promptTokens);
    const metrics = await httpCall(sim.url, '/metrics');
    expect(metrics.body).toMatch(new RegExp(`vllm:prefix_cache_hits_total\\{[^}]*\\} ${r2!.cachedTokens}\\.0`));
  });

  it('off by default: no cachedTokens in the records', async () => {
    sim = await startSimulator();
    await post(sim.url, '/v1/chat/completions', {
      model: 'sim-model',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'x y z' }],
    });
    expect(sim.records()[0]!.cachedTokens).toBeUndefined();
  });
});
