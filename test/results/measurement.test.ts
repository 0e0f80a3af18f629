// The measurement verdict's rule (lib/results/measurement.ts) on synthetic
// records: each reason triggers at its limit and not below it, and the
// verdict reaches results.json, the console line and --strict's exit code.
import { describe, expect, test } from 'vitest';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readConfigFile } from '../../lib/cli/config-file.js';
import { exitCodeOf, formatSummary, planRun } from '../../lib/cli/run-command.js';
import { ExitCode } from '../../lib/cli/exit-codes.js';
import { MEASUREMENT_LIMITS, measurementLine, measurementOf } from '../../lib/results/measurement.js';
import { buildReportHtml } from '../../lib/results/report-html.js';
import { buildResultsJson } from '../../lib/results/results-json.js';
import type { HarnessUsage, RunRecord } from '../../lib/results/run-record.js';
import type { Percentiles, SampleTiming } from '../../lib/sut/types.js';
import { flatStats, syntheticRecord } from './records.js';

const MS = 1e6;

function loop(p99: number, max = p99): Percentiles {
  return { count: 1000, mean: p99 / 2, min: 0, max, p50: p99 / 4, p90: p99 / 2, p95: p99 / 2, p99, p999: max };
}

interface Shape {
  n?: number;
  /** ms of schedule → issue, issue → dispatch, dispatch → write for sample i. */
  lag?: (i: number) => [number, number, number];
  scenario?: 'Server' | 'Offline' | 'SingleStream';
  settings?: Record<string, unknown>;
  workerLoopP99?: number[];
  mainLoopP99?: number;
  cpu?: Partial<HarnessUsage>;
  valid?: boolean;
  ttftP99Ms?: number;
}

function timings(n: number, lag: (i: number) => [number, number, number]): SampleTiming[] {
  return Array.from({ length: n }, (_, i) => {
    const [a, b, c] = lag(i);
    const scheduledNs = 1e9 + i * 20 * MS;
    const issuedNs = scheduledNs + a * MS;
    const dispatchedNs = issuedNs + b * MS;
    const sentNs = dispatchedNs + c * MS;
    return {
      id: i,
      index: i,
      endpoint: 0,
      attempts: 1,
      scheduledNs,
      issuedNs,
      sentNs,
      headersNs: sentNs + 5 * MS,
      firstTokenNs: sentNs + 20 * MS,
      endNs: sentNs + 100 * MS,
      chunks: 8,
      multiTokenChunks: 0,
      tokens: 8,
      maxGapNs: 10 * MS,
      ok: true,
      dispatchedNs,
    };
  });
}

function record(o: Shape = {}): RunRecord {
  const n = o.n ?? 300;
  const workerLoops = o.workerLoopP99 ?? [1];
  return syntheticRecord({
    n,
    settings: { useTokenLatencies: true, ttftLatencyNs: 1000 * MS, serverTargetLatencyNs: 2000 * MS, ...o.settings },
    simulated: false,
    result: {
      scenario: o.scenario ?? 'Server',
      valid: o.valid ?? true,
      metric: null,
      latency: flatStats(120 * MS),
      ttft: flatStats((o.ttftP99Ms ?? 40) * MS),
      tpot: flatStats(3 * MS),
      effective: {
        samplesPerQuery: 1,
        minQueryCount: 1,
        targetQps: 1,
        performanceSampleCount: n,
        accuracySampleCount: n,
      },
    },
    sut: {
      workers: workerLoops.length,
      eventLoopDelayMs: workerLoops.map((p) => loop(p)),
      timings: timings(n, o.lag ?? (() => [0.05, 0.2, 0.1])),
    },
    extra: {
      harnessUsage: {
        wallSeconds: 10,
        cpuSeconds: 2,
        cores: 2,
        mainEventLoopDelayMs: loop(o.mainLoopP99 ?? 1),
        ...o.cpu,
      },
    } as Partial<RunRecord>,
  });
}

describe('measurement verdict', () => {
  test('a quiet record is trustworthy, with its figures', () => {
    const m = measurementOf(record());
    expect(m.verdict).toBe('trustworthy');
    expect(m.reasons).toEqual([]);
    expect(m.unchecked).toEqual([]);
    expect(m.figures.reference).toEqual({ kind: 'ttft-bound', ms: 1000 });
    expect(m.figures.issueLagMs!.p99).toBeCloseTo(0.05, 6);
    expect(m.figures.issueToDispatchMs!.p50).toBeCloseTo(0.2, 6);
    expect(m.figures.dispatchToWriteMs!.max).toBeCloseTo(0.1, 6);
    expect(m.figures.beforeWriteMs!.p99).toBeCloseTo(0.35, 6);
    // + the worker's loop delay p99 (1 ms).
    expect(m.figures.harnessP99Ms).toBeCloseTo(1.35, 6);
    expect(m.figures.harnessShare).toBeCloseTo(0.00135, 6);
    expect(m.figures.cpu).toEqual({ seconds: 2, wallSeconds: 10, cores: 2, share: 0.1 });
    expect(m.figures.beforeWriteThirdsMs!.first).toBeCloseTo(0.35, 6);
    expect(measurementLine(m)).toBe('measurement: trustworthy');
  });

  test("the harness's p99 share of the TTFT bound: over 5 % is harness-limited, under is not", () => {
    // 1 % of samples at 40 ms before the write (+ 1 ms loop delay): 41 ms of a 1000 ms bound = 4.1 %.
    const under = record({ lag: (i) => (i % 100 === 0 ? [0, 2, 38] : [0.05, 0.2, 0.1]) });
    expect(measurementOf(under).verdict).toBe('trustworthy');
    const over = record({ lag: (i) => (i % 50 === 0 ? [0, 2, 58] : [0.05, 0.2, 0.1]) });
    const m = measurementOf(over);
    expect(m.verdict).toBe('harness-limited');
    expect(m.reasons).toHaveLength(1);
    expect(m.reasons[0]).toMatch(
      /the harness's own p99 time is 61\.0 ms, 6\.1% of the TTFT bound \(1000 ms; limit 5\.0%\), mostly dispatch→write \(connection pool\) \(58\.0 ms p99\)/,
    );
  });

  test('without a bound (SingleStream) the reference is the measured TTFT p99', () => {
    const r = record({ scenario: 'SingleStream', ttftP99Ms: 20, lag: () => [0.05, 0.5, 0.5] });
    const m = measurementOf(r);
    expect(m.figures.reference).toEqual({ kind: 'ttft-p99', ms: 20 });
    // 1.05 ms + 1 ms loop delay of 20 ms: 10 %.
    expect(m.verdict).toBe('harness-limited');
    expect(m.reasons[0]).toMatch(/of the measured TTFT p99 \(20\.0 ms/);
    // The latency bound without token latencies (Server).
    const lat = measurementOf(record({ settings: { useTokenLatencies: false } }));
    expect(lat.figures.reference).toEqual({ kind: 'latency-bound', ms: 2000 });
  });

  test('Offline: no share or growth check (every sample is due at once)', () => {
    const m = measurementOf(record({ scenario: 'Offline', lag: (i) => [i, 0, 0] }));
    expect(m.figures.reference).toBeNull();
    expect(m.verdict).toBe('trustworthy');
    expect(m.unchecked.join('; ')).toMatch(/share of the latency.*growth during the run/);
  });

  test('the time before the write growing from the first third to the last', () => {
    // Grows linearly from 0 to 18 ms: the thirds' medians 2.9 and 14.9 ms, +12 ms > max(1 ms, 1 % of 1000 ms); p99 18 ms + 1 ms = 1.9 %.
    const m = measurementOf(record({ lag: (i) => [(i / 300) * 18, 0, 0] }));
    expect(m.verdict).toBe('harness-limited');
    expect(m.reasons).toHaveLength(1);
    expect(m.reasons[0]).toMatch(
      /fell behind its schedule: the median time from schedule to write grew from 2\.94 ms .* to 14\.9 ms in the last \(limit \+10\.0 ms\)/,
    );
    // +9 ms stays under the 10 ms limit.
    expect(measurementOf(record({ lag: (i) => [(i / 300) * 13.4, 0, 0] })).verdict).toBe('trustworthy');
    // Too few samples: not checked.
    const few = measurementOf(record({ n: 60, lag: (i) => [(i / 60) * 15, 0, 0] }));
    expect(few.figures.beforeWriteThirdsMs).toBeNull();
    expect(few.unchecked.some((u) => u.startsWith('growth'))).toBe(true);
  });

  test('event-loop delay p99 over 50 ms on any thread', () => {
    expect(measurementOf(record({ workerLoopP99: [1, 49] })).verdict).toBe('trustworthy');
    const w = measurementOf(record({ workerLoopP99: [1, 51], settings: { ttftLatencyNs: 10_000 * MS } }));
    expect(w.verdict).toBe('harness-limited');
    expect(w.reasons).toEqual([
      'adapter worker 2 was blocked: event-loop delay p99 51.0 ms, max 51.0 ms (limit 50 ms)',
    ]);
    const main = measurementOf(record({ mainLoopP99: 80 }));
    expect(main.reasons).toEqual([
      'the main thread was blocked: event-loop delay p99 80.0 ms, max 80.0 ms (limit 50 ms)',
    ]);
  });

  test('CPU near the cores the harness has', () => {
    expect(measurementOf(record({ cpu: { cpuSeconds: 17.9 } })).verdict).toBe('trustworthy');
    const m = measurementOf(record({ cpu: { cpuSeconds: 18.5 } }));
    expect(m.reasons).toEqual(['the harness used 93% of its 2 cores (18.5 CPU-s over 10.0 s; limit 90%)']);
    expect(MEASUREMENT_LIMITS.cpuShare).toBe(0.9);
    // Busy polling spins the adapter's threads on purpose: not judged by CPU.
    const polling = record({ cpu: { cpuSeconds: 19.5 } });
    polling.sut!.busyPollIdleMs = 1000;
    const p = measurementOf(polling);
    expect(p.verdict).toBe('trustworthy');
    expect(p.figures.cpu).toBeNull();
    expect(p.unchecked).toEqual(['CPU use (busy polling keeps the adapter threads spinning by design)']);
  });

  test('several reasons at once, in the console line', () => {
    const m = measurementOf(record({ mainLoopP99: 80, cpu: { cpuSeconds: 19 } }));
    expect(measurementLine(m)).toMatch(
      /^measurement: harness-limited \(the main thread was blocked: .*; the harness used 95% of its 2 cores .*\)$/,
    );
  });

  test('results.json, report.html, the summary and --strict', () => {
    const bad = record({ mainLoopP99: 80 });
    const j = buildResultsJson(bad);
    expect(j.schemaVersion).toBe(1);
    expect(j.harness).toMatchObject({
      verdict: 'harness-limited',
      reasons: [expect.stringMatching(/main thread/)],
      unchecked: [],
    });
    expect(j.harness!.measurement.eventLoopDelayMs.main).toEqual({ p99: 80, max: 80 });
    expect(buildResultsJson(record()).harness).toMatchObject({ verdict: 'trustworthy', reasons: [] });
    const html = buildReportHtml(bad, j);
    expect(html).toContain('id="measurement">measurement: <b>harness-limited</b>');
    expect(html).toContain('<h2>Harness</h2>');
    expect(buildReportHtml(record())).toContain('id="measurement">measurement: trustworthy</div>');
    expect(formatSummary(bad, [])).toMatch(/\n {2}measurement: harness-limited \(the main thread was blocked/);
    expect(formatSummary(record(), [])).toContain('\n  measurement: trustworthy\n');
    // --strict: 0 and 1 become 7; without it, or trustworthy, they stay.
    expect(exitCodeOf(bad, false)).toBe(ExitCode.Valid);
    expect(exitCodeOf(bad, false, true)).toBe(ExitCode.HarnessLimited);
    expect(ExitCode.HarnessLimited).toBe(8);
    expect(exitCodeOf(record({ mainLoopP99: 80, valid: false }), false, true)).toBe(8);
    expect(exitCodeOf(record(), false, true)).toBe(ExitCode.Valid);
    expect(exitCodeOf(record({ valid: false }), false, true)).toBe(ExitCode.Invalid);
  });

  test('a record without measurements: trustworthy as far as checked, with what was not', () => {
    const r = record();
    r.harnessUsage = null;
    r.sut!.eventLoopDelayMs = undefined;
    r.sut!.timings = undefined;
    const m = measurementOf(r);
    expect(m.verdict).toBe('trustworthy');
    expect(m.unchecked).toHaveLength(4);
  });

  test('--strict and the config key strict', () => {
    expect(planRun({ scenario: 'Server' }).strict).toBe(false);
    expect(planRun({ scenario: 'Server', strict: true }).strict).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'lg-strict-'));
    try {
      const file = join(dir, 'run.yaml');
      writeFileSync(file, 'scenario: Server\nstrict: true\n');
      expect(planRun(readConfigFile(file)).strict).toBe(true);
      writeFileSync(file, 'scenario: Server\nstrict: 7\n');
      expect(() => readConfigFile(file)).toThrow(/strict/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
