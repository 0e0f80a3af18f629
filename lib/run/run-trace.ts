// Trace replay in runBenchmark: the trace file read and linted, its rows as
// the dataset (sample i = row i), its times as the engine's schedule, the
// settings a replay needs, and the record's `trace` section after the test.
import { UsageError } from '../core/errors.js';
import type { TestSettings } from '../core/settings.js';
import { formatTracePlan, lintTrace, planTrace, type TracePlan } from '../dataset/trace-plan.js';
import { readTrace, traceDataset, traceSchedule, type TraceDataset, type TraceFile } from '../dataset/trace.js';
import { traceReplayReport, type TraceReplayReport } from '../results/trace-replay.js';
import type { SampleTiming } from '../sut/types.js';

/** A trace to replay (RunBenchmarkOptions.trace). */
export interface TraceSpec {
  /** Mooncake JSONL, or a plain JSONL / CSV of timestamp (ms), input_length, output_length[, hash_ids]. */
  path: string;
  /** 2 replays twice as fast (the trace's gaps halved); default 1. */
  speed?: number;
  /** The model's context, for the lint (default: the simulator's, when simulated). */
  maxModelLen?: number;
  /** Tokens per hash id (default 512, Mooncake's). */
  blockTokens?: number;
}

export interface PreparedTrace {
  trace: TraceFile;
  dataset: TraceDataset;
  schedule: Float64Array;
  plan: TracePlan;
}

/** Checks the spec against the run's other options (no I/O). */
export function checkTraceSpec(
  spec: TraceSpec,
  o: { scenario: string; mode?: string; dataset?: unknown; conversations?: unknown; api?: string },
): void {
  if (!spec || typeof spec.path !== 'string' || spec.path === '')
    throw new UsageError('trace: a trace file path is required');
  if (o.scenario !== 'Server')
    throw new UsageError(
      `--trace replays requests at the trace's times: it needs --scenario Server, not ${o.scenario}`,
    );
  if (o.mode !== undefined && o.mode !== 'PerformanceOnly')
    throw new UsageError(`--trace runs in performance mode only, not ${o.mode}`);
  if (o.dataset !== undefined)
    throw new UsageError('--trace and --dataset/--synthetic exclude each other (the trace is the dataset)');
  if (o.conversations !== undefined) throw new UsageError('--trace and --conversations exclude each other');
  if (o.api === 'chat')
    throw new UsageError('--trace sends token-id prompts: use --api completions (the default) or generate, not chat');
  if (spec.speed !== undefined && !(Number.isFinite(spec.speed) && spec.speed > 0))
    throw new UsageError(`--trace-speed must be a number > 0, got ${String(spec.speed)}`);
  if (spec.maxModelLen !== undefined && !(Number.isSafeInteger(spec.maxModelLen) && spec.maxModelLen >= 1))
    throw new UsageError(`--max-model-len must be an integer >= 1, got ${String(spec.maxModelLen)}`);
}

/** Reads the trace and works out its plan; `maxModelLen` when the spec has none. */
export async function prepareTrace(spec: TraceSpec, maxModelLen?: number): Promise<PreparedTrace> {
  const trace = await readTrace(spec.path, spec.blockTokens !== undefined ? { blockTokens: spec.blockTokens } : {});
  const speed = spec.speed ?? 1;
  const len = spec.maxModelLen ?? maxModelLen;
  return {
    trace,
    dataset: traceDataset(trace),
    schedule: traceSchedule(trace, speed),
    plan: planTrace(trace, { speed, ...(len !== undefined ? { maxModelLen: len } : {}) }),
  };
}

/**
 * The over-context lint against the servers' own context (their
 * `max_model_len`, read once they answered), when the run was given none:
 * the smallest context among the endpoints that report one. Adds the
 * finding to the plan (results.json `trace.lint`) and returns the warning
 * lines; none when the context was given, already linted, unknown or wide
 * enough.
 */
export function serverContextLint(
  p: PreparedTrace,
  spec: TraceSpec,
  contexts: readonly { url: string; maxModelLen: number | null }[],
): string[] {
  if (spec.maxModelLen !== undefined || p.plan.lint.some((w) => w.kind === 'over-context')) return [];
  let least: { url: string; maxModelLen: number } | null = null;
  for (const c of contexts)
    if (c.maxModelLen !== null && (least === null || c.maxModelLen < least.maxModelLen))
      least = { url: c.url, maxModelLen: c.maxModelLen };
  if (!least) return [];
  const over = lintTrace(p.trace, { maxModelLen: least.maxModelLen }).find((w) => w.kind === 'over-context');
  if (!over) return [];
  p.plan.lint.push(over);
  return [`warning: trace: ${over.message} (max_model_len ${least.maxModelLen} of ${least.url})`];
}

/** The plan's lines, for the run's log. */
export function tracePlanLines(p: TracePlan): string[] {
  return formatTracePlan(p).trimEnd().split('\n');
}

/**
 * What a replay changes in the settings: every row is a performance sample
 * (a benchmark's smaller performance count would leave rows unloaded).
 */
export function applyTraceSettings(settings: TestSettings): void {
  settings.performanceSampleCountOverride = 0;
}

/** The settings as the engine runs a replay, for the progress estimate: the trace's span, rows and mean rate. */
export function traceProgressSettings(settings: TestSettings, plan: TracePlan): TestSettings {
  return {
    ...settings,
    minDurationMs: Math.floor(plan.spanMs),
    minQueryCount: plan.requests,
    serverTargetQps: plan.meanRate ?? settings.serverTargetQps,
  };
}

export function traceSection(p: PreparedTrace, timings: readonly SampleTiming[] | undefined): TraceReplayReport {
  return traceReplayReport(p.plan, timings);
}
