// Token accounting, cost and budgets on simulated runs whose token counts
// are known: 48 prompts of 16 ids, 8 output tokens each (the simulator
// generates max_tokens unless told to stop early). Every figure is checked
// against a value worked out by hand from those counts and the run's times.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { runBenchmark, startSimulator, type Dataset } from '../../lib/index.js';
import { countGoodput } from '../../lib/cost/goodput.js';
import { resolvePricing } from '../../lib/cost/pricing.js';
import type { SampleTiming } from '../../lib/sut/types.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 48;
const IN = 16;
const OUT = 8;
const dataset: Dataset = {
  name: 'known',
  size: N,
  prompt: (i) => ({ tokenIds: Array.from({ length: IN }, (_, k) => 100 + i + k), maxTokens: OUT }),
};
const sim = { maxRunningSeqs: 64, decodeStepNs: 1_000_000, precisePacing: false };
const quiet = () => undefined;

describe('cost and tokens', () => {
  test('an accuracy run: tokens per sample, endpoint and run; cost figures by hand', async () => {
    const outdir = join(dir, 'acc');
    const record = await runBenchmark({
      scenario: 'Offline',
      mode: 'AccuracyOnly',
      dataset,
      simulator: sim,
      workers: 0,
      outdir,
      log: quiet,
      pricing: { gpuHourPrice: 2.5, gpusPerEndpoint: 8 },
      metricsIntervalMs: 100,
    });
    const j = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
    expect(j.tokens).toMatchObject({
      samples: N,
      promptTokens: N * IN,
      outputTokens: N * OUT,
      promptTokensSource: 'token-ids',
    });
    expect(j.tokens.endpoints).toEqual([
      { url: record.endpoints[0].url, samples: N, promptTokens: N * IN, outputTokens: N * OUT },
    ]);
    expect(j.tokens.perSample.outputTokens).toEqual(Array(N).fill(OUT));
    expect(j.tokens.perSample.promptTokens).toEqual(Array(N).fill(IN));
    expect([...j.tokens.perSample.index].sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: N }, (_, i) => i),
    );
    // Offline has no latency target: every successful query counts.
    expect(j.goodput).toMatchObject({ samples: N, good: N, fraction: 1, targets: { kind: 'none' } });
    // Cost: 8 GPUs × $2.5 over the test's wall time.
    const seconds = (Date.parse(j.run.endedAt) - Date.parse(j.run.startedAt)) / 1000;
    const dollars = (8 * 2.5 * seconds) / 3600;
    expect(j.cost.billedSeconds).toBeCloseTo(seconds, 9);
    expect(j.cost.dollarsPerHour).toBe(20);
    expect(j.cost.dollars).toBeCloseTo(dollars, 12);
    expect(j.cost.endpoints[0]).toMatchObject({ gpus: 8, pricePerGpuHour: 2.5, dollarsPerHour: 20 });
    expect(j.cost.perMillionOutputTokens).toBeCloseTo((dollars / (N * OUT)) * 1e6, 9);
    expect(j.cost.perMillionInputTokens).toBeCloseTo((dollars / (N * IN)) * 1e6, 9);
    expect(j.cost.perMillionTokens).toBeCloseTo((dollars / (N * (IN + OUT))) * 1e6, 9);
    expect(j.cost.perThousandQueries).toBeCloseTo((dollars / N) * 1000, 9);
    expect(j.cost.perGoodQuery).toBeCloseTo(dollars / N, 12);
    expect(j.budget).toBeNull();
    // The report shows them.
    const html = readFileSync(join(outdir, 'report.html'), 'utf8');
    expect(html).toContain('<h2>Cost and tokens</h2>');
    expect(html).toContain(`$${dollars.toFixed(4)}`);
    expect(html).toContain('<h2>Server metrics</h2>');
  }, 60_000);

  test('two endpoints priced apart: per-endpoint tokens, cost and server counters add up', async () => {
    const a = await startSimulator({ ...sim, model: 'm' });
    const b = await startSimulator({ ...sim, model: 'm' });
    try {
      const record = await runBenchmark({
        scenario: 'Offline',
        mode: 'AccuracyOnly',
        dataset,
        endpoints: [a.url, b.url],
        workers: 0,
        outdir: join(dir, 'two'),
        log: quiet,
        pricing: { gpuHourPrice: [2, 3], gpusPerEndpoint: [8, 4] },
        metricsIntervalMs: 100,
      });
      const t = record.tokens!;
      expect(t.endpoints.map((e) => e.url)).toEqual([a.url, b.url]);
      expect(t.endpoints[0].samples + t.endpoints[1].samples).toBe(N);
      expect(t.endpoints[0].samples).toBeGreaterThan(0);
      expect(t.endpoints[1].samples).toBeGreaterThan(0);
      for (const e of t.endpoints) {
        expect(e.outputTokens).toBe(e.samples * OUT);
        expect(e.promptTokens).toBe(e.samples * IN);
      }
      const c = record.cost!;
      expect(c.dollarsPerHour).toBe(8 * 2 + 4 * 3);
      const hours = c.billedSeconds / 3600;
      expect(c.endpoints.map((e) => e.dollars)).toEqual([16 * hours, 12 * hours]);
      expect(c.dollars).toBeCloseTo(28 * hours, 12);
      // Each server counted exactly what the client got from it.
      record.serverMetrics!.endpoints.forEach((m, i) => {
        expect(m.url).toBe(t.endpoints[i].url);
        expect(m.generationTokens).toBe(t.endpoints[i].outputTokens);
        expect(m.promptTokens).toBe(t.endpoints[i].promptTokens);
        expect(m.requests).toBe(t.endpoints[i].samples);
      });
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  test('goodput counts the samples within TTFT and TPOT targets, as LoadGen measures them', () => {
    const t = (ttftMs: number, tokens: number, totalMs: number, ok = true): SampleTiming => ({
      id: 0,
      index: 0,
      endpoint: 0,
      attempts: 1,
      scheduledNs: 1e9,
      issuedNs: 1e9,
      dispatchedNs: 1e9,
      sentNs: 1e9,
      headersNs: NaN,
      firstTokenNs: 1e9 + ttftMs * 1e6,
      endNs: 1e9 + totalMs * 1e6,
      chunks: tokens,
      multiTokenChunks: 0,
      tokens,
      maxGapNs: 0,
      ok,
    });
    // TTFT ≤ 100 ms and TPOT ≤ 10 ms: (100, 11 tokens, 200 ms) has TPOT 10 ms: good; (101, ...) not;
    // (50, 11, 210.1) TPOT 10.01 ms: not; a failed sample is not counted at all.
    const timings = [t(100, 11, 200), t(101, 11, 201), t(50, 11, 210.1), t(10, 1, 10), t(1, 5, 5, false)];
    const g = countGoodput(timings, { kind: 'token-latencies', ttftMs: 100, tpotMs: 10, latencyMs: null });
    expect(g).toMatchObject({ samples: 4, good: 2, fraction: 0.5 });
    const l = countGoodput(timings, { kind: 'latency', ttftMs: null, tpotMs: null, latencyMs: 200 });
    expect(l.good).toBe(2);
  });

  test('pricing per endpoint and its errors', () => {
    expect(resolvePricing({ gpuHourPrice: [2, 3], gpusPerEndpoint: 4 }, 2)).toEqual([
      { gpus: 4, pricePerGpuHour: 2, dollarsPerHour: 8 },
      { gpus: 4, pricePerGpuHour: 3, dollarsPerHour: 12 },
    ]);
    expect(resolvePricing(undefined, 2)).toBeNull();
    expect(() => resolvePricing({ gpuHourPrice: [2, 3, 4] }, 2)).toThrow(/3 values for 2 endpoints/);
    expect(() => resolvePricing({ gpuHourPrice: 2, gpusPerEndpoint: 0.5 }, 1)).toThrow(
      /--gpus-per-endpoint must be an integer >= 1/,
    );
    expect(() => resolvePricing({ gpuHourPrice: -1 }, 1)).toThrow(/--gpu-hour-price must be a number >= 0/);
  });
});

describe('budgets', () => {
  test('an output-token budget ends a Server run cleanly, with the reason', async () => {
    const outdir = join(dir, 'budget-tokens');
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 40,
      settings: { minDurationMs: 5000 },
      dataset,
      simulator: sim,
      workers: 0,
      outdir,
      log: quiet,
      budget: { outputTokens: 80 },
      metricsIntervalMs: 0,
    });
    expect(record.result.aborted).toBe(true);
    expect(record.budget).toMatchObject({ stoppedBy: 'outputTokens', limits: { outputTokens: 80 } });
    expect(record.budget!.used.outputTokens).toBeGreaterThanOrEqual(80);
    const j = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
    expect(j.run.aborted).toBe(true);
    expect(j.run.abortReason).toMatch(/^budget: \d+ output tokens reached the limit of 80$/);
    expect(j.budget.reason).toBe(j.run.abortReason);
    // The logs are written and the run state says why it ended.
    expect(readFileSync(join(outdir, 'mlperf_log_summary.txt'), 'utf8')).toContain('Test aborted: budget:');
    expect(JSON.parse(readFileSync(join(outdir, 'run-state.json'), 'utf8'))).toMatchObject({
      state: 'stopped-by-budget',
      note: j.run.abortReason,
    });
    expect(readFileSync(join(outdir, 'report.html'), 'utf8')).toContain('<h2>Budgets</h2>');
  }, 60_000);

  test('minute and dollar budgets', async () => {
    const base = {
      scenario: 'Server' as const,
      targetQps: 40,
      settings: { minDurationMs: 10_000 },
      dataset,
      simulator: sim,
      workers: 0,
      log: quiet,
      metricsIntervalMs: 0,
    };
    const byTime = await runBenchmark({ ...base, outdir: join(dir, 'budget-min'), budget: { minutes: 0.01 } });
    expect(byTime.budget).toMatchObject({ stoppedBy: 'minutes' });
    expect(byTime.result.abortReason).toMatch(/^budget: 0\.01 minutes reached the limit of 0\.01$/);
    // $36,000 an hour is $10 a second: a $5 budget ends the run after about half a second.
    const byCost = await runBenchmark({
      ...base,
      outdir: join(dir, 'budget-usd'),
      pricing: { gpuHourPrice: 4500, gpusPerEndpoint: 8 },
      budget: { dollars: 5 },
    });
    expect(byCost.budget).toMatchObject({ stoppedBy: 'dollars' });
    expect(byCost.budget!.used.dollars!).toBeGreaterThanOrEqual(5);
    expect(byCost.cost!.dollarsPerHour).toBe(36_000);
    await expect(runBenchmark({ ...base, outdir: join(dir, 'budget-bad'), budget: { dollars: 5 } })).rejects.toThrow(
      /--budget-cost needs --gpu-hour-price/,
    );
    await expect(
      runBenchmark({ ...base, outdir: join(dir, 'budget-bad'), budget: { outputTokens: 1.5 } }),
    ).rejects.toThrow(/--budget-tokens must be an integer > 0/);
  }, 60_000);
});
