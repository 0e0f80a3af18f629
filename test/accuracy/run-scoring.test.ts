// `loadgen run --mode accuracy --tokenizer FILE` (runBenchmark's
// `tokenizer`): the run's own accuracy log is scored at the end against the
// dataset's references, accuracy.json is written beside the logs, and
// results.json, report.html and the exit code carry the verdict.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { exitCodeOf, planRun } from '../../lib/cli/run-command.js';
import type { Dataset } from '../../lib/dataset/types.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { expectedIds } from '../sut/helpers.js';
import { tempDir, wordLevelTokenizer } from './helpers.js';

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);

// The simulator answers prompt [1, 100 + i, 7] with expectedIds(...); the
// tokenizer maps id k to "t<k>". Even samples' references are their exact
// outputs (ROUGE 1), odd ones the first 4 output words then 4 unrelated ones:
// rouge1 = rougeL = rougeLsum = 0.5 and rouge2 = 3/7 for those (worked out in
// score.test.ts), so the means over 6 + 6 samples are 75 and 71.4286.
function referencedDataset(n: number): Dataset {
  const refs = range(0, n).map((i) => {
    const w = expectedIds([1, 100 + i, 7], 8).map((k) => `t${k}`);
    return i % 2 === 0 ? w.join(' ') : [...w.slice(0, 4), 'alpha', 'beta', 'gamma', 'delta'].join(' ');
  });
  return { name: 'refs', size: n, prompt: (i) => ({ tokenIds: [1, 100 + i, 7], maxTokens: 8, reference: refs[i]! }) };
}

describe('scoring at the end of a run', () => {
  it('an accuracy run is scored: accuracy.json, results.json, report.html and exit code 1 on FAIL', async () => {
    const dir = tempDir();
    const tokenizer = wordLevelTokenizer(dir, range(1000, 31000), (k) => `t${k}`, { 2: '</s>' });
    const outdir = join(dir, 'out');
    const notes: string[] = [];
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      dataset: referencedDataset(12),
      tokenizer,
      workers: 0,
      outdir,
      log: (m) => notes.push(m),
    });
    const acc = record.accuracy;
    expect(acc && !('error' in acc)).toBe(true);
    if (!acc || 'error' in acc) return;
    expect(acc.metrics).toMatchObject({ rouge1: 75, rouge2: 71.4286, rougeL: 75, rougeLsum: 75, gen_num: 12 });
    // 8 words per sample is far below llama3.1-8b's generated-length target.
    expect(acc.verdicts.find((v) => v.metric === 'gen_len')?.status).toBe('FAIL');
    expect(acc.pass).toBe(false);
    expect(acc.checksPass).toBe(true);
    expect(exitCodeOf(record, false)).toBe(1);

    const saved = JSON.parse(readFileSync(join(outdir, 'accuracy.json'), 'utf8')) as {
      metrics: Record<string, number>;
    };
    expect(saved.metrics.rouge2).toBe(71.4286);
    const results = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8')) as {
      accuracy?: { metrics: Record<string, number>; pass: boolean };
    };
    expect(results.accuracy?.metrics.rouge1).toBe(75);
    expect(results.accuracy?.pass).toBe(false);
    const html = readFileSync(join(outdir, 'report.html'), 'utf8');
    expect(html).toContain('<h2>Accuracy</h2>');
    expect(html).toMatch(/rouge2<\/td><td>71\.43/);
    expect(notes.some((n) => n.includes('Verdict: FAIL'))).toBe(true);
  });

  it('a performance run is not scored; a missing tokenizer fails before anything runs', async () => {
    expect(() => planRun({ scenario: 'Offline', mode: 'performance', tokenizer: 'tok.json' })).toThrow(
      /--tokenizer scores the outputs of --mode accuracy/,
    );
    expect(planRun({ scenario: 'Offline', mode: 'accuracy', tokenizer: 'tok.json' }).options.tokenizer).toBe(
      'tok.json',
    );
    const dir = tempDir();
    const outdir = join(dir, 'never');
    await expect(
      runBenchmark({
        scenario: 'Offline',
        mode: 'AccuracyOnly',
        dataset: referencedDataset(2),
        tokenizer: join(dir, 'missing.json'),
        workers: 0,
        outdir,
        log: () => {},
      }),
    ).rejects.toThrow(/--tokenizer .*missing\.json/);
    expect(existsSync(join(outdir, 'mlperf_log_summary.txt'))).toBe(false);
  });
});
