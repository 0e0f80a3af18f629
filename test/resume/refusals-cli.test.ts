// The CLI side: performance runs are refused by --resume (and a killed one
// stays readable, marked incomplete), bad flags and config values of the
// resume/cost/budget/metrics options exit 2 with one line and no stack trace,
// and a budget stop exits 5 with the reason printed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readRunState } from '../../lib/resume/run-state.js';
import { buildCli, runCli, spawnCli, STACK_LINE, tempDir, writeText } from '../cli/helpers.js';
import { waitFor } from './helpers.js';

let cli: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
}, 120_000);
afterAll(() => cleanup?.());

async function usage(args: string[], re: RegExp): Promise<void> {
  const r = await runCli(cli, args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(re);
  expect(r.stderr).not.toMatch(STACK_LINE);
}

describe('loadgen run: resume refusals and incomplete runs', () => {
  it('a performance run cannot be resumed', async () => {
    await usage(
      ['run', '--scenario', 'Server', '--resume', tempDir()],
      /loadgen run: --resume: PerformanceOnly runs cannot be resumed: MLPerf requires a performance run's latencies to come from one continuous test/,
    );
  });

  it('a killed performance run stays readable, marked incomplete, and is refused by --resume', async () => {
    const dir = tempDir('lg-perf-kill-');
    const run = spawnCli(cli, [
      'run',
      '--scenario',
      'Server',
      '--target-qps',
      '20',
      '--set',
      'minDurationMs=30000',
      '--synthetic',
      '16/8',
      '--workers',
      '1',
      '--output-dir',
      dir,
      '--quiet',
    ]);
    await waitFor(
      'the run state',
      () => existsSync(join(dir, 'run-state.json')) && existsSync(join(dir, 'mlperf_log_detail.txt')),
    );
    await new Promise((r) => setTimeout(r, 500));
    run.child.kill('SIGKILL');
    await run.done;
    expect(readRunState(dir)).toMatchObject({ state: 'interrupted', mode: 'PerformanceOnly', resumable: false });
    const report = await runCli(cli, ['report', dir]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/INCOMPLETE/);
    await usage(
      ['run', '--scenario', 'Server', '--mode', 'accuracy', '--resume', dir],
      /no journal there \(.*journal\.json is missing; run-state\.json: a PerformanceOnly run, interrupted\); performance runs keep no journal and cannot be resumed: run it again/,
    );
  }, 60_000);

  it('bad resume, cost, budget and metrics flags: exit 2, one line', async () => {
    const dir = tempDir();
    await usage(
      ['run', '--scenario', 'Offline', '--gpu-hour-price', 'abc'],
      /--gpu-hour-price "abc": expected a number or a comma-separated list of numbers/,
    );
    await usage(
      ['run', '--scenario', 'Offline', '--gpu-hour-price', '2,3'],
      /--gpu-hour-price has 2 values for 1 endpoint: give one value, or one per endpoint/,
    );
    await usage(
      ['run', '--scenario', 'Offline', '--gpus-per-endpoint', '4'],
      /--gpus-per-endpoint needs --gpu-hour-price/,
    );
    await usage(
      ['run', '--scenario', 'Offline', '--gpu-hour-price', '2', '--gpus-per-endpoint', '0'],
      /--gpus-per-endpoint must be an integer >= 1/,
    );
    await usage(['run', '--scenario', 'Offline', '--budget-cost', '5'], /--budget-cost needs --gpu-hour-price/);
    await usage(['run', '--scenario', 'Offline', '--budget-tokens', '0'], /--budget-tokens must be an integer > 0/);
    await usage(['run', '--scenario', 'Offline', '--budget-minutes', '-1'], /--budget-minutes must be a number > 0/);
    await usage(
      ['run', '--scenario', 'Offline', '--metrics-interval', '-1'],
      /--metrics-interval must be a number of seconds >= 0/,
    );
    await usage(
      ['run', '--scenario', 'Offline', '--mode', 'accuracy', '--resume', dir, '--output-dir', join(dir, 'x')],
      /--resume .* continues the run in that directory: drop --output-dir/,
    );
    const cfg = writeText(dir, 'c.yaml', 'scenario: Offline\ngpu-hour-price: [1, 2]\n');
    await usage(['run', '--config', cfg], /--gpu-hour-price has 2 values for 1 endpoint/);
    const cfg2 = writeText(dir, 'd.yaml', 'scenario: Offline\nbudget-tokens: lots\n');
    await usage(['run', '--config', cfg2], /'budget-tokens' must be an integer, got string "lots"/);
    const cfg3 = writeText(dir, 'e.yaml', 'scenario: Offline\ngpus-per-endpoint: [x]\n');
    await usage(['run', '--config', cfg3], /'gpus-per-endpoint' must be a number or a list of numbers/);
  }, 60_000);

  it('a budget stop exits 5 and says why; config keys work like the flags', async () => {
    const dir = tempDir();
    const cfg = writeText(
      dir,
      'run.yaml',
      `scenario: Server\ntarget-qps: 50\nsynthetic: 16/8\nworkers: 1\nbudget-tokens: 40\ngpu-hour-price: 3\ngpus-per-endpoint: 2\nmetrics-interval: 0.2\noutput-dir: ${join(dir, 'out')}\n`,
    );
    const r = await runCli(cli, ['run', '--config', cfg]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toMatch(/stopped: budget: \d+ output tokens reached the limit of 40/);
    expect(r.stdout).toMatch(/cost: \$\d+\.\d{4}/);
    expect(r.stderr).toMatch(/loadgen run: the test was aborted|stopping: budget/);
  }, 60_000);
});
