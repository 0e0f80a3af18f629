// Before a long performance run meant for MLPerf: the settings that would
// make the submission checker v6.1 reject its logs, known before the first
// query (the checker reads them from the log's effective_* values, which the
// run's settings decide). What only the run can tell (latencies, early
// stopping) is not judged here.
import { nonMlperfIssuePolicy, type TestSettings } from '../core/settings.js';
import {
  CHECKER_BENCHMARKS,
  CHECKER_MIN_DURATION_MS,
  CHECKER_SEEDS,
  checkerBenchmark,
  usesEarlyStopping,
} from './rules.js';

export interface PreflightFinding {
  /** The setting (camelCase API name). */
  setting: string;
  message: string;
}

/** The findings for a run of `model` (our benchmark key) with `settings`. */
export function preflightMlperf(
  model: string,
  settings: TestSettings,
  o: { division?: 'closed' | 'open' } = {},
): PreflightFinding[] {
  const out: PreflightFinding[] = [];
  const scenario = settings.scenario;
  const { benchmark, scenario: folder } = checkerBenchmark(model, scenario);
  const rules = CHECKER_BENCHMARKS[benchmark];
  const division = o.division ?? 'closed';
  // Our issue policies beyond MLPerf's: the checker would see a Server run, but its schedule is not MLPerf's.
  const policy = nonMlperfIssuePolicy(settings);
  if (policy)
    out.push({
      setting: 'closedLoopConcurrency',
      message: `the issue policy is ${policy}: not an MLPerf scenario, its results cannot be submitted`,
    });
  if (settings.minDurationMs < CHECKER_MIN_DURATION_MS)
    out.push({
      setting: 'minDurationMs',
      message: `min_duration is ${settings.minDurationMs} ms; the checker needs >= ${CHECKER_MIN_DURATION_MS} ms (600 s)`,
    });
  for (const [field, want, name] of [
    ['qslRngSeed', CHECKER_SEEDS.qslRngSeed, 'qsl_rng_seed'],
    ['sampleIndexRngSeed', CHECKER_SEEDS.sampleIndexRngSeed, 'sample_index_rng_seed'],
    ['scheduleRngSeed', CHECKER_SEEDS.scheduleRngSeed, 'schedule_rng_seed'],
  ] as const) {
    if (String(settings[field]) !== String(want))
      out.push({
        setting: field,
        message: `${name} is ${String(settings[field])}; the checker expects ${String(want)}`,
      });
  }
  if (!rules) return out;
  const override = settings.performanceSampleCountOverride;
  // LoadGen logs the override as the effective count even when the dataset is smaller (the checker reads that).
  const psc = override > 0 ? override : rules.performanceSampleCount;
  if (psc < rules.performanceSampleCount)
    out.push({
      setting: 'performanceSampleCountOverride',
      message: `performance_sample_count would be ${psc}; the checker needs >= ${rules.performanceSampleCount} for ${benchmark}`,
    });
  if (!usesEarlyStopping(scenario)) {
    // (Offline's effective min_query_count is always 1, which meets the checker's minimum of 1.)
    // LoadGen's Offline query holds max(min_query_count, 1.1 x min_duration x expected QPS) samples.
    const spq = Math.max(
      settings.minQueryCount,
      Math.trunc(1.1 * (settings.minDurationMs / 1000) * settings.offlineExpectedQps),
    );
    if (scenario === 'Offline' && division === 'closed' && spq < rules.offlineMinSamplesPerQuery)
      out.push({
        setting: 'minQueryCount',
        message: `Offline samples per query would be ${spq}; the closed division needs >= ${rules.offlineMinSamplesPerQuery}`,
      });
  }
  if (rules.llm) {
    if (!settings.useTokenLatencies)
      out.push({
        setting: 'useTokenLatencies',
        message: 'use_token_latencies is off; the checker requires it for LLM benchmarks',
      });
    const limits = scenario === 'Server' ? rules.tokenLimitsNs.Server : undefined;
    if (limits && settings.useTokenLatencies) {
      // Early stopping judges TTFT/TPOT against these bounds; looser ones could pass a run the checker fails.
      if (settings.ttftLatencyNs > limits.ttft)
        out.push({
          setting: 'ttftLatencyNs',
          message: `ttft_latency is ${settings.ttftLatencyNs / 1e6} ms; the checker fails a ${folder} p99 TTFT of ${limits.ttft / 1e6} ms or more`,
        });
      if (settings.tpotLatencyNs > limits.tpot)
        out.push({
          setting: 'tpotLatencyNs',
          message: `tpot_latency is ${settings.tpotLatencyNs / 1e6} ms; the checker fails a ${folder} p99 TPOT of ${limits.tpot / 1e6} ms or more`,
        });
    }
  }
  const target = rules.latencyConstraintNs[scenario as 'Server'];
  if (scenario === 'Server' && target && settings.serverTargetLatencyNs > target)
    out.push({
      setting: 'serverTargetLatencyNs',
      message: `target_latency is ${settings.serverTargetLatencyNs / 1e6} ms; the checker allows at most ${target / 1e6} ms`,
    });
  return out;
}
