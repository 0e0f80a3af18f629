// The latency trend of a run (results.json latencyMs.trend) and how a sweep
// probe's trend is projected to the full run's length: a queue that grows
// over the probe fails the probe even when its short percentiles pass; the
// wander of a server that keeps up does not.
import { describe, expect, test } from 'vitest';

import { latencyTrend, TREND_MIN_PER_THIRD } from '../../lib/results/latency-trend.js';
import type { ResultsJson } from '../../lib/results/results-json.js';
import { projectTrend } from '../../lib/results/sweep-json.js';
import type { SampleTiming } from '../../lib/sut/types.js';

const MS = 1e6;

/** n samples, one every `gapMs`, whose TTFT is ttft(i) ms and whose stream ends 100 ms later. */
function timings(n: number, gapMs: number, ttft: (i: number) => number, stream = true): SampleTiming[] {
  return Array.from({ length: n }, (_, i) => {
    const scheduledNs = 1e12 + i * gapMs * MS;
    return {
      id: i,
      index: i,
      endpoint: 0,
      attempts: 1,
      scheduledNs,
      issuedNs: scheduledNs,
      sentNs: scheduledNs,
      headersNs: scheduledNs,
      dispatchedNs: scheduledNs,
      firstTokenNs: stream ? scheduledNs + ttft(i) * MS : 0,
      endNs: scheduledNs + (ttft(i) + 100) * MS,
      chunks: 1,
      multiTokenChunks: 0,
      tokens: 10,
      maxGapNs: 0,
      ok: true,
    };
  });
}

describe('latencyTrend', () => {
  test('a queue growing 50 ms per second of schedule: the slope between the thirds says 50', () => {
    // 300 samples 10 ms apart: 3 s; TTFT 20 ms + 0.5 ms per sample.
    const t = latencyTrend(timings(300, 10, (i) => 20 + 0.5 * i))!;
    expect(t.metric).toBe('ttft');
    expect(t.perThird).toBe(100);
    expect(t.spanSeconds).toBeCloseTo(2, 6);
    expect(t.slopeMsPerSecond).toBeCloseTo(50, 6);
    expect(t.lastMs - t.firstMs).toBeCloseTo(100, 6);
  });

  test('steady: no slope; without streams the latency is used; too few samples: null', () => {
    expect(latencyTrend(timings(300, 10, (i) => 30 + (i % 7)))!.slopeMsPerSecond).toBeCloseTo(0, 1);
    const plain = latencyTrend(timings(300, 10, () => 30, false))!;
    expect(plain.metric).toBe('latency');
    expect(plain.firstMs).toBeCloseTo(130, 6);
    expect(latencyTrend(timings(3 * TREND_MIN_PER_THIRD - 1, 10, (i) => i))).toBeNull();
    // Failed samples say nothing of the queue.
    const failed = timings(300, 10, (i) => 20 + 0.5 * i).map((x) => ({ ...x, ok: false }));
    expect(latencyTrend(failed)).toBeNull();
  });
});

/** The parts of a probe's results.json the projection reads. */
function probe(trend: ReturnType<typeof latencyTrend>, p99: number, windowSeconds: number): ResultsJson {
  return {
    settings: { requested: { useTokenLatencies: true, ttftLatencyNs: 1000 * MS, tpotLatencyNs: 50 * MS } },
    benchmark: { scenario: 'Server' },
    latencyMs: { trend, ttft: { p99 }, sample: { p99: p99 + 100 } },
    throughput: { windowSeconds },
  } as unknown as ResultsJson;
}

describe('projectTrend: a probe stands for the full run', () => {
  test('growing 50 ms/s: fine over a 10 s run, over the 1000 ms TTFT bound over a 600 s one', () => {
    const t = latencyTrend(timings(300, 10, (i) => 20 + 0.5 * i))!;
    const short = projectTrend(probe(t, 170, 3.1), 10_000);
    expect(short.sustained).toBe(true);
    expect(short.projectedP99Ms).toBeCloseTo(170 + 50 * (10 - 3.1), 6);
    const long = projectTrend(probe(t, 170, 3.1), 600_000);
    expect(long.sustained).toBe(false);
    expect(long.projectedP99Ms).toBeCloseTo(170 + 50 * (600 - 3.1), 6);
    expect(long.reason).toBe(
      'not sustained: median TTFT grew from 44.5 to 144.5 ms over the probe (50.0 ms/s, the queue growing); a 600 s run at this rate would reach a p99 of about 30015 ms, over the 1000 ms bound',
    );
  });

  test('growth under 5 % of the bound is noise: not projected', () => {
    // 40 ms over the probe against a 1000 ms bound.
    const t = latencyTrend(timings(300, 10, (i) => 20 + (40 / 300) * i))!;
    const r = projectTrend(probe(t, 80, 3.1), 600_000);
    expect(r).toEqual({ projectedP99Ms: 80, sustained: true, reason: null });
  });

  test('no trend or no bound: not judged', () => {
    expect(projectTrend(probe(null, 80, 3.1), 600_000).sustained).toBeNull();
    const t = latencyTrend(timings(300, 10, (i) => 20 + 0.5 * i))!;
    const unbounded = probe(t, 170, 3.1);
    (unbounded.settings.requested as Record<string, unknown>).ttftLatencyNs = 0;
    expect(projectTrend(unbounded, 600_000).sustained).toBeNull();
  });
});
