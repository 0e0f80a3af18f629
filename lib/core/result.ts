// The typed result of a test: the summary's content as data.
import type { RawOutcome, RawPercentile, RawSummary } from './native-types.js';
import type { TestMode, TestScenario } from './settings.js';

/** Latency statistics in ns; percentiles as in the summary (50, 90, 95, 97, 99, 99.9). */
export interface LatencyStats {
  min: number;
  max: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p97: number;
  p99: number;
  p999: number;
}

export interface TestResult {
  scenario: TestScenario;
  mode: TestMode;
  sutName: string;
  /** VALID / INVALID; null when the run had no performance pass (AccuracyOnly). */
  valid: boolean | null;
  criteria: {
    perfConstraintsMet: boolean | null;
    minDurationMet: boolean;
    minQueriesMet: boolean;
    earlyStoppingMet: boolean;
  } | null;
  /** The summary's recommendations when INVALID. */
  invalidReasons: string[];
  /** The scenario metric as the summary reports it. */
  metric: { name: string; value: number; unit: string } | null;
  completedSamplesPerSecond: number | null;
  scheduledSamplesPerSecond: number | null;
  samplesPerSecond: number | null;
  qpsWithLoadgenOverhead: number | null;
  qpsWithoutLoadgenOverhead: number | null;
  tokensPerSecond: number | null;
  /**
   * The detail log's result_token_throughput as the official engine computes
   * it (tokens / (mean latency in ns × samples): 1e9 too small), and the same
   * figure computed in seconds.
   */
  tokenThroughput: { official: number; corrected: number } | null;
  latency: LatencyStats | null;
  queryLatency: LatencyStats | null;
  ttft: LatencyStats | null;
  tpot: LatencyStats | null;
  earlyStopping: {
    text: string;
    ttftText: string;
    tpotText: string;
    percentileEstimateNs: number | null;
    multiStreamEstimateNs: number | null;
  } | null;
  counts: { queries: number; samples: number; tokens: number; overlatencyQueries: number };
  effective: {
    samplesPerQuery: number;
    minQueryCount: number;
    targetQps: number;
    performanceSampleCount: number;
    accuracySampleCount: number;
  };
  /** FindPeakPerformance: the highest target QPS that met the constraints. */
  peakTargetQps: number | null;
  errors: {
    count: number;
    warnings: number;
    messages: string[];
    unknownIds: number;
    duplicateCompletions: number;
    duplicateFirstTokens: number;
    lateFirstTokens: number;
    tokenCountErrors: number;
    missingFirstTokens: number;
  };
  accuracyLogEntries: number;
  aborted: boolean;
  abortReason: string | null;
  logs: { summary: string; detail: string; accuracy: string; trace: string | null };
  /** The whole mlperf_log_summary.txt. */
  summaryText: string;
  /** The PM QoS idle-latency bound held while the test ran (StartTestOptions.cpuIdleLatencyUs), µs; null if none. */
  cpuIdleLatencyUs: number | null;
}

function stats(min: number, max: number, mean: number, pcts: RawPercentile[]): LatencyStats {
  const at = (p: number) => pcts.find((x) => Math.abs(x.percentile - p) < 1e-9)?.value ?? NaN;
  return { min, max, mean, p50: at(0.5), p90: at(0.9), p95: at(0.95), p97: at(0.97), p99: at(0.99), p999: at(0.999) };
}

function metricOf(scenario: TestScenario, s: RawSummary): TestResult['metric'] {
  switch (scenario) {
    case 'SingleStream':
    case 'MultiStream':
      return { name: 'latency at target percentile', value: s.targetLatencyPercentileValue, unit: 'ns' };
    case 'Server':
      return { name: 'completed samples per second', value: s.completedSamplesPerSec, unit: 'samples/s' };
    case 'Offline':
      return { name: 'samples per second', value: s.samplesPerSec, unit: 'samples/s' };
  }
}

export function shapeResult(
  o: RawOutcome,
  scenario: TestScenario,
  mode: TestMode,
  sutName: string,
  tokens: boolean,
): TestResult {
  const s = o.hasSummary ? o.summary! : undefined;
  const server = scenario === 'Server';
  return {
    cpuIdleLatencyUs: null,
    scenario,
    mode,
    sutName,
    valid: s ? s.valid : null,
    criteria: s
      ? {
          perfConstraintsMet: s.hasPerfConstraints ? s.perfConstraintsMet : null,
          minDurationMet: s.minDurationMet,
          minQueriesMet: s.minQueriesMet,
          earlyStoppingMet: s.earlyStoppingMet,
        }
      : null,
    invalidReasons: s && !s.valid ? s.recommendations : [],
    metric: s ? metricOf(scenario, s) : null,
    completedSamplesPerSecond: s && server ? s.completedSamplesPerSec : null,
    scheduledSamplesPerSecond: s && server ? s.scheduledSamplesPerSec : null,
    samplesPerSecond: s && scenario === 'Offline' ? s.samplesPerSec : null,
    qpsWithLoadgenOverhead: s && scenario === 'SingleStream' ? s.qpsWithLoadgenOverhead : null,
    qpsWithoutLoadgenOverhead: s && scenario === 'SingleStream' ? s.qpsWithoutLoadgenOverhead : null,
    tokensPerSecond:
      s && tokens ? (scenario === 'SingleStream' ? s.tokenThroughputWithOverhead : s.tokensPerSec) : null,
    tokenThroughput:
      s && tokens && scenario !== 'Offline'
        ? { official: s.tokenThroughputOfficial, corrected: s.tokenThroughputCorrected }
        : null,
    latency: s ? stats(s.latencyMin, s.latencyMax, s.latencyMean, s.latencyPercentiles) : null,
    queryLatency:
      s && scenario === 'MultiStream'
        ? stats(s.queryLatencyMin, s.queryLatencyMax, s.queryLatencyMean, s.queryLatencyPercentiles)
        : null,
    ttft: s && tokens && scenario !== 'Offline' ? stats(s.ttftMin, s.ttftMax, s.ttftMean, s.ttftPercentiles) : null,
    tpot: s && tokens && scenario !== 'Offline' ? stats(s.tpotMin, s.tpotMax, s.tpotMean, s.tpotPercentiles) : null,
    earlyStopping:
      s && scenario !== 'Offline'
        ? {
            text: s.earlyStoppingText,
            ttftText: s.earlyStoppingTtftText,
            tpotText: s.earlyStoppingTpotText,
            percentileEstimateNs:
              scenario === 'SingleStream'
                ? s.earlyStoppingLatencySs
                : scenario === 'MultiStream'
                  ? s.earlyStoppingLatencyMs
                  : null,
            multiStreamEstimateNs: scenario === 'SingleStream' ? s.earlyStoppingLatencyMs : null,
          }
        : null,
    counts: {
      queries: s?.queryCount ?? 0,
      samples: s?.sampleCount ?? 0,
      tokens: s?.tokenCount ?? 0,
      overlatencyQueries: s?.overlatencyQueryCount ?? 0,
    },
    effective: {
      samplesPerQuery: o.effectiveSamplesPerQuery,
      minQueryCount: o.effectiveMinQueryCount,
      targetQps: o.effectiveTargetQps,
      performanceSampleCount: o.performanceSampleCount,
      accuracySampleCount: o.accuracySampleCount,
    },
    peakTargetQps: mode === 'FindPeakPerformance' && o.peakTargetQps > 0 ? o.peakTargetQps : null,
    errors: {
      count: o.errors,
      warnings: o.warnings,
      messages: o.errorMessages,
      unknownIds: o.unknownIds,
      duplicateCompletions: o.duplicateCompletions,
      duplicateFirstTokens: o.duplicateFirstTokens,
      lateFirstTokens: o.lateFirstTokens,
      tokenCountErrors: o.tokenCountErrors,
      missingFirstTokens: o.missingFirstTokens,
    },
    accuracyLogEntries: o.accuracyLogEntries,
    aborted: o.aborted,
    abortReason: o.aborted ? o.abortReason : null,
    logs: { summary: o.summaryPath, detail: o.detailPath, accuracy: o.accuracyPath, trace: o.tracePath || null },
    summaryText: o.summaryText,
  };
}
