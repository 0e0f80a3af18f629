// `loadgen run` flags → runBenchmark options, in process: every flag, the
// refusals, the settings layers (official table, user.conf, simulator
// defaults, overrides), the progress line and the exit codes. The config
// file's keys are in run-config-file.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { UsageError } from '../../lib/cli/errors.js';
import { createProgressPrinter, formatDuration, formatProgress } from '../../lib/cli/progress.js';
import {
  DEFAULT_OUTPUT_DIR,
  exitCodeOf,
  formatSummary,
  parseSynthetic,
  planRun,
  redactArgv,
} from '../../lib/cli/run-command.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import {
  composeSettings,
  estimateRemainingMs,
  fillTimeline,
  GENERIC_LLM_BOUNDS,
  SIMULATED_RUN_DEFAULTS,
  splitConcurrency,
} from '../../lib/run/run-benchmark.js';
import { defaultTestSettings, type TestSettings } from '../../lib/core/settings.js';
import type { SampleTiming } from '../../lib/sut/types.js';
import { parseRunFlags } from './parse-run.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-cli-opts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parse = parseRunFlags;

async function plan(args: string[]) {
  return planRun(await parse(['--scenario', 'Server', ...args]));
}

describe('every flag', () => {
  const base = { scenario: 'Server', outdir: DEFAULT_OUTPUT_DIR };
  const cases: Array<[string[], Record<string, unknown>]> = [
    [[], {}],
    [['--mode', 'performance'], { mode: 'PerformanceOnly' }],
    [['--mode', 'accuracy'], { mode: 'AccuracyOnly' }],
    [['--mode', 'submission'], { mode: 'SubmissionRun' }],
    [['--mode', 'find-peak'], { mode: 'FindPeakPerformance' }],
    [['--mode', 'AccuracyOnly'], { mode: 'AccuracyOnly' }],
    [['--benchmark', 'llama3_1-8b'], { benchmark: 'llama3_1-8b' }],
    [['--mlperf-conf', 'm.conf'], { mlperfConf: 'm.conf' }],
    [['--user-conf', 'u.conf'], { userConf: 'u.conf' }],
    [
      ['--endpoint', 'http://a:8000', '--endpoint', 'http://b:8000/v1'],
      { endpoints: ['http://a:8000', 'http://b:8000/v1'] },
    ],
    [['--backend', 'sglang'], { backend: 'sglang' }],
    [['--backend', 'auto'], { backend: 'auto' }],
    [['--api', 'chat'], { api: 'chat' }],
    [['--model', 'm1'], { model: 'm1' }],
    [['--api-key', 'sk-1'], { apiKey: 'sk-1' }],
    [['--dataset', 'd.jsonl'], { dataset: { path: 'd.jsonl' } }],
    [['--dataset', 'd.bin', '--dataset-format', 'jsonl'], { dataset: { path: 'd.bin', format: 'jsonl' } }],
    [['--dataset', 'd.json', '--preset', 'dummy'], { dataset: { path: 'd.json', preset: 'dummy' } }],
    [
      [
        '--dataset',
        'd.json',
        '--field-input-ids',
        'a',
        '--field-text',
        'b',
        '--field-messages',
        'c',
        '--field-system',
        'd',
        '--field-user',
        'e',
        '--field-reference',
        'f',
        '--field-max-tokens',
        'g',
      ],
      {
        dataset: {
          path: 'd.json',
          mapping: { tokenIds: 'a', text: 'b', messages: 'c', system: 'd', user: 'e', reference: 'f', maxTokens: 'g' },
        },
      },
    ],
    [['--dataset', 'd.json', '--text-template', 'Q: {q}'], { dataset: { path: 'd.json', textTemplate: 'Q: {q}' } }],
    [['--dataset', 'd.json', '--limit', '10'], { dataset: { path: 'd.json', limit: 10 } }],
    [
      ['--dataset', 'd.json', '--max-tokens', '64'],
      { dataset: { path: 'd.json', maxTokens: 64 }, sampling: { maxTokens: 64 } },
    ],
    [['--synthetic', '256/64'], { dataset: { synthetic: { inputLength: 256, outputLength: 64 } } }],
    [
      ['--synthetic', '100-200/10~2', '--synthetic-samples', '50'],
      { dataset: { synthetic: { size: 50, inputLength: { min: 100, max: 200 }, outputLength: { mean: 10, std: 2 } } } },
    ],
    [['--synthetic-samples', '16'], { dataset: { synthetic: { size: 16 } } }],
    [['--max-tokens', '99'], { sampling: { maxTokens: 99 } }],
    [['--ignore-eos'], { sampling: { ignoreEos: true } }],
    [['--target-qps', '12.5'], { targetQps: 12.5 }],
    [['--concurrency', '8'], { concurrency: 8 }],
    [['--workers', '0'], { workers: 0 }],
    [['--cpu-idle-latency-us', '0'], { cpuIdleLatencyUs: 0 }],
    [['--busy-poll'], { busyPoll: { idleMs: 1000 } }],
    [['--busy-poll', '250'], { busyPoll: { idleMs: 250 } }],
    [['--busy-poll', '0'], { busyPoll: { idleMs: 0 } }],
    [['--output-dir', 'o'], { outdir: 'o' }],
    [
      ['--set', 'min_duration=5000', '--set', 'ttftLatencyNs=7'],
      { settings: { minDurationMs: 5000, ttftLatencyNs: 7 } },
    ],
  ];
  test.each(cases)('%j', async (args, want) => {
    const p = await plan(args);
    const { command: _c, ...options } = p.options;
    expect(options).toEqual({ ...base, ...want });
  });

  test('--json and --quiet', async () => {
    expect(await plan(['--json', '--quiet'])).toMatchObject({ json: true, quiet: true });
    expect(await plan([])).toMatchObject({ json: false, quiet: false });
  });

  test('scenario spellings', async () => {
    for (const s of ['server', 'SERVER', 'Server'])
      expect(planRun(await parse(['--scenario', s])).options.scenario).toBe('Server');
    for (const s of ['single-stream', 'SingleStream', 'singlestream'])
      expect(planRun(await parse(['--scenario', s])).options.scenario).toBe('SingleStream');
    expect(planRun(await parse(['--scenario', 'multi_stream'])).options.scenario).toBe('MultiStream');
    expect(planRun(await parse(['--scenario', 'offline'])).options.scenario).toBe('Offline');
  });

  test('--api-key is kept out of the recorded command', () => {
    expect(redactArgv(['run', '--api-key', 'sk-secret', '--api-key=sk-2'])).toEqual([
      'run',
      '--api-key',
      '***',
      '--api-key=***',
    ]);
  });

  test('--config is read by the command (see the config tests)', async () => {
    expect((await parse(['--config', 'x.yaml'])).config).toBe('x.yaml');
  });
});

describe('bad flags are usage errors', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--scenario', 'Fast'], /--scenario "Fast"/],
    [['--scenario', 'Server', '--mode', 'quick'], /--mode "quick"/],
    [['--scenario', 'Server', '--backend', 'tgi'], /--backend "tgi"/],
    [['--scenario', 'Server', '--api', 'rest'], /--api "rest"/],
    [['--scenario', 'Server', '--dataset', 'd.json', '--dataset-format', 'csv'], /--dataset-format "csv"/],
    [['--scenario', 'Server', '--field-text', 'x'], /--field-text needs --dataset/],
    [['--scenario', 'Server', '--limit', '3'], /--limit needs --dataset/],
    [['--scenario', 'Server', '--dataset', 'd.json', '--synthetic', '1/1'], /exclude each other/],
    [['--scenario', 'Server', '--synthetic', '128'], /INPUT\/OUTPUT/],
    [['--scenario', 'Server', '--synthetic', 'a/1'], /input length "a"/],
    [['--scenario', 'Server', '--synthetic-samples', '0'], /--synthetic-samples must be an integer >= 1/],
    [['--scenario', 'Server', '--dataset', 'd.json', '--limit', '0'], /--limit must be an integer >= 1/],
    [['--scenario', 'Server', '--max-tokens', '0'], /--max-tokens must be an integer >= 1/],
    [['--scenario', 'Server', '--target-qps', '0'], /--target-qps must be a number > 0/],
    [['--scenario', 'Server', '--concurrency', '0'], /--concurrency must be an integer >= 1/],
    [['--scenario', 'Server', '--workers', '-1'], /--workers must be an integer >= 0/],
    [['--scenario', 'Server', '--cpu-idle-latency-us', '-1'], /--cpu-idle-latency-us must be an integer >= 0/],
    [
      ['--scenario', 'Server', '--busy-poll', 'soon'],
      /--busy-poll takes an idle window in milliseconds >= 0, got soon/,
    ],
    [['--scenario', 'Server', '--busy-poll', '-5'], /--busy-poll takes an idle window in milliseconds >= 0, got -5/],
    [['--scenario', 'Server', '--set', 'bogus=1'], /unknown setting 'bogus'/],
    [[], /--scenario is required/],
  ];
  test.each(cases)('%j', async (args, message) => {
    const flags = await parse(args);
    expect(() => planRun(flags)).toThrow(UsageError);
    expect(() => planRun(flags)).toThrow(message);
  });

  test("the config file's simulator options need the simulator", () => {
    expect(() => planRun({ scenario: 'Server', endpoint: ['http://a:1'], simulator: { flavor: 'vllm' } })).toThrow(
      /'simulator' options apply only without endpoints/,
    );
  });

  test('commander refuses non-numbers and unknown flags', async () => {
    await expect(parse(['--target-qps', 'fast'])).rejects.toThrow(/expected a number/);
    await expect(parse(['--limit', '2.5'])).rejects.toThrow(/expected an integer/);
    await expect(parse(['--bogus'])).rejects.toThrow(/unknown option/);
  });
});

describe('settings layers', () => {
  const s = (o: Parameters<typeof composeSettings>[0], simulated = true) => composeSettings(o, simulated).settings;

  test('no benchmark: API defaults, official seeds, generic LLM bounds, simulator defaults', () => {
    const got = s({ scenario: 'Server' });
    expect(got).toMatchObject({
      ...GENERIC_LLM_BOUNDS,
      minDurationMs: SIMULATED_RUN_DEFAULTS.minDurationMs,
      serverTargetQps: 50,
      mode: 'PerformanceOnly',
    });
    expect(got.qslRngSeed).toBe('2085463073848966840');
    expect(got.scheduleRngSeed).toBe('16159082839903944936');
    // Real endpoints: no simulator defaults.
    expect(s({ scenario: 'Server' }, false)).toMatchObject({
      minDurationMs: defaultTestSettings().minDurationMs,
      serverTargetQps: 1,
    });
    expect(s({ scenario: 'Offline' })).toMatchObject({ offlineExpectedQps: 250 });
    expect(s({ scenario: 'MultiStream' })).toMatchObject({ minQueryCount: 662, multiStreamSamplesPerQuery: 8 });
  });

  test('--benchmark: the official values; the simulator shortens the run unless the user chose', () => {
    const real = s({ scenario: 'Server', benchmark: 'llama3_1-8b' }, false);
    expect(real).toMatchObject({
      useTokenLatencies: true,
      ttftLatencyNs: 2e9,
      tpotLatencyNs: 1e8,
      minDurationMs: 600000,
      sampleConcatenatePermutation: true,
      performanceSampleCountOverride: 13368,
    });
    expect(s({ scenario: 'Server', benchmark: 'llama3_1-8b' })).toMatchObject({
      ttftLatencyNs: 2e9,
      minDurationMs: 10000,
      serverTargetQps: 50,
    });
    expect(s({ scenario: 'Server', benchmark: 'llama3_1-8b', settings: { minDurationMs: 1234 } })).toMatchObject({
      minDurationMs: 1234,
    });
  });

  test('user.conf over the official values, and it counts as the user choosing', () => {
    const uc = join(dir, 'user.conf');
    writeFileSync(uc, '*.Server.target_qps = 33\nllama3_1-8b.Server.min_duration = 2000\n');
    expect(s({ scenario: 'Server', benchmark: 'llama3_1-8b', userConf: uc })).toMatchObject({
      serverTargetQps: 33,
      minDurationMs: 2000,
    });
    // Without a benchmark only the '*' entries apply.
    expect(s({ scenario: 'Server', userConf: uc })).toMatchObject({ serverTargetQps: 33, minDurationMs: 10000 });
  });

  test('--target-qps per scenario, then --set overrides, then --mode', () => {
    expect(s({ scenario: 'Server', targetQps: 7 })).toMatchObject({ serverTargetQps: 7 });
    expect(s({ scenario: 'Offline', targetQps: 7 })).toMatchObject({ offlineExpectedQps: 7 });
    expect(s({ scenario: 'Server', targetQps: 7, settings: { serverTargetQps: 8 } })).toMatchObject({
      serverTargetQps: 8,
    });
    expect(s({ scenario: 'Server', mode: 'AccuracyOnly' }).mode).toBe('AccuracyOnly');
  });

  test('refusals', () => {
    expect(() => s({ scenario: 'SingleStream', targetQps: 5 })).toThrow(/applies to the Server and Offline/);
    expect(() => s({ scenario: 'Offline', mode: 'FindPeakPerformance' })).toThrow(
      /find-peak mode needs the Server scenario/,
    );
    expect(() => s({ scenario: 'Server', benchmark: 'gpt-9' })).toThrow(/unknown benchmark 'gpt-9'/);
    expect(() => s({ scenario: 'Server', mlperfConf: 'x' })).toThrow(/--mlperf-conf needs --benchmark/);
    expect(() => s({ scenario: 'Server', benchmark: 'llama3_1-8b', userConf: join(dir, 'none.conf') })).toThrow(
      /none.conf/,
    );
  });
});

describe('pieces', () => {
  test('splitConcurrency spreads the cap over the endpoints', () => {
    expect(splitConcurrency(['http://a', 'http://b', 'http://c'], 8)).toEqual([
      { url: 'http://a', maxInFlight: 3 },
      { url: 'http://b', maxInFlight: 3 },
      { url: 'http://c', maxInFlight: 2 },
    ]);
    expect(splitConcurrency([{ url: 'http://a', maxInFlight: 2 }], 5)).toEqual([{ url: 'http://a', maxInFlight: 2 }]);
    expect(splitConcurrency(['http://a'], undefined)).toEqual(['http://a']);
    expect(() => splitConcurrency(['http://a', 'http://b'], 1)).toThrow(/less than the number of endpoints/);
  });

  test('parseSynthetic', () => {
    expect(parseSynthetic('128/32')).toEqual({ inputLength: 128, outputLength: 32 });
    expect(() => parseSynthetic('1/2/3')).toThrow(UsageError);
  });

  test('progress lines', () => {
    const p = {
      elapsedMs: 65_000,
      issued: 100,
      completed: 90,
      inFlight: 10,
      qps: 49.84,
      tokensPerSecond: 1500.4,
      errors: 2,
      remainingMs: 5_000,
    };
    expect(formatProgress(p)).toBe('issued 100  done 90  49.8/s  1500 tok/s  2 errors  1:05  ~0:05 left');
    expect(formatProgress({ ...p, tokensPerSecond: null, errors: null, remainingMs: null })).toBe(
      'issued 100  done 90  49.8/s  - tok/s  0 errors  1:05  ? left',
    );
    expect(formatDuration(3_723_000)).toBe('1:02:03');

    const written: string[] = [];
    const tty = { isTTY: true, columns: 40, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const live = createProgressPrinter(tty);
    live.update(p);
    live.done();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress line starts with ESC [2K.
    expect(written[0]).toMatch(/^\r\x1b\[2Kissued 100/);
    expect(written[0].length).toBeLessThanOrEqual(40 + 5);
    expect(written[1]).toBe('\r\x1b[2K');

    const lines: string[] = [];
    const plain = createProgressPrinter(
      { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream,
      10_000,
    );
    for (const t of [1000, 2000, 11_500, 12_000]) plain.update({ ...p, elapsedMs: t });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^progress: issued/);
  });

  test('remaining time estimates', () => {
    const st = {
      ...defaultTestSettings(),
      scenario: 'Server',
      serverTargetQps: 10,
      minDurationMs: 10_000,
      minQueryCount: 100,
    } as TestSettings;
    expect(estimateRemainingMs(st, 10, { elapsedMs: 4000, issued: 40, completed: 40, qps: 10 })).toBe(6000);
    expect(
      estimateRemainingMs({ ...st, scenario: 'Offline' }, 10, { elapsedMs: 1000, issued: 100, completed: 50, qps: 25 }),
    ).toBe(2000);
    expect(
      estimateRemainingMs({ ...st, mode: 'AccuracyOnly' }, 100, {
        elapsedMs: 1000,
        issued: 10,
        completed: 10,
        qps: 10,
      }),
    ).toBe(9000);
    expect(
      estimateRemainingMs({ ...st, mode: 'FindPeakPerformance' }, 100, {
        elapsedMs: 1,
        issued: 1,
        completed: 1,
        qps: 1,
      }),
    ).toBeNull();
  });

  test('fillTimeline adds tokens and failures from the per-sample timings', () => {
    const t = (endNs: number, tokens: number, ok: boolean) => ({ endNs, tokens, ok }) as SampleTiming;
    const points = [1000, 2000, 3000].map((tMs) => ({
      tMs,
      issuedSamples: 0,
      completedSamples: 0,
      inFlight: 0,
      outputTokens: 0,
      errors: 0,
    }));
    fillTimeline(points, 5e9, [
      t(5e9 + 0.5e9, 10, true),
      t(5e9 + 1.5e9, 0, false),
      t(5e9 + 1.9e9, 5, true),
      t(NaN, 0, false),
    ]);
    expect(points.map((p) => [p.outputTokens, p.errors])).toEqual([
      [10, 0],
      [15, 1],
      [15, 1],
    ]);
  });
});

describe('exit codes and the summary', () => {
  const record = (result: Record<string, unknown>, sut: Record<string, unknown> | null = null): RunRecord =>
    ({
      result: {
        scenario: 'Server',
        mode: 'PerformanceOnly',
        valid: true,
        aborted: false,
        abortReason: null,
        invalidReasons: [],
        criteria: { perfConstraintsMet: true, minDurationMet: true, minQueriesMet: true, earlyStoppingMet: true },
        metric: { name: 'completed samples per second', value: 49.5, unit: 'samples/s' },
        tokensPerSecond: 1500,
        ttft: { p99: 12_000_000 },
        tpot: { p99: 4_500_000 },
        latency: { p50: 1.4e8, p99: 1.5e8 },
        peakTargetQps: null,
        earlyStopping: null,
        counts: { samples: 500, tokens: 16000 },
        ...result,
      },
      sut,
      benchmark: null,
      simulated: true,
      outdir: '/out',
      endpoints: [],
    }) as unknown as RunRecord;
  const sut = (issued: number, failed: number) => ({
    samples: { issued, completed: issued, failed, retried: 0 },
    errorKinds: failed ? { refused: failed } : {},
  });

  test('0 VALID, 1 INVALID, 3 every request failed, 6 some samples failed, 4 aborted otherwise, 130 Ctrl-C', () => {
    expect(exitCodeOf(record({}), false)).toBe(0);
    expect(exitCodeOf(record({ valid: null, mode: 'AccuracyOnly' }), false)).toBe(0);
    expect(exitCodeOf(record({ valid: false }), false)).toBe(1);
    // Samples failed: 6 (the submission checker rejects the logs), whatever LoadGen's verdict.
    expect(exitCodeOf(record({ valid: false }, sut(10, 3)), false)).toBe(6);
    expect(exitCodeOf(record({}, sut(10, 3)), false)).toBe(6);
    expect(exitCodeOf(record({ valid: false }, sut(10, 10)), false)).toBe(3);
    expect(exitCodeOf(record({ aborted: true, abortReason: 'an adapter worker thread failed' }), false)).toBe(4);
    expect(exitCodeOf(record({ aborted: true, abortReason: 'SIGINT' }), false)).toBe(130);
    expect(exitCodeOf(record({}), true)).toBe(130);
  });

  test('the summary says the verdict, the figures, why INVALID and where the files are', () => {
    const ok = formatSummary(record({}), ['/out/results.json']);
    expect(ok).toMatch(/^Result: VALID\n/);
    expect(ok).toContain('TTFT p99: 12.0 ms   TPOT p99: 4.50 ms');
    expect(ok).toContain('    /out/results.json');
    const bad = formatSummary(
      record(
        {
          valid: false,
          invalidReasons: [' * Reduce target QPS to improve latency.'],
          criteria: { perfConstraintsMet: false, minDurationMet: true, minQueriesMet: true, earlyStoppingMet: false },
          earlyStopping: { text: '', ttftText: ' * Run unsuccessful.\n * Processed 10 queries.', tpotText: '' },
          peakTargetQps: 12.5,
        },
        sut(10, 2),
      ),
      [],
    );
    expect(bad).toMatch(/^Result: INVALID/);
    expect(bad).toContain('peak target QPS: 12.50');
    expect(bad).toContain('why INVALID: * Reduce target QPS');
    expect(bad).toContain('criteria not met: perfConstraintsMet, earlyStoppingMet');
    expect(bad).toContain('early stopping (TTFT): Run unsuccessful. Processed 10 queries.');
    expect(bad).toContain('requests: 2 failed, 0 retried (refused 2)');
    expect(formatSummary(record({ aborted: true, abortReason: 'SIGINT' }), [])).toMatch(/^Result: ABORTED \(SIGINT\)/);
  });
});
