// Resume through runBenchmark: a run ended early by a budget keeps its
// journal and resumes to the uninterrupted run's accuracy log (Offline
// accuracy, and a submission run whose performance pass is always run in
// full); a resume with another configuration is refused, naming what differs.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { scoreAccuracy } from '../../lib/accuracy.js';
import { runBenchmark, type Dataset } from '../../lib/index.js';
import type { Detokenizer } from '../../lib/accuracy/tokenizer.js';
import type { RunBenchmarkOptions } from '../../lib/run/run-benchmark.js';
import { accuracyEntries } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-resume-ip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 48;
const dataset: Dataset = { name: 'known', size: N, prompt: (i) => ({ tokenIds: [7, 8, 9 + i], maxTokens: 8 }) };
// Decodes the simulator's ids as words, so both logs can be scored with ROUGE against fixed references.
const words: Detokenizer = {
  path: 'words',
  cleanUpTokenizationSpaces: false,
  eosTokenIds: [2],
  vocabSize: 40_000,
  decode: (ids) =>
    Array.from(ids, (id) => (id === 2 ? '' : `w${id % 50}`))
      .join(' ')
      .trim(),
  tokenToId: () => undefined,
};
const references = Array.from({ length: N }, (_, i) =>
  Array.from({ length: 8 }, (_, k) => `w${(i * 3 + k) % 50}`).join(' '),
);
const score = async (d: string) =>
  (
    await scoreAccuracy({
      log: join(d, 'mlperf_log_accuracy.json'),
      dataset: { references },
      tokenizer: words,
      benchmark: 'llama3_1-8b',
    })
  ).metrics;

const base = (outdir: string): RunBenchmarkOptions => ({
  scenario: 'Offline',
  mode: 'AccuracyOnly',
  dataset,
  simulator: { maxRunningSeqs: 4, decodeStepNs: 5_000_000, precisePacing: false },
  workers: 0,
  outdir,
  log: () => undefined,
  metricsIntervalMs: 0,
});

describe('resume in process', () => {
  test('an accuracy run stopped by a budget resumes to the uninterrupted log', async () => {
    const ref = join(dir, 'ref');
    await runBenchmark(base(ref));
    const cut = join(dir, 'cut');
    const first = await runBenchmark({ ...base(cut), budget: { outputTokens: 100 } });
    expect(first.budget?.stoppedBy).toBe('outputTokens');
    expect(first.resume).toMatchObject({ resumed: false, complete: false, accuracySamples: N });
    const done = first.resume!.journaledSamples;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(N);
    expect(existsSync(join(cut, 'journal', 'journal.json'))).toBe(true);
    const second = await runBenchmark({ ...base(cut), resume: true });
    expect(second.resume).toMatchObject({ resumed: true, restoredSamples: done, complete: true, journal: null });
    expect(second.sut!.samples.issued).toBe(N - done);
    expect(accuracyEntries(cut)).toEqual(accuracyEntries(ref));
    // And so the scores (MLPerf's scripts key by qsl_idx).
    const scores = await score(cut);
    expect(scores.rouge1).toBeGreaterThan(0);
    expect(scores).toEqual(await score(ref));
    expect(existsSync(join(cut, 'journal'))).toBe(false);
    expect(JSON.parse(readFileSync(join(cut, 'run-state.json'), 'utf8')).state).toBe('complete');
    await expect(runBenchmark({ ...base(cut), resume: true })).rejects.toThrow(
      /the AccuracyOnly run there is complete \(its journal was removed\): nothing to resume/,
    );
  }, 60_000);

  test('a submission run: the accuracy pass resumes from the journal, the performance pass runs whole', async () => {
    const sub = (outdir: string): RunBenchmarkOptions => ({
      ...base(outdir),
      scenario: 'Server',
      mode: 'SubmissionRun',
      targetQps: 200,
      settings: { minDurationMs: 300, minQueryCount: 20 },
    });
    const ref = join(dir, 'sub-ref');
    const r = await runBenchmark(sub(ref));
    const refPerf = r.sut!.samples.issued - N;
    expect(refPerf).toBeGreaterThan(0);
    const cut = join(dir, 'sub-cut');
    const first = await runBenchmark({ ...sub(cut), budget: { outputTokens: 120 } });
    const done = first.resume!.journaledSamples;
    expect(done).toBeLessThan(N);
    const second = await runBenchmark({ ...sub(cut), resume: true });
    expect(second.result.aborted).toBe(false);
    expect(second.resume).toMatchObject({ restoredSamples: done, complete: true });
    // Accuracy samples not in the journal, then the whole performance pass, went to the server.
    expect(second.sut!.samples.issued).toBe(N - done + second.result.counts.samples);
    expect(second.result.counts.samples).toBe(r.result.counts.samples);
    const strip = (d: string) => accuracyEntries(d);
    expect(strip(cut)).toEqual(strip(ref));
  }, 60_000);

  test('another configuration is refused, naming what differs; a fresh run does not bury a journal', async () => {
    const cut = join(dir, 'mismatch');
    await runBenchmark({ ...base(cut), budget: { outputTokens: 60 } });
    const other: Dataset = { ...dataset, prompt: (i) => ({ tokenIds: [7, 8, 9 + i], maxTokens: 9 }) };
    await expect(runBenchmark({ ...base(cut), dataset: other, resume: true })).rejects.toThrow(
      /configuration differs from the journal's \(dataset: known \(48 samples\) then, known \(48 samples\) now, with other prompts\)/,
    );
    await expect(runBenchmark({ ...base(cut), settings: { qslRngSeed: '7' }, resume: true })).rejects.toThrow(
      /setting qslRngSeed: "2085463073848966840" then, "7" now/,
    );
    await expect(runBenchmark({ ...base(cut), simulator: { model: 'other-model' }, resume: true })).rejects.toThrow(
      /model: sim-llm-8b then, other-model now/,
    );
    await expect(runBenchmark(base(cut))).rejects.toThrow(
      /holds the journal of an unfinished run \(\d+ samples done\): continue it with --resume/,
    );
    await expect(runBenchmark({ ...base(join(dir, 'none')), resume: true })).rejects.toThrow(/no journal there/);
    await expect(runBenchmark({ ...base(cut), mode: 'PerformanceOnly', resume: true })).rejects.toThrow(
      /PerformanceOnly runs cannot be resumed: MLPerf requires/,
    );
  }, 60_000);
});
