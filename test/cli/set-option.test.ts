// --set: camelCase API names, official C++ field names and official
// mlperf.conf keys (in the conf units) give identical settings.
import { describe, expect, test } from 'vitest';

import { UsageError } from '../../lib/cli/errors.js';
import { confKeyNames, parseSetOptions, parseSettingsMap, splitAssignment } from '../../lib/cli/set-option.js';
import { defaultTestSettings, type TestScenario } from '../../lib/core/settings.js';

describe('both spellings give identical settings', () => {
  // [scenario, API spelling, mlperf.conf spelling]
  const pairs: Array<[TestScenario, string, string]> = [
    ['Server', 'minDurationMs=5000', 'min_duration=5000'],
    ['Server', 'maxDurationMs=9000', 'max_duration=9000'],
    ['Server', 'minQueryCount=64', 'min_query_count=64'],
    ['Server', 'maxQueryCount=640', 'max_query_count=640'],
    ['Server', 'serverTargetQps=12.5', 'target_qps=12.5'],
    ['Offline', 'offlineExpectedQps=300', 'target_qps=300'],
    ['Server', 'serverTargetLatencyNs=250000000', 'target_latency=250'],
    ['SingleStream', 'singleStreamExpectedLatencyNs=1500000', 'target_latency=1.5'],
    ['MultiStream', 'multiStreamExpectedLatencyNs=80000000', 'target_latency=80'],
    ['Server', 'serverTargetLatencyPercentile=0.99', 'target_latency_percentile=99'],
    ['SingleStream', 'singleStreamTargetLatencyPercentile=0.9', 'target_latency_percentile=90'],
    ['MultiStream', 'multiStreamTargetLatencyPercentile=0.99', 'target_latency_percentile=99'],
    ['MultiStream', 'multiStreamSamplesPerQuery=4', 'samples_per_query=4'],
    ['Server', 'ttftLatencyNs=2000000000', 'ttft_latency=2000'],
    ['Server', 'tpotLatencyNs=100000000', 'tpot_latency=100'],
    ['Server', 'useTokenLatencies=true', 'use_token_latencies=1'],
    ['Server', 'inferTokenLatencies=false', 'infer_token_latencies=0'],
    ['Server', 'tokenLatencyScalingFactor=3', 'token_latency_scaling_factor=3'],
    ['Server', 'serverCoalesceQueries=true', 'coalesce_queries=1'],
    ['Server', 'serverMaxAsyncQueries=8', 'max_async_queries=8'],
    ['Server', 'performanceIssueUnique=true', 'performance_issue_unique=1'],
    ['Server', 'performanceIssueSame=true', 'performance_issue_same=1'],
    ['Server', 'performanceIssueSameIndex=3', 'performance_issue_same_index=3'],
    ['Server', 'sampleConcatenatePermutation=true', 'sample_concatenate_permutation=1'],
    ['Server', 'performanceSampleCountOverride=100', 'performance_sample_count_override=100'],
    ['Server', 'accuracySampleCountOverride=50', 'accuracy_sample_count_override=50'],
    ['Server', 'printTimestamps=true', 'print_timestamps=1'],
    ['Server', 'accuracyLogRngSeed=42', 'accuracy_log_rng_seed=42'],
    ['Server', 'accuracyLogSamplingTarget=10', 'accuracy_log_sampling_target=10'],
    ['Server', 'accuracyLogProbability=0.1', 'accuracy_log_probability=10'],
    ['Server', 'qslRngSeed=18446744073709551615', 'qsl_rng_seed=18446744073709551615'],
    ['Server', 'sampleIndexRngSeed=7', 'sample_index_rng_seed=7'],
    ['Server', 'scheduleRngSeed=8', 'schedule_rng_seed=8'],
    ['Server', 'test05=true', 'test05=1'],
    ['Server', 'test05QslRngSeed=1', 'test05_qsl_rng_seed=1'],
    ['Server', 'test05SampleIndexRngSeed=2', 'test05_sample_index_rng_seed=2'],
    ['Server', 'test05ScheduleRngSeed=3', 'test05_schedule_rng_seed=3'],
  ];
  test.each(pairs)('%s: --set %s == --set %s', (scenario, api, conf) => {
    const a = parseSetOptions([api], scenario);
    const b = parseSetOptions([conf], scenario);
    expect(Object.keys(a)).toHaveLength(1);
    expect(b).toEqual(a);
  });

  test('every mlperf.conf key FromConfig reads is covered (mode has --mode)', () => {
    const covered = new Set(pairs.map(([, , conf]) => conf.split('=')[0]));
    expect(confKeyNames().filter((k) => !covered.has(k))).toEqual(['mode']);
  });

  test('official C++ field names keep the API units', () => {
    expect(parseSetOptions(['min_duration_ms=5000'], 'Server')).toEqual({ minDurationMs: 5000 });
    expect(parseSetOptions(['server_ttft_latency=2000000000'], 'Server')).toEqual({ ttftLatencyNs: 2e9 });
    expect(parseSetOptions(['server_target_qps=3.5'], 'Server')).toEqual({ serverTargetQps: 3.5 });
  });

  test('later assignments win; values may hold "="', () => {
    expect(parseSetOptions(['minDurationMs=1000', 'min_duration=2000'], 'Server')).toEqual({ minDurationMs: 2000 });
    expect(splitAssignment('a=b=c')).toEqual(['a', 'b=c']);
  });

  test('booleans: true/false, 1/0, yes/no', () => {
    for (const [v, want] of [
      ['true', true],
      ['1', true],
      ['yes', true],
      ['false', false],
      ['0', false],
      ['no', false],
    ] as const) {
      expect(parseSetOptions([`useTokenLatencies=${v}`], 'Server')).toEqual({ useTokenLatencies: want });
    }
  });

  test('config-file settings maps take typed values and both spellings', () => {
    expect(parseSettingsMap({ min_duration: 5000, useTokenLatencies: true, ttft_latency: 500 }, 'Server')).toEqual({
      minDurationMs: 5000,
      useTokenLatencies: true,
      ttftLatencyNs: 500_000_000,
    });
  });

  test('every field of TestSettings can be set by its API name', () => {
    for (const key of Object.keys(defaultTestSettings())) {
      if (key === 'scenario' || key === 'mode') continue;
      const d = (defaultTestSettings() as unknown as Record<string, unknown>)[key];
      const value =
        typeof d === 'boolean'
          ? 'true'
          : typeof d === 'bigint'
            ? '5'
            : key.endsWith('Percentile') || key === 'accuracyLogProbability'
              ? '0.5'
              : '2';
      expect(Object.keys(parseSetOptions([`${key}=${value}`], 'Server'))).toEqual([key]);
    }
  });
});

describe('bad --set input', () => {
  const cases: Array<[string, TestScenario, RegExp]> = [
    ['nonsense=1', 'Server', /unknown setting 'nonsense'/],
    ['min_durationn=1', 'Server', /unknown setting 'min_durationn'.*did you mean 'min_duration'/],
    ['min_duration', 'Server', /expected key=value/],
    ['=5', 'Server', /expected key=value/],
    ['min_duration=', 'Server', /no value/],
    ['min_duration=abc', 'Server', /expected a number/],
    ['min_duration=-5', 'Server', /non-negative integer/],
    ['min_duration=1.5', 'Server', /non-negative integer/],
    ['use_token_latencies=maybe', 'Server', /expected true\/false/],
    ['qsl_rng_seed=-1', 'Server', /64-bit/],
    ['qsl_rng_seed=18446744073709551616', 'Server', /64-bit/],
    ['target_qps=5', 'SingleStream', /applies to Server, Offline/],
    ['scenario=Offline', 'Server', /use --scenario/],
    ['mode=1', 'Server', /use --mode/],
    ['mode=PerformanceOnly', 'Server', /use --mode/],
  ];
  test.each(cases)('--set %s (%s)', (assignment, scenario, message) => {
    let err: unknown;
    try {
      parseSetOptions([assignment], scenario);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });

  test('a map value that is a list is refused', () => {
    expect(() => parseSettingsMap({ min_duration: [1] }, 'Server')).toThrow(/expected a number, boolean or string/);
  });
});
