// How issued samples reach the adapter: straight from the engine's thread
// into the worker threads' native queues, through issueQuery when a user's
// SUT wraps the adapter, and parked as plain numbers while every slot is
// taken.
import { describe, expect, test } from 'vitest';

import {
  abortTest,
  createLlmSut,
  startTest,
  TestAbortedError,
  TestMode,
  TestScenario,
  type QuerySample,
  type SystemUnderTest,
} from '../../lib/index.js';
import { native } from '../../lib/core/binding.js';
import {
  expectedIds,
  hexToInt32,
  idDataset,
  logPaths,
  offlineRun,
  readAccuracy,
  readDetail,
  serverRun,
  sim,
  track,
} from './helpers.js';
import { DIST_INDEX, makeTempDir, runTest } from '../helpers.js';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

describe('engine -> worker hand-over', () => {
  test('with worker threads the engine feeds the workers directly: issueQuery on the main thread is never called', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(30, 4), workers: 2 }));
    let calls = 0;
    const original = llm.sut.issueQuery;
    llm.sut.issueQuery = (samples: QuerySample[]) => {
      calls++;
      original(samples);
    };
    const { result } = await serverRun(llm, 30);
    expect(calls).toBe(0);
    expect(result.errors.count).toBe(0);
    const r = await llm.report();
    expect(r.samples).toEqual({ issued: 30, completed: 30, failed: 0, retried: 0 });
    // Round robin over the two queues.
    expect(s.records().filter((x) => x.requestId !== null)).toHaveLength(30);
  });

  test('a SUT that wraps the adapter goes through issueQuery and gets the same answers', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(20, 5), workers: 2 }));
    let calls = 0;
    const wrapper: SystemUnderTest = {
      name: 'wrapper',
      issueQuery: (samples) => {
        calls += samples.length;
        llm.sut.issueQuery(samples);
      },
      flushQueries: () => undefined,
    };
    const { outdir } = await runTest(wrapper, llm.qsl, {
      scenario: TestScenario.Server,
      mode: TestMode.AccuracyOnly,
      serverTargetQps: 500,
      useTokenLatencies: true,
    });
    expect(calls).toBe(20);
    const entries = readAccuracy(logPaths(outdir).accuracy);
    expect(entries).toHaveLength(20);
    for (const e of entries) expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 5));
  });

  test.each([
    [TestScenario.SingleStream, 1],
    [TestScenario.MultiStream, 4],
  ] as const)(
    '%s with worker threads: the next query is issued from the worker that completed the last one',
    async (scenario, perQuery) => {
      const s = await sim({ flavor: 'vllm', decodeStepNs: 100_000 });
      const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(16, 3), workers: 2 }));
      const { result } = await runTest(llm.sut, llm.qsl, {
        scenario,
        mode: TestMode.PerformanceOnly,
        minDurationMs: 0,
        minQueryCount: 12,
        multiStreamSamplesPerQuery: perQuery,
        useTokenLatencies: true,
        ttftLatencyNs: 10e9,
        tpotLatencyNs: 10e9,
      });
      expect(result.errors.count).toBe(0);
      const r = await llm.report();
      expect(r.samples.failed).toBe(0);
      expect(r.samples.completed).toBe(r.samples.issued);
      expect(r.samples.issued).toBeGreaterThanOrEqual(12 * perQuery);
      // One query at a time: never more requests at once than one query's samples (per worker).
      expect(r.peakInFlight).toBeLessThanOrEqual(2 * perQuery);
    },
  );

  test('one Offline query is split over the workers and every sample comes back', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(50, 3), workers: 3 }));
    const { result } = await offlineRun(llm, 301);
    expect(result.errors.count).toBe(0);
    expect((await llm.report()).samples).toEqual({ issued: 301, completed: 301, failed: 0, retried: 0 });
  });

  test.each([0, 1])('after close() (workers: %i) a test with the adapter ends at once, saying why', async (workers) => {
    const s = await sim({ flavor: 'vllm' });
    const llm = await createLlmSut({ endpoints: [s.url], dataset: idDataset(4), workers });
    await llm.close();
    await expect(serverRun(llm, 4)).rejects.toThrow(/the adapter was closed/);
  });

  test('queues: bad arguments are refused with a message, pushes before a worker attaches are kept', () => {
    expect(() => native.workerQueuesCreate(0)).toThrow(/at least one queue/);
    const g = native.workerQueuesCreate(2);
    try {
      expect(() => native.workerQueueWaiting(g, 2)).toThrow(/out of range/);
      expect(() => native.workerQueuesPush(g, new Float64Array(2), 2)).toThrow(/more pairs than the array holds/);
      native.workerQueuesPush(g, Float64Array.from([7, 1, 8, 2, 9, 3]), 3);
      // Split evenly (2 + 1), starting with queue 0.
      expect(native.workerQueueWaiting(g, 0) + native.workerQueueWaiting(g, 1)).toBe(3);
      expect(Math.max(native.workerQueueWaiting(g, 0), native.workerQueueWaiting(g, 1))).toBe(2);
    } finally {
      native.workerQueuesRelease(g);
    }
    expect(() => native.workerQueueWaiting(g, 0)).toThrow(/unknown or released/);
  });

  test('queues deliver on the thread that attached, in order, in one call per wake-up', async () => {
    const g = native.workerQueuesCreate(1);
    const got: number[] = [];
    native.workerQueuesPush(g, Float64Array.from([1, 10, 2, 20]), 2); // before attaching: kept
    await new Promise<void>((resolve) => {
      native.workerQueueAttach(g, 0, (pairs, n) => {
        for (let i = 0; i < 2 * n; i++) got.push(pairs[i]);
        if (got.length >= 6) resolve();
      });
      native.workerQueuesPush(g, Float64Array.from([3, 30]), 1);
    });
    expect(got).toEqual([1, 10, 2, 20, 3, 30]);
    expect(() => native.workerQueueAttach(g, 0, () => undefined)).toThrow(/already attached/);
    native.workerQueueDetach(g, 0);
    native.workerQueuesRelease(g);
  });
});

describe('samples waiting for a slot', () => {
  test.each([0, 1])(
    'Offline with a cap of 4 (workers: %i): every sample answered, at most cap requests held at once',
    async (workers) => {
      const s = await sim({ flavor: 'vllm', decodeStepNs: 200_000 });
      const llm = track(
        await createLlmSut({ endpoints: [{ url: s.url, maxInFlight: 4 }], dataset: idDataset(64, 6), workers }),
      );
      await offlineRun(llm, 400);
      const r = await llm.report();
      expect(r.samples).toEqual({ issued: 400, completed: 400, failed: 0, retried: 0 });
      // 396 samples waited; none of them held a request object while waiting.
      expect(r.peakInFlight).toBeLessThanOrEqual(4);
      expect(r.peakInFlight).toBeGreaterThan(0);
    },
  );

  test('samples still waiting when the total deadline passes fail with "deadline", and the run ends', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(
      await createLlmSut({
        endpoints: [{ url: s.url, maxInFlight: 1 }],
        dataset: idDataset(8, 5),
        workers: 0,
        retry: { maxRetries: 0 },
        timeouts: { firstByteMs: 10_000, idleMs: 10_000, totalMs: 400 },
        breaker: { failureThreshold: 1000 },
        onWarning: () => {},
      }),
    );
    s.injectFaults([{ kind: 'stall', afterTokens: 1, count: 1 }]);
    const { result } = await offlineRun(llm, 8);
    const r = await llm.report();
    // The stalled request and the 7 behind it (one slot) all end at the deadline.
    expect(r.samples.failed).toBe(8);
    expect(r.errorKinds.deadline).toBe(8);
    expect(result.errors.count).toBeGreaterThan(0);
  });

  test('closing the adapter with samples waiting fails them at once ("closed")', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = await createLlmSut({
      endpoints: [{ url: s.url, maxInFlight: 1 }],
      dataset: idDataset(6, 5),
      workers: 0,
      timeouts: { firstByteMs: 60_000, idleMs: 60_000, totalMs: 60_000 },
      onWarning: () => {},
    });
    s.injectFaults([{ kind: 'stall', afterTokens: 1, count: 1 }]);
    const run = startTest(
      llm.sut,
      llm.qsl,
      {
        scenario: TestScenario.Offline,
        mode: TestMode.PerformanceOnly,
        offlineExpectedQps: 1000,
        minDurationMs: 0,
        minQueryCount: 6,
      },
      { outdir: makeTempDir() },
      { auditConfig: null },
    );
    while ((await llm.report()).samples.issued < 6) await new Promise((r) => setTimeout(r, 10));
    await llm.close();
    await run.catch(() => undefined);
    const r = await llm.report();
    expect(r.samples.failed).toBe(6);
    expect(r.errorKinds.closed).toBe(6);
  });

  test.each([0, 1])(
    'after an aborted test (workers: %i) the next test starts clean: what was held for the old one is dropped, not sent',
    async (workers) => {
      const s = await sim({ flavor: 'vllm', decodeStepNs: 50_000_000 });
      const llm = track(
        await createLlmSut({
          endpoints: [{ url: s.url, maxInFlight: 4 }],
          dataset: idDataset(64, 10),
          workers,
          onWarning: () => {},
        }),
      );
      const first = offlineRun(llm, 200);
      while ((await llm.report()).samples.issued < 200) await new Promise((r) => setTimeout(r, 10));
      abortTest('the operator stopped it');
      await expect(first).rejects.toBeInstanceOf(TestAbortedError);
      const sentBefore = s.records().filter((x) => x.requestId !== null).length;

      // Without the drop, these 8 would wait behind ~196 parked half-second requests.
      const { result, outdir } = await offlineRun(llm, 8);
      expect(result.errors.count).toBe(0);
      expect(result.counts.samples).toBe(8);
      const r = await llm.report();
      expect(r.errorKinds.superseded).toBeGreaterThanOrEqual(190);
      // After the abort: the new test's 8, and at most one old request per slot
      // that freed before the new test began; none of the other ~190 parked ones.
      const sentAfter = s.records().filter((x) => x.requestId !== null).length - sentBefore;
      expect(sentAfter).toBeGreaterThanOrEqual(8);
      expect(sentAfter).toBeLessThanOrEqual(8 + 4);
      // The new test's detail log says nothing about the old test's samples.
      expect(readDetail(logPaths(outdir).detail).filter((d) => d.key === 'error_runtime')).toHaveLength(0);
    },
    30_000,
  );

  test('a script that never calls close() still exits when it is done, after its last report()', async () => {
    const dir = makeTempDir();
    const script = join(dir, 'no-close.mjs');
    writeFileSync(
      script,
      `const lib = await import(${JSON.stringify(pathToFileURL(DIST_INDEX).href)});
const s = await lib.startSimulator({ flavor: 'vllm' });
const llm = await lib.createLlmSut({ endpoints: [s.url], dataset: { name: 'd', size: 4, prompt: (i) => ({ tokenIds: [1, i], maxTokens: 3 }) }, workers: 2 });
await lib.startTest(llm.sut, llm.qsl, { scenario: 'Offline', mode: 'PerformanceOnly', minDurationMs: 0, minQueryCount: 8, offlineExpectedQps: 10 }, { outdir: ${JSON.stringify(dir)} }, { auditConfig: null });
await s.close();
const r = await llm.report(); // the workers' replies keep the process alive while awaited
console.log('completed', r.samples.completed);
`,
    );
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [script], { timeout: 30_000 }, (err, stdout) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout }),
      );
      void child;
    });
    expect(out.stdout.trim()).toBe('completed 8');
    expect(out.code).toBe(0);
  }, 40_000);
});
