// Worker threads, Offline batching and thousands of concurrent streams.
import { describe, expect, test } from 'vitest';

import { createLlmSut } from '../../lib/index.js';
import {
  accuracyRun,
  expectedIds,
  hexToInt32,
  idDataset,
  logPaths,
  offlineRun,
  readAccuracy,
  sim,
  track,
} from './helpers.js';
import { TestScenario } from '../../lib/index.js';

describe('worker threads', () => {
  test('two workers: every sample answered from the workers, ids intact in the accuracy log', async () => {
    const s = await sim({ flavor: 'vllm', tokensPerChunk: 2 });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(40, 6), workers: 2, recordTimings: true }),
    );
    const { outdir } = await accuracyRun(llm, TestScenario.Server);
    const entries = readAccuracy(logPaths(outdir).accuracy);
    expect(entries).toHaveLength(40);
    for (const e of entries) {
      expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 6));
      expect(hexToInt32(e.token_data!)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 1));
    }
    const r = await llm.report();
    expect(r.workers).toBe(2);
    expect(r.samples.completed).toBe(40);
    expect(r.timings).toHaveLength(40);
    await llm.close();
    // close() is idempotent and the final report survives it.
    await llm.close();
    expect((await llm.report()).samples.completed).toBe(40);
  });
});

describe('Offline batching', () => {
  test.each([
    ['vllm', 'completions'],
    ['sglang', 'generate'],
  ] as const)('%s %s: batched prompts in one non-streaming request, ids per sample', async (flavor, api) => {
    const s = await sim({ flavor });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(30, 5), api, workers: 0, batchSize: 8 }),
    );
    const { outdir } = await accuracyRun(llm, TestScenario.Offline);
    for (const e of readAccuracy(logPaths(outdir).accuracy))
      expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 5));
    const reqs = s.records().filter((r) => r.requestId !== null);
    expect(reqs.length).toBe(4); // 8 + 8 + 8 + 6
    const body = reqs[0].body as Record<string, unknown>;
    expect(body.stream).toBe(false);
    expect(Array.isArray(body[api === 'generate' ? 'input_ids' : 'prompt'])).toBe(true);
    expect((body[api === 'generate' ? 'input_ids' : 'prompt'] as unknown[]).length).toBe(8);
  });

  test('a server without per-prompt ids refuses batching up front', async () => {
    const s = await sim({ flavor: 'sglang' });
    await expect(
      createLlmSut({
        endpoints: [s.url],
        dataset: idDataset(4),
        api: 'completions',
        workers: 0,
        batchSize: 4,
        onWarning: () => {},
      }),
    ).rejects.toThrow(/batchSize 4/);
  });
});

describe('scale', () => {
  test('4 workers sustain 2,000 concurrent streams with no error and no lost sample', async () => {
    const s = await sim({ flavor: 'vllm', maxRunningSeqs: 4096, decodeStepNs: 100_000_000 });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(2000, 80), workers: 4 }));
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, s.stats().running)), 5);
    const { result } = await offlineRun(llm, 2000);
    clearInterval(timer);
    const r = await llm.report();
    expect(r.samples).toEqual({ issued: 2000, completed: 2000, failed: 0, retried: 0 });
    expect(r.endpoints[0].outputTokens).toBe(160_000);
    expect(peak).toBeGreaterThanOrEqual(1900);
    expect(result.errors.count).toBe(0);
  }, 120_000);
});

describe('non-streaming', () => {
  test('stream: false sends one JSON body per sample and reads ids and counts from it', async () => {
    const s = await sim({ flavor: 'vllm' });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(10, 4), workers: 0, stream: false }));
    const { outdir } = await accuracyRun(llm, TestScenario.Offline);
    for (const e of readAccuracy(logPaths(outdir).accuracy))
      expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 4));
    expect(
      s
        .records()
        .filter((r) => r.requestId !== null)
        .every((r) => (r.body as { stream: boolean }).stream === false),
    ).toBe(true);
  });
});

describe('native scanner and TypeScript decoders', () => {
  // The same server and samples read once through native/sse and once with
  // the native path switched off: the accuracy logs and the chunk counts
  // must be the same, stream and non-stream.
  for (const stream of [true, false]) {
    test(`${stream ? 'streams' : 'whole bodies'}: identical accuracy logs and counts`, async () => {
      const s = await sim({ flavor: 'vllm', tokensPerChunk: 3 });
      const runOnce = async (nativeOff: boolean) => {
        if (nativeOff) process.env.LOADGEN_NO_NATIVE_SSE = '1';
        try {
          const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(12, 7), workers: 0, stream }));
          const { outdir } = await accuracyRun(llm, TestScenario.Offline);
          const byIdx = new Map(
            readAccuracy(logPaths(outdir).accuracy).map((e) => [e.qsl_idx, [e.data, e.token_count]]),
          );
          const r = await llm.report();
          return { byIdx, chunks: r.chunks, tokens: r.endpoints[0].outputTokens };
        } finally {
          delete process.env.LOADGEN_NO_NATIVE_SSE;
        }
      };
      const a = await runOnce(false);
      const b = await runOnce(true);
      expect(a.byIdx.size).toBe(12);
      expect(a.byIdx).toEqual(b.byIdx);
      expect(a.chunks).toEqual(b.chunks);
      expect(a.tokens).toBe(12 * 7);
      for (const [idx, [data]] of a.byIdx)
        expect(hexToInt32(data as string)).toEqual(expectedIds([1, 100 + (idx as number), 7], 7));
    });
  }
});
