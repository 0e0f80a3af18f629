// The adapter against the simulator, for each backend and wire API: what it
// sends, what it reports to the engine (first token, all ids, counts), and
// the harness timings against the simulator's own records.
import { describe, expect, test } from 'vitest';

import { createLlmSut, TestScenario } from '../../lib/index.js';
import type { SimFlavor } from '../../lib/sim/index.js';
import { hashIds, tokenizeChat } from '../../lib/sim/tokens.js';
import type { WireApiName } from '../../lib/sut/types.js';
import {
  accuracyRun,
  expectedIds,
  hexToInt32,
  idDataset,
  logPaths,
  readAccuracy,
  serverRun,
  sim,
  textDataset,
  track,
} from './helpers.js';

const MATRIX: [SimFlavor, WireApiName][] = [
  ['vllm', 'completions'],
  ['vllm', 'chat'],
  ['sglang', 'completions'],
  ['sglang', 'chat'],
  ['sglang', 'generate'],
];

// SGLang's OpenAI routes sent no generated ids before 2026 (the simulator is such a server).
const source = (flavor: SimFlavor, api: WireApiName) =>
  api === 'generate' ? 'output_ids' : flavor === 'vllm' ? 'token_ids' : 'none';

describe.each(MATRIX)('%s %s', (flavor, api) => {
  test('auto-detects the backend, sends every sampling field, completes every sample with ids and counts', async () => {
    const s = await sim({ flavor, decodeStepNs: 200_000 });
    const dataset = api === 'chat' ? textDataset(20, 6) : idDataset(20, 6);
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset,
        api,
        workers: 0,
        recordTimings: true,
        sampling: { seed: 7 },
        onWarning: () => {},
      }),
    );
    expect(llm.backend).toBe(flavor);
    expect(llm.capabilities.tokenSource).toBe(source(flavor, api));
    const { result, outdir } = await serverRun(llm, 20);
    const report = await llm.report();
    expect(report.samples.failed).toBe(0);
    expect(report.samples.completed).toBe(report.samples.issued);
    // (Too few queries for early stopping to pass: validity is not the point here.)
    expect(result.errors.messages).toEqual([]);

    const reqs = s.records().filter((r) => r.requestId !== null);
    expect(reqs.length).toBe(report.samples.issued);
    for (const r of reqs) {
      const b = r.body as Record<string, unknown>;
      const sp = (api === 'generate' ? b.sampling_params : b) as Record<string, unknown>;
      expect(sp.temperature).toBe(0);
      expect(sp.top_p).toBe(1);
      expect(sp.top_k).toBe(-1);
      expect(sp[api === 'generate' ? 'min_new_tokens' : 'min_tokens']).toBe(1);
      expect(sp.ignore_eos).toBe(false);
      expect(sp[api === 'generate' ? 'sampling_seed' : 'seed']).toBe(7);
      expect(b.stream).toBe(true);
      expect(r.outputTokens).toBe(6);
    }
    // The engine saw every token count: its token throughput is 6 tokens a sample.
    const detail = logPaths(outdir).detail;
    expect(detail).toBeTruthy();
    // Harness timings are causal against the simulator's clock (the same steady clock).
    const byId = new Map(reqs.map((r) => [r.requestId, r]));
    for (const t of report.timings!) {
      const r = byId.get(String(t.id))!;
      expect(r).toBeDefined();
      expect(t.ok).toBe(true);
      expect(t.tokens).toBe(6);
      expect(t.issuedNs).toBeLessThanOrEqual(t.dispatchedNs);
      expect(t.dispatchedNs).toBeLessThanOrEqual(t.sentNs);
      expect(t.sentNs).toBeLessThanOrEqual(r.receivedNs);
      expect(t.firstTokenNs).toBeGreaterThanOrEqual(r.firstTokenNs!);
      expect(t.endNs).toBeGreaterThanOrEqual(t.firstTokenNs);
    }
  });

  test('accuracy log: all output ids as int32 LE, the first token as token_data, token_count = length', async () => {
    const s = await sim({ flavor, tokensPerChunk: 3 });
    const dataset = api === 'chat' ? textDataset(12, 7) : idDataset(12, 7);
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset, api, workers: 0, onWarning: () => {} }));
    const { outdir } = await accuracyRun(llm);
    const withIds = source(flavor, api) !== 'none';
    const entries = readAccuracy(logPaths(outdir).accuracy);
    expect(entries.length).toBe(12);
    for (const e of entries) {
      const prompt =
        api === 'chat'
          ? tokenizeChat([{ role: 'user', content: `prompt number ${e.qsl_idx}` }])
          : [1, 100 + e.qsl_idx, 7];
      const ids = hexToInt32(e.data);
      expect(ids).toEqual(withIds ? expectedIds(prompt, 7) : []);
      expect(hexToInt32(e.token_data!)).toEqual(ids.slice(0, 1));
      expect(e.token_count).toBe(7);
      expect(e.data).toBe(e.data.toUpperCase());
    }
    const report = await llm.report();
    // Three tokens a chunk after the first: most chunks carried several.
    expect(report.chunks.multiTokenFraction).toBeGreaterThanOrEqual(0.5);
    expect(report.chunks.tokensPerChunk).toBeGreaterThan(1.5);
  });
});

describe('older servers', () => {
  test('no return_token_ids: ids from logprobs token_id strings', async () => {
    const s = await sim({ flavor: 'vllm', returnTokenIds: false });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(6, 5), workers: 0 }));
    expect(llm.capabilities.tokenSource).toBe('logprobs');
    const { outdir } = await accuracyRun(llm);
    for (const e of readAccuracy(logPaths(outdir).accuracy))
      expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 5));
  });

  test('no ids at all: counts from usage, empty data, one warning saying the accuracy log cannot be scored', async () => {
    const s = await sim({ flavor: 'vllm', returnTokenIds: false, logprobsTokenIds: false });
    const warnings: string[] = [];
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset: idDataset(6, 5),
        workers: 0,
        onWarning: (m) => warnings.push(m),
      }),
    );
    expect(llm.capabilities.tokenSource).toBe('none');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/accuracy log cannot be scored/);
    const { outdir } = await accuracyRun(llm);
    const entries = readAccuracy(logPaths(outdir).accuracy);
    expect(entries.length).toBe(6);
    for (const e of entries) {
      expect(e.data).toBe('');
      expect(e.token_count).toBe(5);
    }
    const sent = s.records().filter((r) => r.requestId !== null)[0].body as Record<string, unknown>;
    expect(sent.stream_options).toEqual({ include_usage: true, continuous_usage_stats: true });
    expect((await llm.report()).warnings[0]).toMatch(/cannot be scored/);
  });

  test('SGLang delta output_ids are read the same as cumulative ones', async () => {
    const s = await sim({ flavor: 'sglang', sglangOutputIds: 'delta', tokensPerChunk: 2 });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(5, 9), api: 'generate', workers: 0 }),
    );
    const { outdir } = await accuracyRun(llm);
    for (const e of readAccuracy(logPaths(outdir).accuracy))
      expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 9));
  });

  test('EOS before max tokens: the count includes EOS, as the server counts it', async () => {
    const s = await sim({ flavor: 'vllm', eosAfter: 4 });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: idDataset(4, 10), workers: 0 }));
    const { outdir } = await accuracyRun(llm, TestScenario.Offline);
    for (const e of readAccuracy(logPaths(outdir).accuracy)) {
      const ids = hexToInt32(e.data);
      expect(ids.length).toBe(4);
      expect(ids[3]).toBe(2);
      expect(e.token_count).toBe(4);
    }
    expect(hashIds([1])).toBeGreaterThan(0);
  });
});
