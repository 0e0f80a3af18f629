// Server metrics: the Prometheus text parser, the vLLM and SGLang name maps,
// histogram quantiles, the series' counter-reset rule and bounded memory,
// and whole runs scraping the simulator's /metrics, whose values are known
// (48 prompts of 32 ids, 8 output tokens each; the first 16 ids shared).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { runBenchmark, startSimulator, type Dataset } from '../../lib/index.js';
import { parsePrometheusText } from '../../lib/metrics/prom-text.js';
import { MetricsScraper } from '../../lib/metrics/scraper.js';
import { MetricsSeries } from '../../lib/metrics/series.js';
import { snapshotOf } from '../../lib/metrics/server-snapshot.js';
import { bucketQuantile } from '../../lib/metrics/summary.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Prometheus text', () => {
  test('samples, labels with escapes, special values, timestamps, comments', () => {
    const text = [
      '# HELP vllm:num_requests_running Number of requests.',
      '# TYPE vllm:num_requests_running gauge',
      'vllm:num_requests_running{model_name="m \\"x\\"\\\\y",engine="0"} 3.0',
      'vllm:num_requests_running{model_name="m2",engine="1"} 4 1700000000000',
      'plain_metric 7',
      'h_bucket{le="+Inf"} 12',
      'nan_metric NaN',
      'broken{le="1" 5',
      '',
    ].join('\n');
    const s = parsePrometheusText(text);
    expect(s).toHaveLength(5);
    expect(s[0]).toEqual({
      name: 'vllm:num_requests_running',
      labels: { model_name: 'm "x"\\y', engine: '0' },
      value: 3,
    });
    expect(s[1].value).toBe(4);
    expect(s[2]).toEqual({ name: 'plain_metric', labels: {}, value: 7 });
    expect(s[3].labels.le).toBe('+Inf');
    expect(Number.isNaN(s[4].value)).toBe(true);
    // Two engines: gauges summed.
    expect(snapshotOf(s)).toMatchObject({ flavor: 'vllm', running: 7 });
  });

  test('histogram quantiles interpolate within buckets, like histogram_quantile', () => {
    const b: Array<[number, number]> = [
      [0.1, 50],
      [0.2, 90],
      [0.4, 100],
      [Infinity, 100],
    ];
    expect(bucketQuantile(b, 0.5)).toBeCloseTo(0.1, 12);
    expect(bucketQuantile(b, 0.7)).toBeCloseTo(0.15, 12);
    expect(bucketQuantile(b, 0.95)).toBeCloseTo(0.3, 12);
    expect(
      bucketQuantile(
        [
          [1, 0],
          [Infinity, 0],
        ],
        0.5,
      ),
    ).toBeNull();
  });

  test('counter resets count from zero; memory stays bounded', () => {
    const s = new MetricsSeries(8);
    const snap = (gen: number) =>
      snapshotOf(parsePrometheusText(`vllm:generation_tokens_total{engine="0"} ${gen}\nvllm:num_requests_running 1\n`));
    // 100 → 150 (+50), restart → 20 (+20), → 70 (+50)
    for (const [t, g] of [
      [0, 100],
      [1, 150],
      [2, 20],
      [3, 70],
    ])
      s.add(t, snap(g));
    expect(s.totals.generationTokens).toBe(120);
    expect(s.resets).toBe(1);
    for (let t = 4; t < 100; t++) s.add(t, snap(70 + t));
    expect(s.points.length).toBeLessThanOrEqual(9);
    expect(s.points[0].tMs).toBe(0);
    expect(s.points[s.points.length - 1].tMs).toBe(99);
    // then 74 (+4) and one more per point up to 169.
    expect(s.totals.generationTokens).toBe(120 + 99);
  });
});

const N = 48;
const OUT = 8;
const shared = Array.from({ length: 16 }, (_, k) => 500 + k);
const dataset: Dataset = {
  name: 'prefix',
  size: N,
  prompt: (i) => ({
    tokenIds: [...shared, ...Array.from({ length: 16 }, (_, k) => 2000 + 16 * i + k)],
    maxTokens: OUT,
  }),
};

describe('scraping the simulator', () => {
  for (const flavor of ['vllm', 'sglang'] as const) {
    test(`${flavor}: server counters equal the client's, gauges and TTFT over time, prefix-cache hit rate`, async () => {
      const outdir = join(dir, flavor);
      const record = await runBenchmark({
        scenario: 'Offline',
        mode: 'AccuracyOnly',
        dataset,
        simulator: { flavor, maxRunningSeqs: 16, decodeStepNs: 5_000_000, precisePacing: false, prefixCache: true },
        api: flavor === 'sglang' ? 'generate' : 'completions',
        workers: 0,
        outdir,
        log: () => undefined,
        metricsIntervalMs: 20,
      });
      const m = record.serverMetrics!.endpoints[0];
      expect(m.flavor).toBe(flavor);
      expect(m.failedScrapes).toBe(0);
      expect(m.generationTokens).toBe(N * OUT);
      expect(m.promptTokens).toBe(N * 32);
      expect(m.requests).toBe(N);
      expect(m.client).toEqual({ outputTokens: N * OUT, promptTokens: N * 32, completed: N });
      expect(m.generationTokensRatio).toBe(1);
      expect(m.promptTokensRatio).toBe(1);
      expect(m.restarts).toBe(0);
      // Every request queried 32 tokens; all but the first found the shared block of 16.
      const rate = ((N - 1) * 16) / (N * 32);
      if (flavor === 'vllm') expect(m.prefixCacheHitRate).toBeCloseTo(rate, 12);
      else {
        // SGLang exports a hit-rate gauge (here the simulator's since start, the probe's 4 tokens included):
        // the run's figure is its mean over the scrapes, its last value the whole run's.
        expect(m.prefixCacheHitRate).toBeGreaterThan(0);
        expect(m.points[m.points.length - 1].prefixHitRate).toBeCloseTo(rate, 2);
      }
      expect(m.ttftMs!.count).toBe(N);
      expect(m.ttftMs!.mean).toBeGreaterThan(0);
      // 48 requests over 16 slots; at the end nothing runs.
      expect(m.peak.running).toBeGreaterThan(0);
      expect(m.peak.running).toBeLessThanOrEqual(16);
      expect(m.peak.kvUsage).toBeGreaterThan(0);
      expect(m.points.length).toBeGreaterThanOrEqual(3);
      expect(m.points[m.points.length - 1]).toMatchObject({ running: 0, waiting: 0, generationTokens: N * OUT });
      const j = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
      expect(j.serverMetrics.endpoints[0].generationTokens).toBe(N * OUT);
      const html = readFileSync(join(outdir, 'report.html'), 'utf8');
      expect(html).toContain('Running and waiting requests, server');
      expect(html).toContain('Output tokens per second: server vs client');
    }, 60_000);
  }

  test('gauges at a known moment: running, waiting and KV usage exactly as the engine holds them', async () => {
    for (const flavor of ['vllm', 'sglang'] as const) {
      // 10 s steps: the first request is admitted at once and its step does not end before the
      // scrape; the five after it wait for the next step (continuous batching admits at step
      // boundaries). Nothing is generated yet, so the KV use is the running prompt's 10 tokens.
      const sim = await startSimulator({ flavor, maxRunningSeqs: 4, maxModelLen: 1000, decodeStepNs: 10e9 });
      const pending = Array.from({ length: 6 }, (_, i) =>
        fetch(`${sim.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim-model',
            prompt: Array.from({ length: 10 }, (_, k) => 50 + i + k),
            max_tokens: 4,
            stream: true,
          }),
        }).then(
          (r) => r.text().catch(() => undefined),
          () => undefined,
        ),
      );
      const s = new MetricsScraper({ urls: [sim.url], intervalMs: 0 });
      const until = Date.now() + 5000;
      do {
        await s.scrapeAll();
      } while ((s.series[0].last?.running ?? 0) + (s.series[0].last?.waiting ?? 0) < 6 && Date.now() < until);
      const last = s.series[0].last!;
      expect(last).toMatchObject({ flavor, running: 1, waiting: 5, promptTokens: 60, generationTokens: 0 });
      expect(last.kvUsage).toBeCloseTo(10 / 4000, 12);
      await sim.close();
      await Promise.all(pending);
    }
  });

  test('a scraper against a server that is down counts failed scrapes and keeps going', async () => {
    const sim = await startSimulator({ flavor: 'vllm' });
    const url = sim.url;
    const s = new MetricsScraper({ urls: [url], intervalMs: 0 });
    await s.scrapeAll();
    await sim.close();
    await s.scrapeAll();
    expect(s.series[0].scrapes).toBe(1);
    expect(s.series[0].failures).toBe(1);
    expect(s.series[0].lastError).toBeTruthy();
  });
});
