// Rates and in-flight counts over time for report.html: derived from the
// harness's per-sample timings when recorded (exact, finer than a second),
// else from the run's timeline (sampled about once a second).
import type { SampleTiming } from '../sut/types.js';
import type { TimelinePoint } from './run-record.js';

export interface TimeSeries {
  source: 'timeline' | 'timings';
  /** Each point: [seconds since start, value]. */
  completedPerSecond: Array<[number, number]>;
  tokensPerSecond: Array<[number, number]>;
  inFlight: Array<[number, number]>;
  errors: Array<[number, number]>;
}

function fromTimeline(tl: readonly TimelinePoint[]): TimeSeries {
  const out: TimeSeries = { source: 'timeline', completedPerSecond: [], tokensPerSecond: [], inFlight: [], errors: [] };
  for (let i = 0; i < tl.length; i++) {
    const p = tl[i];
    const t = p.tMs / 1000;
    out.inFlight.push([t, p.inFlight]);
    out.errors.push([t, p.errors]);
    if (i === 0) continue;
    const dt = (p.tMs - tl[i - 1].tMs) / 1000;
    if (dt <= 0) continue;
    // Rates are plotted at the end of each interval.
    out.completedPerSecond.push([t, (p.completedSamples - tl[i - 1].completedSamples) / dt]);
    out.tokensPerSecond.push([t, (p.outputTokens - tl[i - 1].outputTokens) / dt]);
  }
  return out;
}

function fromTimings(timings: readonly SampleTiming[], maxBins = 60): TimeSeries | null {
  const rows = timings.filter(
    (t) => Number.isFinite(t.scheduledNs) && t.scheduledNs > 0 && Number.isFinite(t.endNs) && t.endNs > 0,
  );
  if (rows.length === 0) return null;
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const r of rows) {
    t0 = Math.min(t0, r.scheduledNs);
    t1 = Math.max(t1, r.endNs);
  }
  const span = t1 - t0;
  if (!(span > 0)) return null;
  // About 20 completions a bin on average, so a rate is not mostly noise; at most maxBins.
  const n = Math.max(2, Math.min(maxBins, Math.floor(rows.length / 20)));
  const width = span / n;
  const done = new Array<number>(n).fill(0);
  const toks = new Array<number>(n).fill(0);
  const errs = new Array<number>(n).fill(0);
  // In flight: the time-average over each bin (sum of each request's overlap with the bin / bin width).
  const busy = new Array<number>(n).fill(0);
  for (const r of rows) {
    const k = Math.min(n - 1, Math.floor((r.endNs - t0) / width));
    done[k]++;
    if (r.ok) toks[k] += r.tokens;
    else errs[k]++;
    const a = (Number.isFinite(r.issuedNs) && r.issuedNs > 0 ? r.issuedNs : r.scheduledNs) - t0;
    const b = r.endNs - t0;
    for (let j = Math.max(0, Math.floor(a / width)); j < n && j * width < b; j++) {
      busy[j] += Math.max(0, Math.min(b, (j + 1) * width) - Math.max(a, j * width));
    }
  }
  const out: TimeSeries = { source: 'timings', completedPerSecond: [], tokensPerSecond: [], inFlight: [], errors: [] };
  const secs = width / 1e9;
  let errTotal = 0;
  for (let k = 0; k < n; k++) {
    // Each bin's value is plotted at its middle.
    const t = ((k + 0.5) * width) / 1e9;
    errTotal += errs[k];
    out.completedPerSecond.push([t, done[k] / secs]);
    out.tokensPerSecond.push([t, toks[k] / secs]);
    out.inFlight.push([t, busy[k] / width]);
    out.errors.push([t, errTotal]);
  }
  return out;
}

export function timeSeries(
  timeline: readonly TimelinePoint[],
  timings: readonly SampleTiming[] | undefined,
): TimeSeries | null {
  const derived = timings && timings.length > 0 ? fromTimings(timings) : null;
  if (derived) return derived;
  return timeline.length >= 2 ? fromTimeline(timeline) : null;
}
