// Many endpoints: routing, weights, caps, health at start-up, the circuit
// breaker moving traffic away from a failing node, per-endpoint statistics.
import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';

import { createLlmSut, EndpointError, probeEndpoint } from '../../lib/index.js';
import type { BreakerOptions, EndpointConfig, RetryOptions } from '../../lib/sut/types.js';
import { idDataset, offlineRun, serverRun, sim, track } from './helpers.js';

async function deadUrl(): Promise<string> {
  // A port that was just free: nothing listens there.
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}`;
}

/** One simulator behind an adapter with the given breaker, retry and total-deadline settings (in-process). */
async function breakerSut(
  endpoint: (url: string) => EndpointConfig | string,
  samples: number,
  breaker: BreakerOptions,
  retry: RetryOptions,
  totalMs?: number,
) {
  const a = await sim({ flavor: 'vllm' });
  const llm = track(
    await createLlmSut({
      endpoints: [endpoint(a.url)],
      dataset: idDataset(samples, 4),
      workers: 0,
      breaker,
      retry,
      timeouts: totalMs === undefined ? undefined : { totalMs },
      onWarning: () => {},
    }),
  );
  return { a, llm };
}

describe('endpoints', () => {
  test('least outstanding requests spreads a concurrent load; weights shift it; per-endpoint stats add up', async () => {
    const a = await sim({ flavor: 'vllm', decodeStepNs: 1_000_000 });
    const b = await sim({ flavor: 'vllm', decodeStepNs: 1_000_000 });
    const llm = track(
      await createLlmSut({
        endpoints: [
          { url: a.url, weight: 1 },
          { url: `${b.url}/v1`, weight: 3 },
        ],
        dataset: idDataset(200, 10),
        workers: 0,
      }),
    );
    await offlineRun(llm, 200);
    const r = await llm.report();
    expect(r.samples.completed).toBe(200);
    const [ea, eb] = r.endpoints;
    expect(ea.requests + eb.requests).toBe(200);
    expect(eb.requests).toBeGreaterThan(ea.requests * 2);
    expect(ea.outputTokens + eb.outputTokens).toBe(2000);
    expect(ea.ttftMs.count).toBe(ea.completed);
    expect(eb.tpotMs.count).toBe(eb.completed);
    expect(eb.latencyMs.p99).toBeGreaterThanOrEqual(eb.latencyMs.p50);
  });

  test('per-endpoint in-flight caps bound what each server sees at once', async () => {
    const a = await sim({ flavor: 'vllm', decodeStepNs: 500_000 });
    const llm = track(
      await createLlmSut({ endpoints: [{ url: a.url, maxInFlight: 5 }], dataset: idDataset(60, 6), workers: 0 }),
    );
    const seen: number[] = [];
    const timer = setInterval(() => seen.push(a.stats().running + a.stats().waiting), 1);
    await offlineRun(llm, 60);
    clearInterval(timer);
    expect(Math.max(...seen)).toBeLessThanOrEqual(5);
    expect((await llm.report()).samples.completed).toBe(60);
  });

  test('an endpoint down at start-up is skipped; the run goes to the healthy one', async () => {
    const a = await sim({ flavor: 'vllm' });
    const dead = await deadUrl();
    const llm = track(
      await createLlmSut({
        endpoints: [dead, a.url],
        dataset: idDataset(20, 4),
        workers: 0,
        breaker: { cooldownMs: 60_000 },
      }),
    );
    expect(llm.probes[0].healthy).toBe(false);
    expect(llm.probes[0].error).toMatch(/ECONNREFUSED/);
    await serverRun(llm, 20);
    const r = await llm.report();
    expect(r.samples.failed).toBe(0);
    expect(r.endpoints[0].requests).toBe(0);
  });

  test('no endpoint answers: a clear error naming each one', async () => {
    const d1 = await deadUrl();
    const d2 = await deadUrl();
    await expect(createLlmSut({ endpoints: [d1, d2], dataset: idDataset(2), workers: 0 })).rejects.toThrow(
      EndpointError,
    );
    await expect(createLlmSut({ endpoints: [d1, d2], dataset: idDataset(2), workers: 0 })).rejects.toThrow(
      new RegExp(`no endpoint answered.*${d1.replace(/[/.:]/g, '.')}.*ECONNREFUSED`),
    );
  });

  test('bad endpoint URLs and options are named', async () => {
    await expect(createLlmSut({ endpoints: ['gpu1:8000'], dataset: idDataset(2) })).rejects.toThrow(
      /must start with http/,
    );
    await expect(createLlmSut({ endpoints: ['not a url'], dataset: idDataset(2) })).rejects.toThrow(/is not a URL/);
    await expect(createLlmSut({ endpoints: [], dataset: idDataset(2) })).rejects.toThrow(/at least one endpoint/);
    await expect(
      createLlmSut({ endpoints: [{ url: 'http://127.0.0.1:1', weight: 0 }], dataset: idDataset(2) }),
    ).rejects.toThrow(/weight must be > 0/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), workers: -1 }),
    ).rejects.toThrow(/workers must be an integer/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), backend: 'tgi' as never }),
    ).rejects.toThrow(/backend must be/);
    // Options are named before any endpoint is contacted (port 1 would fail the health check).
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), breaker: { giveUpMs: -1 } }),
    ).rejects.toThrow(/breaker\.giveUpMs must be a positive number of milliseconds, got -1/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), breaker: { failureThreshold: 0 } }),
    ).rejects.toThrow(/breaker\.failureThreshold/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), timeouts: { idleMs: 0 } }),
    ).rejects.toThrow(/timeouts\.idleMs must be a positive number/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), retry: { maxRetries: 1.5 } }),
    ).rejects.toThrow(/retry\.maxRetries/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), sampling: { maxTokens: 0 } }),
    ).rejects.toThrow(/sampling\.maxTokens/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), stream: true, batchSize: 4 }),
    ).rejects.toThrow(/do not stream/);
    await expect(
      createLlmSut({ endpoints: ['http://127.0.0.1:1'], dataset: idDataset(2), totalSampleCount: 0 }),
    ).rejects.toThrow(/totalSampleCount/);
  });

  test('the circuit breaker opens on a failing node and its traffic moves to the healthy one', async () => {
    const a = await sim({ flavor: 'vllm', decodeStepNs: 200_000 });
    const b = await sim({ flavor: 'vllm', decodeStepNs: 200_000 });
    const llm = track(
      await createLlmSut({
        endpoints: [a.url, b.url],
        dataset: idDataset(60, 4),
        workers: 0,
        breaker: { failureThreshold: 3, cooldownMs: 60_000 },
        retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
      }),
    );
    a.injectFaults([{ kind: 'status', status: 500 }]);
    await serverRun(llm, 60);
    const r = await llm.report();
    expect(r.samples.failed).toBe(0);
    expect(r.endpoints[0].breakerOpened).toBe(1);
    expect(r.endpoints[0].errors).toBeGreaterThanOrEqual(3); // plus those in flight when it opened
    expect(r.endpoints[0].completed).toBe(0);
    expect(r.endpoints[1].completed).toBe(60);
  });

  test('a half-open probe closes the circuit again when the node recovers', async () => {
    const a = await sim({ flavor: 'vllm', decodeStepNs: 2_000_000 });
    const b = await sim({ flavor: 'vllm', decodeStepNs: 2_000_000 });
    const llm = track(
      await createLlmSut({
        endpoints: [a.url, b.url],
        dataset: idDataset(200, 4),
        workers: 0,
        breaker: { failureThreshold: 2, cooldownMs: 20 },
        retry: { maxRetries: 5, baseDelayMs: 1, maxDelayMs: 2 },
      }),
    );
    a.injectFaults([{ kind: 'status', status: 503, count: 2 }]);
    await serverRun(llm, 200, { serverTargetQps: 400 });
    const r = await llm.report();
    expect(r.samples.failed).toBe(0);
    expect(r.endpoints[0].breakerOpened).toBe(1);
    expect(r.endpoints[0].completed).toBeGreaterThan(0);
  });

  test('every circuit stays open: waiting samples fail with "no-healthy-endpoint" after breaker.giveUpMs, not at the total deadline', async () => {
    // The run would wait ten minutes (total deadline) without the give-up.
    const { a, llm } = await breakerSut(
      (url) => url,
      40,
      { failureThreshold: 2, cooldownMs: 100, giveUpMs: 400 },
      { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
      600_000,
    );
    a.injectFaults([{ kind: 'status', status: 500 }]);
    await offlineRun(llm, 40);
    const r = await llm.report();
    expect(r.samples.failed).toBe(40);
    expect(r.errorKinds['no-healthy-endpoint']).toBeGreaterThan(20);
    expect(r.errorKinds['http-500']).toBeGreaterThan(0); // the first ones and the probes
    expect(r.errorKinds.deadline).toBeUndefined();
  });

  test('breaker.giveUpMs 0: samples wait for a healthy endpoint until their total deadline', async () => {
    // One request at a time, so the others wait.
    const { a, llm } = await breakerSut(
      (url) => ({ url, maxInFlight: 1 }),
      10,
      { failureThreshold: 2, cooldownMs: 100, giveUpMs: 0 },
      { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
      800,
    );
    a.injectFaults([{ kind: 'status', status: 500 }]);
    await offlineRun(llm, 10);
    const r = await llm.report();
    expect(r.samples.failed).toBe(10);
    expect(r.errorKinds.deadline).toBeGreaterThan(0);
    expect(r.errorKinds['no-healthy-endpoint']).toBeUndefined();
  });

  test('after a give-up, a probe that succeeds brings the traffic back', async () => {
    const { a, llm } = await breakerSut(
      (url) => url,
      300,
      { failureThreshold: 2, cooldownMs: 60, giveUpMs: 150 },
      { maxRetries: 0 },
    );
    // Two failures open the circuit, then eight failed probes (~480 ms, two
    // sweeps or more past the give-up) strand what waits; the ninth succeeds.
    a.injectFaults([{ kind: 'status', status: 503, count: 10 }]);
    await serverRun(llm, 300, { serverTargetQps: 200 });
    const r = await llm.report();
    expect(r.errorKinds['no-healthy-endpoint']).toBeGreaterThan(0);
    expect(r.endpoints[0].breakerOpened).toBeGreaterThanOrEqual(1);
    expect(r.endpoints[0].completed).toBeGreaterThan(100); // traffic came back after the successful probe
    expect(r.samples.completed + r.samples.failed).toBe(300);
  });

  test('probeEndpoint reports backend, version, models with context length, capabilities and a test request', async () => {
    const v = await sim({ flavor: 'vllm', maxModelLen: 4096, model: 'llama' });
    const p = await probeEndpoint(`${v.url}/v1`);
    expect(p).toMatchObject({
      healthy: true,
      backend: 'vllm',
      version: '0.11.0',
      models: [{ id: 'llama', maxModelLen: 4096, ownedBy: 'vllm' }],
      capabilities: { tokenSource: 'token_ids' },
    });
    expect(p.ttftMs).toBeGreaterThan(0);
    const s = await sim({ flavor: 'sglang', sglangOutputIds: 'delta' });
    const q = await probeEndpoint(s.url);
    expect(q.backend).toBe('sglang');
    expect(q.capabilities).toMatchObject({ tokenSource: 'output_ids', outputIds: 'delta' });
    const dead = await probeEndpoint(await deadUrl());
    expect(dead.healthy).toBe(false);
    expect(dead.error).toMatch(/ECONNREFUSED/);
  });
});
