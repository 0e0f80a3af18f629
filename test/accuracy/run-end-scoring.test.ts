// Scoring at the end of an accuracy run (`loadgen run --mode accuracy
// --tokenizer FILE`) for a benchmark that grades each row by its source
// dataset: the run's dataset file is scored (its `dataset` column, its
// LiveCodeBench tests), up to the run's --limit. The simulator answers each
// prompt with one token, which the word-level tokenizer maps to the answer.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { probeSandbox } from '../../lib/accuracy/code-sandbox.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { expectedIds } from '../sut/helpers.js';
import { tempDir, wordLevelTokenizer } from './helpers.js';

const sandboxed = probeSandbox().sandboxed;

const stdin = (pairs: Array<[string, string]>) =>
  JSON.stringify(pairs.map(([input, output]) => ({ input, output, testtype: 'stdin' })));
const DOUBLE_TESTS = { public_test_cases: stdin([['2\n', '4\n']]), private_test_cases: '[]', metadata: '{}' };

type Row = {
  dataset: string;
  ground_truth: string;
  key?: string;
  answer: string;
  public_test_cases?: string;
  private_test_cases?: string;
  metadata?: string;
};

const ROWS: Row[] = [
  {
    dataset: 'livecodebench',
    ground_truth: 'q-double',
    answer: '```python\nprint(int(input()) * 2)\n```',
    ...DOUBLE_TESTS,
  },
  {
    dataset: 'livecodebench',
    ground_truth: 'q-add',
    answer: '```python\nclass Solution:\n    def add(self, a, b):\n        return a + b\n```',
    public_test_cases: JSON.stringify([{ input: '1\n2', output: '3', testtype: 'functional' }]),
    private_test_cases: '[]',
    metadata: JSON.stringify({ func_name: 'add' }),
  },
  { dataset: 'livecodebench', ground_truth: 'q-wrong', answer: '```python\nprint(0)\n```', ...DOUBLE_TESTS },
  { dataset: 'livecodebench', ground_truth: 'q-noblock', answer: 'no code here', ...DOUBLE_TESTS },
  { dataset: 'math500', ground_truth: '\\frac{1}{\\sqrt{2}}', answer: 'So \\boxed{\\frac{\\sqrt{2}}{2}}' },
  { dataset: 'math500', ground_truth: '(1,2)', answer: 'So \\boxed{[1,2)}' },
  { dataset: 'gpqa', ground_truth: 'B', answer: 'ANSWER: B' },
  { dataset: 'aime', ground_truth: '42', answer: 'Answer: 42' },
  { dataset: 'aime', ground_truth: '7', answer: 'Answer: 8' },
];

/** Writes the dataset file (ROWS, then `extra` rows past the run's --limit) and the tokenizer. */
function setup(extra: Array<Record<string, unknown>>, cols: (r: Row) => Record<string, unknown> = (r) => r) {
  const dir = tempDir();
  const prompt = (i: number) => [1, 200 + i, 9];
  const ids = ROWS.map((_, i) => expectedIds(prompt(i), 1)[0]!);
  expect(new Set(ids).size).toBe(ROWS.length);
  const word = new Map(ids.map((id, i) => [id, ROWS[i]!.answer]));
  const tokenizer = wordLevelTokenizer(dir, ids, (id) => word.get(id)!);
  const file = join(dir, 'eval.jsonl');
  const lines = ROWS.map((r, i) => {
    const { answer: _a, ...rest } = cols(r);
    return JSON.stringify({ ...rest, question: `problem ${i}`, tok_input: prompt(i) });
  });
  for (const [k, e] of extra.entries()) lines.push(JSON.stringify({ ...e, tok_input: prompt(100 + k) }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { dir, file, tokenizer };
}

describe.runIf(sandboxed)('accuracy scored at the end of a run, against the dataset file', () => {
  it('deepseek-r1: per-dataset counts, programs run against the file tests, rows past --limit unread', async () => {
    // A row past the limit whose tests cannot be read: reading it would fail the scoring.
    const { dir, file, tokenizer } = setup([
      { dataset: 'livecodebench', ground_truth: 'q-late', public_test_cases: 'not json, not base64 either!' },
    ]);
    const logs: string[] = [];
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      benchmark: 'deepseek-r1',
      dataset: { path: file, limit: ROWS.length, maxTokens: 1 },
      tokenizer,
      workers: 0,
      outdir: join(dir, 'out'),
      log: (m) => logs.push(m),
    });
    const acc = record.accuracy;
    expect(acc && 'error' in acc ? acc.error : null).toBeNull();
    expect(acc).toBeTruthy();
    const report = JSON.parse(readFileSync(join(dir, 'out', 'accuracy.json'), 'utf8'));
    expect(report.dataset).toMatchObject({ path: file, size: ROWS.length });
    expect(report.verdicts.every((v: { status: string }) => v.status !== 'UNKNOWN')).toBe(true);
    expect(report.datasets.livecodebench).toEqual({
      samples: 4,
      passed: 2,
      failed: 2,
      timedOut: 0,
      empty: 0,
      unscored: 0,
    });
    expect(report.datasets.math500).toMatchObject({ samples: 2, passed: 1, failed: 1 });
    expect(report.datasets.gpqa).toMatchObject({ samples: 1, passed: 1 });
    expect(report.datasets.aime).toMatchObject({ samples: 2, passed: 1, failed: 1 });
    // 2 + 1 + 1 + 1 correct of 9.
    expect(report.metrics.exact_match).toBeCloseTo(500 / 9, 6);
    expect(logs.join('\n')).toMatch(/livecodebench\s+4\s+2\s+2\s+0\s+0\s+0/);
  });

  it("the mapping's reference column is the one scored", async () => {
    // The answers are in `key`; `ground_truth` holds wrong ones.
    const { dir, file, tokenizer } = setup([], (r) => ({ ...r, key: r.ground_truth, ground_truth: 'x' }));
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      benchmark: 'deepseek-r1',
      dataset: { path: file, mapping: { reference: 'key' }, maxTokens: 1 },
      tokenizer,
      workers: 0,
      outdir: join(dir, 'out'),
      log: () => undefined,
    });
    const acc = record.accuracy;
    expect(acc && 'error' in acc ? acc.error : null).toBeNull();
    const report = JSON.parse(readFileSync(join(dir, 'out', 'accuracy.json'), 'utf8'));
    expect(report.dataset.referenceColumn).toBe('key');
    expect(report.datasets.gpqa).toMatchObject({ passed: 1 });
    expect(report.datasets.aime).toMatchObject({ passed: 1 });
  });
});
