// deepseek-r1 and gpt-oss-120b accuracy runs scored end to end: the
// simulator answers each prompt with one token, the tokenizer fixture maps
// that token to the answer text (a program, a boxed expression, a letter),
// the run's accuracy log is scored against a small dataset file in the
// benchmark's format with LiveCodeBench's test columns. No row is UNKNOWN;
// the per-dataset counts show passed, failed, timed out and empty samples.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { probeSandbox } from '../../lib/accuracy/code-sandbox.js';
import { formatAccuracyReport, scoreAccuracy } from '../../lib/accuracy/score.js';
import type { Dataset } from '../../lib/dataset/types.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { expectedIds } from '../sut/helpers.js';
import { tempDir, wordLevelTokenizer, writeLog } from './helpers.js';

const sandboxed = probeSandbox().sandboxed;

/** base64(zlib(pickle(str))), the way LiveCodeBench stores private tests. */
function pickled(s: string): string {
  const utf8 = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(utf8.length);
  const pickle = Buffer.concat([Buffer.from([0x80, 0x04, 0x58]), len, utf8, Buffer.from([0x94, 0x2e])]);
  return deflateSync(pickle).toString('base64');
}

const stdinTests = (pairs: Array<[string, string]>) =>
  JSON.stringify(pairs.map(([input, output]) => ({ input, output, testtype: 'stdin' })));

const DOUBLE = '```python\nn = int(input())\nprint(n * 2)\n```';
const LEET = '```python\nclass Solution:\n    def add(self, a: int, b: int) -> int:\n        return a + b\n```';
const HANG = '```python\nwhile True:\n    pass\n```';
const WRONG = 'Here:\n```python\nprint(0)\n```';

interface Row {
  dataset: string;
  ground_truth: string;
  answer: string;
  public_test_cases?: string;
  private_test_cases?: string;
  metadata?: string;
}

function rows(lcb: string, math: string, gpqa: string, aime: string, fence: (c: string) => string): Row[] {
  const lcbDouble = {
    public_test_cases: stdinTests([['2\n', '4\n']]),
    private_test_cases: pickled(stdinTests([['21\n', '42\n']])),
    metadata: '{}',
  };
  return [
    { dataset: lcb, ground_truth: 'q-double', answer: fence(DOUBLE), ...lcbDouble },
    {
      dataset: lcb,
      ground_truth: 'q-add',
      answer: fence(LEET),
      public_test_cases: JSON.stringify([{ input: '1\n2', output: '3', testtype: 'functional' }]),
      private_test_cases: '[]',
      metadata: JSON.stringify({ func_name: 'add' }),
    },
    { dataset: lcb, ground_truth: 'q-hang', answer: fence(HANG), ...lcbDouble },
    { dataset: lcb, ground_truth: 'q-wrong', answer: fence(WRONG), ...lcbDouble },
    { dataset: math, ground_truth: '\\frac{1}{\\sqrt{2}}', answer: 'So \\boxed{\\frac{\\sqrt{2}}{2}}' },
    { dataset: math, ground_truth: '(1,2)', answer: 'So \\boxed{[1,2)}' },
    { dataset: gpqa, ground_truth: 'B', answer: 'ANSWER: B' },
    { dataset: aime, ground_truth: '42', answer: 'Answer: 42' },
    // A failed sample: the log entry has no tokens (written by the test below).
    { dataset: lcb, ground_truth: 'q-empty', answer: '', ...lcbDouble },
  ];
}

async function runAndScore(benchmark: string, data: Row[], empty: number[]) {
  const dir = tempDir();
  const n = data.length;
  const prompt = (i: number) => [1, 100 + i, 7];
  const ids = data.map((_, i) => expectedIds(prompt(i), 1)[0]!);
  expect(new Set(ids).size).toBe(n);
  const word = new Map(ids.map((id, i) => [id, data[i]!.answer || `unused${i}`]));
  const tokenizer = wordLevelTokenizer(dir, ids, (id) => word.get(id)!);
  const file = join(dir, 'eval.jsonl');
  writeFileSync(
    file,
    data
      .map((r, i) => {
        const { answer: _a, ...cols } = r;
        return JSON.stringify({ ...cols, question: `problem ${i}`, tok_input: prompt(i) });
      })
      .join('\n'),
  );
  const ds: Dataset = { name: 'mix', size: n, prompt: (i) => ({ tokenIds: prompt(i), maxTokens: 1 }) };
  const outdir = join(dir, 'out');
  const record = await runBenchmark({ scenario: 'Offline', mode: 'AccuracyOnly', dataset: ds, workers: 0, outdir });
  expect(record).toBeTruthy();
  // The simulator always answers; the failed samples are made by rewriting their entries with no tokens.
  const log = join(outdir, 'mlperf_log_accuracy.json');
  writeLog(
    log,
    data.map((_, i) => ({ seq: i, qsl: i, ids: empty.includes(i) ? [] : [ids[i]!] })),
  );
  const progress: number[] = [];
  const report = await scoreAccuracy({
    log,
    dataset: file,
    tokenizer,
    tokenizerConfig: null,
    benchmark,
    keepSamples: true,
    codeExecution: { testTimeoutSec: 1, workers: 2, onProgress: (d) => progress.push(d) },
  });
  return { report, progress };
}

describe.runIf(sandboxed)('code execution and MATH-500 in an accuracy run', () => {
  it('deepseek-r1: every row graded, programs run against their tests, counts per dataset', async () => {
    const data = rows('livecodebench', 'math500', 'gpqa', 'aime', (c) => c);
    const { report, progress } = await runAndScore('deepseek-r1', data, [8]);
    expect(report.verdicts.every((v) => v.status !== 'UNKNOWN')).toBe(true);
    expect(report.datasets?.livecodebench).toEqual({
      samples: 5,
      passed: 2,
      failed: 2,
      timedOut: 1,
      empty: 1,
      unscored: 0,
    });
    expect(report.datasets?.math500).toMatchObject({ samples: 2, passed: 1, failed: 1 });
    expect(report.datasets?.gpqa).toMatchObject({ passed: 1 });
    expect(report.datasets?.aime).toMatchObject({ passed: 1 });
    // 2 + 1 + 1 + 1 correct of 9.
    expect(report.metrics.exact_match).toBeCloseTo(500 / 9, 6);
    expect(report.log.empty).toBe(1);
    expect(progress.at(-1)).toBe(4);
    const hang = report.samples?.find((s) => s.reference === 'q-hang');
    expect(hang?.execution).toMatch(/^timeout/);
    const text = formatAccuracyReport(report);
    expect(text).toMatch(/livecodebench\s+5\s+2\s+2\s+1\s+1\s+0/);
  });

  it('gpt-oss-120b: the harmony final channel holds the program; repeats weigh the datasets', async () => {
    const harmony = (c: string) =>
      `<|channel|>analysis<|message|>draft \`\`\`python\nprint(1)\n\`\`\`<|end|><|channel|>final<|message|>${c}<|return|>`;
    const data = rows('livecodebench_v6', 'math500', 'gpqa_diamond', 'aime25', (c) => harmony(c));
    const { report } = await runAndScore('gpt-oss-120b', data, [8]);
    expect(report.verdicts.every((v) => v.status !== 'UNKNOWN')).toBe(true);
    expect(report.datasets?.livecodebench_v6).toMatchObject({ samples: 5, passed: 2, timedOut: 1, empty: 1 });
    // (2/3 + 1 + 1/5 + 1/8) / (5/3 + 2 + 1/5 + 1/8) x 100, rounded to 3 places.
    const want = ((2 / 3 + 1 + 1 / 5 + 1 / 8) / (5 / 3 + 2 + 1 / 5 + 1 / 8)) * 100;
    expect(report.metrics.exact_match).toBe(Number(want.toFixed(3)));
  });
});
