// Token ids exactly as servers stream them, against the simulator made to
// reproduce three server behaviours: SGLang's live output_ids list serialised
// after it grew past the chunk's completion_tokens; an older vLLM whose
// reasoning/tool parser withholds chunks (ids from logprobs go missing while
// usage counts them); chat chunks with finish_reason after token_ids.
import { describe, expect, test } from 'vitest';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createLlmSut, engineVersion, runBenchmark, TestMode, TestScenario } from '../../lib/index.js';
import { buildResultsJson } from '../../lib/results/results-json.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { tokenizeChat } from '../../lib/sim/tokens.js';
import { makeTempDir } from '../helpers.js';
import {
  accuracyRun,
  expectedIds,
  hexToInt32,
  idDataset,
  logPaths,
  readAccuracy,
  sim,
  textDataset,
  track,
} from './helpers.js';

const chatPrompt = (i: number) => tokenizeChat([{ role: 'user', content: `prompt number ${i}` }]);

describe('SGLang /generate: output_ids longer than completion_tokens', () => {
  for (const tokensPerChunk of [1, 3]) {
    test(`positions [have, completion_tokens) are taken, not the tail (${tokensPerChunk} a chunk)`, async () => {
      const s = await sim({ flavor: 'sglang', outputIdsAhead: 4, tokensPerChunk });
      const llm = track(
        await createLlmSut({ endpoints: [s.url], dataset: idDataset(8, 9), api: 'generate', workers: 0 }),
      );
      const { outdir } = await accuracyRun(llm);
      const entries = readAccuracy(logPaths(outdir).accuracy);
      expect(entries).toHaveLength(8);
      for (const e of entries) {
        expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 9));
        expect(e.token_count).toBe(9);
      }
      expect((await llm.report()).idMismatch.samples).toBe(0);
    });
  }
});

describe('vLLM without return_token_ids: a parser withholds chunks, ids come from logprobs', () => {
  test('the samples go in count-only, one warning names the cause, results.json names the samples', async () => {
    const s = await sim({ flavor: 'vllm', returnTokenIds: false, parserWithholds: 2 });
    const live: string[] = [];
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset: textDataset(6, 5),
        api: 'chat',
        workers: 0,
        onWarning: (m) => live.push(m),
      }),
    );
    expect(llm.capabilities.tokenSource).toBe('logprobs');
    const { result, outdir } = await accuracyRun(llm);
    const entries = readAccuracy(logPaths(outdir).accuracy);
    expect(entries).toHaveLength(6);
    for (const e of entries) {
      // Never a wrong sequence: no ids at all, and the server's count.
      expect(e.data).toBe('');
      expect(e.token_count).toBe(5);
    }
    const report = await llm.report();
    expect(report.samples.failed).toBe(0);
    expect(report.idMismatch.samples).toBe(6);
    expect(report.idMismatch.first.map((m) => m.qslIdx).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const m of report.idMismatch.first) expect(m).toMatchObject({ ids: 3, count: 5 });
    const named = report.warnings.filter((w) => /disagree with usage\.completion_tokens/.test(w));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatch(/^6 samples .*logprobs.*reasoning or tool parser.*return_token_ids/);
    // Not mistaken for a server that sent no ids.
    expect(report.warnings.some((w) => /the server sent none/.test(w))).toBe(false);

    const record: RunRecord = {
      tool: { name: '@x/loadgen', version: '0.1.0-test', engineVersion },
      startedAt: new Date().toISOString(),
      endedAt: new Date().toISOString(),
      command: ['loadgen', 'run', '--test'],
      benchmark: null,
      dataset: { name: 'text', path: null, size: 6, preset: null },
      result,
      sut: report,
      timeline: [],
      outdir,
      settings: {},
      endpoints: [],
      simulated: true,
    };
    const j = buildResultsJson(record);
    expect(j.errors.idMismatch).toEqual(report.idMismatch);
    expect(j.errors.warnings).toContain(named[0]);
  });

  test('runBenchmark: the warning printed once at the end of the run, the samples in results.json', async () => {
    const notes: string[] = [];
    const outdir = makeTempDir();
    await runBenchmark({
      scenario: TestScenario.Offline,
      mode: TestMode.AccuracyOnly,
      simulator: { returnTokenIds: false, parserWithholds: 1, decodeStepNs: 0 },
      api: 'chat',
      dataset: textDataset(5, 4),
      workers: 1,
      metricsIntervalMs: 0,
      outdir,
      log: (m) => notes.push(m),
    });
    const printed = notes.filter((m) => /disagree with usage\.completion_tokens/.test(m));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^warning: 5 samples .*reasoning or tool parser/);
    const j = JSON.parse(readFileSync(join(outdir, 'results.json'), 'utf8'));
    expect(j.errors.idMismatch.samples).toBe(5);
    expect(j.errors.idMismatch.first.map((m: { qslIdx: number }) => m.qslIdx).sort()).toEqual([0, 1, 2, 3, 4]);
  }, 30_000);

  test('with return_token_ids (vLLM 0.10.2+) the same parser loses nothing', async () => {
    const s = await sim({ flavor: 'vllm', parserWithholds: 2 });
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: textDataset(4, 5), api: 'chat', workers: 0 }));
    expect(llm.capabilities.tokenSource).toBe('token_ids');
    const { outdir } = await accuracyRun(llm);
    for (const e of readAccuracy(logPaths(outdir).accuracy))
      expect(hexToInt32(e.data)).toEqual(expectedIds(chatPrompt(e.qsl_idx), 5));
    expect((await llm.report()).idMismatch.samples).toBe(0);
  });
});

describe('chat chunks with finish_reason after token_ids, stream ending without [DONE]', () => {
  for (const nativeOff of [true, false]) {
    test(`the finish is read wherever it sits (${nativeOff ? 'TypeScript decoders' : 'native scanner'})`, async () => {
      const s = await sim({ flavor: 'vllm', finishAfterTokenIds: true, sseDone: false });
      if (nativeOff) process.env.LOADGEN_NO_NATIVE_SSE = '1';
      try {
        const llm = track(
          await createLlmSut({ endpoints: [s.url], dataset: textDataset(6, 4), api: 'chat', workers: 0 }),
        );
        const { outdir } = await accuracyRun(llm, TestScenario.Offline);
        const report = await llm.report();
        expect(report.errorKinds).toEqual({});
        expect(report.samples.failed).toBe(0);
        const entries = readAccuracy(logPaths(outdir).accuracy);
        expect(entries).toHaveLength(6);
        for (const e of entries) expect(hexToInt32(e.data)).toEqual(expectedIds(chatPrompt(e.qsl_idx), 4));
      } finally {
        delete process.env.LOADGEN_NO_NATIVE_SSE;
      }
    });
  }
});
