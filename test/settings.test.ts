// TestSettings: official defaults, round trips (TS and through the engine),
// validation before anything starts, seeds, mlperf.conf/user.conf via
// loadSettings, and audit.config (TEST04- and TEST01-style).
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  ConfigError,
  defaultLogSettings,
  defaultTestSettings,
  loadSettings,
  SettingsError,
  startTest,
  type TestSettings,
} from '../lib/index.js';
import { fromEngineSettings, toEngineSettings } from '../lib/core/settings.js';
import {
  cleanupTempDirs,
  detailValue,
  detailWarnings,
  inlineSut,
  makeTempDir,
  MLPERF_SEEDS,
  nullQsl,
  readAccuracy,
  readDetail,
  readSummary,
  runTest,
  settingsFromRequested,
  tokenSut,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

// The official TestSettings / LogSettings defaults (loadgen/test_settings.h, 6.0.17).
const OFFICIAL_DEFAULTS: TestSettings = {
  scenario: 'SingleStream',
  mode: 'PerformanceOnly',
  singleStreamExpectedLatencyNs: 1000000,
  singleStreamTargetLatencyPercentile: 0.9,
  multiStreamExpectedLatencyNs: 8000000,
  multiStreamTargetLatencyPercentile: 0.99,
  multiStreamSamplesPerQuery: 8,
  serverTargetQps: 1,
  serverTargetLatencyNs: 100000000,
  serverTargetLatencyPercentile: 0.99,
  serverCoalesceQueries: false,
  serverFindPeakQpsDecimalsOfPrecision: 1,
  serverFindPeakQpsBoundaryStepSize: 1,
  serverMaxAsyncQueries: 0,
  serverNumIssueQueryThreads: 0,
  offlineExpectedQps: 1,
  sampleConcatenatePermutation: false,
  minDurationMs: 10000,
  maxDurationMs: 0,
  minQueryCount: 100,
  maxQueryCount: 0,
  qslRngSeed: 0n,
  sampleIndexRngSeed: 0n,
  scheduleRngSeed: 0n,
  accuracyLogRngSeed: 0n,
  accuracyLogProbability: 0,
  accuracyLogSamplingTarget: 0,
  test05: false,
  test05QslRngSeed: 0n,
  test05SampleIndexRngSeed: 0n,
  test05ScheduleRngSeed: 0n,
  printTimestamps: false,
  performanceIssueUnique: false,
  performanceIssueSame: false,
  performanceIssueSameIndex: 0,
  performanceSampleCountOverride: 0,
  accuracySampleCountOverride: 0,
  useTokenLatencies: false,
  ttftLatencyNs: 100000000,
  tpotLatencyNs: 100000000,
  inferTokenLatencies: false,
  tokenLatencyScalingFactor: 0,
  // Ours (not in the official struct): the issue policies beyond MLPerf's, off.
  closedLoopConcurrency: 0,
  serverBurstiness: 1,
  rampStartQps: 0,
  rampDurationMs: 0,
  rampExponential: false,
};

describe('defaults', () => {
  it('defaultTestSettings() equals the official struct', () => {
    expect(defaultTestSettings()).toEqual(OFFICIAL_DEFAULTS);
  });

  it('defaultLogSettings() equals the official LogSettings', () => {
    expect(defaultLogSettings()).toEqual({
      outdir: '.',
      prefix: 'mlperf_log_',
      suffix: '',
      prefixWithDatetime: false,
      copySummaryToStdout: false,
      copyDetailToStdout: false,
      enableTrace: true,
      logMode: 'AsyncPoll',
    });
  });

  it('fields left out reach the engine with the official defaults (requested_* lines)', async () => {
    // Only what keeps the run short is set; everything else is the default.
    const { result } = await runTest(inlineSut(), nullQsl(64), { minDurationMs: 0, minQueryCount: 10 });
    const requested = settingsFromRequested(readDetail(result.logs.detail));
    const expected: Partial<TestSettings> = { ...OFFICIAL_DEFAULTS, minDurationMs: 0, minQueryCount: 10 };
    for (const [k, v] of Object.entries(requested)) {
      expect(v, k).toEqual(expected[k as keyof TestSettings]);
    }
    // SingleStream, no tokens: the scenario's own fields and the common ones.
    expect(Object.keys(requested)).toContain('singleStreamExpectedLatencyNs');
    expect(Object.keys(requested)).toContain('sampleConcatenatePermutation');
    expect(Object.keys(requested).length).toBe(21);
  });
});

// Non-default values for every field (valid together where a run uses them).
const NON_DEFAULT: TestSettings = {
  scenario: 'Server',
  mode: 'AccuracyOnly',
  singleStreamExpectedLatencyNs: 2500000,
  singleStreamTargetLatencyPercentile: 0.95,
  multiStreamExpectedLatencyNs: 9000000,
  multiStreamTargetLatencyPercentile: 0.9,
  multiStreamSamplesPerQuery: 4,
  serverTargetQps: 1234.5,
  serverTargetLatencyNs: 50000000,
  serverTargetLatencyPercentile: 0.9,
  serverCoalesceQueries: true,
  serverFindPeakQpsDecimalsOfPrecision: 2,
  serverFindPeakQpsBoundaryStepSize: 0.5,
  serverMaxAsyncQueries: 1000,
  serverNumIssueQueryThreads: 2,
  offlineExpectedQps: 321,
  sampleConcatenatePermutation: true,
  minDurationMs: 0,
  maxDurationMs: 5000,
  minQueryCount: 10,
  maxQueryCount: 100000,
  qslRngSeed: 11n,
  sampleIndexRngSeed: 22n,
  scheduleRngSeed: 33n,
  accuracyLogRngSeed: 44n,
  accuracyLogProbability: 0.25,
  accuracyLogSamplingTarget: 5,
  test05: true,
  test05QslRngSeed: 55n,
  test05SampleIndexRngSeed: 66n,
  test05ScheduleRngSeed: 77n,
  printTimestamps: true,
  performanceIssueUnique: true,
  performanceIssueSame: false,
  performanceIssueSameIndex: 3,
  performanceSampleCountOverride: 32,
  accuracySampleCountOverride: 48,
  useTokenLatencies: true,
  ttftLatencyNs: 123000000,
  tpotLatencyNs: 45000000,
  inferTokenLatencies: true,
  tokenLatencyScalingFactor: 7,
  // A closed loop excludes an arrival pattern; the pattern's fields are set.
  closedLoopConcurrency: 0,
  serverBurstiness: 0.5,
  rampStartQps: 10,
  rampDurationMs: 1000,
  rampExponential: true,
};

// Fields whose non-default value excludes another's: round-tripped alone.
const ALONE: Partial<TestSettings> = { performanceIssueSame: true, closedLoopConcurrency: 8 };

describe('round trips', () => {
  it('covers every field of the official struct', () => {
    expect(Object.keys(NON_DEFAULT).sort()).toEqual(Object.keys(OFFICIAL_DEFAULTS).sort());
    // performanceIssueSame cannot be true together with performanceIssueUnique,
    // nor a closed loop with an arrival pattern; their own round trips below set them.
    for (const k of Object.keys(NON_DEFAULT) as (keyof TestSettings)[]) {
      if (!(k in ALONE)) expect(NON_DEFAULT[k], k).not.toEqual(OFFICIAL_DEFAULTS[k]);
    }
  });

  it.each(Object.keys(NON_DEFAULT) as (keyof TestSettings)[])('%s: camelCase -> engine -> camelCase', (field) => {
    const value = field in ALONE ? ALONE[field] : NON_DEFAULT[field];
    const back = fromEngineSettings(toEngineSettings({ [field]: value } as Partial<TestSettings>));
    expect(back[field]).toEqual(value);
    // Every other field keeps its default.
    for (const k of Object.keys(OFFICIAL_DEFAULTS) as (keyof TestSettings)[]) {
      if (k !== field) expect(back[k], k).toEqual(OFFICIAL_DEFAULTS[k]);
    }
  });

  it('all non-default values at once', () => {
    expect(fromEngineSettings(toEngineSettings(NON_DEFAULT))).toEqual(NON_DEFAULT);
  });

  it('official snake_case names are accepted as aliases', () => {
    const back = fromEngineSettings(
      toEngineSettings({ min_duration_ms: 1234, server_target_qps: 7.5 } as Record<string, unknown>),
    );
    expect(back.minDurationMs).toBe(1234);
    expect(back.serverTargetQps).toBe(7.5);
  });

  // Through the engine: every requested_* line of a short run shows the value given.
  const scenarioFields: Record<string, (keyof TestSettings)[]> = {
    SingleStream: ['singleStreamExpectedLatencyNs', 'singleStreamTargetLatencyPercentile'],
    MultiStream: ['multiStreamExpectedLatencyNs', 'multiStreamTargetLatencyPercentile', 'multiStreamSamplesPerQuery'],
    Server: [
      'serverTargetQps',
      'serverTargetLatencyNs',
      'serverTargetLatencyPercentile',
      'serverCoalesceQueries',
      'serverFindPeakQpsDecimalsOfPrecision',
      'serverFindPeakQpsBoundaryStepSize',
      'serverMaxAsyncQueries',
      'serverNumIssueQueryThreads',
      'ttftLatencyNs',
      'tpotLatencyNs',
    ],
    Offline: ['offlineExpectedQps'],
  };
  const COMMON: (keyof TestSettings)[] = [
    'minDurationMs',
    'maxDurationMs',
    'minQueryCount',
    'maxQueryCount',
    'qslRngSeed',
    'sampleIndexRngSeed',
    'scheduleRngSeed',
    'accuracyLogRngSeed',
    'accuracyLogProbability',
    'accuracyLogSamplingTarget',
    'printTimestamps',
    'performanceIssueUnique',
    'performanceIssueSame',
    'performanceIssueSameIndex',
    'performanceSampleCountOverride',
    'accuracySampleCountOverride',
    'sampleConcatenatePermutation',
    'useTokenLatencies',
  ];

  it.each(Object.keys(scenarioFields))('%s: the engine logs every requested value as given', async (scenario) => {
    const settings: Partial<TestSettings> = { scenario: scenario as TestSettings['scenario'], mode: 'PerformanceOnly' };
    for (const k of [...COMMON, ...scenarioFields[scenario]]) (settings as Record<string, unknown>)[k] = NON_DEFAULT[k];
    settings.printTimestamps = false; // keep stdout quiet; its round trip is covered above
    // MultiStream: unique issue with equal-issue sampling asks for more unique
    // queries than the (padded) set holds, which the official engine cannot
    // do either (its unique source throws out_of_range); keep them apart.
    if (scenario === 'MultiStream') settings.performanceIssueUnique = false;
    const { result } = await runTest(tokenSut({ nTokens: 10 }), nullQsl(64, 64), settings);
    const requested = settingsFromRequested(readDetail(result.logs.detail));
    for (const [k, v] of Object.entries(settings)) {
      expect(requested[k as keyof TestSettings], k).toEqual(v);
    }
    // And nothing the engine logged was set to something else.
    const full = { ...OFFICIAL_DEFAULTS, ...settings } as Record<string, unknown>;
    for (const [k, v] of Object.entries(requested)) expect(v, k).toEqual(full[k]);
  });
});

describe('validation: SettingsError naming the field, thrown before anything starts', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['bad scenario', { scenario: 'Batch' }, 'scenario'],
    ['bad mode', { mode: 'Fast' }, 'mode'],
    ['negative duration', { minDurationMs: -1 }, 'minDurationMs'],
    ['fractional count', { minQueryCount: 1.5 }, 'minQueryCount'],
    ['zero target QPS in Server', { scenario: 'Server', serverTargetQps: 0 }, 'serverTargetQps'],
    ['NaN QPS', { offlineExpectedQps: Number.NaN }, 'offlineExpectedQps'],
    [
      'percentile 1 in Server',
      { scenario: 'Server', serverTargetLatencyPercentile: 1 },
      'serverTargetLatencyPercentile',
    ],
    ['zero expected latency in SingleStream', { singleStreamExpectedLatencyNs: 0 }, 'singleStreamExpectedLatencyNs'],
    [
      'same index past the performance set',
      { performanceIssueSame: true, performanceIssueSameIndex: 16 },
      'performanceIssueSameIndex',
    ],
    [
      'percentile 99 (not a fraction)',
      { singleStreamTargetLatencyPercentile: 99 },
      'singleStreamTargetLatencyPercentile',
    ],
    [
      'zero samples per query in MultiStream',
      { scenario: 'MultiStream', multiStreamSamplesPerQuery: 0 },
      'multiStreamSamplesPerQuery',
    ],
    ['string bool', { serverCoalesceQueries: 'yes' }, 'serverCoalesceQueries'],
    ['precision 16', { serverFindPeakQpsDecimalsOfPrecision: 16 }, 'serverFindPeakQpsDecimalsOfPrecision'],
    ['negative seed', { qslRngSeed: -1n }, 'qslRngSeed'],
    ['seed over 64 bits', { sampleIndexRngSeed: 1n << 64n }, 'sampleIndexRngSeed'],
    ['non-decimal seed string', { scheduleRngSeed: '12abc' }, 'scheduleRngSeed'],
    ['unsafe number seed', { accuracyLogRngSeed: 2 ** 60 }, 'accuracyLogRngSeed'],
    ['unknown key', { scenario: 'Offline', minDurationMS: 0 }, 'minDurationMS'],
    ['another unknown key', { foo: 1 }, 'foo'],
  ];

  it.each(cases)('%s', (_label, bad, field) => {
    const outdir = join(makeTempDir(), 'logs');
    const sut = inlineSut();
    const qsl = nullQsl(16);
    let thrown: unknown;
    try {
      // Synchronous: startTest must throw before returning a promise.
      void startTest(
        sut,
        qsl,
        { minDurationMs: 0, minQueryCount: 1, ...bad } as Partial<TestSettings>,
        { outdir },
        { auditConfig: null },
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SettingsError);
    const err = thrown as SettingsError;
    expect(err.field).toBe(field);
    expect(err.message).toContain(field);
    // Nothing started: no log directory, no QSL or SUT calls.
    expect(existsSync(outdir)).toBe(false);
    expect(qsl.loads).toEqual([]);
    expect(sut.issued).toEqual([]);
  });

  it.each([
    [{ outdir: '' }, 'outdir'],
    [{ logMode: 'Sometimes' }, 'logMode'],
    [{ enableTrace: 'yes' }, 'enableTrace'],
    [{ colour: true }, 'colour'],
  ] as Array<[Record<string, unknown>, string]>)('log settings %o -> SettingsError(%s)', (bad, field) => {
    const dir = makeTempDir();
    let thrown: unknown;
    try {
      void startTest(inlineSut(), nullQsl(16), { minDurationMs: 0 }, { outdir: dir, ...bad }, { auditConfig: null });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SettingsError);
    expect((thrown as SettingsError).field).toBe(field);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    [{ totalSampleCount: 0 }, 'qsl.totalSampleCount'],
    [{ performanceSampleCount: 2.5 }, 'qsl.performanceSampleCount'],
    [{ loadSamplesToRam: undefined }, 'qsl.loadSamplesToRam'],
  ] as Array<[Record<string, unknown>, string]>)('QSL %o -> SettingsError(%s)', (bad, field) => {
    const dir = makeTempDir();
    const qsl = { ...nullQsl(16), ...bad };
    expect(() =>
      startTest(inlineSut(), qsl as never, { minDurationMs: 0 }, { outdir: dir }, { auditConfig: null }),
    ).toThrow(expect.objectContaining({ name: 'SettingsError', field }));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a SUT without issueQuery -> SettingsError(sut.issueQuery)', () => {
    const dir = makeTempDir();
    expect(() =>
      startTest(
        { name: 'x', flushQueries() {} } as never,
        nullQsl(16),
        { minDurationMs: 0 },
        { outdir: dir },
        { auditConfig: null },
      ),
    ).toThrow(expect.objectContaining({ name: 'SettingsError', field: 'sut.issueQuery' }));
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('seeds', () => {
  const SEED = '2085463073848966840';

  it('bigint and decimal-string seeds reach the engine exactly (64-bit values too)', async () => {
    const asBigint = await runTest(inlineSut(), nullQsl(32), {
      scenario: 'Offline',
      minDurationMs: 0,
      minQueryCount: 32,
      qslRngSeed: BigInt(SEED),
      sampleIndexRngSeed: 18446744073709551615n,
      scheduleRngSeed: 9007199254740993n, // 2^53 + 1: not representable as a number
    });
    const asString = await runTest(inlineSut(), nullQsl(32), {
      scenario: 'Offline',
      minDurationMs: 0,
      minQueryCount: 32,
      qslRngSeed: SEED,
      sampleIndexRngSeed: '18446744073709551615',
      scheduleRngSeed: '9007199254740993',
    });
    for (const { result } of [asBigint, asString]) {
      const d = readDetail(result.logs.detail);
      expect(d.find((e) => e.key === 'requested_qsl_rng_seed')!.valueText).toBe(SEED);
      expect(d.find((e) => e.key === 'effective_sample_index_rng_seed')!.valueText).toBe('18446744073709551615');
      expect(d.find((e) => e.key === 'effective_schedule_rng_seed')!.valueText).toBe('9007199254740993');
      expect(readSummary(result.logs.summary)).toContain('sample_index_rng_seed : 18446744073709551615');
    }
    // Same seeds, same loaded set.
    expect(detailValue(readDetail(asBigint.result.logs.detail), 'loaded_qsl_set')).toEqual(
      detailValue(readDetail(asString.result.logs.detail), 'loaded_qsl_set'),
    );
  });

  it('a small seed given as a number is accepted, and read back as bigint', () => {
    expect(fromEngineSettings(toEngineSettings({ qslRngSeed: 42 })).qslRngSeed).toBe(42n);
    expect(fromEngineSettings(toEngineSettings({ qslRngSeed: ' 42 ' })).qslRngSeed).toBe(42n);
  });
});

describe('loadSettings (mlperf.conf, user.conf)', () => {
  it('llama3_1-8b Server: the official mlperf.conf values', () => {
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Server' });
    expect(s.scenario).toBe('Server');
    expect(s.useTokenLatencies).toBe(true);
    expect(s.ttftLatencyNs).toBe(2000000000);
    expect(s.tpotLatencyNs).toBe(100000000);
    expect(s.minDurationMs).toBe(600000);
    expect(s.sampleConcatenatePermutation).toBe(true);
    expect(s.performanceSampleCountOverride).toBe(13368);
    expect(s.qslRngSeed).toBe(MLPERF_SEEDS.qslRngSeed);
    expect(s.sampleIndexRngSeed).toBe(MLPERF_SEEDS.sampleIndexRngSeed);
    expect(s.scheduleRngSeed).toBe(MLPERF_SEEDS.scheduleRngSeed);
    // And the result is valid input for startTest.
    expect(() => toEngineSettings(s)).not.toThrow();
  });

  it('user.conf takes precedence; a seed in user.conf is ignored', () => {
    const dir = makeTempDir();
    const userConf = join(dir, 'user.conf');
    writeFileSync(
      userConf,
      [
        '# a comment line',
        '*.Server.target_qps = 99',
        'llama3_1-8b.Server.target_qps = 12.5',
        '*.Server.min_duration = 5000',
        '*.*.qsl_rng_seed = 1',
        '*.*.ttft_latency = 3000',
        '',
      ].join('\n'),
    );
    const s = loadSettings({ model: 'llama3_1-8b', scenario: 'Server', userConf });
    expect(s.serverTargetQps).toBe(12.5); // the model-specific entry beats *.Server
    expect(s.minDurationMs).toBe(5000); // user.conf beats mlperf.conf's *.Server.min_duration
    expect(s.ttftLatencyNs).toBe(3000000000); // even a *.* entry beats mlperf.conf's model entry
    expect(s.qslRngSeed).toBe(MLPERF_SEEDS.qslRngSeed); // seeds only come from mlperf.conf
    expect(s.tpotLatencyNs).toBe(100000000); // untouched
  });

  it('a malformed user.conf gives ConfigError naming the file and the line', () => {
    const dir = makeTempDir();
    const userConf = join(dir, 'user.conf');
    writeFileSync(userConf, ['*.Server.min_duration = 5000', '', '*.Server.target_qps = fast', ''].join('\n'));
    let thrown: unknown;
    try {
      loadSettings({ model: 'llama3_1-8b', scenario: 'Server', userConf });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const err = thrown as ConfigError;
    expect(err.problems.length).toBeGreaterThanOrEqual(1);
    expect(err.problems[0]).toContain(`${userConf}:3`);
    expect(err.message).toContain(`${userConf}:3`);
  });

  it('a line that is not "key = value" gives ConfigError with its line', () => {
    const dir = makeTempDir();
    const userConf = join(dir, 'user.conf');
    writeFileSync(userConf, ['*.Server.min_duration 5000', ''].join('\n'));
    expect(() => loadSettings({ model: 'llama3_1-8b', scenario: 'Server', userConf })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining(`${userConf}:1`) }),
    );
  });

  it('a missing user.conf gives ConfigError naming the file', () => {
    const userConf = join(makeTempDir(), 'nope.conf');
    expect(() => loadSettings({ model: 'llama3_1-8b', scenario: 'Server', userConf })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining(userConf) }),
    );
  });

  it('bad arguments give SettingsError', () => {
    expect(() => loadSettings({ model: '', scenario: 'Server' })).toThrow(SettingsError);
    expect(() => loadSettings({ model: 'llama3_1-8b', scenario: 'Batch' as never })).toThrow(SettingsError);
  });
});

describe('audit.config', () => {
  const AUDIT_WARNING = 'Found Audit Config file (audit.config). Overriding TestSettings from audit.config file.';

  it('TEST04-style: every sample is loaded_qsl_set[3], and the official warning is logged', async () => {
    const dir = makeTempDir();
    const audit = join(dir, 'audit.config');
    writeFileSync(audit, '*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 3\n');
    for (const scenario of ['SingleStream', 'Offline'] as const) {
      const sut = inlineSut();
      const qsl = nullQsl(64, 64);
      const { result } = await runTest(
        sut,
        qsl,
        { ...MLPERF_SEEDS, scenario, minDurationMs: 0, minQueryCount: 50, offlineExpectedQps: 10 },
        {},
        { auditConfig: audit },
      );
      const detail = readDetail(result.logs.detail);
      const loaded = detailValue(detail, 'loaded_qsl_set') as number[];
      expect(loaded).toEqual(qsl.loads[0]);
      expect(sut.issued.length).toBeGreaterThanOrEqual(50);
      for (const s of sut.issued) expect(s.index).toBe(loaded[3]);
      expect(detailWarnings(detail).map((e) => [e.key, e.value])).toContainEqual([
        'warning_generic_message',
        AUDIT_WARNING,
      ]);
      expect(detailValue(detail, 'effective_performance_issue_same')).toBe(true);
      expect(detailValue(detail, 'effective_performance_issue_same_index')).toBe(3);
      // requested_* shows what the caller asked for; the audit is an override.
      expect(result.errors.warnings).toBeGreaterThanOrEqual(1);
      expect(result.errors.count).toBe(0);
    }
  });

  it('no audit.config: no warning, normal sampling', async () => {
    const dir = makeTempDir();
    const sut = inlineSut();
    const { result } = await runTest(
      sut,
      nullQsl(64, 64),
      { ...MLPERF_SEEDS, scenario: 'SingleStream', minDurationMs: 0, minQueryCount: 50 },
      {},
      { auditConfig: join(dir, 'audit.config') }, // does not exist
    );
    const detail = readDetail(result.logs.detail);
    expect(detailWarnings(detail)).toEqual([]);
    expect(new Set(sut.issued.map((s) => s.index)).size).toBeGreaterThan(1);
  });

  it('TEST01-style: a performance run logs some, not all, samples to the accuracy log', async () => {
    const dir = makeTempDir();
    const audit = join(dir, 'audit.config');
    writeFileSync(
      audit,
      '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 64\n',
    );
    const sut = inlineSut();
    const { result } = await runTest(
      sut,
      nullQsl(256, 256),
      // AccuracyOnly requested: the audit.config's mode = 2 makes it a performance run.
      { ...MLPERF_SEEDS, scenario: 'SingleStream', mode: 'AccuracyOnly', minDurationMs: 0, minQueryCount: 1000 },
      {},
      { auditConfig: audit },
    );
    const detail = readDetail(result.logs.detail);
    expect(detailValue(detail, 'effective_test_mode')).toBe('PerformanceOnly');
    expect(detail.find((e) => e.key === 'effective_accuracy_log_rng_seed')!.valueText).toBe('720381539243781796');
    expect(detailValue(detail, 'effective_accuracy_log_sampling_target')).toBe(64);
    expect(result.valid).not.toBeNull(); // a performance result exists
    expect(sut.issued.length).toBe(1000);

    const acc = readAccuracy(result.logs.accuracy);
    expect(acc.length).toBeGreaterThan(0);
    expect(acc.length).toBeLessThan(sut.issued.length);
    expect(result.accuracyLogEntries).toBe(acc.length);
    // Each logged entry is a real (seq_id, qsl_idx) pair of the run, logged once.
    // The SUT's ids are the sequence ids (from 0 here) plus the test's id base.
    const base = Math.min(...sut.issued.map((s) => s.id));
    const indexOfId = new Map(sut.issued.map((s) => [s.id, s.index]));
    for (const e of acc) expect(e.qsl_idx).toBe(indexOfId.get(e.seq_id + base));
    expect(new Set(acc.map((e) => e.seq_id)).size).toBe(acc.length);
  });
});
