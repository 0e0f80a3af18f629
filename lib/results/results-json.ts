// results.json: one run as a documented, versioned object (docs/results-schema.md).
// Latencies are ms here (the logs keep ns); every figure says where it comes
// from when two sources are possible (LoadGen's result vs the harness's report).
import type { RunAccuracy } from './run-record.js';
import type { LatencyStats, TestResult } from '../core/result.js';
import { nonMlperfIssuePolicy, type TestSettings } from '../core/settings.js';
import type { FleetRecord } from '../fleet/types.js';
import type { EndpointReport, Percentiles, SutReport } from '../sut/types.js';
import type { RunEndpointInfo, RunRecord, TimelinePoint } from './run-record.js';
import type { MultiturnReport } from '../multiturn/types.js';
import type { ServerStateReport } from '../metrics/server-state.js';
import type { WarmupReport } from '../sut/warmup.js';
import { latencyTrend, type LatencyTrend } from './latency-trend.js';
import { seriesFromTimings, type SampleSeries } from './samples.js';
import { costSections, type CostSections } from './cost-sections.js';
import { traceIssuePolicy, type TraceReplayReport } from './trace-replay.js';
import { measurementOf, type MeasurementFigures, type MeasurementVerdict } from './measurement.js';
import {
  latencyFigures,
  loadgenStatus,
  overallVerdict,
  runStatusOf,
  type OverallVerdict,
  type RunStatus,
} from './run-status.js';

export const RESULTS_SCHEMA = '@x/loadgen/results';
export const RESULTS_SCHEMA_VERSION = 1;

/** LoadGen latency statistics converted to ms (LatencyStats' fields, in ms instead of ns). */
export type MsStats = LatencyStats;

export type VerdictStatus = 'VALID' | 'INVALID' | 'NO_RESULT' | 'ABORTED';

export interface EndpointResult extends RunEndpointInfo {
  requests: number;
  completed: number;
  errors: number;
  retries: number;
  outputTokens: number;
  /** outputTokens / the run's window (null when the window is unknown). */
  outputTokensPerSecond: number | null;
  /** completed / the run's window. */
  completedPerSecond: number | null;
  /** Share of all completed requests, 0..1. */
  share: number;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  latencyMs: Percentiles;
  breakerOpened: number;
  errorKinds: Record<string, number>;
}

/** With CostSections: tokens, goodput, cost, budgets, server metrics and the journal (present when the run had them: runBenchmark always; null when off). */
export interface ResultsJson extends CostSections {
  schema: typeof RESULTS_SCHEMA;
  schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  tool: RunRecord['tool'];
  run: {
    startedAt: string;
    endedAt: string;
    wallSeconds: number | null;
    command: string[] | null;
    outdir: string;
    simulated: boolean;
    aborted: boolean;
    abortReason: string | null;
  };
  benchmark: {
    model: string | null;
    scenario: TestResult['scenario'];
    mode: TestResult['mode'];
    sutName: string;
    dataset: RunRecord['dataset'];
    endpoints: RunEndpointInfo[];
    /** A non-MLPerf issue policy (closed loop, gamma arrivals, ramp-up) by name; null when the run issued as MLPerf's scenario does. */
    issuePolicy: string | null;
  };
  settings: { requested: Record<string, unknown>; effective: TestResult['effective'] };
  verdict: {
    /** LoadGen's own verdict, as the official engine computes it (timing criteria only). */
    status: VerdictStatus;
    valid: boolean | null;
    /** The run's own status: failed samples and LoadGen errors (the submission checker rejects logs with errors). */
    run: RunStatus;
    /** The verdict to act on: `status`, except INVALID when `run.status` is not OK (ABORTED stays ABORTED). */
    overall: OverallVerdict;
    criteria: TestResult['criteria'];
    reasons: string[];
    earlyStopping: TestResult['earlyStopping'];
  };
  metric: TestResult['metric'];
  throughput: {
    qps: number | null;
    samplesPerSecond: number | null;
    tokensPerSecond: number | null;
    tokensPerSecondSource: 'loadgen' | 'harness' | null;
    completedSamplesPerSecond: number | null;
    scheduledSamplesPerSecond: number | null;
    qpsWithLoadgenOverhead: number | null;
    qpsWithoutLoadgenOverhead: number | null;
    tokenThroughput: TestResult['tokenThroughput'];
    peakTargetQps: number | null;
    /** The window (s) the harness-side rates use: first scheduled sample to the last end. */
    windowSeconds: number | null;
  };
  counts: TestResult['counts'] & { accuracyLogEntries: number };
  /** Over the samples that succeeded (`source`: LoadGen's statistics when none failed, else the harness's timings); null where none did. */
  latencyMs: {
    sample: MsStats | null;
    query: MsStats | null;
    ttft: MsStats | null;
    tpot: MsStats | null;
    source: 'loadgen' | 'harness';
    /** TTFT (or latency) of the first against the last third of the samples: a growing queue shows here; null without timings or with under 90 samples. */
    trend: LatencyTrend | null;
  };
  errors: {
    loadgen: TestResult['errors'];
    failedSamples: number;
    retriedSamples: number;
    retries: number;
    kinds: Record<string, number>;
    warnings: string[];
    /** Samples completed without ids: the ids received disagree with the server's count. */
    idMismatch: SutReport['idMismatch'];
  };
  endpoints: EndpointResult[];
  harness: {
    backend: SutReport['backend'];
    api: SutReport['api'];
    workers: number;
    busyPollIdleMs: number | null;
    capabilities: SutReport['capabilities'];
    samples: SutReport['samples'];
    peakInFlight: number;
    chunks: SutReport['chunks'];
    interChunkGapMs: Percentiles;
    issueDelayMs: Percentiles;
    headersMs: Percentiles;
    /** The verdict on the measurement itself (docs/measurement.md): can these figures be trusted, or did the harness limit them? */
    verdict: MeasurementVerdict;
    /** Why harness-limited; empty when trustworthy. */
    reasons: string[];
    /** Checks without data (the verdict does not cover them). */
    unchecked: string[];
    /** What the verdict was decided from. */
    measurement: MeasurementFigures;
  } | null;
  timeline: TimelinePoint[];
  /** Per-sample values (ns, integers) when the harness recorded timings: what `loadgen report --aggregate` merges exactly. */
  samples: {
    source: 'harness-timings';
    startNs: number | null;
    windowNs: number | null;
    latencyNs: number[];
    ttftNs: number[];
    tpotNs: number[];
    outputTokens: number[];
  } | null;
  logs: TestResult['logs'];
  extra: Record<string, unknown> | null;
  /** Multi-turn runs only: per-turn and per-conversation figures, tool calls (docs/results-schema.md). */
  multiturn?: MultiturnReport;
  /** Trace replays only (--trace): the trace's plan and lint, and the issue-time error against its times. */
  trace?: TraceReplayReport;
  /** Servers the run started itself (null when it only used given endpoints). */
  servers: FleetRecord | null;
  /** Each server's identity, whether another client was using it at the start, its start time, prefix-cache counters at start and end (null when not read). */
  serverState: ServerStateReport | null;
  /** Warm-up requests before the test (--warmup N): counted in no other figure (null without warm-up). */
  warmup: WarmupReport | null;
  /** Accuracy and submission runs scored with --tokenizer: scores, targets and verdicts, or why scoring failed. */
  accuracy?: RunAccuracy;
}

const NS_PER_MS = 1e6;

export function msStats(s: LatencyStats | null): MsStats | null {
  if (!s) return null;
  const ms = (v: number) => v / NS_PER_MS;
  return {
    min: ms(s.min),
    max: ms(s.max),
    mean: ms(s.mean),
    p50: ms(s.p50),
    p90: ms(s.p90),
    p95: ms(s.p95),
    p97: ms(s.p97),
    p99: ms(s.p99),
    p999: ms(s.p999),
  };
}

/** LoadGen's own verdict (see verdict.overall for the run's). */
export function verdictStatus(r: TestResult): VerdictStatus {
  return loadgenStatus(r);
}

/**
 * The scenario's rate as MLPerf states it: samples/s for Server and Offline,
 * LoadGen's QPS for SingleStream; MultiStream has none of its own, so its
 * queries (or samples) over the window.
 */
function rateOf(r: TestResult, window: number | null, per: 'queries' | 'samples'): number | null {
  switch (r.scenario) {
    case 'Server':
      return r.completedSamplesPerSecond;
    case 'Offline':
      return r.samplesPerSecond;
    case 'SingleStream':
      return r.qpsWithLoadgenOverhead;
    case 'MultiStream':
      return window && r.counts[per] > 0 ? r.counts[per] / window : null;
  }
}

function wallSeconds(rec: RunRecord): number | null {
  const a = Date.parse(rec.startedAt);
  const b = Date.parse(rec.endedAt);
  return Number.isFinite(a) && Number.isFinite(b) ? (b - a) / 1000 : null;
}

/** The harness window in s: from timings, else the timeline's span. */
function windowSecondsOf(rec: RunRecord, series: SampleSeries | null): number | null {
  if (series?.windowNs) return series.windowNs / 1e9;
  const tl = rec.timeline;
  if (tl.length >= 2 && tl[tl.length - 1].tMs > 0) return tl[tl.length - 1].tMs / 1000;
  return null;
}

function endpointResults(rec: RunRecord, window: number | null): EndpointResult[] {
  const reports: EndpointReport[] = rec.sut?.endpoints ?? [];
  const totalCompleted = reports.reduce((a, e) => a + e.completed, 0);
  return reports.map((e, i) => {
    // Endpoint info is matched by position (both lists follow the --endpoint order), by URL as a fallback.
    const info = rec.endpoints[i] ??
      rec.endpoints.find((x) => x.url === e.url) ?? {
        url: e.url,
        backend: rec.sut?.backend ?? '',
        api: rec.sut?.api ?? '',
        model: '',
      };
    return {
      ...info,
      url: e.url,
      requests: e.requests,
      completed: e.completed,
      errors: e.errors,
      retries: e.retries,
      outputTokens: e.outputTokens,
      outputTokensPerSecond: window ? e.outputTokens / window : null,
      completedPerSecond: window ? e.completed / window : null,
      share: totalCompleted > 0 ? e.completed / totalCompleted : 0,
      ttftMs: e.ttftMs,
      tpotMs: e.tpotMs,
      latencyMs: e.latencyMs,
      breakerOpened: e.breakerOpened,
      errorKinds: e.errorKinds,
    };
  });
}

function asIntegers(a: Float64Array): number[] {
  return Array.from(a, (v) => Math.round(v));
}

export function buildResultsJson(record: RunRecord): ResultsJson {
  const r = record.result;
  const sut = record.sut;
  const series = sut?.timings && sut.timings.length > 0 ? seriesFromTimings(sut.timings) : null;
  const window = windowSecondsOf(record, series);
  let tokensPerSecond = r.tokensPerSecond;
  let tokensSource: ResultsJson['throughput']['tokensPerSecondSource'] = tokensPerSecond !== null ? 'loadgen' : null;
  if (tokensPerSecond === null && sut && window) {
    // LoadGen counts tokens only with useTokenLatencies; the harness always does.
    const tokens = sut.endpoints.reduce((a, e) => a + e.outputTokens, 0);
    if (tokens > 0) {
      tokensPerSecond = tokens / window;
      tokensSource = 'harness';
    }
  }
  const retries = sut ? sut.endpoints.reduce((a, e) => a + e.retries, 0) : 0;
  const runStatus = runStatusOf(record);
  const lat = latencyFigures(record, series);
  const measured = sut ? measurementOf(record) : null;
  return {
    schema: RESULTS_SCHEMA,
    schemaVersion: RESULTS_SCHEMA_VERSION,
    tool: { ...record.tool },
    run: {
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      wallSeconds: wallSeconds(record),
      command: record.command,
      outdir: record.outdir,
      simulated: record.simulated,
      aborted: r.aborted,
      abortReason: r.abortReason,
    },
    benchmark: {
      model: record.benchmark,
      scenario: r.scenario,
      mode: r.mode,
      sutName: r.sutName,
      dataset: { ...record.dataset },
      endpoints: record.endpoints.map((e) => ({ ...e })),
      issuePolicy: record.trace
        ? traceIssuePolicy(record.trace)
        : nonMlperfIssuePolicy({ scenario: r.scenario, ...(record.settings as Partial<TestSettings>) }),
    },
    settings: { requested: { ...record.settings }, effective: { ...r.effective } },
    verdict: {
      status: verdictStatus(r),
      valid: r.valid,
      run: runStatus,
      overall: overallVerdict(r, runStatus),
      criteria: r.criteria,
      reasons: [...r.invalidReasons],
      earlyStopping: r.earlyStopping,
    },
    metric: r.metric,
    throughput: {
      qps: rateOf(r, window, 'queries'),
      samplesPerSecond: rateOf(r, window, 'samples'),
      tokensPerSecond,
      tokensPerSecondSource: tokensSource,
      completedSamplesPerSecond: r.completedSamplesPerSecond,
      scheduledSamplesPerSecond: r.scheduledSamplesPerSecond,
      qpsWithLoadgenOverhead: r.qpsWithLoadgenOverhead,
      qpsWithoutLoadgenOverhead: r.qpsWithoutLoadgenOverhead,
      tokenThroughput: r.tokenThroughput,
      peakTargetQps: r.peakTargetQps,
      windowSeconds: window,
    },
    counts: { ...r.counts, accuracyLogEntries: r.accuracyLogEntries },
    latencyMs: {
      sample: msStats(lat.latency),
      query: msStats(lat.queryLatency),
      ttft: msStats(lat.ttft),
      tpot: msStats(lat.tpot),
      source: lat.source,
      trend: sut?.timings && sut.timings.length > 0 ? latencyTrend(sut.timings) : null,
    },
    errors: {
      loadgen: { ...r.errors, messages: [...r.errors.messages] },
      failedSamples: sut?.samples.failed ?? 0,
      retriedSamples: sut?.samples.retried ?? 0,
      retries,
      kinds: { ...(sut?.errorKinds ?? {}) },
      warnings: [...(sut?.warnings ?? [])],
      idMismatch: {
        samples: sut?.idMismatch?.samples ?? 0,
        first: (sut?.idMismatch?.first ?? []).map((m) => ({ ...m })),
      },
    },
    endpoints: endpointResults(record, window),
    harness:
      sut && measured
        ? {
            backend: sut.backend,
            api: sut.api,
            workers: sut.workers,
            busyPollIdleMs: sut.busyPollIdleMs ?? null,
            capabilities: sut.capabilities,
            samples: sut.samples,
            peakInFlight: sut.peakInFlight,
            chunks: sut.chunks,
            interChunkGapMs: sut.interChunkGapMs,
            issueDelayMs: sut.issueDelayMs,
            headersMs: sut.headersMs,
            verdict: measured.verdict,
            reasons: measured.reasons,
            unchecked: measured.unchecked,
            measurement: measured.figures,
          }
        : null,
    timeline: record.timeline.map((p) => ({ ...p })),
    samples: series
      ? {
          source: 'harness-timings',
          startNs: series.startNs,
          windowNs: series.windowNs,
          latencyNs: asIntegers(series.latencyNs),
          ttftNs: asIntegers(series.ttftNs),
          tpotNs: asIntegers(series.tpotNs),
          outputTokens: asIntegers(series.outputTokens),
        }
      : null,
    logs: { ...r.logs },
    extra: record.extra ?? null,
    ...costSections(record),
    ...(record.multiturn ? { multiturn: record.multiturn } : {}),
    ...(record.trace ? { trace: record.trace } : {}),
    ...(record.accuracy ? { accuracy: record.accuracy } : {}),
    servers: record.servers
      ? {
          servers: record.servers.servers.map((x) => ({ ...x })),
          events: record.servers.events.map((e) => ({ ...e })),
          slurmJobs: (record.servers.slurmJobs ?? []).map((j) => ({ ...j, nodes: [...j.nodes] })),
        }
      : null,
    serverState: record.serverState ?? null,
    warmup: record.warmup ?? null,
  };
}
