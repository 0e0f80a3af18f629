// runSweep: `loadgen sweep` as a function. Many short runs of one benchmark
// at different loads: the Server capacity search (the highest target QPS, or
// concurrency, whose run is VALID and clean under the benchmark's bounds: a
// geometric ladder from a start value, then bisection to a relative
// precision), or a plain list of points. Each point is a whole runBenchmark
// in its own directory (<outdir>/points/qps-<rate>/) with the MLPerf logs and
// results.json; a sweep started again with the same outdir reads the points
// already done instead of running them. Writes sweep.json and sweep.html.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { UsageError } from '../core/errors.js';
import { buildResultsJson, type ResultsJson } from '../results/results-json.js';
import type { RunRecord } from '../results/run-record.js';
import {
  pointFromResults,
  SWEEP_SCHEMA,
  SWEEP_SCHEMA_VERSION,
  sweepBounds,
  type SweepCapacity,
  type SweepDimension,
  type SweepJson,
  type SweepPoint,
} from '../results/sweep-json.js';
import { writeSweepOutputs } from '../results/sweep-html.js';
import { checkOutputDir, createOutputDir } from './output-dir.js';
import { runBenchmark } from './run-benchmark.js';
import { composeSettings, type RunBenchmarkOptions } from './run-options.js';

export type { SweepCapacity, SweepDimension, SweepJson, SweepPoint } from '../results/sweep-json.js';

export interface RunSweepOptions extends RunBenchmarkOptions {
  /** What the search varies: Server's target QPS (default) or the concurrency (most requests in flight). */
  dimension?: SweepDimension;
  /** A plain list of points (target QPS or concurrencies, by `dimension`) instead of the search. */
  points?: readonly number[];
  /**
   * The search's first value (default: `targetQps`, else half the rate a
   * calibration closed loop of `concurrency` (else 256) users reached; for a
   * concurrency search, `concurrency`, else 1).
   */
  start?: number;
  /** Relative precision of the search: it stops when the lowest INVALID value is within this of the highest VALID one (default 0.05). */
  precision?: number;
  /** min_duration of each probe, ms (default 10000); the list and the confirmation keep the run's own settings. */
  probeDurationMs?: number;
  /**
   * Least queries a probe issues (default 662): Server's p99 early stopping
   * needs 459 queries without one over a bound, 662 with one; a shorter
   * probe can never be VALID. A probe's min_query_count is this, or the
   * one in `settings` when that is larger (the official one does not apply to probes).
   */
  probeMinQueries?: number;
  /** After the search, one run at the capacity with the full settings (no probe duration). */
  confirm?: boolean;
  /** Most probes the search runs (default 40). */
  maxProbes?: number;
  /** Runs one point (default runBenchmark): e.g. a run with the servers it starts. Must write results.json into options.outdir. */
  runPoint?: (options: RunBenchmarkOptions) => Promise<RunRecord>;
  /** Told of each point once it is known (run or read back). */
  onPoint?: (point: SweepPoint) => void;
  /** Ends the sweep after the point in progress (its test is ended by Ctrl-C itself). */
  signal?: AbortSignal;
}

export interface SweepOutcome {
  sweep: SweepJson;
  /** sweep.json and sweep.html. */
  files: string[];
  /** True when the signal stopped the sweep early. */
  stopped: boolean;
}

const DEFAULT_PRECISION = 0.05;
const DEFAULT_PROBE_MS = 10_000;
const DEFAULT_MAX_PROBES = 40;
const DEFAULT_PROBE_QUERIES = 662;
/** The ladder's limits: no rate below this, and no more doublings than this. */
const MIN_QPS = 1e-3;
/** The concurrency ladder stops here (every point VALID up to it: `reached` stays false). */
export const MAX_CONCURRENCY = 1024;
const MAX_STEPS = 40;

/** A value as it names a directory and is compared: 4 significant digits (QPS), an integer (concurrency). */
export function roundPoint(dimension: SweepDimension, v: number): number {
  return dimension === 'concurrency' ? Math.max(1, Math.round(v)) : Number(v.toPrecision(4));
}

/** A point's directory under the sweep's outdir. */
export function pointDir(dimension: SweepDimension, v: number, confirm = false): string {
  return join('points', `${confirm ? 'confirm-' : ''}${dimension}-${String(v)}`);
}

function positive(name: string, v: number | undefined, integer = false): void {
  if (v === undefined) return;
  if (!(typeof v === 'number' && Number.isFinite(v) && v > 0) || (integer && !Number.isSafeInteger(v)))
    throw new UsageError(`${name} must be ${integer ? 'an integer' : 'a number'} > 0, got ${String(v)}`);
}

function checkSweepOptions(o: RunSweepOptions): SweepDimension {
  const dimension = o.dimension ?? 'qps';
  if (dimension !== 'qps' && dimension !== 'concurrency')
    throw new UsageError(`sweep dimension must be 'qps' or 'concurrency', got ${String(dimension)}`);
  if (dimension === 'concurrency' && o.scenario !== 'Server')
    throw new UsageError(
      `a concurrency sweep runs closed loops (each user sends its next request when the last one ends), a Server-scenario issue policy; got ${o.scenario}`,
    );
  if (dimension === 'concurrency' && o.settings?.closedLoopConcurrency !== undefined)
    throw new UsageError('a concurrency sweep sets the closed loop itself: drop --closed-loop');
  if (dimension === 'qps' && o.scenario !== 'Server' && !o.points)
    throw new UsageError(
      `the capacity search over target QPS needs the Server scenario (got ${o.scenario}); use --concurrency-sweep or a list (--rates)`,
    );
  if (dimension === 'qps' && o.points && o.scenario !== 'Server' && o.scenario !== 'Offline')
    throw new UsageError(`--rates applies to the Server and Offline scenarios, not ${o.scenario}`);
  if (o.precision !== undefined && !(Number.isFinite(o.precision) && o.precision > 0 && o.precision < 1))
    throw new UsageError(`--precision must be a fraction in (0, 1), e.g. 0.05, got ${String(o.precision)}`);
  positive('--probe-duration', o.probeDurationMs);
  positive('--max-probes', o.maxProbes, true);
  positive('--probe-queries', o.probeMinQueries, true);
  positive(dimension === 'qps' ? 'the start rate' : 'the start concurrency', o.start, dimension === 'concurrency');
  if (o.points) {
    if (o.points.length === 0) throw new UsageError('the list of points is empty');
    for (const p of o.points)
      positive(dimension === 'qps' ? '--rates' : '--concurrencies', p, dimension === 'concurrency');
    if (o.confirm) throw new UsageError('--confirm confirms a capacity search, not a list of points');
  }
  if (o.mode !== undefined && o.mode !== 'PerformanceOnly')
    throw new UsageError(`a sweep runs performance tests only, not --mode ${o.mode}`);
  if (o.resume) throw new UsageError('--resume continues one run; a sweep resumes by itself (same --output-dir)');
  return dimension;
}

/** The figures of a finished point directory, or null when it has no complete results.json. */
export function readDonePoint(dir: string): ResultsJson | null {
  const file = join(dir, 'results.json');
  if (!existsSync(file)) return null;
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as ResultsJson;
    if (j.schema !== '@x/loadgen/results' || !j.verdict || !j.throughput || !j.run || j.run.aborted) return null;
    return j;
  } catch {
    return null;
  }
}

/** Why a finished point does not match this sweep's (its rate, concurrency or probe duration), or null when it does. */
function settingsDiffer(
  j: ResultsJson,
  dimension: SweepDimension,
  value: number,
  probeDurationMs: number | null,
): string | null {
  const s = j.settings.requested;
  if (dimension === 'qps') {
    const key = j.benchmark.scenario === 'Offline' ? 'offlineExpectedQps' : 'serverTargetQps';
    if (Number(s[key]) !== value) return `${key} ${String(s[key])}`;
  }
  if (dimension === 'concurrency' && Number(s.closedLoopConcurrency) !== value)
    return `closedLoopConcurrency ${String(s.closedLoopConcurrency)}`;
  if (probeDurationMs !== null && Number(s.minDurationMs) !== probeDurationMs)
    return `minDurationMs ${String(s.minDurationMs)}`;
  return null;
}

/** Runs the sweep; resolves with sweep.json's content once sweep.json and sweep.html are written. */
export async function runSweep(options: RunSweepOptions): Promise<SweepOutcome> {
  if (!options || typeof options !== 'object') throw new UsageError('runSweep: options must be an object');
  const dimension = checkSweepOptions(options);
  const {
    dimension: _d,
    points: list,
    start,
    precision: precisionIn,
    probeDurationMs: probeIn,
    confirm,
    maxProbes: maxIn,
    probeMinQueries: probeQueriesIn,
    runPoint: runPointIn,
    onPoint,
    signal,
    ...base
  } = options;
  const precision = precisionIn ?? DEFAULT_PRECISION;
  const probeDurationMs = probeIn ?? DEFAULT_PROBE_MS;
  const maxProbes = maxIn ?? DEFAULT_MAX_PROBES;
  const probeMinQueries = probeQueriesIn ?? DEFAULT_PROBE_QUERIES;
  const runPoint = runPointIn ?? runBenchmark;
  const log = base.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const outdir = checkOutputDir(base.outdir);
  createOutputDir(outdir);
  const gpus = gpuCount(base);
  const startedAt = new Date().toISOString();
  // A probe stands for a run with the full settings: its latency trend is projected to that run's length.
  const fullRunMs = composeSettings(base, (base.endpoints ?? []).length === 0).settings.minDurationMs;
  const points: SweepPoint[] = [];
  let stopped = false;
  let bounds: SweepJson['bounds'] = null;
  // Most completions per second one closed-loop user reached so far (a lower concurrency's is the higher).
  let slotRate = 0;

  const measure = async (value: number, kind: SweepPoint['kind']): Promise<SweepPoint> => {
    const calibrating = kind === 'calibration';
    // A calibration is a closed loop of `value` users, whatever the sweep's dimension.
    const dim: SweepDimension = calibrating ? 'concurrency' : dimension;
    const dir = join(
      outdir,
      calibrating ? join('points', `calibration-c${value}`) : pointDir(dimension, value, kind === 'confirm'),
    );
    const rel = relative(outdir, dir);
    let done = readDonePoint(dir);
    const short = kind === 'probe' || calibrating ? probeDurationMs : null;
    const differs = done ? settingsDiffer(done, dim, value, short) : null;
    if (differs) {
      log(`sweep: ${rel} was run with other settings (${differs}): running it again`);
      done = null;
    }
    let results: ResultsJson;
    let resumed = false;
    if (done) {
      results = done;
      resumed = true;
      log(`sweep: ${dimension} ${value}: done before (${rel}), read back`);
    } else {
      const settings = { ...(base.settings ?? {}) };
      if (kind === 'probe') {
        settings.minDurationMs = probeDurationMs;
        settings.minQueryCount = Math.max(settings.minQueryCount ?? 0, probeMinQueries);
      }
      const o: RunBenchmarkOptions = { ...base, outdir: dir, settings, writeOutputs: true };
      if (calibrating) {
        // Only its rate is used: as short as a probe, no query-count floor, no other issue policy.
        settings.minDurationMs = probeDurationMs;
        settings.minQueryCount = value;
        settings.closedLoopConcurrency = value;
        for (const k of ['serverBurstiness', 'rampStartQps', 'rampDurationMs', 'rampExponential'] as const)
          delete settings[k];
        o.targetQps = value * CALIBRATION_SLOT_QPS;
      } else if (dimension === 'qps') o.targetQps = value;
      else {
        // A closed loop of `value` users; its target QPS only sizes the generated queries.
        settings.closedLoopConcurrency = value;
        if (base.targetQps === undefined) o.targetQps = closedLoopSizing(value, slotRate);
      }
      log(`sweep: ${kind} at ${calibrating ? `${value} users` : `${dimension} ${value}`} → ${rel}`);
      const record = await runPoint(o);
      results = readDonePoint(dir) ?? buildResultsJson(record);
    }
    const horizonMs = kind === 'probe' && dimension === 'qps' ? fullRunMs : null;
    const point = pointFromResults(results, { kind, dimension: dim, value, dir: rel, resumed, gpus, horizonMs });
    if (dimension === 'concurrency' && point.qps !== null) slotRate = Math.max(slotRate, point.qps / value);
    bounds ??= sweepBounds(results);
    points.push(point);
    if (calibrating)
      log(
        `sweep: calibration, ${value} users in a closed loop: ${point.qps === null ? 'no rate' : `${point.qps.toFixed(2)} samples/s`}`,
      );
    else
      log(
        `sweep: ${dimension} ${value}: ${point.sustained === false && point.verdict === 'VALID' ? `VALID but ${point.reasons.at(-1)}` : `${point.verdict}${point.withinBounds ? '' : point.reasons.length ? ` (${point.reasons[0]})` : ''}`}`,
      );
    onPoint?.(point);
    if (signal?.aborted) stopped = true;
    return point;
  };

  let capacity: SweepCapacity | null = null;
  if (list) {
    for (const v of list) {
      if (stopped || signal?.aborted) break;
      await measure(roundPoint(dimension, v), 'list');
    }
  } else {
    let from = start ?? defaultStart(dimension, base);
    let calibration: SweepCapacity['calibration'] = null;
    if (dimension === 'qps' && start === undefined && base.targetQps === undefined) {
      const users = base.concurrency ?? CALIBRATION_USERS;
      const c = await measure(users, 'calibration');
      if (c.qps !== null && c.qps > 0 && c.verdict !== 'ABORTED') from = roundPoint('qps', c.qps / 2);
      else log(`sweep: the calibration measured no rate (${c.reasons[0] ?? c.verdict}): starting at ${from} QPS`);
      calibration = { concurrency: users, qps: c.qps, start: from };
    }
    capacity =
      stopped || signal?.aborted
        ? null
        : await search(dimension, from, precision, maxProbes, measure, () => Boolean(stopped || signal?.aborted));
    if (capacity) capacity.calibration = calibration;
    if (capacity && capacity.value !== null && confirm && !(stopped || signal?.aborted)) {
      const p = await measure(capacity.value, 'confirm');
      capacity.confirmed = p.withinBounds;
    }
  }
  stopped ||= Boolean(signal?.aborted);
  const sweep: SweepJson = {
    schema: SWEEP_SCHEMA,
    schemaVersion: SWEEP_SCHEMA_VERSION,
    startedAt,
    endedAt: new Date().toISOString(),
    outdir,
    command: base.command ?? null,
    scenario: base.scenario,
    benchmark: base.benchmark ?? null,
    simulated: (base.endpoints ?? []).length === 0,
    kind: list ? 'list' : 'search',
    dimension,
    precision: list ? null : precision,
    probeDurationMs: list ? null : probeDurationMs,
    probeMinQueries: list ? null : probeMinQueries,
    gpus,
    bounds,
    stopped,
    points,
    capacity,
  };
  const files = await writeSweepOutputs(sweep);
  return { sweep, files, stopped };
}

// Completions per second a closed-loop user is assumed able to reach before
// any point was measured (a request of 100 ms); once points are known, three
// times the best rate seen, so the engine never runs out of generated queries.
const CLOSED_LOOP_PRIOR_SLOT_QPS = 10;

function closedLoopSizing(concurrency: number, slotRate: number): number {
  return concurrency * Math.max(CLOSED_LOOP_PRIOR_SLOT_QPS, 3 * slotRate);
}

// Without a start rate, a closed loop of this many users (or --concurrency)
// measures the servers' saturated rate first, and the search starts at half
// of it: a ladder from 1 QPS spends minutes per rung (662 queries a probe).
const CALIBRATION_USERS = 256;
// Generated queries per user and second of the calibration: LoadGen makes the
// whole schedule up front, and a loop that outruns it ends in an error.
const CALIBRATION_SLOT_QPS = 100;

function defaultStart(dimension: SweepDimension, o: RunBenchmarkOptions): number {
  if (dimension === 'qps') return o.targetQps ?? 1;
  return o.settings?.closedLoopConcurrency ?? o.concurrency ?? 1;
}

/** GPUs behind the endpoints when the pricing says (gpusPerEndpoint), else null. */
function gpuCount(o: RunBenchmarkOptions): number | null {
  const g = o.pricing?.gpusPerEndpoint;
  if (g === undefined) return null;
  const n = Math.max(1, (o.endpoints ?? []).length);
  if (typeof g === 'number') return g * n;
  return g.reduce((a, b) => a + b, 0);
}

/**
 * The capacity search: from `start`, doubling while VALID (halving while
 * INVALID) until the verdict turns, then bisection (geometric midpoints)
 * until the lowest INVALID value is within `precision` of the highest VALID
 * one. The capacity is that highest VALID value (null when none was found).
 */
async function search(
  dimension: SweepDimension,
  start: number,
  precision: number,
  maxProbes: number,
  measure: (v: number, kind: 'probe') => Promise<SweepPoint>,
  stop: () => boolean,
): Promise<SweepCapacity | null> {
  let lo: number | null = null; // highest VALID
  let hi: number | null = null; // lowest INVALID
  let probes = 0;
  let halted = false;
  const done = (): boolean => halted || stop();
  const seen = new Map<number, boolean>();
  const probe = async (v: number): Promise<boolean> => {
    const known = seen.get(v);
    if (known !== undefined) return known;
    probes++;
    const point = await measure(v, 'probe');
    // An aborted test (Ctrl-C) says nothing about the load: the sweep stops.
    if (point.verdict === 'ABORTED') {
      halted = true;
      return false;
    }
    const ok = point.withinBounds;
    seen.set(v, ok);
    if (ok && (lo === null || v > lo)) lo = v;
    if (!ok && (hi === null || v < hi)) hi = v;
    return ok;
  };
  const floor = dimension === 'qps' ? MIN_QPS : 1;
  let v = roundPoint(dimension, start);
  const first = await probe(v);
  // The ladder.
  for (let step = 0; step < MAX_STEPS && probes < maxProbes && !done(); step++) {
    const next = roundPoint(dimension, first ? v * 2 : v / 2);
    if (first ? hi !== null : lo !== null) break;
    if (!first && (next < floor || next === v)) break;
    if (first && dimension === 'concurrency' && next > MAX_CONCURRENCY) break;
    v = next;
    await probe(v);
  }
  // Bisection.
  while (lo !== null && hi !== null && hi > lo && probes < maxProbes && !done()) {
    if (hi <= lo * (1 + precision)) break;
    const mid = roundPoint(dimension, Math.sqrt(lo * hi));
    if (mid <= lo || mid >= hi) break;
    await probe(mid);
  }
  return {
    dimension,
    value: lo,
    qps: dimension === 'qps' ? lo : null,
    concurrency: dimension === 'concurrency' ? lo : null,
    precision,
    lowerInvalid: hi,
    reached:
      lo !== null && hi !== null && hi <= Math.max(lo * (1 + precision), dimension === 'concurrency' ? lo + 1 : 0),
    probes,
    confirmed: null,
    calibration: null,
  };
}
