// Whatever ends a process (or a test) while the engine runs, the process
// ends: the engine's threads never keep it alive, and the logs written so
// far stay readable. Each case runs in a child process with a time bound
// that only catches a hang (the process is killed and the case fails).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { cleanupTempDirs, FIXTURES_DIR, makeTempDir } from '../helpers.js';

const FIXTURE = join(FIXTURES_DIR, 'ending-run.mjs');
const HANG_LIMIT_MS = 20_000;

interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  killedForHanging: boolean;
  stdout: string;
  stderr: string;
}

function runFixture(
  how: string,
  outdir: string,
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
): Promise<Ending> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FIXTURE, how, outdir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killedForHanging = false;
    const timer = setTimeout(() => {
      killedForHanging = true;
      child.kill('SIGKILL');
    }, HANG_LIMIT_MS);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, killedForHanging, stdout, stderr });
    });
  });
}

const outdir = (): string => makeTempDir('lg-ending-');
afterAll(cleanupTempDirs);

/** The logs an aborted test leaves: a summary naming the abort, a detail log of whole JSON lines, a parseable accuracy log. */
function expectReadableAbortedLogs(dir: string, reason: string): void {
  const summary = readFileSync(join(dir, 'mlperf_log_summary.txt'), 'utf8');
  expect(summary).toContain(`Test aborted: ${reason}`);
  const detail = readFileSync(join(dir, 'mlperf_log_detail.txt'), 'utf8').trim().split('\n');
  for (const line of detail) {
    expect(line.startsWith(':::MLLOG ')).toBe(true);
    JSON.parse(line.slice(':::MLLOG '.length));
  }
  expect(detail.some((l) => l.includes('"error_runtime"') && l.includes(reason))).toBe(true);
  expect(() => JSON.parse(readFileSync(join(dir, 'mlperf_log_accuracy.json'), 'utf8'))).not.toThrow();
}

describe('a process that ends while a test runs', () => {
  it('process.exit() inside a SUT callback exits with its code, logs intact', async () => {
    const dir = outdir();
    const r = await runFixture('exit', dir);
    expect(r.killedForHanging).toBe(false);
    expect(r.code).toBe(7);
    expectReadableAbortedLogs(dir, 'the process is exiting');
  });

  it('an uncaught exception in a timer ends the process', async () => {
    const dir = outdir();
    const r = await runFixture('timer-throw', dir);
    expect(r.killedForHanging).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('thrown in a timer');
    expectReadableAbortedLogs(dir, 'the process is exiting');
  });

  it('an unhandled rejection during startTest ends the process', async () => {
    const dir = outdir();
    const r = await runFixture('unhandled', dir);
    expect(r.killedForHanging).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nobody handles this');
    expectReadableAbortedLogs(dir, 'the process is exiting');
  });

  it('a worker thread that runs the test and calls process.exit ends, and so does the process', async () => {
    const dir = outdir();
    const r = await runFixture('worker-exit', dir);
    expect(r.killedForHanging).toBe(false);
    expect(r.stdout).toContain('WORKER_EXIT 7');
    expect(r.code).toBe(0);
    expectReadableAbortedLogs(dir, 'the process is exiting');
  });

  it('SIGINT ends the test (startTest rejects) and the process', async () => {
    const dir = outdir();
    let sent = false;
    const r = await runFixture('sigint', dir, (text, child) => {
      if (!sent && text.includes('STARTED')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(r.killedForHanging).toBe(false);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('REJECTED test aborted: SIGINT');
    expectReadableAbortedLogs(dir, 'SIGINT');
  });
});

describe('a callback that fails aborts the test and rejects startTest with its error', () => {
  for (const [how, message] of [
    ['sync-issue', 'issueQuery threw'],
    ['async-issue', 'issueQuery rejected'],
    ['async-load', 'loadSamplesToRam rejected'],
    ['async-flush', 'flushQueries rejected'],
  ] as const) {
    it(how, async () => {
      const dir = outdir();
      const r = await runFixture(how, dir);
      expect(r.killedForHanging).toBe(false);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`REJECTED ${message}`);
      expect(readFileSync(join(dir, 'mlperf_log_summary.txt'), 'utf8')).toContain('Test aborted');
    });
  }
});
