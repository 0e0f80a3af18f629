// Every scenario in every mode, with SUTs that complete inline, after a
// delay, out of order and from a worker thread. Settings are small; the
// verdicts asserted are the ones the settings decide (no timing bounds).
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  completeSample,
  querySamplesComplete,
  querySamplesCompleteIds,
  type QuerySample,
  type TestMode,
  type TestScenario,
  type TestSettings,
} from '../lib/index.js';
import {
  cleanupTempDirs,
  countBy,
  delayedSut,
  detailErrors,
  detailValue,
  detailValues,
  DIST_INDEX,
  FIXTURES_DIR,
  inlineSut,
  MLPERF_SEEDS,
  nullQsl,
  readAccuracy,
  readDetail,
  readSummary,
  reverseSut,
  runTest,
  type RecordingSut,
} from './helpers.js';

const TOTAL = 256;
const PERF = 128;

// Small settings under which a null SUT must give VALID in PerformanceOnly:
// enough queries for early stopping (SingleStream 64, MultiStream 662 at
// p99, Server 459 with no over-latency query at p99), min durations that
// follow from the generated schedule, and a latency bound of 2 s.
const SETTINGS: Record<TestScenario, Partial<TestSettings>> = {
  SingleStream: {
    scenario: 'SingleStream',
    minDurationMs: 0,
    minQueryCount: 100,
    singleStreamExpectedLatencyNs: 1_000_000,
  },
  MultiStream: {
    scenario: 'MultiStream',
    minDurationMs: 0,
    minQueryCount: 700,
    multiStreamExpectedLatencyNs: 8_000_000,
  },
  Server: {
    scenario: 'Server',
    serverTargetQps: 1000,
    minDurationMs: 500,
    minQueryCount: 100,
    serverTargetLatencyNs: 2_000_000_000,
  },
  Offline: { scenario: 'Offline', minDurationMs: 0, minQueryCount: 100, offlineExpectedQps: 100 },
};
const SCENARIOS = Object.keys(SETTINGS) as TestScenario[];

function settingsFor(scenario: TestScenario, mode: TestMode, extra: Partial<TestSettings> = {}): Partial<TestSettings> {
  return { ...MLPERF_SEEDS, ...SETTINGS[scenario], mode, ...extra };
}

afterAll(() => cleanupTempDirs());

// ---------------------------------------------------------------------------
// Worker-thread SUT: the main-thread SUT posts ids, the worker completes them.

let worker: Worker | undefined;

function workerSut(): RecordingSut {
  const sut: RecordingSut = {
    name: 'WorkerSUT',
    issued: [],
    queries: [],
    flushes: 0,
    issueQuery(samples: QuerySample[]) {
      sut.queries.push(samples);
      for (const s of samples) sut.issued.push(s);
      worker!.postMessage({ type: 'complete', ids: samples.map((s) => s.id) });
    },
    flushQueries() {
      sut.flushes++;
    },
  };
  return sut;
}

beforeAll(async () => {
  if (!existsSync(DIST_INDEX)) execSync('npm run build:ts', { stdio: 'inherit' });
  worker = new Worker(join(FIXTURES_DIR, 'worker-sut.mjs'));
  await new Promise<void>((resolve, reject) => {
    worker!.once('error', reject);
    worker!.on('message', (m: { type: string }) => {
      if (m.type === 'ready') resolve();
    });
  });
});

afterAll(async () => {
  await worker?.terminate();
});

// ---------------------------------------------------------------------------
// Shared checks

function checkNoErrors(summary: string[], errorsCount: number) {
  expect(errorsCount).toBe(0);
  expect(summary[summary.length - 1]).toBe('No errors encountered during test.');
}

/** The accuracy log has every QSL index exactly once and unique seq_ids. */
function checkAccuracyLog(path: string, expected: number) {
  const acc = readAccuracy(path);
  expect(acc.length).toBe(expected);
  const idx = countBy(acc.map((e) => e.qsl_idx));
  expect(idx.size).toBe(expected);
  for (let i = 0; i < expected; i++) expect(idx.get(i), `qsl_idx ${i}`).toBe(1);
  expect(new Set(acc.map((e) => e.seq_id)).size).toBe(expected);
  return acc;
}

/**
 * A loadable set holds PERF distinct samples; MultiStream's is padded, as the
 * official one, with its first samples_per_query - 1 entries repeated at the end.
 */
function checkLoadedSet(scenario: TestScenario, set: number[]) {
  const padding = scenario === 'MultiStream' ? 8 - 1 : 0;
  expect(set.length).toBe(PERF + padding);
  expect(new Set(set.slice(0, PERF)).size).toBe(PERF);
  expect(set.slice(PERF)).toEqual(set.slice(0, padding));
}

function checkIssuedWithinLoaded(sut: RecordingSut, loaded: number[]) {
  const set = new Set(loaded);
  for (const s of sut.issued) expect(set.has(s.index), `index ${s.index} issued but not loaded`).toBe(true);
}

function checkQueryShape(scenario: TestScenario, sut: RecordingSut, spq: number) {
  if (scenario === 'MultiStream') {
    for (const q of sut.queries) expect(q.length).toBe(8);
  } else if (scenario === 'Offline') {
    expect(sut.queries.length).toBe(1);
    expect(sut.queries[0].length).toBe(spq);
  } else {
    for (const q of sut.queries) expect(q.length).toBe(1);
  }
}

async function performanceRun(scenario: TestScenario, sut: RecordingSut) {
  const qsl = nullQsl(TOTAL, PERF);
  const { result } = await runTest(sut, qsl, settingsFor(scenario, 'PerformanceOnly'));
  const summary = readSummary(result.logs.summary);
  const detail = readDetail(result.logs.detail);

  expect(result.valid, summary.join('\n')).toBe(true);
  expect(summary).toContain('Result is : VALID');
  expect(detailValue(detail, 'result_validity')).toBe('VALID');
  expect(result.criteria).not.toBeNull();
  expect(result.criteria!.minDurationMet).toBe(true);
  expect(result.criteria!.minQueriesMet).toBe(true);
  expect(result.criteria!.earlyStoppingMet).toBe(true);
  if (scenario === 'Server') {
    expect(result.criteria!.perfConstraintsMet).toBe(true);
    expect(detailValue(detail, 'result_perf_constraints_met')).toBe(true);
  } else {
    expect(result.criteria!.perfConstraintsMet).toBeNull();
  }
  checkNoErrors(summary, result.errors.count);

  // One loadable set of PERF samples; everything issued comes from it.
  expect(qsl.loads.length).toBe(1);
  checkLoadedSet(scenario, qsl.loads[0]);
  expect(qsl.unloads).toEqual(qsl.loads);
  checkIssuedWithinLoaded(sut, qsl.loads[0]);
  checkQueryShape(scenario, sut, result.effective.samplesPerQuery);
  // Every issued sample was counted as completed.
  expect(result.counts.samples).toBe(sut.issued.length);
  expect(result.counts.queries).toBe(sut.queries.length);
  expect(sut.flushes).toBeGreaterThanOrEqual(1);
  // No sampling in performance mode with probability 0.
  expect(readAccuracy(result.logs.accuracy)).toEqual([]);
  return { result, summary, detail, qsl };
}

async function accuracyRun(scenario: TestScenario, sut: RecordingSut) {
  const qsl = nullQsl(TOTAL, PERF);
  const { result } = await runTest(sut, qsl, settingsFor(scenario, 'AccuracyOnly'));
  const summary = readSummary(result.logs.summary);
  const detail = readDetail(result.logs.detail);

  expect(result.valid).toBeNull();
  expect(result.criteria).toBeNull();
  expect(result.accuracyLogEntries).toBe(TOTAL);
  // No results block: only the warning/error tail.
  expect(summary.some((l) => l.includes('MLPerf Results Summary'))).toBe(false);
  expect(summary.some((l) => l.startsWith('Result is'))).toBe(false);
  expect(detailValue(detail, 'result_validity')).toBeUndefined();
  expect(detailValues(detail, 'generic_message')).toContain('Starting accuracy mode');
  checkNoErrors(summary, result.errors.count);

  // Two loadable sets of PERF samples that together cover the QSL once.
  expect(qsl.loads.length).toBe(TOTAL / PERF);
  for (const set of qsl.loads) checkLoadedSet(scenario, set);
  expect(qsl.loads.flatMap((set) => set.slice(0, PERF)).sort((a, b) => a - b)).toEqual(
    Array.from({ length: TOTAL }, (_, i) => i),
  );
  expect(qsl.unloads).toEqual(qsl.loads);
  const acc = checkAccuracyLog(result.logs.accuracy, TOTAL);
  // Each sample was issued exactly once.
  expect(sut.issued.length).toBe(TOTAL);
  expect(new Set(sut.issued.map((s) => s.index)).size).toBe(TOTAL);
  // The log pairs each seq_id with the index it was issued with. The SUT's
  // ids are the sequence ids plus a base unique to the test (a multiple of
  // 2^32), so an answer arriving after its test cannot pass for a later one.
  const base = Math.min(...sut.issued.map((s) => s.id)) - Math.min(...acc.map((e) => e.seq_id));
  expect(base % 2 ** 32).toBe(0);
  expect(base).toBeGreaterThan(0);
  const indexOfId = new Map(sut.issued.map((s) => [s.id, s.index]));
  for (const e of acc) expect(e.qsl_idx).toBe(indexOfId.get(e.seq_id + base));
  return { result, summary, detail, qsl, acc };
}

// ---------------------------------------------------------------------------

describe.each(SCENARIOS)('%s with an inline SUT', (scenario) => {
  it('PerformanceOnly is VALID', async () => {
    await performanceRun(scenario, inlineSut());
  });

  it('AccuracyOnly issues and logs every sample once, with no results block', async () => {
    await accuracyRun(scenario, inlineSut());
  });

  it('SubmissionRun does an accuracy pass, then a VALID performance pass', async () => {
    const qsl = nullQsl(TOTAL, PERF);
    const sut = inlineSut();
    const { result } = await runTest(sut, qsl, settingsFor(scenario, 'SubmissionRun'));
    const summary = readSummary(result.logs.summary);
    const detail = readDetail(result.logs.detail);
    const messages = detailValues(detail, 'generic_message');
    expect(messages.indexOf('Starting accuracy mode')).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('Starting performance mode')).toBeGreaterThan(messages.indexOf('Starting accuracy mode'));
    expect(result.valid, summary.join('\n')).toBe(true);
    expect(summary).toContain('Result is : VALID');
    expect(summary).toContain('Mode     : SubmissionRun');
    checkNoErrors(summary, result.errors.count);
    // Accuracy sets (2) then the performance set.
    expect(qsl.loads.length).toBe(TOTAL / PERF + 1);
    checkLoadedSet(scenario, qsl.loads[qsl.loads.length - 1]);
    checkAccuracyLog(result.logs.accuracy, TOTAL);
    // Sequence ids continue from the accuracy pass into the performance pass.
    const ids = sut.issued.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('FindPeakPerformance', () => {
  it('Server: finds the last QPS that met the latency bound', async () => {
    // Passes 1 and 2 (base QPS 100, then 101 with a 1% step) complete at
    // once; from the third loadable-set load on, the SUT answers after
    // 600 ms, over the 250 ms bound. With 0 decimals of precision the
    // bracket [101, 102.01) is already tight: the peak is 101.
    const qsl = nullQsl(64, 64);
    let slow = false;
    const origLoad = qsl.loadSamplesToRam;
    qsl.loadSamplesToRam = (indices: number[]) => {
      origLoad(indices);
      if (qsl.loads.length >= 3) slow = true;
    };
    const sut = inlineSut('PeakSUT');
    sut.issueQuery = (samples: QuerySample[]) => {
      sut.issued.push(...samples);
      const done = () => querySamplesComplete(samples.map((s) => ({ id: s.id })));
      if (slow) setTimeout(done, 600);
      else done();
    };
    const { result } = await runTest(sut, qsl, {
      ...MLPERF_SEEDS,
      scenario: 'Server',
      mode: 'FindPeakPerformance',
      serverTargetQps: 100,
      serverTargetLatencyNs: 250_000_000,
      serverFindPeakQpsBoundaryStepSize: 0.01,
      serverFindPeakQpsDecimalsOfPrecision: 0,
      minDurationMs: 50,
      minQueryCount: 1,
    });
    const detail = readDetail(result.logs.detail);
    const messages = detailValues(detail, 'generic_message') as string[];
    expect(messages).toContain('Starting FindPeakPerformance mode');
    expect(messages.some((m) => m.startsWith('FindPeakPerformance: Found boundaries: [101'))).toBe(true);
    expect(messages).toContain('FindPeakPerformance: Found peak performance field: 101.000000');
    expect(result.peakTargetQps).toBe(101);
    expect(result.criteria?.perfConstraintsMet).toBe(true);
    expect(result.summaryText).toContain('target_qps : 101');
    expect(detailErrors(detail)).toEqual([]);
  });

  it.each(['SingleStream', 'MultiStream', 'Offline'] as TestScenario[])(
    '%s: logs the official error and runs nothing',
    async (scenario) => {
      const qsl = nullQsl(TOTAL, PERF);
      const sut = inlineSut();
      const { result } = await runTest(sut, qsl, settingsFor(scenario, 'FindPeakPerformance'));
      const detail = readDetail(result.logs.detail);
      const errors = detailErrors(detail);
      expect(errors.map((e) => [e.key, e.value])).toContainEqual([
        'error_invalid_config',
        'Finding peak performance is only supported in Server scenarios.',
      ]);
      expect(result.errors.count).toBeGreaterThanOrEqual(1);
      expect(result.valid).toBeNull();
      expect(sut.issued.length).toBe(0);
      const summary = readSummary(result.logs.summary);
      expect(summary[summary.length - 1]).toMatch(/^\d+ ERRORS? encountered\. See detailed log\.$/);
    },
  );
});

// ---------------------------------------------------------------------------
// Other completion styles: the same verdicts and the same accuracy coverage.

/** Completes inline with the fast one-sample form, completeSample(id). */
function fastFormSut(): RecordingSut {
  const sut = inlineSut('FastFormSUT');
  sut.issueQuery = (samples: QuerySample[]) => {
    sut.queries.push(samples);
    for (const s of samples) {
      sut.issued.push(s);
      completeSample(s.id);
    }
  };
  return sut;
}

const VARIANTS: Array<[string, () => RecordingSut]> = [
  ['completeSample (fast form, inline)', fastFormSut],
  ['setTimeout(1 ms)', () => delayedSut('timeout', 1)],
  ['setImmediate', () => delayedSut('immediate')],
  ['reverse order', () => reverseSut()],
  ['worker thread', () => workerSut()],
];

describe.each(VARIANTS)('SUT completing via %s', (_label, make) => {
  it.each(SCENARIOS)('%s PerformanceOnly is VALID', async (scenario) => {
    await performanceRun(scenario, make());
  });

  it.each(SCENARIOS)('%s AccuracyOnly logs every sample once', async (scenario) => {
    await accuracyRun(scenario, make());
  });
});

describe('out-of-order completion', () => {
  it('Offline: samples are completed in reverse and the accuracy log follows completion order', async () => {
    const sut = reverseSut();
    const { acc } = await accuracyRun('Offline', sut);
    // Each Offline query of the accuracy pass was completed last-to-first.
    const firstQuery = sut.queries[0];
    expect(sut.completionOrder.slice(0, firstQuery.length)).toEqual(firstQuery.map((s) => s.id).reverse());
    // seq_id is the sequence id: the SUT's id less the test's id base.
    const base = Math.min(...sut.issued.map((s) => s.id)) - Math.min(...acc.map((e) => e.seq_id));
    const seq = acc.slice(0, firstQuery.length).map((e) => e.seq_id + base);
    expect(seq).toEqual(firstQuery.map((s) => s.id).reverse());
  });
});

describe('large batches', () => {
  it('an Offline query larger than the shared completion buffer, completed with querySamplesCompleteIds', async () => {
    const N = 40_000; // the shared buffer holds 16384 responses
    const qsl = nullQsl(1000, 1000);
    const sut = inlineSut('BigSUT');
    sut.issueQuery = (samples: QuerySample[]) => {
      sut.queries.push(samples);
      sut.issued.push(...samples);
      querySamplesCompleteIds(samples.map((s) => s.id));
    };
    const { result } = await runTest(sut, qsl, {
      ...MLPERF_SEEDS,
      scenario: 'Offline',
      minDurationMs: 0,
      minQueryCount: N,
      offlineExpectedQps: 1,
    });
    expect(sut.queries.length).toBe(1);
    expect(sut.queries[0].length).toBe(N);
    expect(result.counts.samples).toBe(N);
    expect(result.valid).toBe(true);
    expect(result.errors.count).toBe(0);
    // Offline repeats the loaded set in order: 40 whole passes.
    const counts = countBy(sut.issued.map((s) => s.index));
    expect(counts.size).toBe(1000);
    for (const c of counts.values()) expect(c).toBe(40);
  });
});
