// The performance halves of TEST01 and TEST04: the audit run's score against
// the reference performance run's, by the rules of the official
// verify_performance.py scripts (restated, not copied).
//
// TEST01 reads both detail logs: the score is result_samples_per_second
// (Offline), result_completed_samples_per_sec (Server),
// early_stopping_latency_ss / _ms (SingleStream / MultiStream, in ns); both
// runs must be VALID, of the same scenario and, for Server, of the same
// target latency; the audit score must lie within ±10% of the reference
// (±20% when a SingleStream score is at most 200000 or a MultiStream one at
// most 1600000).
//
// TEST04 reads both summaries: Offline "Samples per second", Server
// "Completed samples per second", SingleStream 1e9 / the early-stopping 90th
// (or 99.9th) percentile estimate, MultiStream 1e9 / the 99th one; an
// INVALID run fails; the audit run (the same sample over and over) must not
// be more than 10% faster (20% under the same small-score rule).
//
// The report's text is what verify_performance.txt holds: the checker looks
// for "TEST PASS" in it.
import { parseDetailText, parseSummaryText } from '../report/read-logs.js';

export interface PerformanceVerification {
  pass: boolean;
  /** Why it failed (empty on PASS). */
  reasons: string[];
  scenario: string | null;
  referenceScore: number | null;
  testScore: number | null;
  /** The relative tolerance applied (0.1 or 0.2). */
  threshold: number;
  /** verify_performance.txt. */
  text: string;
}

const DETAIL_SCORE_KEY: Readonly<Record<string, string>> = {
  Offline: 'result_samples_per_second',
  Server: 'result_completed_samples_per_sec',
  SingleStream: 'early_stopping_latency_ss',
  MultiStream: 'early_stopping_latency_ms',
};

function toleranceFor(scenario: string | null, referenceScore: number): number {
  if (scenario === 'SingleStream' && referenceScore <= 200000) return 0.2;
  if (scenario === 'MultiStream' && referenceScore <= 1600000) return 0.2;
  return 0.1;
}

/** What both checks read of a run, from its detail log (TEST01) or its summary (TEST04). */
interface RunFigures {
  scenario: string | null;
  score: number | null;
  valid: boolean;
  targetLatencyNs: string | null;
  errors: number;
}

function detailFigures(text: string, path: string): RunFigures {
  const log = parseDetailText(text, path);
  const last = new Map<string, string>();
  let errors = 0;
  for (const e of log.entries) {
    last.set(e.key, typeof e.value === 'string' ? e.value : e.valueText);
    if (e.isError) errors++;
  }
  const scenario = last.get('effective_scenario') ?? null;
  const key = scenario ? DETAIL_SCORE_KEY[scenario] : undefined;
  const raw = key ? last.get(key) : undefined;
  const score = raw !== undefined && Number.isFinite(Number(raw)) ? Number(raw) : null;
  return {
    scenario,
    score,
    valid: last.get('result_validity') === 'VALID',
    targetLatencyNs: last.get('effective_target_latency_ns') ?? null,
    errors,
  };
}

/**
 * The checks both tests make of the two runs before comparing scores: each
 * VALID with a score, of one scenario and, for Server, one target latency.
 * Pushes the warnings to `lines` and the failures to the returned reasons.
 */
function checkPair(
  lines: string[],
  ref: RunFigures,
  got: RunFigures,
  say: { errors: (what: string, n: number) => string; invalid: (what: string) => string; log: string },
): string[] {
  const reasons: string[] = [];
  for (const [what, f] of [
    ['reference', ref],
    ['audit', got],
  ] as const) {
    if (f.errors > 0) lines.push(`warning: ${say.errors(what, f.errors)}`);
    if (!f.valid) reasons.push(say.invalid(what));
    if (f.score === null) reasons.push(`the ${what} run's ${say.log} has no score for scenario ${f.scenario ?? '?'}`);
  }
  if (ref.scenario !== got.scenario)
    reasons.push(`scenarios differ: reference ${ref.scenario ?? '?'}, audit ${got.scenario ?? '?'}`);
  else if (ref.scenario === 'Server' && ref.targetLatencyNs !== got.targetLatencyNs)
    reasons.push(
      `Server target latencies differ: ${ref.targetLatencyNs ?? '?'} ns and ${got.targetLatencyNs ?? '?'} ns`,
    );
  return reasons;
}

function finish(
  lines: string[],
  reasons: string[],
  scenario: string | null,
  ref: number | null,
  test: number | null,
  threshold: number,
): PerformanceVerification {
  const pass = reasons.length === 0;
  lines.push(pass ? 'TEST PASS' : `TEST FAIL: ${reasons.join('; ')}`);
  return {
    pass,
    reasons,
    scenario,
    referenceScore: ref,
    testScore: test,
    threshold,
    text: `${lines.join('\n')}\n`,
  };
}

/** TEST01's performance check over two mlperf_log_detail.txt texts (reference run, audit run). */
export function verifyTest01Performance(
  reference: { text: string; path: string },
  test: { text: string; path: string },
): PerformanceVerification {
  const lines = ['Performance of the audit run against the reference performance run (detail logs).'];
  const ref = detailFigures(reference.text, reference.path);
  const got = detailFigures(test.text, test.path);
  const reasons = checkPair(lines, ref, got, {
    errors: (what, n) => `${n} ERROR lines in the ${what} run's detail log`,
    invalid: (what) => `the ${what} run's result is not VALID`,
    log: 'detail log',
  });
  const threshold = toleranceFor(ref.scenario, ref.score ?? 0);
  lines.push(`Scenario: ${ref.scenario ?? 'unknown'}`);
  lines.push(`Reference score: ${ref.score ?? 'n/a'}`);
  lines.push(`Audit score: ${got.score ?? 'n/a'}`);
  lines.push(`Allowed difference: ±${threshold * 100}%`);
  if (ref.score !== null && got.score !== null && reasons.length === 0) {
    const lo = ref.score * (1 - threshold);
    const hi = ref.score * (1 + threshold);
    if (!(got.score >= lo && got.score <= hi))
      reasons.push(`audit score ${got.score} is outside [${lo}, ${hi}] (reference ${ref.score} ±${threshold * 100}%)`);
  }
  return finish(lines, reasons, ref.scenario, ref.score, got.score, threshold);
}

// A summary without a Result line is not INVALID to TEST04's script: only an explicit INVALID fails.
function summaryFigures(text: string, path: string): RunFigures {
  const s = parseSummaryText(text, path);
  const scenario = s.fields.Scenario ?? null;
  let score: number | null = null;
  let targetLatencyNs: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const value = line.includes(':') ? line.slice(line.indexOf(':') + 1).trim() : '';
    if (score === null) {
      if (scenario === 'Offline' && /^Samples per second/.test(line)) score = Number(value);
      else if (scenario === 'Server' && /^Completed samples per second/.test(line)) score = Number(value);
      else if (scenario === 'SingleStream' && /Early stopping (90th|90\.0th|99\.9th) percentile estimate/.test(line))
        score = 1e9 / Number(value);
      else if (scenario === 'MultiStream' && /Early stopping (99th|99\.0th) percentile estimate/.test(line))
        score = 1e9 / Number(value);
      if (score !== null && !Number.isFinite(score)) score = null;
    }
    if (/^target_latency \(ns\)/.test(line)) targetLatencyNs = value;
  }
  return { scenario, score, valid: s.result !== 'INVALID', errors: s.errors ?? 0, targetLatencyNs };
}

/** TEST04's performance check over two mlperf_log_summary.txt texts (reference run, audit run). */
export function verifyTest04Performance(
  reference: { text: string; path: string },
  test: { text: string; path: string },
): PerformanceVerification {
  const lines = ['Performance of the same-sample audit run against the reference performance run (summaries).'];
  const ref = summaryFigures(reference.text, reference.path);
  const got = summaryFigures(test.text, test.path);
  const reasons = checkPair(lines, ref, got, {
    errors: (what, n) => `${n} ERROR reported in the ${what} run`,
    invalid: (what) => `the ${what} run's result is INVALID`,
    log: 'summary',
  });
  const threshold = toleranceFor(ref.scenario, ref.score ?? 0);
  lines.push(`Scenario: ${ref.scenario ?? 'unknown'}`);
  lines.push(`Reference score: ${ref.score ?? 'n/a'}`);
  lines.push(`Audit score: ${got.score ?? 'n/a'}`);
  lines.push(`Allowed speed-up of the audit run: ${threshold * 100}%`);
  if (ref.score !== null && got.score !== null && reasons.length === 0) {
    const limit = ref.score * (1 + threshold);
    if (!(got.score < limit))
      reasons.push(
        `audit score ${got.score} is not below ${limit} (reference ${ref.score} + ${threshold * 100}%): the SUT is faster on a repeated sample`,
      );
  }
  return finish(lines, reasons, ref.scenario, ref.score, got.score, threshold);
}
