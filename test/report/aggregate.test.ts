// --aggregate: sums of throughput over real runs, exact merged percentiles
// from traces and from results.json samples, bounds when per-sample values
// are missing (and that the bounds hold the exact value), validity of each.
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { aggregateRuns, loadAggregateInputs, type AggregateInput } from '../../lib/report/aggregate.js';
import { loadgenPercentile, sortedCopy } from '../../lib/results/samples.js';
import { writeRunOutputs } from '../../lib/results/write-outputs.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { cleanupTempDirs, HAVE_OFFICIAL_LOGS, officialDir } from '../helpers.js';
import { customRecord, llmRecord } from '../results/helpers.js';

afterAll(() => cleanupTempDirs());

const P = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p99', 0.99],
  ['p999', 0.999],
] as const;

describe('three Server runs of a custom SUT (traces, no results.json samples)', () => {
  let recs: RunRecord[];
  let inputs: AggregateInput[];

  test('sums, counts, exact latency merge from the traces, validity of each', async () => {
    recs = [];
    for (let i = 0; i < 3; i++) recs.push(await customRecord('Server'));
    inputs = await loadAggregateInputs(recs.map((r) => r.outdir));
    const a = aggregateRuns(inputs);
    expect(a.schema).toBe('@x/loadgen/aggregated-results');
    expect(a.scenario).toBe('Server');
    expect(a.runs.map((r) => r.dir)).toEqual(recs.map((r) => r.outdir));
    // The detail log has 6 significant digits; the sums are of those figures.
    const qps = inputs.reduce((s, i) => s + i.logs.summary.completedSamplesPerSecond!, 0);
    expect(a.throughput.qps).toBeCloseTo(qps, 9);
    expect(a.throughput.qps).toBeCloseTo(
      recs.reduce((s, r) => s + r.result.completedSamplesPerSecond!, 0),
      0,
    );
    expect(a.throughput.qpsRuns).toBe(3);
    expect(a.throughput.samplesPerSecond).toBeCloseTo(qps, 9);
    expect(a.throughput.tokensPerSecond).toBeNull();
    expect(a.counts.samples).toBe(recs.reduce((s, r) => s + r.result.counts.samples, 0));
    expect(a.counts.queries).toBe(recs.reduce((s, r) => s + r.result.counts.queries, 0));
    expect(a.valid).toBe(recs.every((r) => r.result.valid === true));
    a.runs.forEach((r, k) => {
      expect(r.status).toBe(recs[k].result.valid ? 'VALID' : 'INVALID');
    });
    const m = a.latencyMs.latency!;
    expect(m.method).toBe('exact');
    expect(m.sources.every((s) => s.includes('mlperf_log_trace.json'))).toBe(true);
    const all = sortedCopy(inputs.flatMap((i) => Array.from(i.traceLatencyNs!)));
    expect(m.count).toBe(a.counts.samples);
    for (const [k, p] of P) expect(m[k]).toBe(loadgenPercentile(all, p) / 1e6);
    expect(m.min).toBe(Math.min(...recs.map((r) => r.result.latency!.min)) / 1e6);
    expect(m.max).toBe(Math.max(...recs.map((r) => r.result.latency!.max)) / 1e6);
    expect(a.latencyMs.ttft).toBeNull();
  });

  test("without traces: bounds from the runs' percentiles, which hold the exact merged value", () => {
    const exact = aggregateRuns(inputs).latencyMs.latency!;
    const bounded = aggregateRuns(inputs.map((i) => ({ ...i, traceLatencyNs: null })));
    const b = bounded.latencyMs.latency!;
    expect(b.method).toBe('bounds');
    for (const [k] of P) {
      expect(b[k]).toBe(Math.max(...recs.map((r) => r.result.latency![k])) / 1e6);
      expect(b.lowerBound![k]).toBe(Math.min(...recs.map((r) => r.result.latency![k])) / 1e6);
      expect(exact[k]).toBeLessThanOrEqual(b[k]);
      expect(exact[k]).toBeGreaterThanOrEqual(b.lowerBound![k]);
    }
    // Mean weighted by sample counts (each run's mean is an integer ns).
    expect(b.mean! * 1e6).toBeCloseTo(
      recs.reduce((s, r) => s + r.result.latency!.mean * r.result.counts.samples, 0) / bounded.counts.samples!,
      0,
    );
    expect(bounded.notes.some((n) => n.startsWith('latency percentiles are bounds'))).toBe(true);
  });
});

describe('two LLM runs (results.json samples)', () => {
  test('TTFT/TPOT merged exactly from results.json; tokens/s summed', async () => {
    const recs = [
      await llmRecord({ queries: 80, qps: 160, minDurationMs: 500 }),
      await llmRecord({ queries: 80, qps: 160, minDurationMs: 500 }),
    ];
    for (const r of recs) {
      await writeRunOutputs(r);
      // Without the trace, latency too must come from results.json.
      rmSync(join(r.outdir, 'mlperf_log_trace.json'), { force: true });
    }
    const inputs = await loadAggregateInputs(recs.map((r) => r.outdir));
    const a = aggregateRuns(inputs);
    expect(a.throughput.tokensPerSecond).toBeCloseTo(
      inputs.reduce((s, i) => s + i.logs.summary.tokensPerSecond!, 0),
      9,
    );
    expect(a.throughput.tokensPerSecondRuns).toBe(2);
    for (const key of ['latency', 'ttft', 'tpot'] as const) {
      const m = a.latencyMs[key]!;
      expect(m.method).toBe('exact');
      expect(m.sources.every((s) => s.includes('results.json samples'))).toBe(true);
      const field = key === 'latency' ? 'latencyNs' : key === 'ttft' ? 'ttftNs' : 'tpotNs';
      const all = sortedCopy(inputs.flatMap((i) => i.logs.results!.samples![field]));
      expect(m.count).toBe(all.length);
      for (const [k, p] of P) expect(m[k]).toBe(loadgenPercentile(all, p) / 1e6);
    }
  });
});

describe.skipIf(!HAVE_OFFICIAL_LOGS)('official runs', () => {
  test('mixed scenarios and an accuracy run: noted, not valid overall', async () => {
    const dirs = ['Server_PerformanceOnly', 'Offline_PerformanceOnly_INVALID_minduration', 'Server_AccuracyOnly'].map(
      officialDir,
    );
    const a = aggregateRuns(await loadAggregateInputs(dirs));
    expect(a.scenario).toBe('mixed');
    expect(a.valid).toBe(false);
    expect(a.runs.map((r) => r.status)).toEqual(['VALID', 'INVALID', 'NO_RESULT']);
    expect(a.throughput.qps).toBeCloseTo(1033.26 + 2.33314e6, 6);
    expect(a.throughput.qpsRuns).toBe(2);
    expect(a.throughput.tokensPerSecond).toBeCloseTo(103376 + 2.33314e8, 3);
    expect(a.counts.samples).toBeNull();
    expect(a.latencyMs.latency!.method).toBe('bounds');
    expect(a.latencyMs.latency!.p99).toBe(1414779 / 1e6);
    expect(a.latencyMs.latency!.lowerBound!.p99).toBe(469014 / 1e6);
    expect(a.notes.join('\n')).toMatch(/different scenarios/);
    expect(a.notes.join('\n')).toMatch(/not valid: .*INVALID.*NO_RESULT/);
  });

  test('one run with a trace merges exactly', async () => {
    const a = aggregateRuns(await loadAggregateInputs([officialDir('SingleStream_PerformanceOnly')]));
    expect(a.valid).toBe(true);
    expect(a.latencyMs.latency).toMatchObject({
      method: 'exact',
      count: 1000,
      p50: 90 / 1e6,
      p99: 1883 / 1e6,
      p999: 19118 / 1e6,
    });
  });
});

test('an empty list is not valid', () => {
  const a = aggregateRuns([]);
  expect(a.valid).toBe(false);
  expect(a.runs).toEqual([]);
});
