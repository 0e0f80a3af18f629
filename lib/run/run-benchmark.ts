// runBenchmark: the whole `loadgen run` pipeline as a function, for harness
// authors: settings (official table + user.conf + overrides) → dataset →
// the built-in simulator or the given endpoints → createLlmSut → startTest →
// a complete RunRecord, with the output files written into `outdir`.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { native, packageRoot } from '../core/binding.js';
import { EndpointFailure, UsageError } from '../core/errors.js';
import type { TestResult } from '../core/result.js';
import type { TestSettings } from '../core/settings.js';
import { startTest, TestAbortedError } from '../core/start-test.js';
import { openDataset, type LoadedDataset } from '../dataset/open.js';
import { DATASET_PRESETS, presetKey } from '../dataset/presets.js';
import { syntheticDataset } from '../dataset/synthetic.js';
import { DatasetError, type Dataset } from '../dataset/types.js';
import { openConversations } from '../multiturn/run-conversations.js';
import { toJsonText } from '../results/json-text.js';
import { buildResultsJson } from '../results/results-json.js';
import type { RunEndpointInfo, RunRecord } from '../results/run-record.js';
import { redactRecord, writeRunOutputs } from '../results/write-outputs.js';
import { redactArgv, redactText, registerSecret, scrubText } from '../core/redact.js';
import { startSimulator } from '../sim/server.js';
import { preflightMlperf } from '../submission/preflight.js';
import type { Simulator } from '../sim/types.js';
import { EndpointError, parseEndpointUrl } from '../sut/endpoint-url.js';
import { createLlmSut, type LlmSut } from '../sut/llm-sut.js';
import { idMismatchWarning } from '../sut/report.js';
import type { EndpointConfig, SutReport } from '../sut/types.js';
import { UsageMeter } from './harness-usage.js';
import { checkOutputDir, createOutputDir } from './output-dir.js';
import { checkTokenizer, modeIsScored, scoreRun } from './run-accuracy.js';
import { RunEnergy, gpuMetricsTargets } from './run-energy.js';
import { RunExtras } from './run-extras.js';
import { composeSettings, SIMULATOR_DEFAULTS, SYNTHETIC_DEFAULTS, type RunBenchmarkOptions } from './run-options.js';
import { fillTimeline, ProgressSampler } from './run-progress.js';
import { checkWarmup, ServerState } from './server-state.js';
import { resolveOptions as resolveSimulatorOptions } from '../sim/options.js';
import {
  applyTraceSettings,
  checkTraceSpec,
  prepareTrace,
  serverContextLint,
  traceProgressSettings,
  traceSection,
  tracePlanLines,
} from './run-trace.js';

// The options and their composition (run-options.ts) and the progress
// helpers (run-progress.ts), importable from here as before.
export {
  composeSettings,
  GENERIC_LLM_BOUNDS,
  SIMULATED_RUN_DEFAULTS,
  SIMULATOR_DEFAULTS,
  SYNTHETIC_DEFAULTS,
  type ComposedSettings,
  type DatasetSpec,
  type RunBenchmarkOptions,
  type RunProgress,
  type RunStage,
} from './run-options.js';
export { estimateRemainingMs, fillTimeline } from './run-progress.js';

// Messages reach it through runBenchmark's log, which has redacted them.
function stderrLog(message: string): void {
  process.stderr.write(`${message}\n`);
}

function isDataset(d: unknown): d is Dataset {
  return !!d && typeof (d as Dataset).prompt === 'function';
}

async function buildDataset(
  o: RunBenchmarkOptions,
  log: (m: string) => void,
): Promise<{ dataset: Dataset; path: string | null; preset: string | null }> {
  const d = o.dataset;
  if (isDataset(d)) {
    // An opened file keeps its path and preset in the record.
    const opened = d as Partial<LoadedDataset>;
    return {
      dataset: d,
      path: typeof opened.path === 'string' ? resolve(opened.path) : null,
      preset: opened.preset?.name ?? null,
    };
  }
  if (d === undefined || 'synthetic' in d) {
    const spec = { ...SYNTHETIC_DEFAULTS, ...(d && 'synthetic' in d ? d.synthetic : {}) };
    const ds = syntheticDataset({ name: 'synthetic', ...spec });
    const len = (l: unknown) => (typeof l === 'number' ? String(l) : JSON.stringify(l));
    if (d === undefined)
      log(
        `dataset: synthetic, ${ds.size} prompts of ${len(spec.inputLength)} tokens, up to ${len(spec.outputLength)} output tokens (give --dataset for real prompts)`,
      );
    return { dataset: ds, path: null, preset: null };
  }
  const { path, ...rest } = d;
  // The benchmark's dataset preset applies to its file unless another preset is named.
  const preset =
    rest.preset ?? (o.benchmark && DATASET_PRESETS[presetKey(o.benchmark)] ? presetKey(o.benchmark) : undefined);
  const ds = await openDataset(path, { ...rest, ...(preset ? { preset } : {}) });
  for (const n of ds.notes) log(`dataset: ${n}`);
  const cols = Object.entries(ds.columns)
    .map(([role, col]) => `${role}=${col}`)
    .join(', ');
  log(`dataset: ${path}: ${ds.size} samples (${ds.format}; ${cols || 'template'})`);
  return { dataset: ds, path: resolve(path), preset: preset ?? null };
}

/** The reference column a dataset file's field mapping names, for scoring against that file. */
function mappedReference(d: RunBenchmarkOptions['dataset']): { referenceColumn?: string } {
  if (!d || isDataset(d) || !('path' in d)) return {};
  const ref = d.mapping?.reference;
  return typeof ref === 'string' ? { referenceColumn: ref } : {};
}

/** Splits a total in-flight cap over the endpoints (each gets at least 1). */
export function splitConcurrency(
  endpoints: readonly (string | EndpointConfig)[],
  concurrency: number | undefined,
): (string | EndpointConfig)[] {
  if (concurrency === undefined) return [...endpoints];
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    throw new UsageError(`--concurrency must be an integer >= 1, got ${String(concurrency)}`);
  if (concurrency < endpoints.length)
    throw new UsageError(
      `--concurrency ${concurrency} is less than the number of endpoints (${endpoints.length}): each needs at least 1`,
    );
  const k = endpoints.length;
  return endpoints.map((e, i) => {
    const c: EndpointConfig = typeof e === 'string' ? { url: e } : { ...e };
    const share = Math.floor(concurrency / k) + (i < concurrency % k ? 1 : 0);
    c.maxInFlight = c.maxInFlight !== undefined ? Math.min(c.maxInFlight, share) : share;
    return c;
  });
}

function checkEndpoints(endpoints: readonly (string | EndpointConfig)[]): void {
  for (const e of endpoints) {
    const url = typeof e === 'string' ? e : e?.url;
    try {
      parseEndpointUrl(String(url));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
}

/**
 * Accuracy passes and aborted tests end without a results block, so the
 * summary's counts are 0: take the samples the engine completed (its
 * progress holds the finished test's totals until the next test starts) and
 * the output tokens the adapter counted (plus those of samples restored from
 * the journal).
 */
export function countUnsummarized(result: TestResult, report: SutReport | null, restoredTokens = 0): void {
  if (result.metric !== null) return;
  const p = native.progress();
  const samples = p.completedSamples;
  const spq = result.scenario === 'MultiStream' ? Math.max(1, result.effective.samplesPerQuery) : 1;
  // With --resume, the samples completed from the journal count too.
  const tokens = (report ? report.endpoints.reduce((a, e) => a + e.outputTokens, 0) : 0) + restoredTokens;
  // Offline issues everything as one query.
  const queries = result.scenario === 'Offline' ? (p.issuedSamples > 0 ? 1 : 0) : Math.floor(samples / spq);
  result.counts = { ...result.counts, samples, queries, tokens: Math.max(result.counts.tokens, tokens) };
}

/** The adapter's timeouts and retries, refused before anything starts (createLlmSut would only see them after the simulator is up). */
function checkRequestLimits(o: Pick<RunBenchmarkOptions, 'timeouts' | 'retry'>): void {
  for (const [k, flag] of [
    ['firstByteMs', '--timeout-first-byte'],
    ['idleMs', '--timeout-idle'],
    ['totalMs', '--timeout-total'],
    ['connectMs', 'timeouts.connectMs'],
  ] as const) {
    const v = o.timeouts?.[k];
    if (v !== undefined && !(typeof v === 'number' && v > 0 && v <= 2 ** 31 - 1))
      throw new UsageError(`${flag} (timeouts.${k}) must be a number of milliseconds > 0, got ${String(v)}`);
  }
  const n = o.retry?.maxRetries;
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0))
    throw new UsageError(`--retries (retry.maxRetries) must be an integer >= 0, got ${String(n)}`);
}

/** results.json as text when the files were not written (it is what writeRunOutputs writes). */
export function recordToJson(record: RunRecord): string {
  return scrubText(toJsonText(buildResultsJson(redactRecord(record))));
}

/** Writes results.json, result_summary.json and report.html into record.outdir; returns their paths. */
export async function writeRunFiles(record: RunRecord): Promise<string[]> {
  return (await writeRunOutputs(record)).files;
}

/** The version in @x/loadgen's package.json. */
function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown'
    );
  } catch {
    return 'unknown';
  }
}

/**
 * Before a performance run for an MLPerf benchmark: the settings the
 * submission checker would reject, said at once rather than after a
 * ten-minute run (errors with strictMlperf).
 */
function checkMlperfSettings(options: RunBenchmarkOptions, settings: TestSettings, log: (m: string) => void): void {
  if (options.benchmark === undefined) return;
  if (settings.mode !== 'PerformanceOnly' && settings.mode !== 'SubmissionRun') return;
  const findings = preflightMlperf(options.benchmark, settings);
  // A replayed trace is not in the settings (its schedule goes to startTest), so it is named here.
  if (options.trace)
    findings.unshift({
      setting: 'trace',
      message: 'the issue policy is trace replay: not an MLPerf scenario, its results cannot be submitted',
    });
  if (findings.length === 0) return;
  if (options.strictMlperf)
    throw new UsageError(
      `--strict-mlperf: MLPerf's submission checker would reject this run: ${findings.map((f) => f.message).join('; ')}`,
    );
  for (const f of findings) log(`warning: not submittable to MLPerf: ${f.message}`);
}

/** Runs one benchmark end to end and returns its record (aborted runs too: see record.result.aborted). */
export async function runBenchmark(options: RunBenchmarkOptions): Promise<RunRecord> {
  if (!options || typeof options !== 'object') throw new UsageError('runBenchmark: options must be an object');
  const given = options.log ?? stderrLog;
  // Every message through the redaction rule (lib/core/redact.ts), whoever prints it.
  const log = (m: string): void => given(redactText(m));
  registerSecret(options.apiKey);
  const stage = options.onStage ?? (() => undefined);
  if (!['SingleStream', 'MultiStream', 'Server', 'Offline'].includes(options.scenario)) {
    throw new UsageError(
      `scenario must be SingleStream, MultiStream, Server or Offline, got ${String(options.scenario)}`,
    );
  }
  if (typeof options.outdir !== 'string' || options.outdir === '')
    throw new UsageError('an output directory is required');
  const endpointsIn = options.endpoints ?? [];
  const simulated = endpointsIn.length === 0;
  checkEndpoints(endpointsIn);
  const gpuTargets = gpuMetricsTargets(options.gpuMetrics, endpointsIn);
  if (options.workers !== undefined && !(Number.isSafeInteger(options.workers) && options.workers >= 0)) {
    throw new UsageError(`--workers must be an integer >= 0, got ${String(options.workers)}`);
  }
  if (options.api === 'generate' && (options.backend === 'vllm' || options.backend === 'openai')) {
    throw new UsageError(
      `the generate API is SGLang's native route; backend ${options.backend} does not have it (use --api completions or chat)`,
    );
  }
  checkRequestLimits(options);
  const warmupRequests = checkWarmup(options.warmup);
  const composed = composeSettings(options, simulated);
  const settings = composed.settings;
  checkMlperfSettings(options, settings, log);
  // Checked now, created once every other input is checked: a usage error leaves nothing behind.
  const outdir = checkOutputDir(options.outdir);
  if (options.tokenizer !== undefined) await checkTokenizer(options.tokenizer);
  // Conversations: replay gives the dataset (chat API), live a SUT of its own (lib/multiturn/run-conversations.ts).
  const conversations = options.conversations
    ? await openConversations(options, settings, composed.userFields, log)
    : null;
  if (conversations) options = conversations.options;
  // A trace is the dataset (row i = sample i) and the schedule (lib/run/run-trace.ts).
  let traced: Awaited<ReturnType<typeof prepareTrace>> | null = null;
  if (options.trace) {
    checkTraceSpec(options.trace, { ...options, mode: settings.mode });
    traced = await prepareTrace(
      options.trace,
      simulated ? resolveSimulatorOptions(options.simulator).maxModelLen : undefined,
    );
    applyTraceSettings(settings);
    for (const line of tracePlanLines(traced.plan)) log(line);
  }
  const {
    dataset,
    path: datasetPath,
    preset,
  } = traced
    ? { dataset: traced.dataset, path: resolve(traced.trace.path), preset: null }
    : await buildDataset(options, log);
  // Journal, resume, budget and pricing checks: refusals come before any server is touched.
  const extras = RunExtras.prepare(options, settings, outdir, dataset, simulated ? 1 : endpointsIn.length, log);
  if (settings.performanceSampleCountOverride > dataset.size) {
    log(
      `note: the benchmark's performance sample count is ${settings.performanceSampleCountOverride}; the dataset has ${dataset.size} samples, so the run uses ${dataset.size}`,
    );
  }
  createOutputDir(outdir);

  let sim: Simulator | null = null;
  let llm: LlmSut | null = null;
  let energy: RunEnergy | null = null;
  try {
    let endpoints: (string | EndpointConfig)[] = [...endpointsIn];
    if (simulated) {
      const flavor =
        options.simulator?.flavor ?? (options.backend === 'sglang' || options.api === 'generate' ? 'sglang' : 'vllm');
      try {
        sim = await startSimulator({ ...SIMULATOR_DEFAULTS, flavor, ...(options.simulator ?? {}) });
      } catch (err) {
        throw new UsageError(`simulator: ${(err as Error).message}`);
      }
      log(
        `simulated run: no --endpoint given, so a built-in ${flavor} simulator serves '${options.simulator?.model ?? SIMULATOR_DEFAULTS.model}' at ${sim.url}`,
      );
      endpoints = [sim.url];
      if (gpuTargets.length === 0) gpuTargets.push({ url: sim.gpuMetricsUrl, endpoint: sim.url });
    }
    const simGpus = sim !== null && gpuTargets.length === 1 && gpuTargets[0]!.url === sim.gpuMetricsUrl;
    energy = gpuTargets.length > 0 ? new RunEnergy(gpuTargets, log) : null;
    // A trace sets its own rate and length: the quick-run defaults say nothing about it.
    for (const n of composed.notes) if (!(traced && n.startsWith('simulated-run defaults'))) log(n);
    if (
      !traced &&
      !simulated &&
      settings.scenario === 'Server' &&
      !composed.userFields.has('serverTargetQps') &&
      settings.serverTargetQps === 1
    ) {
      log('note: Server at the default target of 1 QPS: set --target-qps');
    }
    const benchmarkPreset =
      options.benchmark && DATASET_PRESETS[presetKey(options.benchmark)] ? options.benchmark : undefined;
    if (options.benchmark && !benchmarkPreset)
      log(`note: no reference sampling values are known for ${options.benchmark}; the adapter's defaults apply`);
    if (conversations?.mode === 'live' && (options.timeouts || options.retry))
      log(
        'note: --timeout-* and --retries apply to the request adapter; live multi-turn conversations keep their own 300 s per-request timeout',
      );
    if (conversations?.mode === 'live' && options.busyPoll)
      log(
        "note: --busy-poll applies to the adapter's worker threads; live multi-turn conversations run on the main thread and sleep between events",
      );
    // Before anything of ours reaches the servers: is another client using them?
    const serverState = await ServerState.check(
      endpoints.map((e) => (typeof e === 'string' ? e : e.url)),
      options.apiKey,
      options.allowBusyServer === true,
      log,
    );
    try {
      llm =
        conversations?.mode === 'live'
          ? await conversations.liveSut(splitConcurrency(endpoints, options.concurrency), log)
          : await createLlmSut({
              endpoints: splitConcurrency(endpoints, options.concurrency),
              dataset,
              backend: options.backend ?? 'auto',
              api: options.api,
              model: options.model,
              benchmark: benchmarkPreset,
              sampling: options.sampling,
              workers: options.workers,
              busyPoll: options.busyPoll,
              timeouts: options.timeouts,
              retry: options.retry,
              apiKey: options.apiKey,
              recordTimings: true,
              journal: extras.journalTarget,
              counters: extras.counters,
              onWarning: (m) => log(`warning: ${m}`),
            });
    } catch (err) {
      if (err instanceof EndpointError) throw new EndpointFailure(err.message);
      if (err instanceof DatasetError) throw new UsageError(err.message);
      throw err;
    }
    const probes = llm.probes;
    const endpointInfo: RunEndpointInfo[] = probes.map((p) => ({
      url: p.url,
      backend: llm!.backend,
      api: llm!.api,
      model: llm!.model,
      serverVersion: p.version,
    }));
    log(
      `sut: ${llm.backend} ${llm.api} API, model '${llm.model}', ${probes.length} endpoint${probes.length > 1 ? 's' : ''} (${probes.filter((p) => p.healthy).length} healthy), token ids from ${llm.capabilities.tokenSource}`,
    );

    await serverState.identify(llm);
    if (traced) for (const line of serverContextLint(traced, options.trace!, serverState.contexts())) log(line);
    const warmup = await serverState.warmUp(llm, warmupRequests, options.concurrency, dataset.size, log);

    const engineSide = await extras.begin(
      llm,
      endpoints.map((e) => (typeof e === 'string' ? e : e.url)),
      benchmarkPreset,
      options.sampling,
      options.command ? redactArgv(options.command) : null,
    );
    await energy?.begin();
    const sampler = new ProgressSampler(
      llm,
      // A trace's length and rate are its own: the estimate of the time left follows them.
      traced ? traceProgressSettings(settings, traced.plan) : settings,
      dataset.size,
      options.onProgress,
      log,
      extras.counters ? new Int32Array(extras.counters) : null,
    );
    const startedAt = new Date().toISOString();
    stage('test');
    const timer = setInterval(() => sampler.tick(), 1000);
    let result: TestResult;
    let usage: UsageMeter | null = null;
    try {
      extras.testStarted();
      energy?.testStarted();
      usage = new UsageMeter();
      result = await startTest(
        engineSide.sut,
        engineSide.qsl,
        settings,
        { outdir },
        {
          handleSigint: options.handleSigint !== false,
          cpuIdleLatencyUs: options.cpuIdleLatencyUs,
          ...(traced ? { schedule: traced.schedule } : {}),
          ...(options.auditConfig !== undefined ? { auditConfig: options.auditConfig } : {}),
        },
      );
    } catch (err) {
      if (err instanceof TestAbortedError) result = err.result;
      // A prompt the API cannot take (found while building request bodies) is the user's input.
      else if (err instanceof DatasetError) throw new UsageError(err.message);
      else if (err && typeof err === 'object' && 'result' in err && (err as { result?: TestResult }).result) {
        // A callback threw: the logs are written; report it with the record.
        log(`error: ${String((err as { message?: unknown }).message)}`);
        result = (err as { result: TestResult }).result;
      } else throw err;
    } finally {
      usage?.stop();
      clearInterval(timer);
      extras.testEnded();
      energy?.testEnded();
    }
    stage('finishing');
    const endedAt = new Date().toISOString();
    // After an abort, requests may still be generating: do not wait for them (close() ends them).
    if (!result.aborted) await llm.idle().catch(() => undefined);
    let report: SutReport | null = null;
    try {
      report = await llm.report();
    } catch (err) {
      log(`warning: the adapter report could not be read: ${(err as Error).message}`);
    }
    // Once a run, at its end: these samples' accuracy-log entries are empty.
    const mismatched = report?.idMismatch?.samples ?? 0;
    if (report && mismatched > 0) log(`warning: ${idMismatchWarning(mismatched, report.capabilities.tokenSource)}`);
    fillTimeline(sampler.timeline, sampler.startNs, report?.timings);
    countUnsummarized(result, report, extras.journal?.restoredTokens ?? 0);

    const record: RunRecord = {
      tool: { name: '@x/loadgen', version: packageVersion(), engineVersion: native.engineVersion },
      startedAt,
      endedAt,
      command: options.command ? redactArgv(options.command) : null,
      benchmark: options.benchmark ?? null,
      settings: { ...settings } as unknown as Record<string, unknown>,
      dataset: { name: dataset.name, path: datasetPath, size: dataset.size, preset },
      endpoints: endpointInfo,
      simulated,
      result,
      sut: report,
      timeline: sampler.timeline,
      outdir,
      harnessUsage: usage?.stop() ?? null,
    };
    if (traced) record.trace = traceSection(traced, report?.timings);
    Object.assign(record, await extras.finish(llm, record));
    record.energy = energy ? await energy.finish(record) : null;
    if (record.energy && simGpus && sim) {
      // The simulator knows its GPUs' energy exactly: the measurement's error, for the record.
      const e = record.energy;
      const trueJoules = sim.gpuEnergyJoules(e.window.startNs, e.window.endNs);
      e.simulator = {
        trueJoules,
        trueJoulesPerOutputToken: e.outputTokens > 0 ? trueJoules / e.outputTokens : null,
        errorPct: e.energyJ !== null && trueJoules > 0 ? ((e.energyJ - trueJoules) / trueJoules) * 100 : null,
      };
    }
    record.serverState = await serverState.finish();
    record.warmup = warmup;
    if (conversations) record.multiturn = conversations.report(llm, report);
    if (options.tokenizer !== undefined) {
      if (modeIsScored(result.mode))
        record.accuracy = await scoreRun(
          result,
          dataset,
          outdir,
          { tokenizer: options.tokenizer, ...mappedReference(options.dataset) },
          options.benchmark ?? null,
          log,
        );
      else log('note: --tokenizer scores accuracy and submission runs; this performance run has no outputs to score');
    }
    if (options.writeOutputs !== false) await writeRunFiles(record);
    return record;
  } finally {
    energy?.stop();
    await llm?.close().catch(() => undefined);
    await sim?.close().catch(() => undefined);
  }
}
