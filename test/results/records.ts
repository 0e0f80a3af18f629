// A hand-made RunRecord for tests of what is computed from one (run status,
// measurement verdict, result files): a clean Server run of `n` samples with
// flat latency statistics, each part overridable.
import type { LatencyStats, TestResult } from '../../lib/core/result.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import type { Percentiles, SutReport } from '../../lib/sut/types.js';

/** Every statistic at the same value (ns or ms, as the caller's). */
export function flatStats(v: number): LatencyStats {
  return { min: v, max: v, mean: v, p50: v, p90: v, p95: v, p97: v, p99: v, p999: v };
}

export const NO_PERCENTILES: Percentiles = {
  count: 0,
  mean: 0,
  min: 0,
  max: 0,
  p50: 0,
  p90: 0,
  p95: 0,
  p99: 0,
  p999: 0,
};

export interface RecordParts {
  /** Samples issued (and, unless the sut part says otherwise, completed). */
  n: number;
  settings?: Record<string, unknown>;
  simulated?: boolean;
  result?: Partial<TestResult>;
  sut?: Partial<SutReport>;
  extra?: Partial<RunRecord>;
}

export function syntheticRecord(p: RecordParts): RunRecord {
  const n = p.n;
  const result: TestResult = {
    scenario: 'Server',
    mode: 'PerformanceOnly',
    sutName: 's',
    valid: true,
    criteria: { perfConstraintsMet: true, minDurationMet: true, minQueriesMet: true, earlyStoppingMet: true },
    invalidReasons: [],
    metric: { name: 'completed samples per second', value: 1, unit: 'samples/s' },
    completedSamplesPerSecond: 1,
    scheduledSamplesPerSecond: 1,
    samplesPerSecond: null,
    qpsWithLoadgenOverhead: null,
    qpsWithoutLoadgenOverhead: null,
    tokensPerSecond: 10,
    tokenThroughput: null,
    latency: flatStats(100e6),
    queryLatency: null,
    ttft: flatStats(10e6),
    tpot: flatStats(3e6),
    earlyStopping: null,
    counts: { queries: n, samples: n, tokens: 8 * n, overlatencyQueries: 0 },
    effective: {
      samplesPerQuery: 1,
      minQueryCount: 1,
      targetQps: 1,
      performanceSampleCount: n,
      accuracySampleCount: n,
    },
    peakTargetQps: null,
    errors: {
      count: 0,
      warnings: 0,
      messages: [],
      unknownIds: 0,
      duplicateCompletions: 0,
      duplicateFirstTokens: 0,
      lateFirstTokens: 0,
      tokenCountErrors: 0,
      missingFirstTokens: 0,
    },
    accuracyLogEntries: 0,
    aborted: false,
    abortReason: null,
    logs: { summary: '', detail: '', accuracy: '', trace: null },
    summaryText: '',
    cpuIdleLatencyUs: null,
    ...p.result,
  } as TestResult;
  const sut = {
    backend: 'vllm',
    api: 'completions',
    capabilities: { tokenSource: 'token_ids' },
    workers: 1,
    busyPollIdleMs: null,
    samples: { issued: n, completed: n, failed: 0, retried: 0 },
    peakInFlight: 1,
    errorKinds: {},
    endpoints: [],
    chunks: { total: 0, multiToken: 0, multiTokenFraction: 0, tokensPerChunk: 0 },
    interChunkGapMs: NO_PERCENTILES,
    issueDelayMs: NO_PERCENTILES,
    headersMs: NO_PERCENTILES,
    warnings: [],
    ...p.sut,
  } as SutReport;
  return {
    tool: { name: '@x/loadgen', version: '0', engineVersion: '0' },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:00:10.000Z',
    command: null,
    benchmark: null,
    settings: p.settings ?? {},
    dataset: { name: 'd', path: null, size: n, preset: null },
    endpoints: [],
    simulated: p.simulated ?? true,
    result,
    sut,
    timeline: [],
    outdir: '/out',
    ...p.extra,
  } as RunRecord;
}
