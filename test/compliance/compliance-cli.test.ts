// `loadgen compliance` as a child process against the built-in simulator:
// each test PASSes with its files in the official layout, a SUT whose first
// token is taken back makes TEST06 FAIL with the reason, and tests that do
// not apply are refused. Runs are short: the audit.config files given here
// ask for few queries, and the runs' own minimum duration is lowered.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { buildCli, runCli, tempDir, writeText, type CliRun } from '../cli/helpers.js';
import { wordLevelTokenizer } from '../accuracy/helpers.js';
import { expectedIds } from '../sut/helpers.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-compliance-');
});
afterAll(() => {
  cleanup?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

// Slow decode steps: the runs' throughput is set by the simulator's timers,
// not by how busy the machine is, so two runs' scores agree closely.
const STEADY = (): string =>
  writeText(dir, 'steady.json', JSON.stringify({ simulator: { decodeStepNs: 20_000_000, maxRunningSeqs: 32 } }));
// The warm-up requests put each run's first wave on warm code and connections: the
// first run in a process would otherwise be a few percent slower than the next.
const OFFLINE = [
  '--scenario',
  'Offline',
  '--target-qps',
  '100',
  '--set',
  'min_duration=1500',
  '--synthetic',
  '32/16',
  '--warmup',
  '64',
];

function exists(out: string, test: string, files: string[]): void {
  for (const f of files) expect(existsSync(join(out, test, f)), `${test}/${f}`).toBe(true);
}

describe('loadgen compliance against the simulator', () => {
  test('TEST06 (built-in audit.config) passes; its accuracy log and verify_accuracy.txt are where the checker looks', async () => {
    const out = join(dir, 't06');
    const r = await runCli(cli, [
      'compliance',
      'TEST06',
      '--scenario',
      'Server',
      '--target-qps',
      '50',
      '--synthetic-samples',
      '64',
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^TEST06: PASS/);
    expect(r.stdout).toContain('built in (compliance/TEST06)');
    exists(out, 'TEST06', ['verify_accuracy.txt', 'accuracy/mlperf_log_accuracy.json']);
    expect(readFileSync(join(out, 'TEST06', 'verify_accuracy.txt'), 'utf8')).toBe(
      'First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n',
    );
    const logged = readFileSync(join(out, 'TEST06', 'accuracy', 'mlperf_log_accuracy.json'), 'utf8');
    expect(logged.match(/"qsl_idx"/g)?.length).toBe(100);
    expect(readFileSync(join(out, 'runs', 'TEST06', 'mlperf_log_detail.txt'), 'utf8')).toContain(
      'Found Audit Config file',
    );
  });

  test('TEST06 fails, with the reason, when the server takes the first token back', async () => {
    const out = join(dir, 't06-broken');
    const cfg = writeText(
      dir,
      'retract.json',
      JSON.stringify({ simulator: { faults: [{ kind: 'retract-first-token' }] } }),
    );
    const r = await runCli(cli, [
      'compliance',
      'TEST06',
      '-c',
      cfg,
      '--api',
      'generate',
      '--scenario',
      'Server',
      '--target-qps',
      '50',
      '--synthetic-samples',
      '64',
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(1);
    expect(r.stdout).toMatch(/^TEST06: FAIL/);
    expect(r.stdout).toMatch(
      /reason: first token check failed for 100 entries \(qsl_idx \d+: first-token id \d+ at position 0/,
    );
    const text = readFileSync(join(out, 'TEST06', 'verify_accuracy.txt'), 'utf8');
    expect(text).toContain('First token check pass: False');
    expect(text).toContain('TEST06 verification failed');
  });

  test('TEST06 fails when samples failed, whatever the checks say of their empty outputs', async () => {
    const out = join(dir, 't06-errors');
    const cfg = writeText(
      dir,
      'errors.json',
      JSON.stringify({
        simulator: { faults: [{ kind: 'status', status: 500, match: { path: '/v1/completions', every: 2 } }] },
      }),
    );
    const r = await runCli(cli, [
      'compliance',
      'TEST06',
      '-c',
      cfg,
      '--retries',
      '0',
      '--scenario',
      'Server',
      '--target-qps',
      '50',
      '--synthetic-samples',
      '64',
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(1);
    expect(r.stdout).toMatch(/^TEST06: FAIL/);
    expect(r.stdout).toMatch(/reason: the audit run: \d+ of 100 samples failed/);
  });

  test('TEST04 runs the reference performance run, then the same-sample audit run, and passes', async () => {
    const out = join(dir, 't04');
    const r = await runCli(cli, ['compliance', 'TEST04', '-c', STEADY(), ...OFFLINE, '--output-dir', out]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^TEST04: PASS/);
    exists(out, 'TEST04', [
      'verify_performance.txt',
      'performance/run_1/mlperf_log_summary.txt',
      'performance/run_1/mlperf_log_detail.txt',
    ]);
    expect(existsSync(join(out, 'TEST04', 'accuracy'))).toBe(false);
    expect(readFileSync(join(out, 'TEST04', 'verify_performance.txt'), 'utf8')).toMatch(/\nTEST PASS\n$/);
    const detail = readFileSync(join(out, 'runs', 'TEST04', 'mlperf_log_detail.txt'), 'utf8');
    expect(detail).toMatch(/"key": "effective_performance_issue_same", "value": true/);
    // The reference run did not read the audit.config.
    expect(readFileSync(join(out, 'runs', 'performance', 'mlperf_log_detail.txt'), 'utf8')).not.toContain(
      'Found Audit Config file',
    );
    // Against that reference run, given: only the audit run is made.
    const again = join(dir, 't04-given');
    const g = await runCli(cli, [
      'compliance',
      'TEST04',
      '-c',
      STEADY(),
      ...OFFLINE,
      '--reference-run',
      join(out, 'runs', 'performance'),
      '--output-dir',
      again,
    ]);
    expect(g.code, explain(g)).toBe(0);
    expect(g.stdout).toContain(`reference performance run: ${join(out, 'runs', 'performance')}`);
    expect(existsSync(join(again, 'runs', 'performance'))).toBe(false);
    exists(again, 'TEST04', ['verify_performance.txt', 'performance/run_1/mlperf_log_detail.txt']);
  });

  test('TEST01 with a given audit.config: reference and accuracy runs, both verifications pass', async () => {
    const out = join(dir, 't01');
    const audit = writeText(
      dir,
      'test01.config',
      '*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 64\n',
    );
    const r = await runCli(cli, [
      'compliance',
      'TEST01',
      '-c',
      STEADY(),
      ...OFFLINE,
      '--synthetic-samples',
      '64',
      '--audit-config',
      audit,
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^TEST01: PASS/);
    exists(out, 'TEST01', [
      'verify_accuracy.txt',
      'verify_performance.txt',
      'accuracy/mlperf_log_accuracy.json',
      'performance/run_1/mlperf_log_summary.txt',
      'performance/run_1/mlperf_log_detail.txt',
    ]);
    expect(readFileSync(join(out, 'TEST01', 'verify_accuracy.txt'), 'utf8').split('\n')).toContain('TEST PASS');
    expect(existsSync(join(out, 'runs', 'accuracy', 'mlperf_log_accuracy.json'))).toBe(true);
  });

  test('TEST09 with bounds around the simulated output length passes; verify_output_len.txt is written', async () => {
    const out = join(dir, 't09');
    const audit = writeText(
      dir,
      'test09.config',
      [
        '*.*.mode = 2',
        '*.*.accuracy_log_rng_seed = 720381539243781796',
        '*.*.accuracy_log_sampling_target = 10000',
        '*.*.min_query_count = 64',
        '*.*.min_duration = 0',
        '*.*.performance_issue_unique = 1',
        '*.*.sample_concatenate_permutation = 0',
        '*.*.test09_min_output_tokens = 28.8',
        '*.*.test09_max_output_tokens = 35.2',
        '',
      ].join('\n'),
    );
    const r = await runCli(cli, [
      'compliance',
      'TEST09',
      '--scenario',
      'Offline',
      '--synthetic-samples',
      '64',
      '--audit-config',
      audit,
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(0);
    exists(out, 'TEST09', [
      'verify_output_len.txt',
      'accuracy/mlperf_log_accuracy.json',
      'performance/run_1/mlperf_log_summary.txt',
      'performance/run_1/mlperf_log_detail.txt',
    ]);
    const text = readFileSync(join(out, 'TEST09', 'verify_output_len.txt'), 'utf8');
    expect(text).toContain('Samples: 64');
    expect(text).toContain('Mean output tokens: 32.00');
    expect(text).toContain('TEST PASS');
    // Bounds the simulator's 32 tokens miss: FAIL with the reason.
    const low = await runCli(cli, [
      'compliance',
      'TEST09',
      '--scenario',
      'Offline',
      '--synthetic-samples',
      '64',
      '--audit-config',
      audit,
      '--min-output-tokens',
      '40',
      '--max-output-tokens',
      '50',
      '--json',
      '--output-dir',
      join(dir, 't09-low'),
    ]);
    expect(low.code, explain(low)).toBe(1);
    const outcome = JSON.parse(low.stdout) as { test: string; pass: boolean; reasons: string[]; files: string[] };
    expect(outcome).toMatchObject({
      test: 'TEST09',
      pass: false,
      reasons: ['mean output length 32.00 tokens is below 40'],
    });
    expect(outcome.files.some((f) => f.endsWith('verify_output_len.txt'))).toBe(true);
  });

  test('TEST07 scores the audit run against the dataset references and passes above the threshold', async () => {
    const out = join(dir, 't07');
    const rows = Array.from({ length: 16 }, (_, i) => {
      const prompt = [1, 100 + i, 7];
      return JSON.stringify({
        ids: prompt,
        ref: expectedIds(prompt, 8)
          .map((k) => `t${k}`)
          .join(' '),
        max: 8,
      });
    });
    const data = writeText(dir, 'refs.jsonl', `${rows.join('\n')}\n`);
    const tokDir = join(dir, 'tok');
    mkdirSync(tokDir);
    const tokenizer = wordLevelTokenizer(
      tokDir,
      Array.from({ length: 30000 }, (_, i) => 1000 + i),
      (k) => `t${k}`,
      { 2: '</s>' },
    );
    const audit = writeText(
      dir,
      'test07.config',
      [
        '*.*.mode = 2',
        '*.*.accuracy_log_rng_seed = 720381539243781796',
        '*.*.accuracy_log_sampling_target = 1000',
        '*.*.min_query_count = 16',
        '*.*.min_duration = 0',
        '*.*.performance_issue_unique = 1',
        '*.*.sample_concatenate_permutation = 0',
        '*.*.test07_accuracy_threshold = 99',
        '',
      ].join('\n'),
    );
    const r = await runCli(cli, [
      'compliance',
      'TEST07',
      '--scenario',
      'Offline',
      '--dataset',
      data,
      '--field-input-ids',
      'ids',
      '--field-reference',
      'ref',
      '--field-max-tokens',
      'max',
      '--tokenizer',
      tokenizer,
      '--score-metric',
      'rouge1',
      '--audit-config',
      audit,
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^TEST07: PASS/);
    exists(out, 'TEST07', [
      'verify_accuracy.txt',
      'accuracy/mlperf_log_accuracy.json',
      'performance/run_1/mlperf_log_summary.txt',
      'performance/run_1/mlperf_log_detail.txt',
    ]);
    const text = readFileSync(join(out, 'TEST07', 'verify_accuracy.txt'), 'utf8');
    expect(text).toContain("'rouge1': 100");
    expect(text).toContain('Accuracy check pass: True');
    expect(text).toContain('TEST PASS');
  });

  test('a test the benchmark does not need, or an unknown test, is refused before anything runs', async () => {
    const out = join(dir, 'refused');
    const r = await runCli(cli, [
      'compliance',
      'TEST01',
      '--scenario',
      'Offline',
      '--benchmark',
      'llama3_1-8b',
      '--output-dir',
      out,
    ]);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toContain('TEST01 does not apply to llama3_1-8b');
    expect(r.stderr).toContain('it needs TEST06');
    expect(existsSync(out)).toBe(false);
    const noRefs = await runCli(cli, [
      'compliance',
      'TEST07',
      '--scenario',
      'Offline',
      '--benchmark',
      'gpt-oss-120b',
      '--tokenizer',
      'tok.json',
      '--output-dir',
      out,
    ]);
    expect(noRefs.code, explain(noRefs)).toBe(2);
    expect(noRefs.stderr).toContain('give --dataset with a reference column');
    expect(existsSync(out)).toBe(false);
    const unknown = await runCli(cli, ['compliance', 'TEST05', '--scenario', 'Offline']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown compliance test "TEST05"');
    const mode = await runCli(cli, ['compliance', 'TEST06', '--scenario', 'Offline', '--mode', 'accuracy']);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('--mode is set by the test');
  });
});
