// A trace replay's figures: the plan of what the trace asked for (read
// before the test, lib/dataset/trace-plan.ts) and how closely the requests
// followed the trace's times, from the adapter's per-sample timings: the
// engine's issue time and the moment the request was written, each against
// the time the trace gave it.
import type { TracePlan } from '../dataset/trace-plan.js';
import { percentiles } from '../sut/stats.js';
import type { SampleTiming } from '../sut/types.js';

/** p50, p99 and max of a timing error, ms (measurement.ts's Spread, kept apart to keep the imports one-way). */
export interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** What results.json's `trace` holds. */
export interface TraceReplayReport extends Omit<TracePlan, 'rate'> {
  /** Issue time - the trace's time, ms, every sample: the engine's timing error. */
  issueErrorMs: Spread | null;
  /** Request written - the trace's time, ms, first attempts: when the server could first see it. */
  sendErrorMs: Spread | null;
}

const r4 = (ms: number): number => Math.round(ms * 1e4) / 1e4;

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  const p = percentiles(values, 1e-6);
  return { count: p.count, p50: r4(p.p50), p99: r4(p.p99), max: r4(p.max) };
}

/** The report of a replay: its plan and the timing errors in `timings`. */
export function traceReplayReport(plan: TracePlan, timings: readonly SampleTiming[] | undefined): TraceReplayReport {
  const { rate: _rate, ...rest } = plan;
  const issued = (timings ?? []).filter((t) => t.scheduledNs > 0 && t.issuedNs > 0);
  const sent = issued.filter((t) => t.attempts === 1 && t.sentNs > 0);
  return {
    ...rest,
    issueErrorMs: spread(issued.map((t) => t.issuedNs - t.scheduledNs)),
    sendErrorMs: spread(sent.map((t) => t.sentNs - t.scheduledNs)),
  };
}

/** The issue policy's name for a replay (the engine's words). */
export function traceIssuePolicy(t: Pick<TracePlan, 'requests' | 'spanMs' | 'speed'>): string {
  return `trace replay, ${t.requests} requests over ${Math.floor(t.spanMs)} ms${t.speed !== 1 ? ` (speed ${t.speed})` : ''}`;
}

/** One console line: the issue-time error against the trace. */
export function traceReplayLine(t: TraceReplayReport): string {
  const e = t.issueErrorMs;
  const s = t.sendErrorMs;
  return `trace replay: ${t.requests} requests; issue time - trace time p50 ${e ? e.p50.toFixed(3) : 'n/a'} ms, p99 ${e ? e.p99.toFixed(3) : 'n/a'} ms, max ${e ? e.max.toFixed(3) : 'n/a'} ms${s ? `; written p99 ${s.p99.toFixed(3)} ms after its time` : ''}`;
}
