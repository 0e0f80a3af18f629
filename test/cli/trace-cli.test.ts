// `loadgen run --trace` as a child process: --dry-run prints the plan and
// the lint and exits 0 without a test; an unreadable or malformed trace is
// exit 2 with one line naming the file and line; the flags' own errors; and a
// short replay against the built-in simulator whose console names the issue
// policy and reports the issue-time error against the trace.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { buildCli, runCli, tempDir, type CliRun } from './helpers.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-trace-cli-');
});
afterAll(() => cleanup?.());

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

function writeTrace(name: string, rows: object[]): string {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n'));
  return path;
}

describe('--dry-run', () => {
  test('prints requests, rate, tokens, prefix sharing and the lint; exits 0 and starts nothing', async () => {
    const path = writeTrace('dry.jsonl', [
      { timestamp: 1000, input_length: 1024, output_length: 8, hash_ids: [1, 2] },
      { timestamp: 900, input_length: 1024, output_length: 8, hash_ids: [1, 3] },
      { timestamp: 1500, input_length: 9000, output_length: 8, hash_ids: [1, 2, 4] },
      { timestamp: 1500, input_length: 600, output_length: 8, hash_ids: [1, 2] },
    ]);
    const out = join(dir, 'dry-out');
    const r = await runCli(cli, ['run', '--trace', path, '--dry-run', '--output-dir', out]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toContain(`trace: ${path} (mooncake): 4 requests over 0.600 s`);
    expect(r.stdout).toMatch(/rate over time:/);
    expect(r.stdout).toMatch(/tokens: input 11648 .* output 32/);
    expect(r.stdout).toMatch(/prefix sharing: 4 distinct blocks of 512 tokens in 9 references; 2048 input tokens/);
    expect(r.stdout).toMatch(/warning: 1 row is earlier than a row above \(line 2\)/);
    expect(r.stdout).toMatch(/warning: 1 row has the timestamp of the row before \(line 4\)/);
    // The simulator's context (8192 by default) is what the lint checks against.
    expect(r.stdout).toMatch(/warning: 1 row asks for more than the model's 8192-token context/);
    expect(r.stdout).toMatch(
      /warning: 1 row has a number of hash_ids other than ceil\(input_length \/ 512\) \(line 3\)/,
    );
    expect(existsSync(out)).toBe(false);

    const j = await runCli(cli, ['run', '--trace', path, '--dry-run', '--json', '--max-model-len', '20000']);
    expect(j.code, explain(j)).toBe(0);
    const plan = JSON.parse(j.stdout);
    expect(plan).toMatchObject({ requests: 4, spanMs: 600, prefix: { reusableTokens: 2048 } });
    expect(plan.lint.map((w: { kind: string }) => w.kind)).toEqual([
      'unsorted',
      'duplicate-timestamps',
      'hash-ids-mismatch',
    ]);
  });

  test('a malformed trace is exit 2 with one line naming the file and line', async () => {
    const path = join(dir, 'bad.jsonl');
    writeFileSync(
      path,
      '{"timestamp": 0, "input_length": 5, "output_length": 1}\n{"timestamp": 1, "input_length": 5}\n',
    );
    const r = await runCli(cli, ['run', '--trace', path, '--dry-run']);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toBe(`loadgen run: ${path}: line 2: output_length must be an integer >= 1, got null\n`);
    const missing = await runCli(cli, ['run', '--trace', join(dir, 'nope.jsonl'), '--dry-run']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: cannot read the trace/);
  });

  test('flag errors: --dry-run without --trace, a trace outside Server, a bad speed', async () => {
    const path = writeTrace('ok.jsonl', [{ timestamp: 0, input_length: 5, output_length: 1 }]);
    for (const [args, message] of [
      [['--scenario', 'Server', '--dry-run'], '--dry-run needs --trace <file>'],
      [['--scenario', 'Offline', '--trace', path], 'it needs --scenario Server, not Offline'],
      [['--trace', path, '--trace-speed', '0'], '--trace-speed must be a number > 0'],
      [['--trace', path, '--synthetic', '8/8'], '--trace and --dataset/--synthetic exclude each other'],
      [['--trace', path, '--target-qps', '5'], 'cannot be combined with --target-qps (use --trace-speed'],
      [['--trace', path, '--api', 'chat'], '--trace sends token-id prompts: use --api completions'],
    ] as const) {
      const r = await runCli(cli, ['run', ...args]);
      expect(r.code, explain(r)).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('a replay', () => {
  test('sends the trace to the simulator, names the policy and reports the issue-time error', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      timestamp: 50 * i,
      input_length: 600,
      output_length: 4,
      hash_ids: [7, 100 + i],
    }));
    const path = writeTrace('replay.jsonl', rows);
    const out = join(dir, 'replay-out');
    const r = await runCli(
      cli,
      ['run', '--trace', path, '--trace-speed', '2', '--benchmark', 'llama3_1-8b', '--output-dir', out],
      undefined,
      60_000,
    );
    expect([0, 1], explain(r)).toContain(r.code);
    // The benchmark's official settings do not make it an MLPerf run: the pre-flight says so.
    expect(r.stderr).toContain('warning: not submittable to MLPerf: the issue policy is trace replay');
    expect(r.stdout).toContain(
      'issue policy: trace replay, 30 requests over 725 ms (speed 2): not an MLPerf scenario, not for a submission',
    );
    expect(r.stdout).toMatch(/trace replay: 30 requests; issue time - trace time p50 [\d.]+ ms, p99 [\d.]+ ms/);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(results.trace).toMatchObject({ requests: 30, speed: 2, issueErrorMs: { count: 30 } });
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('id="trace-replay"');
  }, 90_000);
});
