// Reliability: every fault the simulator can inject, and what the adapter
// does with it. Retries only before the first token; a sample that finally
// fails is completed with nTokens 0, counted, and written to the detail log.
import { describe, expect, test } from 'vitest';

import { createLlmSut, type LlmSutOptions } from '../../lib/index.js';
import type { SimFaultRule, SimFlavor } from '../../lib/sim/index.js';
import type { WireApiName } from '../../lib/sut/types.js';
import { idDataset, logPaths, readDetail, serverRun, sim, track } from './helpers.js';

const FAST: Partial<LlmSutOptions> = {
  workers: 0,
  retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
  timeouts: { firstByteMs: 400, idleMs: 400, totalMs: 5000 },
  breaker: { failureThreshold: 1000 },
  onWarning: () => {},
};

async function runWith(
  flavor: SimFlavor,
  api: WireApiName,
  faults: SimFaultRule[],
  queries = 6,
  extra: Partial<LlmSutOptions> = {},
  maxTokens = 5,
) {
  const s = await sim({ flavor, decodeStepNs: 100_000 });
  const llm = track(
    await createLlmSut({ endpoints: [s.url], dataset: idDataset(queries, maxTokens), api, ...FAST, ...extra }),
  );
  s.injectFaults(faults);
  const run = await serverRun(llm, queries);
  const report = await llm.report();
  const detail = readDetail(logPaths(run.outdir).detail);
  const sutErrors = detail.filter((d) => d.key === 'error_runtime' && String(d.value).includes('failed after'));
  return { s, llm, run, report, sutErrors };
}

const APIS: [SimFlavor, WireApiName][] = [
  ['vllm', 'completions'],
  ['sglang', 'generate'],
];

describe.each(APIS)('%s %s', (flavor, api) => {
  test.each([429, 500, 503] as const)(
    'HTTP %i before the stream: retried, then every sample succeeds',
    async (status) => {
      const { report, sutErrors } = await runWith(flavor, api, [{ kind: 'status', status, count: 2 }]);
      expect(report.samples.failed).toBe(0);
      expect(report.samples.retried).toBe(2);
      expect(report.endpoints[0].errorKinds[`http-${status}`]).toBe(2);
      expect(sutErrors).toHaveLength(0);
    },
  );

  test('HTTP 400 is not retried: the sample fails with nTokens 0, is counted and logged', async () => {
    const { report, sutErrors, run } = await runWith(flavor, api, [{ kind: 'status', status: 400, count: 1 }]);
    expect(report.samples.failed).toBe(1);
    expect(report.samples.retried).toBe(0);
    expect(report.errorKinds['http-400']).toBe(1);
    expect(sutErrors).toHaveLength(1);
    expect(String(sutErrors[0].value)).toMatch(/http-400: HTTP 400/);
    // The engine saw a completion with 0 tokens for it (token latencies need > 1).
    expect(run.result.errors.count).toBeGreaterThanOrEqual(1);
  });

  test('connection reset before any byte: retried', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'reset-before', count: 1 }]);
    expect(report.samples.failed).toBe(0);
    expect(report.samples.retried).toBe(1);
    expect(report.errorKinds['connection-reset'] ?? 0).toBe(0); // the sample itself did not fail
    expect(report.endpoints[0].errorKinds['connection-reset']).toBe(1);
  });

  test('connection reset after the first token: not retried (its latency is already measured), the sample fails', async () => {
    const { report, s } = await runWith(flavor, api, [{ kind: 'reset-during', afterTokens: 2, count: 1 }]);
    expect(report.samples.failed).toBe(1);
    expect(report.samples.retried).toBe(0);
    expect(report.errorKinds['connection-reset']).toBe(1);
    expect(s.records().filter((r) => r.fault === 'reset-during')).toHaveLength(1);
  });

  test('a stall mid-stream ends at the idle timeout; the run does not hang', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'stall', afterTokens: 2, count: 1 }]);
    expect(report.samples.failed).toBe(1);
    expect(report.errorKinds['idle-timeout']).toBe(1);
  });

  test('a stall before the headers is a first-byte timeout, retried', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'stall', afterTokens: 0, count: 1 }]);
    expect(report.samples.failed).toBe(0);
    expect(report.endpoints[0].errorKinds['first-byte-timeout']).toBe(1);
  });

  test('slow headers beyond the first-byte timeout: retried', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'slow-headers', ms: 1000, count: 1 }]);
    expect(report.samples.failed).toBe(0);
    expect(report.samples.retried).toBe(1);
  });

  test('slow headers within the first-byte timeout are waited for, not cut', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'slow-headers', ms: 200, count: 2 }]);
    expect(report.samples.failed).toBe(0);
    expect(report.samples.retried).toBe(0);
    expect(report.endpoints[0].errorKinds['first-byte-timeout']).toBeUndefined();
  });

  test('a malformed chunk after the first token fails the sample; the process does not crash', async () => {
    const { report } = await runWith(flavor, api, [{ kind: 'malformed-chunk', afterTokens: 2, count: 1 }]);
    expect(report.samples.failed).toBe(1);
    expect(report.errorKinds['malformed-stream']).toBe(1);
  });

  test('a malformed chunk after the first token: the adapter closes that stream at once', async () => {
    // The simulator goes on streaming after the bad chunk: 2,000 tokens at
    // 0.1 ms a step would take 0.2 s more, so the stream is cut by the client.
    const { report, s } = await runWith(
      flavor,
      api,
      [{ kind: 'malformed-chunk', afterTokens: 2, count: 1 }],
      2,
      {},
      2000,
    );
    expect(report.samples.failed).toBe(1);
    const hit = s.records().filter((r) => r.fault === 'malformed-chunk');
    expect(hit).toHaveLength(1);
    expect(hit[0].clientAborted).toBe(true);
    expect(hit[0].outputTokens).toBeLessThan(2000);
  });

  test('an error event before the first token is retried; after it, the sample fails', async () => {
    const early = await runWith(flavor, api, [{ kind: 'error-event', afterTokens: 0, count: 1 }]);
    expect(early.report.samples.failed).toBe(0);
    expect(early.report.samples.retried).toBe(1);
    const late = await runWith(flavor, api, [{ kind: 'error-event', afterTokens: 2, count: 1 }]);
    expect(late.report.samples.failed).toBe(1);
    expect(late.report.errorKinds['error-event']).toBe(1);
  });
});

describe('limits', () => {
  test('retries are bounded: a server that always answers 503 fails each sample after maxRetries + 1 attempts', async () => {
    const { report, s } = await runWith('vllm', 'completions', [{ kind: 'status', status: 503 }], 3);
    expect(report.samples.failed).toBe(3);
    expect(report.samples.retried).toBe(6);
    expect(s.records().filter((r) => r.requestId !== null)).toHaveLength(9);
  });

  test('Retry-After is honoured (capped by the backoff ceiling)', async () => {
    const { report } = await runWith(
      'vllm',
      'completions',
      [{ kind: 'status', status: 429, retryAfterS: 1, count: 1 }],
      2,
    );
    expect(report.samples.failed).toBe(0);
    expect(report.samples.retried).toBe(1);
  });

  test('the total deadline ends a sample whatever happens', async () => {
    const { report } = await runWith('vllm', 'completions', [{ kind: 'stall', afterTokens: 1, count: 1 }], 2, {
      timeouts: { firstByteMs: 10_000, idleMs: 10_000, totalMs: 300 },
    });
    expect(report.samples.failed).toBe(1);
    expect(report.errorKinds.deadline).toBe(1);
  });

  test('failures beyond the detail-log cap are counted, not written one by one', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(10, 3), ...FAST, retry: { maxRetries: 0 } }),
    );
    s.injectFaults([{ kind: 'status', status: 400 }]);
    const run = await serverRun(llm, 10);
    expect((await llm.report()).samples.failed).toBe(10);
    const lines = readDetail(logPaths(run.outdir).detail).filter(
      (d) => d.key === 'error_runtime' && String(d.value).includes('failed after'),
    );
    expect(lines).toHaveLength(10);
  });
});
