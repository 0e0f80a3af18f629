// `loadgen run` inputs (issue 23, item 6): a bad flag prints one line and a
// hint to --help (every command); nothing is created before the flags are
// checked; the request timeouts and retries as flags and config keys; an
// output directory on a pseudo filesystem (or under a file) is refused at
// once. Child processes, each bounded in time.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { UsageError } from '../../lib/cli/errors.js';
import { mergeFlags, readConfigFile } from '../../lib/cli/config-file.js';
import { createProgram } from '../../lib/cli/main.js';
import { parseDurationMs } from '../../lib/cli/duration.js';
import { planRun } from '../../lib/cli/run-command.js';
import { checkOutputDir } from '../../lib/run/output-dir.js';
import { buildCli, runCli, tempDir, writeText, type CliRun } from './helpers.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-inputs-');
});
afterAll(() => cleanup?.());

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim() !== '');

describe('a bad flag: one line and a hint, for every command', () => {
  test('run: a bad value and an unknown flag', async () => {
    for (const args of [
      ['--scenario', 'Server', '--limit', 'x'],
      ['--scenario', 'Server', '--no-such-flag'],
    ]) {
      const r = await runCli(cli, ['run', ...args], dir, 20_000);
      expect(r.code, explain(r)).toBe(2);
      expect(lines(r.stderr), explain(r)).toHaveLength(2);
      expect(r.stderr).toMatch(/^error: .*(--limit|--no-such-flag)/);
      expect(lines(r.stderr)[1]).toBe('see loadgen run --help');
      expect(r.stderr).not.toContain('Usage:');
    }
  });

  test('every command and the program itself', async () => {
    const names = createProgram()
      .commands.map((c) => c.name())
      .filter((n) => n !== 'help');
    expect(names).toEqual(expect.arrayContaining(['run', 'probe', 'report', 'sim']));
    for (const name of names) {
      const r = await runCli(cli, [name, '--no-such-flag-here'], dir, 20_000);
      expect(r.code, `${name}: ${explain(r)}`).toBe(2);
      expect(lines(r.stderr), `${name}: ${explain(r)}`).toEqual([
        expect.stringMatching(/^error: unknown option '--no-such-flag-here'/),
        `see loadgen ${name} --help`,
      ]);
    }
    const r = await runCli(cli, ['no-such-command'], dir, 20_000);
    expect(lines(r.stderr), explain(r)).toEqual([
      expect.stringMatching(/^error: unknown command/),
      'see loadgen --help',
    ]);
  });
});

describe('nothing is created before the flags are checked', () => {
  test('a missing dataset, a cost budget without a price, a bad timeout: exit 2 and no default output directory', async () => {
    for (const args of [
      ['--dataset', join(dir, 'missing.jsonl')],
      ['--budget-cost', '1'],
      ['--timeout-idle', '0'],
    ]) {
      const cwd = tempDir('lg-nodir-');
      const r = await runCli(cli, ['run', '--scenario', 'Server', ...args], cwd, 20_000);
      expect(r.code, explain(r)).toBe(2);
      expect(
        lines(r.stderr).filter((l) => l.startsWith('loadgen run: ')),
        explain(r),
      ).toHaveLength(1);
      expect(r.stderr).not.toContain('Usage:');
      expect(readdirSync(cwd), `${args.join(' ')}: ${explain(r)}`).toEqual([]);
    }
  });
});

describe('request timeouts and retries', () => {
  test('flags: ms or a duration, checked with one-line errors naming the flag', () => {
    const plan = planRun({
      scenario: 'Server',
      timeoutFirstByte: '30s',
      timeoutIdle: '1500',
      timeoutTotal: '2m',
      retries: '0',
    });
    expect(plan.options.timeouts).toEqual({ firstByteMs: 30_000, idleMs: 1500, totalMs: 120_000 });
    expect(plan.options.retry).toEqual({ maxRetries: 0 });
    expect(planRun({ scenario: 'Server' }).options.timeouts).toBeUndefined();
    expect(parseDurationMs('--x', '500ms')).toBe(500);
    expect(parseDurationMs('--x', '1.5h')).toBe(5_400_000);
    for (const [flags, re] of [
      [{ timeoutIdle: 'abc' }, /^--timeout-idle "abc": expected milliseconds or a duration/],
      [{ timeoutFirstByte: '0' }, /^--timeout-first-byte must be a duration > 0/],
      [{ timeoutTotal: '-5s' }, /^--timeout-total "-5s": expected/],
      [{ timeoutTotal: '30d' }, /^--timeout-total "30d": expected/],
      [{ timeoutTotal: '999h' }, /^--timeout-total 999h is too long/],
      [{ retries: '-1' }, /^--retries must be an integer from 0 to 100/],
      [{ retries: '1.5' }, /^--retries must be an integer/],
    ] as const) {
      expect(() => planRun({ scenario: 'Server', ...flags }), JSON.stringify(flags)).toThrow(UsageError);
      expect(() => planRun({ scenario: 'Server', ...flags })).toThrow(re);
    }
  });

  test('config keys, with flags winning', () => {
    const file = writeText(
      dir,
      'timeouts.yaml',
      'scenario: Server\ntimeout-first-byte: 45s\ntimeoutIdle: 2000\ntimeout_total: 10m\nretries: 1\n',
    );
    const plan = planRun(mergeFlags(readConfigFile(file), { retries: '2' }));
    expect(plan.options.timeouts).toEqual({ firstByteMs: 45_000, idleMs: 2000, totalMs: 600_000 });
    expect(plan.options.retry).toEqual({ maxRetries: 2 });
    const bad = writeText(dir, 'bad-timeout.yaml', 'timeoutIdle: true\n');
    expect(() => readConfigFile(bad)).toThrow(
      /'timeoutIdle' must be milliseconds or a duration such as 30s or 5m, got boolean true/,
    );
    const bad2 = writeText(dir, 'bad-timeout2.yaml', 'timeoutTotal: soon\n');
    expect(() => readConfigFile(bad2)).toThrow(/'timeoutTotal' "soon": expected milliseconds or a duration/);
    const bad3 = writeText(dir, 'bad-retries.yaml', 'retries: 2.5\n');
    expect(() => readConfigFile(bad3)).toThrow(/'retries' must be an integer/);
  });

  test('a server that stalls mid-stream gives up after --timeout-idle, not 2 minutes', async () => {
    // The health check's test request goes through; every request after it stalls after 2 tokens, forever.
    const config = writeText(
      dir,
      'stall.yaml',
      'simulator:\n  faults:\n    - { kind: slow-headers, ms: 0, count: 1, match: { path: /v1/completions } }\n    - { kind: stall, afterTokens: 2, match: { path: /v1/completions } }\n',
    );
    const out = join(dir, 'stall');
    const r = await runCli(
      cli,
      [
        'run',
        '--config',
        config,
        '--scenario',
        'Server',
        '--target-qps',
        '20',
        '--set',
        'min_duration=500',
        '--set',
        'min_query_count=10',
        '--timeout-idle',
        '300ms',
        '--retries',
        '0',
        '--output-dir',
        out,
      ],
      dir,
      60_000,
    );
    expect(r.code, explain(r)).toBe(3);
    const j = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(j.errors.kinds['idle-timeout'], explain(r)).toBe(j.errors.failedSamples);
    expect(j.errors.failedSamples).toBeGreaterThanOrEqual(10);
  });
});

describe('the output directory is checked before it is made', () => {
  test('pseudo filesystems and a file in the way are refused at once, with one line', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    for (const [outdir, re] of [
      ['/proc/x', /--output-dir \/proc\/x: \/proc is on the \/proc pseudo filesystem/],
      ['/proc/self/x/y', /pseudo filesystem/],
      ['/sys/x', /\/sys pseudo filesystem/],
      ['/dev/x', /\/dev pseudo filesystem/],
      [join(file, 'sub'), /a-file is a file, not a directory/],
      [file, /a file is in the way/],
    ] as const) {
      expect(() => checkOutputDir(outdir), outdir).toThrow(re);
    }
    expect(checkOutputDir(join(dir, 'new', 'deeper'))).toBe(join(dir, 'new', 'deeper'));
    expect(existsSync(join(dir, 'new'))).toBe(false);

    // Node's recursive mkdir spins forever on /proc: the CLI refuses it at once.
    const r = await runCli(cli, ['run', '--scenario', 'Server', '--output-dir', '/proc/x'], dir, 20_000);
    expect(r.code, explain(r)).toBe(2);
    expect(lines(r.stderr), explain(r)).toEqual([
      expect.stringMatching(/^loadgen run: --output-dir \/proc\/x: .*pseudo filesystem/),
    ]);
  });
});
