// The checker's judgement of one performance log and one accuracy folder,
// restated from submission_checker/checks/performance_check.py and
// accuracy_check.py (v6.1): the same rules, in the same order, with the same
// limits. Each problem names the file it concerns.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { accuracyTarget, targetValue } from '../accuracy/targets.js';
import { detailView, type DetailView } from './detail-log.js';
import {
  ACCURACY_FILES,
  CHECKER_BENCHMARKS,
  CHECKER_MIN_DURATION_MS,
  CHECKER_SEEDS,
  MAX_ACCURACY_LOG_BYTES,
  expectedAccuracySamples,
  usesEarlyStopping,
  type Division,
} from './rules.js';

export interface Problem {
  /** The file (or folder) the problem concerns, relative to the submission root. */
  file: string;
  message: string;
}

export interface PerfContext {
  benchmark: string;
  /** The scenario folder's name. */
  scenario: string;
  division: Division | string;
  /** Path relative to the root, for the problems. */
  rel: string;
  /** system_type from systems/<system>.json (inference needs it). */
  systemType: string | undefined;
  /** A compliance run's log (the checker skips the "multiple conf files" error for those). */
  compliance?: boolean;
}

function readDetail(path: string, rel: string, out: Problem[]): DetailView | null {
  try {
    return detailView(path);
  } catch (err) {
    out.push({ file: rel, message: `cannot be read: ${(err as Error).message}` });
    return null;
  }
}

/** Checks one performance detail log as PerformanceCheck does. */
export function checkPerformanceLog(path: string, c: PerfContext): Problem[] {
  const out: Problem[] = [];
  const p = (message: string) => out.push({ file: c.rel, message });
  if (!existsSync(path)) {
    p('performance log missing');
    return out;
  }
  const log = readDetail(path, c.rel, out);
  if (!log) return out;
  const rules = CHECKER_BENCHMARKS[c.benchmark];
  const scenario = String(log.value('effective_scenario') ?? '');
  // LoadGen errors (the checker reports them; "multiple conf files" counts outside compliance runs).
  if (log.errors.length > 0)
    p(
      `LoadGen logged ${log.errors.length} error(s), e.g. ${JSON.stringify(String(log.errors[0].value)).slice(0, 160)}`,
    );
  // Equal issue mode is required only by v4.1's rules: nothing to check in v6.1.
  if (rules) {
    const psc = log.num('effective_performance_sample_count') ?? 0;
    if (psc < rules.performanceSampleCount)
      p(`performance_sample_count is ${psc}; the checker needs >= ${rules.performanceSampleCount} for ${c.benchmark}`);
  }
  for (const [key, want] of [
    ['effective_qsl_rng_seed', CHECKER_SEEDS.qslRngSeed],
    ['effective_sample_index_rng_seed', CHECKER_SEEDS.sampleIndexRngSeed],
    ['effective_schedule_rng_seed', CHECKER_SEEDS.scheduleRngSeed],
  ] as const) {
    const found = log.text(key);
    if (found !== String(want))
      p(`${key.replace('effective_', '')} is ${found ?? '(missing)'}; the checker expects ${String(want)}`);
  }
  // Latency: early stopping where it applies, else the p99 bound of the scenario folder.
  if (usesEarlyStopping(scenario)) {
    if (log.value('early_stopping_met') !== true) {
      // Token-latency runs log their reasons under the TTFT and TPOT keys instead.
      const why = ['early_stopping_result', 'early_stopping_ttft_result', 'early_stopping_tpot_result']
        .map((k) => String(log.value(k) ?? '').trim())
        .filter((t) => t !== '')
        .join(' ');
      p(`early stopping condition not met: ${why || 'no reason logged'}`);
    }
    const target = rules?.latencyConstraintNs[scenario as 'Server'];
    const used = log.num('effective_target_latency_ns');
    if (target && used !== undefined && used > target)
      p(`target latency for early stopping is ${used} ns; the checker allows at most ${target} ns`);
  } else {
    const target = rules?.latencyConstraintNs[c.scenario as 'Server'];
    const p99 = log.num('result_99.00_percentile_latency_ns');
    if (target && p99 !== undefined && p99 > target)
      p(`p99 latency ${p99} ns exceeds the ${c.scenario} constraint of ${target} ns`);
  }
  if (rules && !usesEarlyStopping(scenario)) {
    const required = rules.minQueries[scenario as 'Offline'];
    const minQueries = log.num('effective_min_query_count') ?? 0;
    if (required && minQueries < required)
      p(`min_query_count is ${minQueries}; the checker needs >= ${required} for ${c.benchmark} ${scenario}`);
  }
  if (rules && scenario === 'Offline' && c.division === 'closed') {
    const spq = log.num('effective_samples_per_query') ?? 0;
    if (spq < rules.offlineMinSamplesPerQuery)
      p(`Offline samples per query is ${spq}; the closed division needs >= ${rules.offlineMinSamplesPerQuery}`);
  }
  if (c.benchmark !== 'e2e-rag-qna' && c.benchmark !== 'e2e-rag-db') {
    const minDuration = log.num('effective_min_duration_ms') ?? 0;
    if (minDuration < CHECKER_MIN_DURATION_MS)
      p(`min_duration is ${minDuration} ms; the checker needs >= ${CHECKER_MIN_DURATION_MS} ms (600 s)`);
  }
  if (rules?.llm) {
    if (log.value('requested_use_token_latencies') !== true)
      p('use_token_latencies is off; the checker requires it for LLM benchmarks');
    else if (scenario === 'Server' || scenario === 'Interactive') {
      // The checker takes the bounds of the log's scenario (an Interactive folder holds a Server log).
      const limits = rules.tokenLimitsNs[scenario];
      const ttft = log.num('result_first_token_99.00_percentile_latency_ns');
      const tpot = log.num('result_time_per_output_token_99.00_percentile_ns');
      if (!limits) p(`no TTFT/TPOT limits for ${c.benchmark} ${scenario}`);
      else if (ttft === undefined || tpot === undefined) p('TTFT or TPOT p99 missing from the log');
      else if (!(ttft < limits.ttft && tpot < limits.tpot))
        p(
          `p99 TTFT ${ttft} ns and TPOT ${tpot} ns must be below ${limits.ttft} ns and ${limits.tpot} ns (${c.benchmark} ${scenario})`,
        );
    }
  }
  const fromTo = `${scenario.toLowerCase()}>${c.scenario.toLowerCase()}`;
  if (scenario.toLowerCase() !== c.scenario.toLowerCase() && fromTo !== 'server>interactive') {
    const edgeInference = ['singlestream>multistream', 'multistream>offline', 'singlestream>offline'];
    if (!(c.systemType ?? '').toLowerCase().includes('edge'))
      p(`a ${scenario} log cannot stand for the ${c.scenario} scenario of a ${c.systemType || 'datacenter'} system`);
    else if (!edgeInference.includes(fromTo)) p(`the ${c.scenario} result cannot be inferred from a ${scenario} log`);
  }
  if (c.scenario === 'Interactive' && scenario !== 'Server' && scenario !== 'Interactive')
    p(`an Interactive result needs a Server log, not ${scenario}`);
  return out;
}

/** Checks the accuracy folder as AccuracyCheck does (LoadGen format). */
export function checkAccuracyDir(dir: string, c: PerfContext): Problem[] {
  const out: Problem[] = [];
  const rel = (f: string) => `${c.rel}/${f}`;
  for (const f of ACCURACY_FILES)
    if (!existsSync(join(dir, f))) out.push({ file: rel(f), message: 'missing (a required accuracy file)' });
  const txtPath = join(dir, 'accuracy.txt');
  if (existsSync(txtPath)) out.push(...checkAccuracyTxt(readFileSync(txtPath, 'utf8'), c, rel('accuracy.txt')));
  const logPath = join(dir, 'mlperf_log_accuracy.json');
  if (existsSync(logPath) && statSync(logPath).size > MAX_ACCURACY_LOG_BYTES)
    out.push({
      file: rel('mlperf_log_accuracy.json'),
      message: `is not truncated (${statSync(logPath).size} bytes; at most ${MAX_ACCURACY_LOG_BYTES})`,
    });
  const detailPath = join(dir, 'mlperf_log_detail.txt');
  if (existsSync(detailPath)) {
    const log = readDetail(detailPath, rel('mlperf_log_detail.txt'), out);
    if (log) {
      if (log.errors.length > 0)
        out.push({ file: rel('mlperf_log_detail.txt'), message: `LoadGen logged ${log.errors.length} error(s)` });
      const expected = expectedAccuracySamples(c.benchmark, c.scenario);
      const count = log.has('effective_accuracy_sample_count')
        ? log.num('effective_accuracy_sample_count')
        : log.num('qsl_reported_total_count');
      if (expected !== undefined && count !== expected)
        out.push({
          file: rel('mlperf_log_detail.txt'),
          message: `the accuracy run covers ${count ?? '?'} samples; the dataset has ${expected}`,
        });
    }
  }
  return out;
}

/** The accuracy.txt rules: every target metric present and met, upper limits kept, a hash line. */
export function checkAccuracyTxt(text: string, c: PerfContext, rel: string): Problem[] {
  const out: Problem[] = [];
  const targets = accuracyTarget(c.benchmark);
  const hasHash = text.split('\n').some((l) => /^hash=\w+$/.test(l));
  if (!hasHash) out.push({ file: rel, message: 'no hash= line (the accuracy log was not truncated with its hash)' });
  if (!targets || c.division === 'open') return out;
  for (const t of targets.targets) {
    const v = metricValue(text, t.metric);
    const want = targetValue(t);
    if (v === undefined) out.push({ file: rel, message: `no ${t.metric} score` });
    else if (v < want) out.push({ file: rel, message: `${t.metric} ${v} is below the target ${want}` });
  }
  for (const u of targets.upperLimits) {
    const v = metricValue(text, u.metric);
    const limit = targetValue(u);
    if (v !== undefined && v > limit)
      out.push({ file: rel, message: `${u.metric} ${v} is above the upper limit ${limit}` });
  }
  return out;
}

/** The first `'metric': value` on a line of accuracy.txt (the checker's ACC_PATTERN form). */
function metricValue(text: string, metric: string): number | undefined {
  const re = new RegExp(`'${metric}':\\s+'?([\\d.]+)`);
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (m) return Number(m[1]);
  }
  return undefined;
}
