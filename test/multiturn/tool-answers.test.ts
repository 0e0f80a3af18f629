// Where tool answers come from (handler, recorded results in order, results
// file, an error text), and the simulator's prefix-cache flags.
import { describe, expect, it } from 'vitest';

import { simOptionsFromFlags } from '../../lib/cli/sim-command.js';
import { parseToolCall, ToolAnswerer } from '../../lib/multiturn/tools.js';

const call = (name: string, args = '{}') => parseToolCall({ id: 'c', name, arguments: args });

describe('ToolAnswerer', () => {
  it('recorded results in order (the last repeats), then the results file, then an error text', async () => {
    const a = new ToolAnswerer(
      [
        { name: 'f', content: 'one' },
        { name: 'f', content: { n: 2 } },
      ],
      { results: { g: { from: 'file' } } },
    );
    expect(await a.answer(call('f'), 'c1', 0)).toBe('one');
    expect(await a.answer(call('f'), 'c1', 0)).toBe('{"n":2}');
    expect(await a.answer(call('f'), 'c1', 0)).toBe('{"n":2}');
    expect(await a.answer(call('g'), 'c1', 0)).toBe('{"from":"file"}');
    expect(JSON.parse(await a.answer(call('h'), 'c1', 0))).toEqual({ error: "no recorded result for tool 'h'" });
    expect(JSON.parse(await a.answer(call('f', '{"x":'), 'c1', 0))).toEqual({
      error: 'the arguments were not valid JSON',
    });
  });

  it('a handler answers everything it is given, with the conversation and turn', async () => {
    const seen: unknown[] = [];
    const a = new ToolAnswerer([{ name: 'f', content: 'recorded' }], {
      handler: async (c) => {
        seen.push([c.conversationId, c.turn, c.name, c.arguments]);
        return c.name === 'f' ? 'from handler' : { ok: true };
      },
    });
    expect(await a.answer(call('f', '{"a":1}'), 'conv', 2)).toBe('from handler');
    expect(await a.answer(call('z'), 'conv', 2)).toBe('{"ok":true}');
    expect(seen).toEqual([
      ['conv', 2, 'f', { a: 1 }],
      ['conv', 2, 'z', {}],
    ]);
  });
});

describe('loadgen sim flags', () => {
  it('--prefix-cache and --prefix-cache-block-tokens', () => {
    expect(simOptionsFromFlags({ prefixCache: true, prefixCacheBlockTokens: 32 } as never)).toMatchObject({
      prefixCache: true,
      prefixCacheBlockTokens: 32,
    });
    expect(simOptionsFromFlags({} as never).prefixCache).toBeUndefined();
  });
});
