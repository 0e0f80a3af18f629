// Failures: SUT/QSL exceptions, a second concurrent test, bad response ids,
// abortTest, Ctrl-C in a child process, and the official token-count errors.
// In every case the promise settles and the logs are written and readable.
import { execSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  abortTest,
  querySamplesComplete,
  startTest,
  TestAbortedError,
  type QuerySample,
  type TestResult,
  type TestSettings,
} from '../lib/index.js';
import {
  cleanupTempDirs,
  detailErrors,
  detailValue,
  DIST_INDEX,
  FIXTURES_DIR,
  inlineSut,
  makeTempDir,
  MLPERF_SEEDS,
  nullQsl,
  readAccuracy,
  readDetail,
  readSummary,
  runTest,
  tokenSut,
  type DetailEntry,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

/** Logs of a finished test: the summary exists, the detail log and accuracy JSON parse. */
function checkLogsReadable(result: TestResult): { summary: string[]; detail: DetailEntry[] } {
  expect(existsSync(result.logs.summary)).toBe(true);
  const summary = readSummary(result.logs.summary);
  expect(summary.length).toBeGreaterThan(0);
  const detail = readDetail(result.logs.detail);
  expect(detail.length).toBeGreaterThan(0);
  expect(Array.isArray(readAccuracy(result.logs.accuracy))).toBe(true);
  return { summary, detail };
}

async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await p };
  } catch (error) {
    return { error };
  }
}

const SHORT_SERVER: Partial<TestSettings> = {
  ...MLPERF_SEEDS,
  scenario: 'Server',
  serverTargetQps: 1000,
  minDurationMs: 0,
  minQueryCount: 40,
};

describe('exceptions in SUT and QSL callbacks', () => {
  it('sut.issueQuery throwing rejects with that same error; the logs are written', async () => {
    const boom = new Error('boom from issueQuery');
    let calls = 0;
    const sut = inlineSut();
    const inner = sut.issueQuery.bind(sut);
    sut.issueQuery = (samples: QuerySample[]) => {
      if (++calls === 5) throw boom;
      inner(samples);
    };
    const outdir = makeTempDir();
    const { error } = await settle(
      startTest(
        sut,
        nullQsl(64),
        { ...MLPERF_SEEDS, scenario: 'SingleStream', minDurationMs: 0, minQueryCount: 100 },
        { outdir },
        { auditConfig: null },
      ),
    );
    expect(error).toBe(boom);
    const result = (error as Error & { result?: TestResult }).result;
    expect(result).toBeDefined();
    expect(result!.aborted).toBe(true);
    expect(result!.abortReason).toContain('boom from issueQuery');
    const { detail } = checkLogsReadable(result!);
    expect(detailErrors(detail).some((e) => String(e.value).includes('boom from issueQuery'))).toBe(true);
    // The engine stopped issuing soon after the failure.
    expect(calls).toBeLessThan(100);
  });

  it('qsl.loadSamplesToRam returning a rejected promise rejects with that error; the logs are written', async () => {
    const failure = new Error('disk on fire');
    const qsl = nullQsl(64);
    qsl.loadSamplesToRam = () => Promise.reject(failure);
    const sut = inlineSut();
    const outdir = makeTempDir();
    const { error } = await settle(
      startTest(
        sut,
        qsl,
        { ...MLPERF_SEEDS, scenario: 'Offline', minDurationMs: 0, minQueryCount: 64 },
        { outdir },
        { auditConfig: null },
      ),
    );
    expect(error).toBe(failure);
    const result = (error as Error & { result?: TestResult }).result!;
    expect(result.aborted).toBe(true);
    const { detail, summary } = checkLogsReadable(result);
    expect(sut.issued).toEqual([]);
    expect(detailErrors(detail).some((e) => String(e.value).includes('disk on fire'))).toBe(true);
    expect(summary[summary.length - 1]).toMatch(/ERRORS? encountered/);
  });

  it('qsl.loadSamplesToRam throwing synchronously is handled the same way', async () => {
    const failure = new Error('sync load failure');
    const qsl = nullQsl(64);
    qsl.loadSamplesToRam = () => {
      throw failure;
    };
    const { error } = await settle(
      startTest(
        inlineSut(),
        qsl,
        { scenario: 'Offline', minDurationMs: 0, minQueryCount: 64 },
        { outdir: makeTempDir() },
        { auditConfig: null },
      ),
    );
    expect(error).toBe(failure);
    checkLogsReadable((error as Error & { result: TestResult }).result);
  });

  it('an async load that resolves later is waited for', async () => {
    const qsl = nullQsl(64);
    let loaded = false;
    qsl.loadSamplesToRam = () =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          loaded = true;
          resolve();
        }, 50),
      );
    const sut = inlineSut();
    const inner = sut.issueQuery.bind(sut);
    let issuedBeforeLoad = false;
    sut.issueQuery = (samples) => {
      if (!loaded) issuedBeforeLoad = true;
      inner(samples);
    };
    const { result } = await runTest(sut, qsl, { scenario: 'Offline', minDurationMs: 0, minQueryCount: 64 });
    expect(result.valid).toBe(true);
    expect(issuedBeforeLoad).toBe(false);
  });
});

describe('one test at a time', () => {
  it('a second startTest while one runs throws a clear error; the first finishes normally', async () => {
    const first = startTest(
      inlineSut(),
      nullQsl(64),
      { ...SHORT_SERVER, minDurationMs: 200 },
      { outdir: makeTempDir() },
      { auditConfig: null },
    );
    const secondDir = join(makeTempDir(), 'second');
    expect(() =>
      startTest(inlineSut(), nullQsl(64), SHORT_SERVER, { outdir: secondDir }, { auditConfig: null }),
    ).toThrow(/already running/);
    expect(existsSync(secondDir)).toBe(false);
    const result = await first;
    expect(result.errors.count).toBe(0);
    // And after it settled, a new test can start.
    const { result: again } = await runTest(inlineSut(), nullQsl(64), SHORT_SERVER);
    expect(again.counts.queries).toBeGreaterThan(0);
  });
});

describe('bad response ids', () => {
  it('an unknown id and a twice-completed id are counted, logged as errors, and the run finishes', async () => {
    let done = false;
    const sut = inlineSut();
    sut.issueQuery = (samples: QuerySample[]) => {
      sut.issued.push(...samples);
      querySamplesComplete(samples.map((s) => ({ id: s.id })));
      if (!done) {
        done = true;
        querySamplesComplete([{ id: samples[0].id }]); // twice
        querySamplesComplete([{ id: 123456789 }]); // never issued
      }
    };
    const { result } = await runTest(sut, nullQsl(64), SHORT_SERVER);
    expect(result.errors.unknownIds).toBe(1);
    expect(result.errors.duplicateCompletions).toBe(1);
    expect(result.errors.count).toBe(2);
    expect(result.aborted).toBe(false);
    expect(result.counts.samples).toBe(sut.issued.length);

    const { detail, summary } = checkLogsReadable(result);
    const errors = detailErrors(detail).map((e) => String(e.value));
    expect(errors.length).toBe(2);
    expect(errors.some((m) => m.includes('123456789'))).toBe(true);
    expect(errors).toContain('Attempted to complete a sample twice.');
    expect(detailValue(detail, 'num_errors')).toBe(2);
    expect(summary[summary.length - 1]).toBe('2 ERRORS encountered. See detailed log.');
    expect(result.errors.messages.length).toBe(2);
  });

  it('a late answer to an earlier test is ignored by the next one (ids never repeat within a process)', async () => {
    // Test 1 ends with samples the SUT never answered (aborted); the SUT
    // answers them during test 2, as an adapter would when the server's
    // responses arrive late. Sequence ids restart at 0 in test 2, but the ids
    // handed to the SUT do not, so the stale answers cannot complete test 2's
    // samples (before, they matched test 2's first ids).
    const held: number[] = [];
    const first = inlineSut();
    first.issueQuery = (samples: QuerySample[]) => {
      first.issued.push(...samples);
      for (const s of samples) held.push(s.id);
      if (held.length >= 5) setImmediate(() => abortTest('leave them unanswered'));
    };
    await settle(runTest(first, nullQsl(64), SHORT_SERVER));
    expect(held.length).toBeGreaterThanOrEqual(5);

    let stale = true;
    const second = inlineSut();
    second.issueQuery = (samples: QuerySample[]) => {
      second.issued.push(...samples);
      if (stale) {
        stale = false;
        querySamplesComplete(held.map((id) => ({ id })));
      }
      querySamplesComplete(samples.map((s) => ({ id: s.id })));
    };
    const { result } = await runTest(second, nullQsl(64), SHORT_SERVER);
    expect(second.issued.some((s) => held.includes(s.id))).toBe(false);
    expect(result.errors.count).toBe(0);
    expect(result.errors.unknownIds).toBe(0);
    expect(result.errors.duplicateCompletions).toBe(0);
    expect(result.counts.samples).toBe(second.issued.length);
  });

  it('completions with no test running are ignored without throwing', () => {
    expect(() => querySamplesComplete([{ id: 1 }, { id: 2 }])).not.toThrow();
  });
});

describe('abortTest', () => {
  it('mid-run: rejects with TestAbortedError carrying the result; the logs are readable', async () => {
    const sut = inlineSut();
    const inner = sut.issueQuery.bind(sut);
    sut.issueQuery = (samples) => {
      inner(samples);
      if (sut.issued.length === 20) setImmediate(() => abortTest('enough for this test'));
    };
    const outdir = makeTempDir();
    const { error } = await settle(
      startTest(
        sut,
        nullQsl(64),
        { ...MLPERF_SEEDS, scenario: 'Server', serverTargetQps: 200, minDurationMs: 60_000 },
        { outdir },
        { auditConfig: null },
      ),
    );
    expect(error).toBeInstanceOf(TestAbortedError);
    const err = error as TestAbortedError;
    expect(err.message).toContain('enough for this test');
    expect(err.result.aborted).toBe(true);
    expect(err.result.abortReason).toBe('enough for this test');
    // Stopped long before the 60 s schedule's ~12000 queries.
    expect(sut.issued.length).toBeLessThan(1000);
    const { detail, summary } = checkLogsReadable(err.result);
    expect(detailErrors(detail).map((e) => e.value)).toContain('Test aborted: enough for this test');
    expect(summary.join('\n')).toContain('enough for this test');
    expect(err.result.logs.summary.startsWith(outdir)).toBe(true);
  });
});

describe('abortTest: more cases', () => {
  it('ends a test whose SUT never answers (the promise still settles, logs readable)', async () => {
    const sut = inlineSut();
    sut.issueQuery = (samples) => {
      sut.issued.push(...samples); // never completed
      setTimeout(() => abortTest('SUT hung'), 50);
    };
    const { error } = await settle(
      startTest(
        sut,
        nullQsl(64),
        { scenario: 'Offline', minDurationMs: 0, minQueryCount: 64 },
        { outdir: makeTempDir() },
        { auditConfig: null },
      ),
    );
    expect(error).toBeInstanceOf(TestAbortedError);
    const result = (error as TestAbortedError).result;
    expect(result.abortReason).toBe('SUT hung');
    expect(sut.issued.length).toBe(64);
    checkLogsReadable(result);
  });

  it('abortTest() with no test running does not affect the next test', async () => {
    abortTest('nothing to abort');
    const { result } = await runTest(inlineSut(), nullQsl(64), {
      scenario: 'Offline',
      minDurationMs: 0,
      minQueryCount: 64,
    });
    expect(result.aborted).toBe(false);
    expect(result.valid).toBe(true);
  });

  it('sut.flushQueries throwing rejects with that error', async () => {
    const failure = new Error('flush failed');
    const sut = inlineSut();
    sut.flushQueries = () => {
      throw failure;
    };
    const { error } = await settle(
      startTest(
        sut,
        nullQsl(64),
        { scenario: 'Offline', minDurationMs: 0, minQueryCount: 64 },
        { outdir: makeTempDir() },
        { auditConfig: null },
      ),
    );
    expect(error).toBe(failure);
    checkLogsReadable((error as Error & { result: TestResult }).result);
  });
});

describe('SIGINT', () => {
  beforeAll(() => {
    if (!existsSync(DIST_INDEX)) execSync('npm run build:ts', { stdio: 'inherit' });
  });

  it('a child process running a long test exits cleanly on SIGINT with its logs written', async () => {
    const outdir = makeTempDir();
    const child = spawn(process.execPath, [join(FIXTURES_DIR, 'sigint-run.mjs'), outdir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!signalled && stdout.includes('started\n')) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const { code, signal } = await exit;
    clearTimeout(timer);

    expect(signalled, `stdout: ${stdout}\nstderr: ${stderr}`).toBe(true);
    expect(signal, stderr).toBeNull();
    expect(code, stderr).toBe(0);
    const marker = stdout.split('\n').find((l) => l.startsWith('REJECTED_') || l === 'RESOLVED');
    expect(marker, `stdout: ${stdout}\nstderr: ${stderr}`).toMatch(/^REJECTED_ABORTED /);
    const info = JSON.parse(marker!.slice('REJECTED_ABORTED '.length)) as {
      aborted: boolean;
      abortReason: string;
      logs: TestResult['logs'];
    };
    expect(info.aborted).toBe(true);
    expect(info.abortReason).toBe('SIGINT');

    const summary = join(outdir, 'mlperf_log_summary.txt');
    expect(info.logs.summary).toBe(summary);
    expect(readFileSync(summary, 'utf8')).toContain('SIGINT');
    const detail = readDetail(join(outdir, 'mlperf_log_detail.txt'));
    expect(detailErrors(detail).map((e) => e.value)).toContain('Test aborted: SIGINT');
    expect(Array.isArray(readAccuracy(join(outdir, 'mlperf_log_accuracy.json')))).toBe(true);
    JSON.parse(readFileSync(join(outdir, 'mlperf_log_trace.json'), 'utf8'));
  });
});

describe('token latencies: the official error counts', () => {
  // Server, 20 queries of one sample: with minDurationMs 0 the schedule has
  // exactly minQueryCount queries, so every count below is exact.
  const TOKENS: Partial<TestSettings> = {
    ...MLPERF_SEEDS,
    scenario: 'Server',
    serverTargetQps: 2000,
    minDurationMs: 0,
    minQueryCount: 20,
    useTokenLatencies: true,
    ttftLatencyNs: 2_000_000_000,
    tpotLatencyNs: 200_000_000,
  };
  const N = 20;

  async function tokenRun(options: Parameters<typeof tokenSut>[0]) {
    const sut = tokenSut(options);
    const { result } = await runTest(sut, nullQsl(64), TOKENS);
    expect(sut.issued.length).toBe(N);
    const { detail, summary } = checkLogsReadable(result);
    const messages = detailErrors(detail).map((e) => String(e.value));
    return { result, detail, summary, messages };
  }

  it('well-formed responses (100 tokens, first token first): no errors', async () => {
    const { result, messages } = await tokenRun({ nTokens: 100 });
    expect(messages).toEqual([]);
    expect(result.errors.count).toBe(0);
    expect(result.counts.tokens).toBe(100 * N);
  });

  it('nTokens 0: one error per sample', async () => {
    const { result, detail, messages } = await tokenRun({ nTokens: 0 });
    expect(result.errors.tokenCountErrors).toBe(N);
    expect(
      messages.filter((m) => m === 'n_tokens argument missing or attempted to record 0 as number of tokens').length,
    ).toBe(N);
    expect(result.errors.count).toBe(N);
    expect(detailValue(detail, 'num_errors')).toBe(N);
  });

  it('nTokens missing: the same error as 0', async () => {
    const { result, messages } = await tokenRun({ nTokens: undefined });
    expect(result.errors.tokenCountErrors).toBe(N);
    expect(
      messages.filter((m) => m === 'n_tokens argument missing or attempted to record 0 as number of tokens').length,
    ).toBe(N);
    expect(result.errors.count).toBe(N);
  });

  it('nTokens 1: one error per sample', async () => {
    const { result, detail, messages } = await tokenRun({ nTokens: 1 });
    expect(result.errors.tokenCountErrors).toBe(N);
    expect(messages.filter((m) => m === 'Number of tokens need to be greater than 1').length).toBe(N);
    expect(result.errors.count).toBe(N);
    expect(detailValue(detail, 'num_errors')).toBe(N);
  });

  it('no first token before completion: one error per sample', async () => {
    const { result, summary, messages } = await tokenRun({ nTokens: 100, firstToken: false });
    expect(result.errors.missingFirstTokens).toBe(N);
    expect(
      messages.filter((m) => m === "Attempted to record a sample latency before it's first token latency").length,
    ).toBe(N);
    expect(result.errors.count).toBe(N);
    expect(summary[summary.length - 1]).toBe(`${N} ERRORS encountered. See detailed log.`);
  });

  it('Offline needs no first token: no error without one', async () => {
    const sut = tokenSut({ nTokens: 100, firstToken: false });
    const { result } = await runTest(sut, nullQsl(64), { ...TOKENS, scenario: 'Offline', minQueryCount: 64 });
    expect(result.errors.count).toBe(0);
    expect(result.errors.missingFirstTokens).toBe(0);
    expect(result.counts.tokens).toBe(100 * 64);
  });
});

describe('log files that cannot be written', () => {
  it('a log directory that cannot be created rejects with a message naming it', async () => {
    const blocker = join(makeTempDir(), 'a-file');
    writeFileSync(blocker, 'not a directory');
    const outdir = join(blocker, 'logs');
    await expect(
      startTest(inlineSut(), nullQsl(), { scenario: 'Offline', minDurationMs: 0 }, { outdir }, { auditConfig: null }),
    ).rejects.toThrow(/cannot create log directory '.*a-file\/logs'/);
    // The engine is free again afterwards.
    const ok = await startTest(
      inlineSut(),
      nullQsl(),
      { scenario: 'Offline', minDurationMs: 0 },
      { outdir: makeTempDir() },
      { auditConfig: null },
    );
    expect(ok.valid).toBe(true);
  });
});
