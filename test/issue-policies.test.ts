// The issue policies beyond MLPerf's (Server only): a closed loop at fixed
// concurrency, gamma (bursty) arrivals and a ramp-up. Each must do what it
// says, be named in the logs as not an MLPerf scenario, and leave an official
// run's logs without a trace of it (test/official-order.test.ts holds the
// official schedule itself).
import { afterAll, describe, expect, it } from 'vitest';

import { type QuerySample, querySamplesComplete, type SystemUnderTest, type TestSettings } from '../lib/index.js';
import {
  cleanupTempDirs,
  detailErrors,
  detailValue,
  detailWarnings,
  inlineSut,
  nullQsl,
  readDetail,
  readSummary,
  readTrace,
  runTest,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

/** Completes each query `ms` later and records the most queries it ever held at once. */
function slowSut(ms: number): SystemUnderTest & { maxInFlight: number; issued: number } {
  let inFlight = 0;
  const sut = {
    name: 'SlowSUT',
    maxInFlight: 0,
    issued: 0,
    issueQuery(samples: QuerySample[]) {
      inFlight++;
      sut.issued++;
      sut.maxInFlight = Math.max(sut.maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        querySamplesComplete(samples.map((s) => ({ id: s.id })));
      }, ms);
    },
    flushQueries() {},
  };
  return sut;
}

/** Scheduled times (ms from the first) of the trace's samples, in issue order. */
function scheduledMs(tracePath: string): number[] {
  const begins = readTrace(tracePath)
    .traceEvents.filter((e) => e.name === 'Sample' && e.ph === 'b' && e.args)
    .sort((a, b) => a.args!.sample_seq - b.args!.sample_seq)
    .map((e) => (e.ts ?? 0) / 1000);
  return begins.map((t) => t - begins[0]);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

function coefficientOfVariation(xs: number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return Math.sqrt(variance) / mean;
}

// 600 queries: early stopping at the 99th percentile needs about 460 even when none is over the bound.
const SERVER: Partial<TestSettings> = {
  scenario: 'Server',
  minQueryCount: 600,
  minDurationMs: 300,
  serverTargetLatencyNs: 1_000_000_000,
};

describe('closed loop', () => {
  it('holds exactly the concurrency in flight, issues each next query on a completion, and says it is not MLPerf', async () => {
    const sut = slowSut(3);
    const { result } = await runTest(sut, nullQsl(64), {
      ...SERVER,
      closedLoopConcurrency: 4,
      // Only sizes the generated queries: above what 4 slots of 3 ms reach.
      serverTargetQps: 5000,
    });
    expect(sut.maxInFlight).toBe(4);
    expect(sut.issued).toBeGreaterThanOrEqual(600);
    expect(result.valid).toBe(true);
    const summary = readSummary(result.logs.summary).join('\n');
    expect(summary).toContain('Issue policy : closed loop, concurrency 4 (not an MLPerf scenario)');
    const detail = readDetail(result.logs.detail);
    expect(detailValue(detail, 'requested_issue_policy')).toBe('closed loop, concurrency 4 (not an MLPerf scenario)');
    expect(detailValue(detail, 'requested_closed_loop_concurrency')).toBe(4);
    expect(detailWarnings(detail).map((w) => String(w.value))).toContain(
      'Issue policy: closed loop, concurrency 4 (not an MLPerf scenario)',
    );
    expect(detailErrors(detail)).toEqual([]);
    // A sample's scheduled time is its issue time: no schedule to fall behind.
    const begins = readTrace(result.logs.trace!).traceEvents.filter((e) => e.name === 'Sample' && e.ph === 'b');
    expect(begins.length).toBe(sut.issued);
    for (const e of begins) expect(e.args!.issue_start_ns).toBe(0);
  });

  it('a concurrency of 1 never overlaps two queries', async () => {
    const sut = slowSut(1);
    const { result } = await runTest(sut, nullQsl(16), {
      ...SERVER,
      minDurationMs: 100,
      closedLoopConcurrency: 1,
      serverTargetQps: 2000,
    });
    expect(sut.maxInFlight).toBe(1);
    expect(result.valid).toBe(true);
  });

  it('running out of generated queries before the minimums is an error naming the cause', async () => {
    const { result } = await runTest(slowSut(1), nullQsl(16), {
      ...SERVER,
      minDurationMs: 5000,
      closedLoopConcurrency: 2,
      // 2 x 5 s x 10 QPS = 100 queries generated, raised to the 600 minimum: 2 slots of 1 ms spend them in well under 5 s.
      serverTargetQps: 10,
    });
    expect(result.valid).toBe(false);
    const errors = detailErrors(readDetail(result.logs.detail)).map((e) => String(e.value));
    expect(errors.some((e) => e.includes('Ran out of generated queries'))).toBe(true);
  });

  it('is refused together with an arrival pattern', async () => {
    await expect(
      runTest(inlineSut(), nullQsl(16), { ...SERVER, closedLoopConcurrency: 2, serverBurstiness: 0.5 }),
    ).rejects.toThrow(/closedLoopConcurrency cannot be combined/);
  });
});

describe('arrival patterns', () => {
  const RATE = 2000;
  const run = (extra: Partial<TestSettings>) =>
    runTest(inlineSut(), nullQsl(64), {
      ...SERVER,
      serverTargetQps: RATE,
      minQueryCount: 1500,
      minDurationMs: 600,
      scheduleRngSeed: 12345n,
      ...extra,
    });

  it('official Poisson arrivals: gaps with a coefficient of variation near 1, and no issue-policy line', async () => {
    const { result } = await run({});
    const g = gaps(scheduledMs(result.logs.trace!));
    expect(coefficientOfVariation(g)).toBeGreaterThan(0.85);
    expect(coefficientOfVariation(g)).toBeLessThan(1.15);
    expect(readSummary(result.logs.summary).join('\n')).not.toContain('Issue policy');
    expect(detailValue(readDetail(result.logs.detail), 'requested_issue_policy')).toBeUndefined();
  });

  it('burstiness 0.25: the same mean rate, gaps twice as variable (gamma shape 0.25 has CV 2)', async () => {
    const { result } = await run({ serverBurstiness: 0.25 });
    const g = gaps(scheduledMs(result.logs.trace!));
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    expect(mean).toBeGreaterThan((1000 / RATE) * 0.85);
    expect(mean).toBeLessThan((1000 / RATE) * 1.15);
    expect(coefficientOfVariation(g)).toBeGreaterThan(1.6);
    expect(readSummary(result.logs.summary).join('\n')).toContain(
      'Issue policy : gamma arrivals, burstiness 0.25 (not an MLPerf scenario)',
    );
  });

  it('a linear ramp from 200 to 2000 QPS over 1 s: arrivals per 250 ms follow the ramp, then hold', async () => {
    const { result } = await run({ rampStartQps: 200, rampDurationMs: 1000, minDurationMs: 1500, minQueryCount: 100 });
    const t = scheduledMs(result.logs.trace!);
    const inWindow = (a: number, b: number) => t.filter((x) => x >= a && x < b).length;
    // Expected arrivals: the integral of the rate over each window.
    const rate = (x: number) => (x >= 1000 ? RATE : 200 + ((RATE - 200) * x) / 1000);
    const expected = (a: number, b: number) => ((rate(a) + rate(b)) / 2) * ((b - a) / 1000);
    for (const [a, b] of [
      [0, 250],
      [250, 500],
      [500, 750],
      [750, 1000],
      [1000, 1250],
    ]) {
      const n = inWindow(a, b);
      expect(n, `${a}-${b} ms`).toBeGreaterThan(expected(a, b) * 0.75);
      expect(n, `${a}-${b} ms`).toBeLessThan(expected(a, b) * 1.25);
    }
    expect(readSummary(result.logs.summary).join('\n')).toContain('linear ramp from 200 to 2000 QPS over 1000 ms');
  });

  it('an exponential ramp starts slower than a linear one over the same span', async () => {
    const { result } = await run({
      rampStartQps: 200,
      rampDurationMs: 1000,
      rampExponential: true,
      minDurationMs: 1200,
      minQueryCount: 100,
    });
    const t = scheduledMs(result.logs.trace!);
    // The rate is 200 x 10^t (t in s): the first half holds (200 / ln 10) x (10^0.5 - 1) = 188 arrivals
    // in expectation, where a linear ramp holds (200 + 1100) / 2 x 0.5 = 325.
    const firstHalf = t.filter((x) => x < 500).length;
    expect(firstHalf).toBeGreaterThan(188 * 0.75);
    expect(firstHalf).toBeLessThan(188 * 1.25);
  });

  it('a ramp without a duration is refused naming the field', async () => {
    await expect(runTest(inlineSut(), nullQsl(16), { ...SERVER, rampStartQps: 10 })).rejects.toThrow(
      /rampDurationMs must be > 0/,
    );
  });
});
