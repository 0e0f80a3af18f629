// The measurement verdict on real runs against the built-in simulator: a
// quiet run says trustworthy; a run whose harness is starved on purpose (the
// adapter on the main thread, which a busy loop holds 150 ms of every 200)
// says harness-limited with the reason, and --strict makes it exit 8. Only
// the verdict is asserted: no timing figure.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { runBenchmark, type Dataset } from '../../lib/index.js';
import type { ResultsJson } from '../../lib/results/results-json.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { buildCli, type CliRun } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-measure-'));
let cli = '';
let cleanup = (): void => undefined;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
}, 120_000);
afterAll(() => {
  cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const dataset: Dataset = { name: 'tiny', size: 32, prompt: (i) => ({ tokenIds: [1, 2, 3 + i], maxTokens: 8 }) };

/** Holds the calling thread's event loop `busyMs` of every `periodMs`. */
function hog(busyMs: number, periodMs: number): () => void {
  const t = setInterval(() => {
    const end = performance.now() + busyMs;
    while (performance.now() < end);
  }, periodMs - busyMs);
  return () => clearInterval(t);
}

// A starved CLI: the same busy loop, loaded into the child before the CLI.
const HOG = `setInterval(() => { const end = performance.now() + 150; while (performance.now() < end); }, 50).unref();\n`;

// A starved adapter worker: a preload runs in every thread (workers inherit
// execArgv); it hogs the worker threads only, leaving the main thread free.
const WORKER_HOG = `import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) ${HOG.trim()}\n`;

function runNode(nodeArgs: string[], args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, cli, ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOADGEN_DEBUG: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const QUICK = [
  '--scenario',
  'Server',
  '--target-qps',
  '20',
  '--set',
  'minDurationMs=2500',
  '--set',
  'minQueryCount=20',
  '--synthetic-samples',
  '64',
  '--synthetic',
  '16/8',
  '--quiet',
];

describe('the measurement verdict on real runs', () => {
  test('a quiet simulated run is trustworthy', async () => {
    const record = await runBenchmark({
      scenario: 'Server',
      targetQps: 40,
      settings: { minDurationMs: 2500, minQueryCount: 20 },
      dataset,
      // The adapter on the main thread (dist/'s worker script may be older than the source under test).
      workers: 0,
      outdir: join(dir, 'quiet'),
      log: () => undefined,
    });
    const j = JSON.parse(readFileSync(join(dir, 'quiet', 'results.json'), 'utf8')) as ResultsJson;
    expect(j.harness!.reasons).toEqual([]);
    expect(j.harness!.verdict).toBe('trustworthy');
    // What it was decided from is all there.
    expect(j.harness!.unchecked).toEqual([]);
    expect(j.harness!.measurement.eventLoopDelayMs.workers).toHaveLength(1);
    expect(j.harness!.measurement.eventLoopDelayMs.main).not.toBeNull();
    expect(j.harness!.measurement.cpu!.cores).toBeGreaterThan(0);
    expect(j.harness!.measurement.beforeWriteMs!.count).toBe(record.result.counts.samples);
    expect(readFileSync(join(dir, 'quiet', 'report.html'), 'utf8')).toContain('measurement: trustworthy');
  }, 60_000);

  test('a run whose harness is starved is harness-limited, with the reason', async () => {
    const stop = hog(150, 200);
    let record: RunRecord;
    try {
      record = await runBenchmark({
        scenario: 'Server',
        targetQps: 10,
        settings: { minDurationMs: 2500 },
        dataset,
        workers: 0,
        outdir: join(dir, 'starved'),
        log: () => undefined,
      });
    } finally {
      stop();
    }
    const j = JSON.parse(readFileSync(join(dir, 'starved', 'results.json'), 'utf8')) as ResultsJson;
    expect(j.harness!.verdict).toBe('harness-limited');
    expect(j.harness!.reasons.join('\n')).toMatch(/main thread.* was blocked: event-loop delay p99/);
    expect(record.result.counts.samples).toBeGreaterThan(0);
  }, 60_000);

  test('--strict: a starved CLI run exits 8, a quiet one keeps its code', async () => {
    const hogFile = join(dir, 'hog.mjs');
    writeFileSync(hogFile, HOG);
    const starved = await runNode(
      ['--import', hogFile],
      ['run', ...QUICK, '--workers', '0', '--strict', '--output-dir', join(dir, 'strict-starved')],
    );
    expect(starved.stderr).toMatch(/loadgen run: --strict: measurement: harness-limited \(.*was blocked/);
    expect(starved.code, starved.stderr).toBe(8);
    // Without --strict the same starvation is reported, and the exit code is LoadGen's.
    const lenient = await runNode(
      ['--import', hogFile],
      ['run', ...QUICK.filter((a) => a !== '--quiet'), '--workers', '0', '--output-dir', join(dir, 'lenient')],
    );
    expect(lenient.stdout).toMatch(/\n {2}measurement: harness-limited \(/);
    expect([0, 1]).toContain(lenient.code);
    const quiet = await runNode(
      [],
      ['run', ...QUICK, '--workers', '1', '--strict', '--output-dir', join(dir, 'strict-quiet')],
    );
    // The worker thread reported its event-loop delay.
    const j = JSON.parse(readFileSync(join(dir, 'strict-quiet', 'results.json'), 'utf8')) as ResultsJson;
    // --strict leaves a trustworthy run's code alone: LoadGen's (a run this short may miss early stopping's TPOT estimate).
    expect(quiet.code, quiet.stderr).toBe(j.verdict.valid ? 0 : 1);
    expect(j.harness).toMatchObject({ verdict: 'trustworthy', reasons: [], workers: 1 });
    expect(j.harness!.measurement.eventLoopDelayMs.workers).toHaveLength(1);
  }, 240_000);

  test('a run whose adapter worker thread is starved (main thread free) is harness-limited, naming the worker', async () => {
    const hogFile = join(dir, 'worker-hog.mjs');
    writeFileSync(hogFile, WORKER_HOG);
    const r = await runNode(
      ['--import', hogFile],
      ['run', ...QUICK, '--workers', '1', '--strict', '--output-dir', join(dir, 'worker-starved')],
    );
    expect(r.code, r.stderr).toBe(8);
    const j = JSON.parse(readFileSync(join(dir, 'worker-starved', 'results.json'), 'utf8')) as ResultsJson;
    expect(j.harness!.verdict).toBe('harness-limited');
    const reasons = j.harness!.reasons.join('\n');
    expect(reasons).toMatch(/adapter worker 1 was blocked: event-loop delay p99/);
    // The main thread was not the one starved: it is not named as blocked.
    expect(reasons).not.toMatch(/the main thread.* was blocked/);
  }, 120_000);
});
