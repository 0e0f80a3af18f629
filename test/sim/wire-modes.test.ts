// The simulator modes that reproduce servers' riskier wire behaviour:
// SGLang output_ids running ahead of completion_tokens, an older vLLM's
// parser withholding chat chunks, finish_reason after token_ids, and streams
// without [DONE].
import { describe, expect, test } from 'vitest';

import { startSimulator } from '../../lib/sim/index.js';
import { hashIds } from '../../lib/sim/tokens.js';
import { post, sseData, sseJson } from './helpers.js';

const expectedIds = (prompt: number[], n: number): number[] =>
  Array.from({ length: n }, (_, pos) => 1000 + ((hashIds(prompt) + 7 * pos) % 30000));

describe('simulator wire modes', () => {
  test('outputIdsAhead: cumulative output_ids run past completion_tokens on intermediate chunks, never on the last', async () => {
    const sim = await startSimulator({ flavor: 'sglang', outputIdsAhead: 2 });
    try {
      const r = await post(sim.url, '/generate', {
        input_ids: [1, 2, 3],
        sampling_params: { max_new_tokens: 4, temperature: 0 },
        stream: true,
      });
      const ids = expectedIds([1, 2, 3], 4);
      const events = sseJson(r.body);
      expect(events.map((e) => e.meta_info.completion_tokens)).toEqual([1, 2, 3, 4]);
      // The live list: up to two ids more than the count, capped at the sequence's end.
      expect(events.map((e) => e.output_ids)).toEqual([ids.slice(0, 3), ids.slice(0, 4), ids, ids]);
    } finally {
      await sim.close();
    }
  });

  test('parserWithholds: an older vLLM chat stream loses the first chunks, logprobs with them; usage counts them', async () => {
    const sim = await startSimulator({ flavor: 'vllm', returnTokenIds: false, parserWithholds: 2 });
    try {
      const r = await post(sim.url, '/v1/chat/completions', {
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 5,
        stream: true,
        logprobs: true,
        return_tokens_as_token_ids: true,
        stream_options: { include_usage: true },
      });
      const events = sseJson(r.body);
      const content = events.filter((e) => e.choices.length > 0 && e.choices[0].delta.role === undefined);
      expect(content).toHaveLength(3);
      const lp = content.flatMap((e) => e.choices[0].logprobs.content.map((t: { token: string }) => t.token));
      expect(lp).toHaveLength(3);
      expect(events.at(-1)!.usage.completion_tokens).toBe(5);
      expect(content.at(-1)!.choices[0].finish_reason).toBe('length');
      // With return_token_ids (a newer server) nothing is withheld.
      const full = await startSimulator({ flavor: 'vllm', parserWithholds: 2 });
      try {
        const r2 = await post(full.url, '/v1/chat/completions', {
          messages: [{ role: 'user', content: 'hi' }],
          max_completion_tokens: 5,
          stream: true,
          return_token_ids: true,
        });
        expect(sseJson(r2.body).filter((e) => Array.isArray(e.choices[0]?.token_ids))).toHaveLength(5);
      } finally {
        await full.close();
      }
    } finally {
      await sim.close();
    }
  });

  test('finishAfterTokenIds and sseDone false: token_ids before finish_reason, no [DONE]', async () => {
    const sim = await startSimulator({ flavor: 'vllm', finishAfterTokenIds: true, sseDone: false });
    try {
      const r = await post(sim.url, '/v1/chat/completions', {
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 2,
        stream: true,
        return_token_ids: true,
      });
      const data = sseData(r.body);
      expect(data).not.toContain('[DONE]');
      const last = sseJson(r.body).at(-1)!;
      expect(Object.keys(last.choices[0])).toEqual([
        'index',
        'delta',
        'logprobs',
        'token_ids',
        'finish_reason',
        'stop_reason',
      ]);
      expect(last.choices[0].finish_reason).toBe('length');
    } finally {
      await sim.close();
    }
  });

  test('bad values are named', async () => {
    await expect(startSimulator({ outputIdsAhead: -1 })).rejects.toThrow(/outputIdsAhead/);
    await expect(startSimulator({ parserWithholds: 1.5 })).rejects.toThrow(/parserWithholds/);
    await expect(startSimulator({ sseDone: 'no' as unknown as boolean })).rejects.toThrow(/sseDone/);
  });
});
