// Shared pieces of the adapter tests: a small token-id dataset, a short
// Server/Offline/accuracy run, and readers for what the logs hold.
import { afterAll } from 'vitest';

import { TestMode, TestScenario, type Dataset, type LlmSut, type TestSettings } from '../../lib/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../lib/sim/index.js';
import { hashIds, outputTokenId } from '../../lib/sim/tokens.js';
import { cleanupTempDirs, logPaths, readAccuracy, readDetail, runTest, type Run } from '../helpers.js';

export { logPaths, readAccuracy, readDetail };

const sims: Simulator[] = [];
const llms: LlmSut[] = [];

afterAll(async () => {
  await Promise.all(llms.splice(0).map((l) => l.close()));
  await Promise.all(sims.splice(0).map((s) => s.close()));
  cleanupTempDirs();
});

export async function sim(options: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator(options);
  sims.push(s);
  return s;
}

/** Keeps the adapter for closing after the file's tests. */
export function track<T extends LlmSut>(llm: T): T {
  llms.push(llm);
  return llm;
}

/** Token-id prompts: sample i has prompt [1, 100 + i, 7] and `maxTokens` output tokens. */
export function idDataset(size: number, maxTokens = 8): Dataset {
  return { name: 'ids', size, prompt: (i) => ({ tokenIds: [1, 100 + i, 7], maxTokens }) };
}

/** Text prompts for the chat API. */
export function textDataset(size: number, maxTokens = 8): Dataset {
  return { name: 'text', size, prompt: (i) => ({ text: `prompt number ${i}`, maxTokens }) };
}

/** The ids the simulator generates for a token-id prompt. */
export function expectedIds(prompt: number[], n: number): number[] {
  const h = hashIds(prompt);
  return Array.from({ length: n }, (_, pos) => outputTokenId(h, pos, 0));
}

export function hexToInt32(hex: string): number[] {
  const b = Buffer.from(hex, 'hex');
  const out: number[] = [];
  for (let i = 0; i + 4 <= b.length; i += 4) out.push(b.readInt32LE(i));
  return out;
}

/** Generous latency bounds: these runs check behaviour, not speed. */
const LOOSE: Partial<TestSettings> = { ttftLatencyNs: 10e9, tpotLatencyNs: 10e9, serverTargetLatencyNs: 10e9 };

export function serverRun(llm: LlmSut, queries: number, extra: Partial<TestSettings> = {}): Promise<Run> {
  return runTest(llm.sut, llm.qsl, {
    scenario: TestScenario.Server,
    mode: TestMode.PerformanceOnly,
    serverTargetQps: 200,
    minDurationMs: 0,
    minQueryCount: queries,
    useTokenLatencies: true,
    ...LOOSE,
    ...extra,
  });
}

export function accuracyRun(
  llm: LlmSut,
  scenario: TestScenario = TestScenario.Server,
  extra: Partial<TestSettings> = {},
): Promise<Run> {
  return runTest(llm.sut, llm.qsl, {
    scenario,
    mode: TestMode.AccuracyOnly,
    serverTargetQps: 500,
    useTokenLatencies: true,
    ...LOOSE,
    ...extra,
  });
}

/** One Offline query of `samples` samples. */
export function offlineRun(llm: LlmSut, samples: number, extra: Partial<TestSettings> = {}): Promise<Run> {
  return runTest(llm.sut, llm.qsl, {
    scenario: TestScenario.Offline,
    mode: TestMode.PerformanceOnly,
    offlineExpectedQps: 1000,
    minDurationMs: 0,
    minQueryCount: samples,
    useTokenLatencies: true,
    ...extra,
  });
}
