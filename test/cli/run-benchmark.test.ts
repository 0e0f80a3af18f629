// runBenchmark in process: the RunRecord it returns is complete (settings,
// dataset, endpoints, the adapter's report with per-sample timings, a
// timeline), progress and stages are reported, and the files are written.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { abortTest, runBenchmark, type Dataset } from '../../lib/index.js';
import type { RunProgress, RunStage } from '../../lib/run/run-benchmark.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-runbench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dataset: Dataset = { name: 'tiny', size: 20, prompt: (i) => ({ tokenIds: [1, 2, 3 + i], maxTokens: 16 }) };

describe('runBenchmark', () => {
  test('a simulated Server run gives a complete record and the files', async () => {
    const progress: RunProgress[] = [];
    const stages: RunStage[] = [];
    const notes: string[] = [];
    const outdir = join(dir, 'server');
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 40,
      settings: { minDurationMs: 2500 },
      dataset,
      workers: 1,
      outdir,
      command: ['custom'],
      onProgress: (p) => progress.push(p),
      onStage: (s) => stages.push(s),
      log: (m) => notes.push(m),
    });
    expect(stages).toEqual(['test', 'finishing']);
    expect(notes.some((n) => n.startsWith('simulated run'))).toBe(true);
    expect(record).toMatchObject({
      tool: { name: '@x/loadgen' },
      command: ['custom'],
      benchmark: null,
      dataset: { name: 'tiny', path: null, size: 20, preset: null },
      simulated: true,
      outdir,
      settings: { scenario: 'Server', serverTargetQps: 40, minDurationMs: 2500, useTokenLatencies: true },
    });
    expect(record.endpoints).toHaveLength(1);
    expect(record.endpoints[0]).toMatchObject({
      backend: 'vllm',
      api: 'completions',
      model: 'sim-llm-8b',
      serverVersion: '0.11.0',
    });
    expect(Date.parse(record.endedAt)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
    // The engine's result and the adapter's view agree on the samples.
    const n = record.result.counts.samples;
    expect(n).toBeGreaterThan(50);
    expect(record.sut!.samples).toMatchObject({ issued: n, completed: n, failed: 0 });
    expect(record.sut!.timings).toHaveLength(n);
    expect(record.result.counts.tokens).toBe(16 * n);
    // About one timeline point a second, with tokens filled in from the timings.
    expect(record.timeline.length).toBeGreaterThanOrEqual(2);
    const last = record.timeline[record.timeline.length - 1];
    expect(last.outputTokens).toBeGreaterThan(0);
    expect(last.outputTokens % 16).toBe(0);
    expect(record.timeline.every((p, i) => i === 0 || p.tMs > record.timeline[i - 1].tMs)).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[progress.length - 1].issued).toBeGreaterThan(0);
    // Tokens and failures come from the adapter's shared counters while the test runs.
    const later = progress.filter((p) => p.tokensPerSecond !== null);
    expect(later.length).toBeGreaterThan(0);
    expect(later.some((p) => (p.tokensPerSecond ?? 0) > 0)).toBe(true);
    expect(later.every((p) => p.errors === 0)).toBe(true);
    for (const f of ['results.json', 'result_summary.json', 'report.html', 'mlperf_log_summary.txt'])
      expect(existsSync(join(outdir, f)), f).toBe(true);
  });

  test('an aborted run still returns its record, marked aborted, with the logs', async () => {
    const outdir = join(dir, 'aborted');
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 20,
      settings: { minDurationMs: 60_000 },
      dataset,
      workers: 0,
      outdir,
      log: () => undefined,
      onProgress: () => abortTest('enough'),
    });
    expect(record.result.aborted).toBe(true);
    expect(record.result.abortReason).toBe('enough');
    expect(existsSync(join(outdir, 'mlperf_log_detail.txt'))).toBe(true);
    expect(existsSync(join(outdir, 'results.json'))).toBe(true);
  });
});
