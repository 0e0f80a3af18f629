// The servers' state around a run, against the simulator: a server busy with
// another client's requests refuses the run (and names the endpoint) unless
// allowBusyServer; identity, start time and prefix-cache counters are
// recorded (a second run sees a warm cache); --warmup N sends N requests the
// results do not count.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { ErrorCode, LoadgenError } from '../../lib/core/errors.js';
import { classifyError } from '../../lib/cli/errors.js';
import { ExitCode } from '../../lib/cli/exit-codes.js';
import { mergeFlags, readConfigFile } from '../../lib/cli/config-file.js';
import { formatSummary, planRun, runCommand } from '../../lib/cli/run-command.js';
import { runBenchmark, startSimulator, type Dataset, type Simulator } from '../../lib/index.js';
import { readServerLoad } from '../../lib/metrics/server-state.js';

const dir = mkdtempSync(join(tmpdir(), 'lg-server-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 12;
const shared = Array.from({ length: 32 }, (_, k) => 700 + k);
const dataset: Dataset = {
  name: 'state',
  size: N,
  prompt: (i) => ({ tokenIds: [...shared, ...Array.from({ length: 16 }, (_, k) => 3000 + 16 * i + k)], maxTokens: 4 }),
};

function run(sim: Simulator, name: string, extra: Record<string, unknown> = {}) {
  return runBenchmark({
    scenario: 'Offline',
    mode: 'AccuracyOnly',
    dataset,
    endpoints: [sim.url],
    workers: 0,
    metricsIntervalMs: 0,
    outdir: join(dir, name),
    log: () => undefined,
    ...extra,
  });
}

/** Another client: `n` long streamed requests that stay running (or waiting) until aborted. */
async function otherClient(sim: Simulator, n: number): Promise<() => Promise<void>> {
  const ac = new AbortController();
  const pending = Array.from({ length: n }, (_, i) =>
    fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim-model',
        prompt: [10 + i, 11, 12],
        max_tokens: 5000,
        ignore_eos: true,
        stream: true,
      }),
      signal: ac.signal,
    }).then(
      (r) => r.text().catch(() => undefined),
      () => undefined,
    ),
  );
  const until = Date.now() + 5000;
  while (sim.stats().running + sim.stats().waiting < n && Date.now() < until)
    await new Promise((r) => setTimeout(r, 10));
  return async () => {
    ac.abort();
    await Promise.all(pending);
  };
}

const generations = (sim: Simulator) => sim.records().filter((r) => r.path === '/v1/completions').length;

describe('a server busy with another client', () => {
  test('the run refuses to start, names the endpoint and the counts, sends nothing; exit code 7', async () => {
    const sim = await startSimulator({
      flavor: 'vllm',
      maxRunningSeqs: 2,
      decodeStepNs: 20_000_000,
      precisePacing: false,
    });
    const stop = await otherClient(sim, 5);
    try {
      const before = generations(sim);
      const err = await run(sim, 'busy').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LoadgenError);
      expect((err as LoadgenError).code).toBe(ErrorCode.ServerBusy);
      const msg = (err as Error).message;
      expect(msg).toContain(`endpoint ${sim.url} is busy: 2 running, 3 waiting requests that are not this run's`);
      expect(msg).toContain('--allow-busy-server');
      expect(classifyError(err).code).toBe(ExitCode.ServerBusy);
      expect(ExitCode.ServerBusy).toBe(7);
      // Not even the adapter's probe reached the server.
      expect(generations(sim)).toBe(before);
    } finally {
      await stop();
      await sim.close();
    }
  }, 60_000);

  test('loadgen run: one line naming the endpoint on stderr, exit 7; --allow-busy-server runs (exit 0)', async () => {
    const sim = await startSimulator({
      flavor: 'vllm',
      maxRunningSeqs: 8,
      decodeStepNs: 5_000_000,
      precisePacing: false,
    });
    const stop = await otherClient(sim, 2);
    let err = '';
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      err += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    const stdout = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      const flags = {
        scenario: 'Offline',
        mode: 'accuracy',
        endpoint: [sim.url],
        workers: 0,
        syntheticSamples: 8,
        synthetic: '16/4',
        metricsInterval: 0,
      };
      const refused = await runCommand({ ...flags, outputDir: join(dir, 'cli-busy') }, []);
      expect(refused).toBe(7);
      expect(err).toContain(
        `loadgen run: endpoint ${sim.url} is busy: 2 running, 0 waiting requests that are not this run's (another client?); --allow-busy-server runs anyway`,
      );
      err = '';
      const allowed = await runCommand({ ...flags, allowBusyServer: true, outputDir: join(dir, 'cli-allowed') }, []);
      expect(allowed, err).toBe(0);
      expect(err).toContain(`warning: endpoint ${sim.url} is busy: 2 running`);
    } finally {
      process.stderr.write = write;
      process.stdout.write = stdout;
      await stop();
      await sim.close();
    }
  }, 60_000);

  test('with allowBusyServer it runs, and results.json says the server was busy at the start', async () => {
    const sim = await startSimulator({
      flavor: 'vllm',
      maxRunningSeqs: 8,
      decodeStepNs: 5_000_000,
      precisePacing: false,
    });
    const stop = await otherClient(sim, 3);
    const logs: string[] = [];
    try {
      const record = await run(sim, 'busy-allowed', { allowBusyServer: true, log: (m: string) => logs.push(m) });
      expect(record.result.counts.samples).toBe(N);
      const j = JSON.parse(readFileSync(join(dir, 'busy-allowed', 'results.json'), 'utf8'));
      expect(j.serverState.allowBusy).toBe(true);
      expect(j.serverState.busyAtStart).toBe(true);
      expect(j.serverState.endpoints[0].atStart).toEqual({ running: 3, waiting: 0, busy: true });
      expect(logs.some((l) => l.startsWith(`warning: endpoint ${sim.url} is busy: 3 running`))).toBe(true);
      expect(formatSummary(record, [])).toContain("a server had another client's requests when the run started");
    } finally {
      await stop();
      await sim.close();
    }
  }, 60_000);

  test('an idle server runs; one without /metrics gets a note, not a refusal', async () => {
    const sim = await startSimulator({ flavor: 'vllm', decodeStepNs: 1_000_000, precisePacing: false });
    try {
      sim.injectFaults([{ kind: 'status', status: 500, match: { path: '/metrics' } }]);
      const logs: string[] = [];
      const record = await run(sim, 'no-metrics', { log: (m: string) => logs.push(m) });
      expect(record.result.counts.samples).toBe(N);
      expect(record.serverState!.busyAtStart).toBe(false);
      expect(record.serverState!.endpoints[0].atStart).toBeNull();
      expect(record.serverState!.endpoints[0].metricsNote).toContain('500');
      expect(logs.some((l) => l.includes('/metrics answered 500'))).toBe(true);
    } finally {
      await sim.close();
    }
  }, 60_000);
});

describe('identity, start time, prefix cache, warm-up', () => {
  test('vLLM: identity and uptime recorded; the cache is fresh at the first run and warm at the second', async () => {
    const sim = await startSimulator({
      flavor: 'vllm',
      prefixCache: true,
      maxModelLen: 4096,
      decodeStepNs: 1_000_000,
      precisePacing: false,
    });
    try {
      const first = await run(sim, 'fresh');
      const s1 = first.serverState!.endpoints[0];
      expect(s1.identity).toMatchObject({ version: '0.11.0', model: 'sim-model', maxModelLen: 4096 });
      expect(s1.flavor).toBe('vllm');
      expect(s1.startedAt).not.toBeNull();
      expect(s1.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(s1.uptimeSeconds).toBeLessThan(60);
      expect(s1.prefixCache.start).toEqual({ queries: 0, hits: 0, hitRate: null });
      expect(s1.prefixCache.end!.queries).toBeGreaterThan(0);
      expect(s1.prefixCache.end!.hits).toBeGreaterThan(0);
      const second = await run(sim, 'warm');
      const s2 = second.serverState!.endpoints[0];
      expect(s2.prefixCache.start).toEqual(s1.prefixCache.end);
      expect(s2.prefixCache.start!.hitRate).toBeGreaterThan(0);
      // The same server: the same start time.
      expect(s2.startedAt).toBe(s1.startedAt);
      const j = JSON.parse(readFileSync(join(dir, 'warm', 'results.json'), 'utf8'));
      expect(j.serverState.endpoints[0].prefixCache.start.queries).toBe(s1.prefixCache.end!.queries);
      expect(j.serverState.endpoints[0].identity.version).toBe('0.11.0');
      const html = readFileSync(join(dir, 'warm', 'report.html'), 'utf8');
      expect(html).toContain(`${sim.url}: vllm 0.11.0 model sim-model max length 4096, up`);
      expect(html).toContain('idle at the start; prefix cache at the start:');
    } finally {
      await sim.close();
    }
  }, 60_000);

  test('SGLang: version and engine config from /get_server_info, the cache-hit-rate gauge', async () => {
    const sim = await startSimulator({
      flavor: 'sglang',
      prefixCache: true,
      decodeStepNs: 1_000_000,
      precisePacing: false,
    });
    try {
      const record = await run(sim, 'sglang', { api: 'generate' });
      const s = record.serverState!.endpoints[0];
      expect(s.flavor).toBe('sglang');
      expect(s.identity.version).toBe('0.5.4');
      expect(s.identity.engineConfig).toMatchObject({ served_model_name: 'sim-model', context_length: 8192 });
      expect(s.prefixCache.start).toEqual({ queries: null, hits: null, hitRate: 0 });
      expect(s.prefixCache.end!.hitRate).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  }, 60_000);

  test('--warmup N: the server gets N more requests; no figure of the results counts them', async () => {
    const sim = await startSimulator({ flavor: 'vllm', decodeStepNs: 1_000_000, precisePacing: false });
    try {
      const base = await run(sim, 'no-warmup');
      const afterBase = generations(sim);
      const logs: string[] = [];
      const record = await run(sim, 'warmup', { warmup: 5, log: (m: string) => logs.push(m) });
      // Each run: the probe's test request and the N samples; this one 5 more.
      const thisRun = generations(sim) - afterBase;
      expect(thisRun - afterBase).toBe(5);
      expect(base.warmup ?? null).toBeNull();
      expect(record.result.counts.samples).toBe(N);
      expect(record.sut!.samples.issued).toBe(N);
      expect(record.sut!.samples.completed).toBe(N);
      expect(record.sut!.timings!.length).toBe(N);
      expect(record.tokens!.samples).toBe(N);
      expect(record.warmup).toMatchObject({ requests: 5, failed: 0, firstError: null });
      expect(record.warmup!.ttftMs!.p50).toBeGreaterThan(0);
      expect(record.warmup!.ttftMs!.p99).toBeGreaterThanOrEqual(record.warmup!.ttftMs!.p50);
      expect(record.warmup!.durationMs).toBeGreaterThan(0);
      const j = JSON.parse(readFileSync(join(dir, 'warmup', 'results.json'), 'utf8'));
      expect(j.warmup.requests).toBe(5);
      expect(j.counts.samples).toBe(N);
      expect(readFileSync(join(dir, 'warmup', 'report.html'), 'utf8')).toContain(
        'Warm-up: 5 requests before the test (0 failed)',
      );
      expect(logs.some((l) => l.startsWith('warm-up: 5 of 5 requests succeeded'))).toBe(true);
      expect(formatSummary(record, [])).toContain(
        '  warm-up: 5 requests before the test (0 failed), counted in no figure here',
      );
    } finally {
      await sim.close();
    }
  }, 60_000);
});

describe('several endpoints', () => {
  test('the busy one is named; warm-up requests go round robin over them', async () => {
    const idle = await startSimulator({ flavor: 'vllm', decodeStepNs: 1_000_000, precisePacing: false });
    const busy = await startSimulator({ flavor: 'vllm', decodeStepNs: 5_000_000, precisePacing: false });
    const stop = await otherClient(busy, 1);
    try {
      const err = await runBenchmark({
        scenario: 'Offline',
        mode: 'AccuracyOnly',
        dataset,
        endpoints: [idle.url, busy.url],
        workers: 0,
        outdir: join(dir, 'two-busy'),
        log: () => undefined,
      }).catch((e: unknown) => e);
      expect((err as LoadgenError).code).toBe(ErrorCode.ServerBusy);
      expect((err as Error).message).toContain(`endpoint ${busy.url} is busy: 1 running, 0 waiting`);
      expect((err as Error).message).not.toContain(idle.url);
      await stop();
      const before = [generations(idle), generations(busy)];
      const record = await runBenchmark({
        scenario: 'Offline',
        mode: 'AccuracyOnly',
        dataset,
        endpoints: [idle.url, busy.url],
        workers: 0,
        warmup: 4,
        metricsIntervalMs: 0,
        outdir: join(dir, 'two'),
        log: () => undefined,
      });
      expect(record.warmup).toMatchObject({ requests: 4, failed: 0 });
      expect(record.serverState!.endpoints.map((e) => e.url)).toEqual([idle.url, busy.url]);
      const served = [generations(idle) - before[0]!, generations(busy) - before[1]!];
      // Each: 2 warm-up requests; the samples (and the first endpoint's probe request) besides.
      expect(served[0]! + served[1]!).toBe(4 + N + 1);
      const samples = record.sut!.endpoints.map((e) => e.completed);
      expect(served[0]! - samples[0]! - 1).toBe(2);
      expect(served[1]! - samples[1]!).toBe(2);
    } finally {
      await stop();
      await idle.close();
      await busy.close();
    }
  }, 60_000);
});

describe('flags and reading /metrics', () => {
  test('--allow-busy-server and --warmup reach runBenchmark; a negative warm-up is a usage error', () => {
    const p = planRun({ scenario: 'Offline', allowBusyServer: true, warmup: 3 });
    expect(p.options).toMatchObject({ allowBusyServer: true, warmup: 3 });
    expect(() => planRun({ scenario: 'Offline', warmup: -1 })).toThrow(/--warmup/);
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'scenario: Offline\nallow-busy-server: true\nwarmup: 4\n');
    expect(planRun(mergeFlags(readConfigFile(file), {})).options).toMatchObject({ allowBusyServer: true, warmup: 4 });
    writeFileSync(file, 'scenario: Offline\nwarmup: many\n');
    expect(() => readConfigFile(file)).toThrow(/'warmup' must be/);
  });

  test('readServerLoad: counts and start time from the simulator, an error for a server without /metrics', async () => {
    const sim = await startSimulator({ flavor: 'vllm' });
    const l = await readServerLoad(sim.url);
    expect(l).toMatchObject({ error: null, flavor: 'vllm', running: 0, waiting: 0, prefixCache: null });
    expect(l.processStartTimeSeconds).toBeGreaterThan(1e9);
    await sim.close();
    const gone = await readServerLoad(sim.url);
    expect(gone.error).toMatch(/GET \/metrics failed/);
  });
});
