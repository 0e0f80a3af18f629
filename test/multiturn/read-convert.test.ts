// Conversation files: the native shape, ShareGPT and OpenAI message lists,
// JSONL and Parquet, and errors that name the file, line or row, and turn.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { readConversations } from '../../lib/multiturn/read.js';
import { fromOpenAiMessages, fromShareGpt, toConversation } from '../../lib/multiturn/convert.js';
import { astMatch, countMatches, parseToolCall, valuesEqual } from '../../lib/multiturn/tools.js';
import { ConversationError } from '../../lib/multiturn/types.js';
import { writeParquet } from '../dataset/helpers.js';
import { fixture, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function readError(path: string): Promise<ConversationError> {
  try {
    await readConversations(path);
  } catch (err) {
    expect(err).toBeInstanceOf(ConversationError);
    return err as ConversationError;
  }
  throw new Error('expected a ConversationError');
}

describe('readConversations', () => {
  it('reads the native JSONL shape (blank lines skipped, think times, system)', async () => {
    const convs = await readConversations(fixture('chat.jsonl'));
    expect(convs.map((c) => c.id)).toEqual(['trip', 'code']);
    expect(convs[0]!.system).toBe('You are a travel assistant.');
    expect(convs[0]!.turns).toHaveLength(3);
    expect(convs[0]!.turns[1]!.thinkTimeMs).toBe(30);
    expect(convs[1]!.source).toEqual({ file: fixture('chat.jsonl'), line: 3 });
  });

  it('reads tools, expected calls and recorded results', async () => {
    const [c] = await readConversations(fixture('tools.jsonl'));
    expect(c!.tools!.map((t) => t.function.name)).toEqual(['get_weather', 'get_time']);
    expect(c!.turns[0]!.expectedToolCalls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris', days: 2 } }]);
    expect(c!.turns[0]!.toolResults![0]!.content).toEqual({ forecast: 'sunny', high_c: 21 });
  });

  it('converts ShareGPT records', async () => {
    const [c] = await readConversations(fixture('sharegpt.jsonl'));
    expect(c!.system).toBe('Be brief.');
    expect(c!.turns).toEqual([
      { user: 'Hi there', assistant: 'Hello!' },
      { user: 'How are you?', assistant: 'Fine, thanks.' },
    ]);
  });

  it('converts OpenAI message lists: tool calls become expected calls, tool messages results', async () => {
    const [c] = await readConversations(fixture('openai.jsonl'));
    expect(c!.system).toBe('Use tools.');
    expect(c!.turns[0]).toMatchObject({
      user: 'lookup q=cats',
      assistant: '3 hits.',
      expectedToolCalls: [{ name: 'lookup', arguments: { q: 'cats' } }],
      toolResults: [{ name: 'lookup', content: { hits: 3 } }],
    });
    expect(c!.turns[1]!.user).toBe('thanks');
  });

  it('reads Parquet with nested parts stored as JSON text', async () => {
    const path = tmp.file('convs.parquet');
    writeParquet(path, [
      { name: 'id', type: 'STRING', data: ['p1', 'p2'] },
      {
        name: 'conversations',
        type: 'STRING',
        data: [
          JSON.stringify([
            { from: 'human', value: 'a' },
            { from: 'gpt', value: 'b' },
            { from: 'human', value: 'c' },
          ]),
          JSON.stringify([{ from: 'human', value: 'd' }]),
        ],
      },
    ]);
    const convs = await readConversations(path);
    expect(convs.map((c) => [c.id, c.turns.length])).toEqual([
      ['p1', 2],
      ['p2', 1],
    ]);
    expect(convs[1]!.source).toEqual({ file: path, row: 1 });
  });

  it('an empty user message names file, line and turn', async () => {
    const err = await readError(fixture('bad-turn.jsonl'));
    expect(err.message).toBe(`${fixture('bad-turn.jsonl')}: line 2: turn 1: 'user' must be a non-empty string`);
    expect(err.line).toBe(2);
    expect(err.turn).toBe(1);
  });

  it('other errors: bad JSON, unknown shape, duplicate ids, bad think time, missing file', async () => {
    const bad = (name: string, text: string) => {
      writeFileSync(tmp.file(name), text);
      return tmp.file(name);
    };
    expect((await readError(bad('json.jsonl', '{"turns":[{"user":"a"}]}\n{oops\n'))).message).toMatch(
      /json\.jsonl: line 2: invalid JSON/,
    );
    expect((await readError(bad('shape.jsonl', '{"prompt":"x"}\n'))).message).toMatch(/line 1: not a conversation/);
    expect(
      (await readError(bad('dup.jsonl', '{"id":"a","turns":[{"user":"x"}]}\n{"id":"a","turns":[{"user":"y"}]}\n')))
        .message,
    ).toMatch(/line 2: conversation id 'a' is used twice \(first at line 1\)/);
    expect(
      (await readError(bad('think.jsonl', '{"turns":[{"user":"x"},{"user":"y","think_time_ms":-1}]}\n'))).message,
    ).toMatch(/line 1: turn 1: 'think_time_ms' must be a number >= 0/);
    expect(
      (
        await readError(
          bad('calls.jsonl', '{"turns":[{"user":"x","expected_tool_calls":[{"name":"f","arguments":"{no"}]}]}\n'),
        )
      ).message,
    ).toMatch(/turn 0: expected_tool_calls\[0\]\.arguments must be a JSON object/);
    expect((await readError(tmp.file('missing.jsonl'))).message).toMatch(/missing\.jsonl: no such file/);
    expect((await readError(bad('empty.jsonl', '\n'))).message).toMatch(/no conversations/);
  });
});

describe('converters', () => {
  const p = { file: 'x.jsonl', line: 1 };
  it('ShareGPT: unknown roles and no human message are errors', () => {
    expect(() => fromShareGpt({ conversations: [{ from: 'robot', value: 'x' }] }, p, 0)).toThrow(
      /line 1: turn 0: conversations\[0\]\.from 'robot'/,
    );
    expect(() => fromShareGpt({ conversations: [{ from: 'gpt', value: 'x' }] }, p, 0)).toThrow(/no human message/);
  });
  it('OpenAI: a tool answer needs its call', () => {
    expect(() =>
      fromOpenAiMessages(
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'tool', tool_call_id: 'zz', content: '1' },
          ],
        },
        p,
        0,
      ),
    ).toThrow(/turn 0: messages\[1\]: cannot tell which tool/);
  });
  it('a bare list of messages is an OpenAI conversation; ids default to the position', () => {
    const c = toConversation([{ role: 'user', content: 'a' }], p, 7);
    expect(c.id).toBe('conversation-7');
  });
});

describe('tool-call scoring', () => {
  it('type-aware equality', () => {
    expect(valuesEqual(1, 1.0)).toBe(true);
    expect(valuesEqual('1', 1)).toBe(false);
    expect(valuesEqual({ a: [1, { b: true }] }, { a: [1, { b: true }] })).toBe(true);
    expect(valuesEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(valuesEqual(null, {})).toBe(false);
  });
  it('AST match: name and arguments; malformed arguments never match', () => {
    const call = (name: string, args: string) => parseToolCall({ id: 'c', name, arguments: args });
    const expected = { name: 'get_weather', arguments: { city: 'Paris', days: 2 } };
    expect(astMatch(expected, call('get_weather', '{"days": 2.0, "city": " paris "}'))).toBe(true);
    expect(astMatch(expected, call('get_weather', '{"days": "2", "city": "Paris"}'))).toBe(false);
    expect(astMatch(expected, call('get_time', '{"days": 2, "city": "Paris"}'))).toBe(false);
    const broken = call('get_weather', '{"city": "Pa');
    expect(broken.args).toBeNull();
    expect(astMatch(expected, broken)).toBe(false);
    expect(countMatches([expected, expected], [call('get_weather', '{"city":"Paris","days":2}')])).toBe(1);
  });
});
