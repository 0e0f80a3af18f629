// The checker's rules for a scenario folder in the endpoints result format
// (config.yaml, performance/result_summary.json, accuracy/accuracy_results.json),
// as v6.1's parsers/endpoints_parser.py reads them and the performance,
// accuracy and compliance checks judge them: seeds and min_duration_ms from
// config.yaml, TTFT/TPOT from result_summary.json's early-stopping
// percentiles, accuracy_scores from accuracy_results.json. The sample count,
// qsl seed and min query count checks do not apply to endpoints results.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { PerfContext, Problem } from './precheck-perf.js';
import {
  CHECKER_BENCHMARKS,
  CHECKER_MIN_DURATION_MS,
  CHECKER_SEEDS,
  TEST09_OUTPUT_TOKENS,
  expectedAccuracySamples,
} from './rules.js';
import { requiredComplianceTests } from '../compliance/required-tests.js';

type Obj = Record<string, unknown>;

function at(o: unknown, ...path: string[]): unknown {
  let cur = o;
  for (const k of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[k];
  }
  return cur;
}

function readJson(path: string): Obj | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Obj;
  } catch {
    return null;
  }
}

/** The p99 early-stopping estimate of a result_summary.json series (keyed "99.0", or "99"). */
function earlyStoppingP99(summary: Obj, series: string): number | undefined {
  const esp = at(summary, series, 'early_stopping_percentiles') as Obj | undefined;
  const v = esp?.['99.0'] ?? esp?.['99'];
  return typeof v === 'number' ? v : undefined;
}

/** How the checker names the scenario of an endpoints result: the folder for SingleStream and Interactive, `type` otherwise (online is Server). */
function endpointsScenario(type: string, folder: string): string {
  if (folder.toLowerCase() === 'singlestream') return 'SingleStream';
  if (folder.toLowerCase() === 'interactive' || type.toLowerCase() === 'interactive') return 'Interactive';
  if (type.toLowerCase() === 'online') return 'Server';
  return type;
}

export function checkEndpointsScenario(dir: string, c: PerfContext, config: Obj | null): Problem[] {
  const out: Problem[] = [];
  const cfgRel = `${c.rel}/config.yaml`;
  const sumRel = `${c.rel}/performance/result_summary.json`;
  const accRel = `${c.rel}/accuracy/accuracy_results.json`;
  const rules = CHECKER_BENCHMARKS[c.benchmark];
  if (!config) out.push({ file: cfgRel, message: 'missing (endpoints results need config.yaml)' });
  const summaryPath = join(dir, 'performance', 'result_summary.json');
  const summary = existsSync(summaryPath) ? readJson(summaryPath) : null;
  if (!summary) out.push({ file: sumRel, message: existsSync(summaryPath) ? 'is not valid JSON' : 'missing' });
  if (rules && !rules.endpointsAllowed)
    out.push({ file: c.rel, message: `${c.benchmark} may not be submitted in the endpoints format` });
  if (config) {
    const type = String(config.type ?? '');
    const scenario = endpointsScenario(type, c.scenario);
    if (!['offline', 'Server', 'Interactive', 'SingleStream'].includes(scenario))
      out.push({ file: cfgRel, message: `type '${type}' is not offline or online` });
    for (const [key, want, name] of [
      ['dataloader_random_seed', CHECKER_SEEDS.sampleIndexRngSeed, 'sample_index_rng_seed'],
      ['scheduler_random_seed', CHECKER_SEEDS.scheduleRngSeed, 'schedule_rng_seed'],
    ] as const) {
      const v = at(config, 'settings', 'runtime', key);
      if (v === undefined || String(v) !== String(want))
        out.push({
          file: cfgRel,
          message: `settings.runtime.${key} (${name}) is ${v === undefined ? '(missing)' : String(v)}; the checker expects ${String(want)}`,
        });
    }
    const minDuration = at(config, 'settings', 'runtime', 'min_duration_ms');
    const ms = typeof minDuration === 'bigint' ? Number(minDuration) : Number(minDuration ?? 0);
    if (!(ms >= CHECKER_MIN_DURATION_MS))
      out.push({
        file: cfgRel,
        message: `settings.runtime.min_duration_ms is ${String(minDuration ?? '(missing)')}; the checker needs >= ${CHECKER_MIN_DURATION_MS}`,
      });
    if (summary && rules?.llm && (scenario === 'Server' || scenario === 'Interactive')) {
      const limits = rules.tokenLimitsNs[scenario];
      const ttft = earlyStoppingP99(summary, 'ttft');
      const tpot = earlyStoppingP99(summary, 'tpot');
      if (ttft === undefined || tpot === undefined)
        out.push({
          file: sumRel,
          message: 'ttft/tpot early_stopping_percentiles 99.0 missing (the checker reads p99 TTFT and TPOT from them)',
        });
      else if (limits && !(ttft < limits.ttft && tpot < limits.tpot))
        out.push({
          file: sumRel,
          message: `p99 TTFT ${ttft} ns and TPOT ${tpot} ns must be below ${limits.ttft} ns and ${limits.tpot} ns`,
        });
      if (scenario === 'Server' && typeof summary.tps !== 'number')
        out.push({ file: sumRel, message: 'tps missing (the Server metric of LLM benchmarks)' });
    }
    if (summary && rules && !rules.llm) {
      const limit = rules.latencyConstraintNs[c.scenario as 'Server'];
      const p99 = earlyStoppingP99(summary, 'latency');
      if (limit && (p99 === undefined || p99 > limit))
        out.push({ file: sumRel, message: `p99 latency ${p99 ?? '(missing)'} ns against the ${limit} ns constraint` });
    }
  }
  const accPath = join(dir, 'accuracy', 'accuracy_results.json');
  const acc = existsSync(accPath) ? readJson(accPath) : null;
  if (!acc) out.push({ file: accRel, message: existsSync(accPath) ? 'is not valid JSON' : 'missing' });
  else {
    const scores = Array.isArray(acc.accuracy_scores) ? (acc.accuracy_scores as Obj[]) : [];
    if (!scores.some((s) => s && s.score !== undefined && s.score !== null))
      out.push({ file: accRel, message: 'no accuracy_scores entry with a score' });
    const counts = scores
      .filter((s) => s && (s.dataset_type === undefined || s.dataset_type === 'accuracy'))
      .map((s) => (typeof s.total_samples === 'number' ? s.total_samples : at(s, 'response_counts', 'issued')))
      .filter((n): n is number => typeof n === 'number');
    const expected = expectedAccuracySamples(c.benchmark, c.scenario);
    const total = counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : undefined;
    if (expected !== undefined && total !== expected)
      out.push({
        file: accRel,
        message: `the accuracy scores cover ${total ?? '?'} samples; the dataset has ${expected}`,
      });
  }
  if (summary && c.division !== 'open' && requiredComplianceTests(c.benchmark).includes('TEST09')) {
    const mean = at(summary, 'output_sequence_lengths', 'avg');
    if (typeof mean !== 'number' || mean < TEST09_OUTPUT_TOKENS.low || mean > TEST09_OUTPUT_TOKENS.high)
      out.push({
        file: sumRel,
        message: `TEST09: mean output tokens ${String(mean ?? '(missing)')} outside [${TEST09_OUTPUT_TOKENS.low}, ${TEST09_OUTPUT_TOKENS.high}]`,
      });
  }
  return out;
}
