// Every value the official LoadGen accepts is accepted here with the same
// effect; where it corrects a value and logs error_invalid_test_settings, so
// does the engine, and the error is in the result. The official audit.config
// files of the compliance tests and the built-in mlperf.conf table are read
// without error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { builtinBenchmarks, loadSettings, type TestScenario } from '../../lib/index.js';
import { toEngineSettings } from '../../lib/core/settings.js';
import { parseSetOptions } from '../../lib/cli/set-option.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { runStatusOf } from '../../lib/results/run-status.js';
import {
  cleanupTempDirs,
  detailErrors,
  detailValue,
  inlineSut,
  makeTempDir,
  MLPERF_SEEDS,
  nullQsl,
  readAccuracy,
  readDetail,
  runTest,
} from '../helpers.js';

afterAll(cleanupTempDirs);

describe('values the official engine accepts', () => {
  it('accuracyLogProbability 1 logs every sample of a performance run', async () => {
    const sut = inlineSut();
    const { result } = await runTest(sut, nullQsl(32), {
      ...MLPERF_SEEDS,
      scenario: 'SingleStream',
      minDurationMs: 0,
      minQueryCount: 40,
      accuracyLogProbability: 1,
    });
    expect(result.errors.count).toBe(0);
    const logged = readAccuracy(result.logs.accuracy);
    expect(logged.length).toBe(sut.issued.length);
    expect(result.accuracyLogEntries).toBe(sut.issued.length);
  });

  it('accuracy_log_probability = 100 (percent) in an mlperf.conf, and from --set, reaches the engine as 1', async () => {
    const dir = makeTempDir();
    const conf = join(dir, 'mlperf.conf');
    writeFileSync(conf, '*.*.accuracy_log_probability = 100\n');
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Offline', mlperfConf: conf });
    expect(s.accuracyLogProbability).toBe(1);
    expect(toEngineSettings(s).accuracy_log_probability).toBe(1);
    const fromSet = parseSetOptions(['accuracy_log_probability=100'], 'Offline');
    expect(toEngineSettings(fromSet).accuracy_log_probability).toBe(1);
    const camel = parseSetOptions(['accuracyLogProbability=1'], 'Offline');
    expect(toEngineSettings(camel).accuracy_log_probability).toBe(1);
  });

  it('serverTargetQps -1: the engine logs error_invalid_test_settings and runs at 1 QPS', async () => {
    const sut = inlineSut();
    const { result } = await runTest(sut, nullQsl(16), {
      ...MLPERF_SEEDS,
      scenario: 'Server',
      serverTargetQps: -1,
      minDurationMs: 0,
      minQueryCount: 3,
    });
    expect(result.effective.targetQps).toBe(1);
    expect(
      result.errors.messages.some(
        (m) => m.startsWith('error_invalid_test_settings') && m.includes('server_target_qps'),
      ),
    ).toBe(true);
    const detail = readDetail(result.logs.detail);
    expect(detailErrors(detail).map((e) => e.key)).toContain('error_invalid_test_settings');
    // The run is not reported clean, and the status names the correction.
    const run = runStatusOf({ result, sut: null } as unknown as RunRecord);
    expect(run.status).toBe('ERRORS');
    expect(run.message).toContain('Invalid value for server_target_qps requested');
  });

  it('offlineExpectedQps 0: the single query has min_query_count samples', async () => {
    const sut = inlineSut();
    const { result } = await runTest(sut, nullQsl(16), {
      ...MLPERF_SEEDS,
      scenario: 'Offline',
      offlineExpectedQps: 0,
      minDurationMs: 0,
      minQueryCount: 37,
    });
    expect(result.errors.count).toBe(0);
    expect(result.effective.samplesPerQuery).toBe(37);
    expect(sut.issued.length).toBe(37);
  });

  it('offlineExpectedQps -5: corrected to 1 with the official error', async () => {
    const { result } = await runTest(inlineSut(), nullQsl(16), {
      ...MLPERF_SEEDS,
      scenario: 'Offline',
      offlineExpectedQps: -5,
      minDurationMs: 0,
      minQueryCount: 4,
    });
    expect(result.effective.targetQps).toBe(1);
    expect(result.errors.messages.some((m) => m.includes('offline_expected_qps'))).toBe(true);
  });

  it('performanceIssueUnique and performanceIssueSame together: the error is logged and unique wins', async () => {
    const sut = inlineSut();
    const { result } = await runTest(sut, nullQsl(16), {
      ...MLPERF_SEEDS,
      scenario: 'SingleStream',
      minDurationMs: 0,
      minQueryCount: 16,
      performanceIssueUnique: true,
      performanceIssueSame: true,
    });
    expect(result.errors.messages.some((m) => m.includes('Performance_issue_unique and performance_issue_same'))).toBe(
      true,
    );
    expect(new Set(sut.issued.map((s) => s.index)).size).toBe(16);
  });

  it("another scenario's out-of-range percentile is not read, so not refused", async () => {
    const { result } = await runTest(inlineSut(), nullQsl(16), {
      ...MLPERF_SEEDS,
      scenario: 'Offline',
      serverTargetLatencyPercentile: 1.5,
      minDurationMs: 0,
      minQueryCount: 4,
    });
    expect(result.errors.count).toBe(0);
  });

  it('an audit.config that sets performance_issue_same_index past the set ends the test with a message naming the key', async () => {
    const dir = makeTempDir();
    const audit = join(dir, 'audit.config');
    writeFileSync(audit, '*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 99\n');
    await expect(
      runTest(
        inlineSut(),
        nullQsl(16),
        { ...MLPERF_SEEDS, scenario: 'SingleStream', minDurationMs: 0, minQueryCount: 4 },
        {},
        { auditConfig: audit },
      ),
    ).rejects.toThrow(/performance_issue_same_index 99 is past the loaded performance set/);
  });
});

// The official compliance tests' audit.config files, restated (their keys and
// values): each is read without a config error and takes effect.
const AUDIT_CONFIGS: Record<string, string> = {
  TEST01: '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 4096\n',
  TEST04:
    ['MultiStream', 'Offline', 'SingleStream', 'Server']
      .map(
        (s) =>
          `*.${s}.mode = 2\n*.${s}.performance_issue_unique = 0\n*.${s}.performance_issue_same = 1\n*.${s}.performance_issue_same_index = 3\n`,
      )
      .join('') + 'stable-diffusion-xl.Offline.min_query_count = 500\n',
  TEST06:
    '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 100\n*.*.min_query_count = 100\n*.*.min_duration = 0\n*.*.sample_concatenate_permutation = 0\n',
  TEST07:
    '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 990\n*.*.min_query_count = 990\n*.*.min_duration = 0\n*.*.performance_issue_unique = 1\n*.*.sample_concatenate_permutation = 0\n*.*.test07_accuracy_threshold = 60.698\n',
  TEST09:
    '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 10000\n*.*.min_query_count = 6396\n*.*.min_duration = 0\n*.*.performance_issue_unique = 1\n*.*.sample_concatenate_permutation = 0\n*.*.test09_min_output_tokens = 1150.38\n*.*.test09_max_output_tokens = 1406.02\n',
};

describe('official audit.config files', () => {
  for (const [name, text] of Object.entries(AUDIT_CONFIGS)) {
    for (const scenario of ['Offline', 'Server'] as TestScenario[]) {
      it(`${name} (${scenario}) applies without a config error`, async () => {
        const dir = makeTempDir();
        const audit = join(dir, 'audit.config');
        writeFileSync(audit, text);
        const sut = inlineSut();
        const perf = 128;
        // An accuracy-mode request: every audit.config forces mode 2.
        const { result } = await runTest(
          sut,
          nullQsl(perf),
          {
            ...MLPERF_SEEDS,
            scenario,
            mode: 'AccuracyOnly',
            serverTargetQps: 100000,
            offlineExpectedQps: 10,
            minDurationMs: 0,
            minQueryCount: 8,
          },
          {},
          { auditConfig: audit },
        );
        expect(result.errors.messages.filter((m) => m.startsWith('error_invalid_config'))).toEqual([]);
        expect(result.errors.count).toBe(0);
        const detail = readDetail(result.logs.detail);
        expect(detailValue(detail, 'effective_test_mode')).toBe('PerformanceOnly');
        if (name === 'TEST04') {
          const loaded = detailValue(detail, 'loaded_qsl_set') as number[];
          for (const s of sut.issued) expect(s.index).toBe(loaded[3]);
        } else {
          // Read as text: the seed does not fit a double.
          expect(readFileSync(result.logs.detail, 'utf8')).toContain(
            '"key": "effective_accuracy_log_rng_seed", "value": 720381539243781796',
          );
          // Every audit except TEST01 sets min_duration 0 and its own count.
          if (name !== 'TEST01') expect(detailValue(detail, 'effective_min_duration_ms')).toBe(0);
          expect(result.accuracyLogEntries).toBeGreaterThan(0);
        }
      });
    }
  }
});

describe('the built-in mlperf.conf table', () => {
  it('every benchmark and scenario loads and is accepted by startTest validation', () => {
    const names = builtinBenchmarks();
    expect(names.length).toBeGreaterThan(10);
    for (const model of names) {
      for (const scenario of ['SingleStream', 'MultiStream', 'Server', 'Offline'] as TestScenario[]) {
        const s = loadSettings({ model, scenario });
        expect(() => toEngineSettings(s), `${model} ${scenario}`).not.toThrow();
      }
    }
  });
});
