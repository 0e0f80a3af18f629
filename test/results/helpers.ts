// RunRecords from real short runs: a custom JS SUT (no SUT report) and the LLM
// adapter against two simulators (per-endpoint stats and per-sample timings).
import { afterAll } from 'vitest';

import {
  createLlmSut,
  engineVersion,
  testProgress,
  TestMode,
  TestScenario,
  type LlmSut,
  type TestSettings,
} from '../../lib/index.js';
import type { RunRecord, TimelinePoint } from '../../lib/results/run-record.js';
import { startSimulator, type Simulator } from '../../lib/sim/index.js';
import { cleanupTempDirs, makeTempDir, nullQsl, runTest, tokenSut, delayedSut } from '../helpers.js';

const sims: Simulator[] = [];
const llms: LlmSut[] = [];

afterAll(async () => {
  await Promise.all(llms.splice(0).map((l) => l.close()));
  await Promise.all(sims.splice(0).map((s) => s.close()));
  cleanupTempDirs();
});

/** Samples testProgress() every 100 ms while `run` is pending. */
async function withTimeline<T>(run: () => Promise<T>): Promise<{ value: T; timeline: TimelinePoint[] }> {
  const timeline: TimelinePoint[] = [];
  const t0 = Date.now();
  const tick = () => {
    const p = testProgress();
    if (!p.running) return;
    timeline.push({
      tMs: Date.now() - t0,
      issuedSamples: p.issuedSamples,
      completedSamples: p.completedSamples,
      inFlight: p.issuedSamples - p.completedSamples,
      outputTokens: 0,
      errors: 0,
    });
  };
  const timer = setInterval(tick, 100);
  try {
    return { value: await run(), timeline };
  } finally {
    clearInterval(timer);
  }
}

function baseRecord(
  partial: Pick<RunRecord, 'result' | 'sut' | 'timeline' | 'outdir' | 'settings' | 'endpoints' | 'simulated'> &
    Partial<RunRecord>,
  startedAt: Date,
): RunRecord {
  return {
    tool: { name: '@x/loadgen', version: '0.1.0-test', engineVersion },
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    command: ['loadgen', 'run', '--test'],
    benchmark: null,
    dataset: { name: 'ids', path: null, size: 64, preset: null },
    ...partial,
  };
}

/** A custom SUT run (no adapter report). Offline by default: no TTFT/TPOT. */
export async function customRecord(
  scenario: 'Offline' | 'SingleStream' | 'MultiStream' | 'Server' = 'Offline',
  extra: Partial<TestSettings> = {},
): Promise<RunRecord> {
  const settings: Partial<TestSettings> = {
    scenario: TestScenario[scenario],
    mode: TestMode.PerformanceOnly,
    minDurationMs: scenario === 'Offline' ? 0 : 300,
    minQueryCount: scenario === 'Offline' ? 200 : 64,
    offlineExpectedQps: 1000,
    serverTargetQps: 300,
    singleStreamExpectedLatencyNs: 1_000_000,
    multiStreamExpectedLatencyNs: 2_000_000,
    multiStreamSamplesPerQuery: 4,
    ...extra,
  };
  const started = new Date();
  const sut =
    scenario === 'Offline'
      ? tokenSut({ name: 'Custom<SUT>&"x"', timing: 'immediate' })
      : delayedSut('timeout', 1, 'Custom<SUT>&"x"');
  const { value: run, timeline } = await withTimeline(() => runTest(sut, nullQsl(64), settings));
  return baseRecord(
    {
      result: run.result,
      sut: null,
      timeline,
      outdir: run.outdir,
      settings: settings as Record<string, unknown>,
      endpoints: [],
      simulated: false,
    },
    started,
  );
}

/** The LLM adapter against two simulated endpoints, Server with token latencies, timings recorded. */
export async function llmRecord(
  options: { queries?: number; qps?: number; outdir?: string; minDurationMs?: number } = {},
): Promise<RunRecord> {
  const a = await startSimulator({ flavor: 'vllm', decodeStepNs: 300_000 });
  const b = await startSimulator({ flavor: 'vllm', decodeStepNs: 600_000 });
  sims.push(a, b);
  const dataset = { name: 'ids', size: 64, prompt: (i: number) => ({ tokenIds: [1, 100 + i, 7], maxTokens: 8 }) };
  const llm = await createLlmSut({
    endpoints: [a.url, b.url],
    dataset,
    workers: 0,
    recordTimings: true,
    onWarning: () => {},
  });
  llms.push(llm);
  const queries = options.queries ?? 150;
  const settings: Partial<TestSettings> = {
    scenario: TestScenario.Server,
    mode: TestMode.PerformanceOnly,
    serverTargetQps: options.qps ?? 150,
    minDurationMs: options.minDurationMs ?? 1000,
    minQueryCount: queries,
    useTokenLatencies: true,
    ttftLatencyNs: 10e9,
    tpotLatencyNs: 10e9,
    serverTargetLatencyNs: 10e9,
  };
  const started = new Date();
  const outdir = options.outdir ?? makeTempDir();
  const { value: run, timeline } = await withTimeline(() => runTest(llm.sut, llm.qsl, settings, { outdir }));
  const sut = await llm.report();
  return baseRecord(
    {
      result: run.result,
      sut,
      timeline,
      outdir: run.outdir,
      settings: settings as Record<string, unknown>,
      endpoints: [a.url, b.url].map((url) => ({
        url,
        backend: llm.backend,
        api: llm.api,
        model: llm.model,
        serverVersion: null,
      })),
      simulated: true,
      benchmark: 'llama3_1-8b',
    },
    started,
  );
}
