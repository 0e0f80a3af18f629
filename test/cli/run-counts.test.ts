// Counts that are right everywhere (issue 23, item 6): an accuracy run and
// an aborted run have no results block in the summary, yet the samples and
// tokens they did are in the record, results.json, run-state.json and the
// console; the progress line counts failed requests as they happen, before
// any sample has given up. runBenchmark in process against the simulator.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { formatProgress } from '../../lib/cli/progress.js';
import { formatSummary } from '../../lib/cli/run-command.js';
import { abortTest, runBenchmark, type Dataset } from '../../lib/index.js';
import type { RunProgress } from '../../lib/run/run-benchmark.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dataset: Dataset = { name: 'tiny', size: 40, prompt: (i) => ({ tokenIds: [1, 2, 3 + i], maxTokens: 8 }) };
const json = (path: string): Record<string, any> => JSON.parse(readFileSync(path, 'utf8'));

describe('counts of runs without a results block', () => {
  test('an accuracy run counts every sample and token', async () => {
    const outdir = join(dir, 'accuracy');
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      dataset,
      workers: 1,
      outdir,
      log: () => undefined,
    });
    expect(record.result.valid).toBeNull();
    expect(record.result.counts).toMatchObject({ samples: 40, queries: 1, tokens: 40 * 8 });
    expect(json(join(outdir, 'results.json')).counts).toMatchObject({
      samples: 40,
      tokens: 320,
      accuracyLogEntries: 40,
    });
    expect(json(join(outdir, 'run-state.json')).progress).toMatchObject({ issued: 40, completed: 40 });
    expect(formatSummary(record, [])).toContain('; 40 samples, 320 tokens');
  });

  test('an aborted run counts the samples it did', async () => {
    const outdir = join(dir, 'aborted');
    let asked = false;
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 40,
      settings: { minDurationMs: 60_000 },
      dataset,
      workers: 1,
      outdir,
      handleSigint: false,
      log: () => undefined,
      onProgress: (p) => {
        if (!asked && p.completed >= 5) {
          asked = true;
          abortTest('enough');
        }
      },
    });
    expect(record.result.aborted).toBe(true);
    // The engine counts the samples completed before the abort ended the
    // test; the adapter may finish one more that was in flight then.
    const done = record.sut!.samples.completed;
    const samples = record.result.counts.samples;
    expect(samples).toBeGreaterThanOrEqual(5);
    expect(samples).toBeLessThanOrEqual(done);
    expect(done - samples).toBeLessThanOrEqual(record.sut!.samples.issued - samples);
    const tokens = record.result.counts.tokens;
    expect(tokens).toBe(8 * done);
    expect(json(join(outdir, 'results.json')).counts).toMatchObject({ samples, tokens });
    expect(json(join(outdir, 'run-state.json'))).toMatchObject({ state: 'aborted', progress: { completed: samples } });
    expect(formatSummary(record, [])).toContain(`; ${samples} samples, ${tokens} tokens`);
  });
});

describe('the progress line', () => {
  test('counts failed requests as they happen, while the samples still wait for a retry or a healthy endpoint', async () => {
    const progress: RunProgress[] = [];
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 20,
      settings: { minDurationMs: 500, minQueryCount: 10 },
      dataset,
      workers: 1,
      outdir: join(dir, 'failing'),
      // The health check's request goes through; every request after it answers 500.
      simulator: {
        faults: [
          { kind: 'slow-headers', ms: 0, count: 1, match: { path: '/v1/completions' } },
          { kind: 'status', status: 500, match: { path: '/v1/completions' } },
        ],
      },
      // Samples give up only after 3 s: the first progress reports come before any has failed.
      timeouts: { totalMs: 3000 },
      log: () => undefined,
      onProgress: (p) => progress.push(p),
    });
    expect(record.sut!.samples.failed).toBe(record.sut!.samples.issued);
    const early = progress.filter((p) => p.errors === 0 && p.issued > 0);
    expect(early.length, JSON.stringify(progress)).toBeGreaterThan(0);
    // Some report shows failed requests before any sample has failed (a report
    // can also fall between a sample's issue and its first 500).
    const counted = early.filter((p) => (p.requestErrors ?? 0) > 0);
    expect(counted.length, JSON.stringify(progress)).toBeGreaterThan(0);
    for (const p of counted) expect(formatProgress(p)).toMatch(/ [1-9]\d* errors /);
    for (const p of progress) expect(p.requestErrors ?? 0).toBeGreaterThanOrEqual(p.errors ?? 0);
    const last = progress[progress.length - 1];
    if (last.errors! > 0) expect(formatProgress(last)).toMatch(/ \d+ errors( \(\d+ samples failed\))? /);
  });
});
