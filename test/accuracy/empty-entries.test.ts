// A failed sample is logged with no tokens: it scores as an empty prediction
// (ROUGE 0, a wrong answer), counted and noted, never an abort of the scoring.
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { scoreAccuracy } from '../../lib/accuracy/score.js';
import { tempDir, wordLevelTokenizer, writeLog } from './helpers.js';

describe('log entries with no tokens', () => {
  it('ROUGE (llama3.1-8b): the empty entry scores 0 and is counted', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, [10, 11, 12], (k) => `w${k}`);
    const log = writeLog(join(dir, 'log.json'), [
      { seq: 0, qsl: 0, ids: [10, 11, 12] },
      { seq: 1, qsl: 1, ids: [] },
    ]);
    const r = await scoreAccuracy({
      log,
      dataset: { references: ['w10 w11 w12', 'w10 w11 w12'] },
      tokenizer,
      tokenizerConfig: null,
    });
    expect(r.metrics.rouge1).toBe(50);
    expect(r.log.empty).toBe(1);
    expect(r.notes.some((n) => /1 log entries have no tokens/.test(n))).toBe(true);
  });

  it('exact match (deepseek-r1): the empty entry is a wrong, empty answer', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, [10], () => 'ANSWER: A');
    const log = writeLog(join(dir, 'log.json'), [
      { seq: 0, qsl: 0, ids: [10] },
      { seq: 1, qsl: 1, ids: [] },
    ]);
    const r = await scoreAccuracy({
      log,
      dataset: { references: ['A', 'A'], categories: ['gpqa', 'gpqa'] },
      tokenizer,
      tokenizerConfig: null,
      benchmark: 'deepseek-r1',
    });
    expect(r.metrics.exact_match).toBe(50);
    expect(r.datasets?.gpqa).toEqual({ samples: 2, passed: 1, failed: 1, timedOut: 0, empty: 1, unscored: 0 });
  });
});
