// `loadgen run`: flags (and an optional YAML/JSON config file under them) →
// runBenchmark → the result on stdout (text, or one JSON document with
// --json), progress on stderr, and an exit code scripts can branch on.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Command } from 'commander';

import type { FieldMapping } from '../dataset/mapping.js';
import type { LengthSpec } from '../dataset/synthetic.js';
import type { RunRecord } from '../results/run-record.js';
import { measurementLine, measurementOf } from '../results/measurement.js';
import { latencyFigures, runStatusOf } from '../results/run-status.js';
import { traceIssuePolicy, traceReplayLine } from '../results/trace-replay.js';
// Types only: the pipeline (and with it the native addon) is loaded when a run starts.
import type { DatasetSpec, RunBenchmarkOptions, RunStage } from '../run/run-benchmark.js';
import { nonMlperfIssuePolicy, type TestMode, type TestScenario, type TestSettings } from '../core/settings.js';
import type { SimulatorOptions } from '../sim/types.js';
import type { Backend, SamplingParams, WireApiName } from '../sut/types.js';
import { mergeFlags, readConfigFile, type RunFlags } from './config-file.js';
import { conversationsFrom } from './conversation-flags.js';
import { redactArgv, registerSecret } from '../core/redact.js';
import { energySummaryLine } from '../metrics/energy.js';
import { splitEndpointCredentials } from '../sut/endpoint-url.js';
import { reportError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { createProgressPrinter } from './progress.js';
import { parseSetOptions, parseSettingsMap } from './set-option.js';
import { applyExtrasFlags } from './run-extras-flags.js';
import { applyRequestFlags } from './request-flags.js';
import { applyIssuePolicyFlags } from './issue-policy-flags.js';
import { applyTraceFlags, dryRunTrace } from './trace-flags.js';
import { addRunFlags, DEFAULT_OUTPUT_DIR } from './run-flags.js';

export { DEFAULT_OUTPUT_DIR };

const SCENARIOS: Record<string, TestScenario> = {
  singlestream: 'SingleStream',
  multistream: 'MultiStream',
  server: 'Server',
  offline: 'Offline',
};

const MODES: Record<string, TestMode> = {
  performance: 'PerformanceOnly',
  performanceonly: 'PerformanceOnly',
  accuracy: 'AccuracyOnly',
  accuracyonly: 'AccuracyOnly',
  submission: 'SubmissionRun',
  submissionrun: 'SubmissionRun',
  findpeak: 'FindPeakPerformance',
  findpeakperformance: 'FindPeakPerformance',
};

const BACKENDS = ['auto', 'vllm', 'sglang', 'openai'] as const;
const APIS = ['completions', 'chat', 'generate'] as const;
const FORMATS = ['json', 'jsonl', 'parquet'] as const;

const squash = (s: string): string => s.toLowerCase().replace(/[-_\s]/g, '');

export function parseScenario(v: string | undefined): TestScenario {
  if (v === undefined) throw new UsageError('--scenario is required: SingleStream, MultiStream, Server or Offline');
  const s = SCENARIOS[squash(v)];
  if (!s)
    throw new UsageError(`--scenario ${JSON.stringify(v)}: expected SingleStream, MultiStream, Server or Offline`);
  return s;
}

export function parseMode(v: string | undefined): TestMode | undefined {
  if (v === undefined) return undefined;
  const m = MODES[squash(v)];
  if (!m) throw new UsageError(`--mode ${JSON.stringify(v)}: expected performance, accuracy, submission or find-peak`);
  return m;
}

function oneOf<T extends string>(flag: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw new UsageError(`${flag} ${JSON.stringify(v)}: expected one of ${allowed.join(', ')}`);
  return v as T;
}

function positiveInt(flag: string, v: number | undefined, min = 1): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || v < min)
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

/** One length of --synthetic: `N`, `MIN-MAX` (uniform) or `MEAN~STD` (normal). */
export function parseLength(what: string, text: string): LengthSpec {
  const t = text.trim();
  let m: RegExpExecArray | null;
  if ((m = /^(\d+)$/.exec(t))) return Number(m[1]);
  if ((m = /^(\d+)-(\d+)$/.exec(t))) return { min: Number(m[1]), max: Number(m[2]) };
  if ((m = /^(\d+(?:\.\d+)?)~(\d+(?:\.\d+)?)$/.exec(t))) return { mean: Number(m[1]), std: Number(m[2]) };
  throw new UsageError(`--synthetic: ${what} length ${JSON.stringify(text)}: expected N, MIN-MAX or MEAN~STD`);
}

/** `--synthetic ISL/OSL`, e.g. 128/32, 100-400/64, 1024~200/128~16. */
export function parseSynthetic(text: string): { inputLength: LengthSpec; outputLength: LengthSpec } {
  const parts = text.split('/');
  if (parts.length !== 2)
    throw new UsageError(`--synthetic ${JSON.stringify(text)}: expected INPUT/OUTPUT token lengths, e.g. 128/32`);
  return { inputLength: parseLength('input', parts[0]), outputLength: parseLength('output', parts[1]) };
}

const FIELD_FLAGS: [keyof RunFlags, keyof FieldMapping, string][] = [
  ['fieldInputIds', 'tokenIds', '--field-input-ids'],
  ['fieldText', 'text', '--field-text'],
  ['fieldMessages', 'messages', '--field-messages'],
  ['fieldSystem', 'system', '--field-system'],
  ['fieldUser', 'user', '--field-user'],
  ['fieldReference', 'reference', '--field-reference'],
  ['fieldMaxTokens', 'maxTokens', '--field-max-tokens'],
];

function datasetFrom(f: RunFlags): DatasetSpec | undefined {
  const mapping: FieldMapping = {};
  const fileOnly: string[] = [];
  for (const [flag, role, name] of FIELD_FLAGS) {
    const v = f[flag];
    if (v !== undefined) {
      mapping[role] = v as string;
      fileOnly.push(name);
    }
  }
  for (const [flag, name] of [
    ['datasetFormat', '--dataset-format'],
    ['preset', '--preset'],
    ['textTemplate', '--text-template'],
    ['limit', '--limit'],
  ] as const) {
    if (f[flag] !== undefined) fileOnly.push(name);
  }
  if (f.dataset !== undefined) {
    if (f.synthetic !== undefined || f.syntheticSamples !== undefined)
      throw new UsageError('--dataset and --synthetic exclude each other');
    const spec: DatasetSpec = { path: f.dataset };
    if (Object.keys(mapping).length) spec.mapping = mapping;
    const format = oneOf('--dataset-format', f.datasetFormat, FORMATS);
    if (format) spec.format = format;
    if (f.preset !== undefined) spec.preset = f.preset;
    if (f.textTemplate !== undefined) spec.textTemplate = f.textTemplate;
    if (f.limit !== undefined) spec.limit = positiveInt('--limit', f.limit);
    if (f.maxTokens !== undefined) spec.maxTokens = f.maxTokens;
    return spec;
  }
  if (fileOnly.length) throw new UsageError(`${fileOnly[0]} needs --dataset (a JSON, JSONL or Parquet file)`);
  if (f.synthetic === undefined && f.syntheticSamples === undefined) return undefined;
  // What is not given keeps runBenchmark's synthetic defaults.
  const size = positiveInt('--synthetic-samples', f.syntheticSamples);
  return {
    synthetic: {
      ...(size !== undefined ? { size } : {}),
      ...(f.synthetic !== undefined ? parseSynthetic(f.synthetic) : {}),
    },
  };
}

export interface RunCommandPlan {
  options: RunBenchmarkOptions;
  json: boolean;
  quiet: boolean;
  /** A harness-limited measurement exits with ExitCode.HarnessLimited. */
  strict: boolean;
  /** --dry-run: print the trace's plan and exit. */
  dryRun?: boolean;
}

/** argv to record in the results, without secrets (lib/core/redact.ts). */
export { redactArgv };

/** Checks the merged flags and turns them into runBenchmark options (no I/O). */
export function planRun(f: RunFlags, argv: readonly string[] = []): RunCommandPlan {
  // A trace is replayed in the Server scenario: --scenario may be left out.
  const scenario = parseScenario(f.scenario ?? (f.trace !== undefined ? 'Server' : undefined));
  const mode = parseMode(f.mode);
  const settings = { ...parseSettingsMap(f.settings ?? {}, scenario), ...parseSetOptions(f.set ?? [], scenario) };
  applyIssuePolicyFlags(f, scenario, settings, { targetQps: f.targetQps });
  const sampling: SamplingParams = {};
  if (f.maxTokens !== undefined) sampling.maxTokens = positiveInt('--max-tokens', f.maxTokens);
  if (f.ignoreEos !== undefined) sampling.ignoreEos = f.ignoreEos;
  if (f.targetQps !== undefined && !(Number.isFinite(f.targetQps) && f.targetQps > 0))
    throw new UsageError(`--target-qps must be a number > 0, got ${String(f.targetQps)}`);
  const options: RunBenchmarkOptions = {
    scenario,
    outdir: f.outputDir ?? DEFAULT_OUTPUT_DIR,
    command: redactArgv(argv),
  };
  if (mode) options.mode = mode;
  if (f.benchmark !== undefined) options.benchmark = f.benchmark;
  if (f.mlperfConf !== undefined) options.mlperfConf = f.mlperfConf;
  if (f.userConf !== undefined) options.userConf = f.userConf;
  if (Object.keys(settings).length) options.settings = settings;
  if (f.targetQps !== undefined) options.targetQps = f.targetQps;
  if (f.endpoint?.length) options.endpoints = f.endpoint;
  const backend = oneOf('--backend', f.backend, BACKENDS);
  if (backend) options.backend = backend as Backend | 'auto';
  const api = oneOf('--api', f.api, APIS);
  if (api) options.api = api as WireApiName;
  if (f.model !== undefined) options.model = f.model;
  if (f.apiKey !== undefined) options.apiKey = f.apiKey;
  const dataset = datasetFrom(f);
  if (dataset) options.dataset = dataset;
  const conversations = conversationsFrom(f);
  if (conversations) options.conversations = conversations;
  if (Object.keys(sampling).length) options.sampling = sampling;
  if (f.concurrency !== undefined) options.concurrency = positiveInt('--concurrency', f.concurrency);
  if (f.workers !== undefined) options.workers = positiveInt('--workers', f.workers, 0);
  if (f.cpuIdleLatencyUs !== undefined)
    options.cpuIdleLatencyUs = positiveInt('--cpu-idle-latency-us', f.cpuIdleLatencyUs, 0);
  if (f.busyPoll !== undefined && f.busyPoll !== false) {
    const idleMs = f.busyPoll === true ? 1000 : Number(f.busyPoll);
    if (!(Number.isFinite(idleMs) && idleMs >= 0))
      throw new UsageError(`--busy-poll takes an idle window in milliseconds >= 0, got ${String(f.busyPoll)}`);
    options.busyPoll = { idleMs };
  }
  if (f.tokenizer !== undefined) {
    if (mode !== undefined && mode !== 'AccuracyOnly' && mode !== 'SubmissionRun')
      throw new UsageError('--tokenizer scores the outputs of --mode accuracy or --mode submission runs');
    options.tokenizer = f.tokenizer;
  }
  if (f.simulator !== undefined) {
    if (options.endpoints) throw new UsageError("the config file's 'simulator' options apply only without endpoints");
    options.simulator = f.simulator as SimulatorOptions;
  }
  if (f.strictMlperf === true) {
    if (options.benchmark === undefined)
      throw new UsageError('--strict-mlperf needs --benchmark (the MLPerf model whose rules apply)');
    options.strictMlperf = true;
  }
  applyExtrasFlags(f, options);
  applyRequestFlags(f, options);
  applyTraceFlags(f, options);
  return {
    options,
    json: f.json === true,
    quiet: f.quiet === true,
    strict: f.strict === true,
    dryRun: f.dryRun === true,
  };
}

function ms(ns: number | null | undefined): string {
  return ns === null || ns === undefined || !Number.isFinite(ns) ? 'n/a' : `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
}

/** The result line: LoadGen's verdict, or the run's when samples failed (with LoadGen's beside it). */
export function verdictLine(record: RunRecord): string {
  const r = record.result;
  const run = runStatusOf(record);
  const loadgen = r.valid === null ? 'DONE (no performance verdict in this mode)' : r.valid ? 'VALID' : 'INVALID';
  if (r.aborted) return `ABORTED (${r.abortReason ?? 'unknown reason'})${run.message ? `; ${run.message}` : ''}`;
  if (run.status === 'OK') return loadgen;
  return `INVALID: ${run.message}; LoadGen's own verdict: ${r.valid === null ? 'none (no performance pass in this mode)' : loadgen}`;
}

/** The human summary of a run (stdout without --json). */
export function formatSummary(record: RunRecord, files: string[]): string {
  const r = record.result;
  const lines = [
    `Result: ${verdictLine(record)}`,
    `  ${r.scenario} ${r.mode}${record.benchmark ? `, ${record.benchmark}` : ''}${record.simulated ? ', simulated endpoint' : ''}; ${r.counts.samples} samples, ${r.counts.tokens} tokens`,
  ];
  const policy = record.trace
    ? traceIssuePolicy(record.trace)
    : nonMlperfIssuePolicy({ scenario: r.scenario, ...(record.settings as Partial<TestSettings>) });
  if (policy) lines.push(`  issue policy: ${policy}: not an MLPerf scenario, not for a submission`);
  if (record.trace) lines.push(`  ${traceReplayLine(record.trace)}`);
  if (record.warmup)
    lines.push(
      `  warm-up: ${record.warmup.requests} requests before the test (${record.warmup.failed} failed), counted in no figure here`,
    );
  if (record.serverState?.busyAtStart)
    lines.push("  note: a server had another client's requests when the run started (--allow-busy-server)");
  if (r.metric)
    lines.push(
      `  ${r.metric.name}: ${r.metric.unit === 'ns' ? ms(r.metric.value) : `${r.metric.value.toFixed(2)} ${r.metric.unit}`}`,
    );
  if (r.tokensPerSecond !== null) lines.push(`  tokens per second: ${r.tokensPerSecond.toFixed(1)}`);
  if (record.energy) lines.push(`  ${energySummaryLine(record.energy, record.cost?.perMillionOutputTokens ?? null)}`);
  // Over the samples that succeeded (LoadGen's statistics count failed ones, with sentinel TTFTs); n/a where none did.
  const lat = latencyFigures(record);
  const failedNote =
    lat.source !== 'harness'
      ? ''
      : runStatusOf(record).status === 'ALL_SAMPLES_FAILED'
        ? ' (no sample succeeded)'
        : ' (samples that succeeded)';
  if (r.ttft) lines.push(`  TTFT p99: ${ms(lat.ttft?.p99)}   TPOT p99: ${ms(lat.tpot?.p99)}${failedNote}`);
  if (r.latency) lines.push(`  latency p50: ${ms(lat.latency?.p50)}   p99: ${ms(lat.latency?.p99)}${failedNote}`);
  if (r.peakTargetQps !== null) lines.push(`  peak target QPS: ${r.peakTargetQps.toFixed(2)}`);
  // The verdict on the measurement itself (docs/measurement.md).
  if (record.sut) lines.push(`  ${measurementLine(measurementOf(record))}`);
  for (const reason of r.invalidReasons) lines.push(`  why INVALID: ${reason.trim()}`);
  if (r.criteria?.earlyStoppingMet === false && r.earlyStopping) {
    const es = r.earlyStopping;
    for (const [what, text] of [
      ['', es.text],
      [' (TTFT)', es.ttftText],
      [' (TPOT)', es.tpotText],
    ] as const) {
      // The summary's bullet lines, folded into one.
      const flat = text
        .replace(/\s*\*\s*/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (flat) lines.push(`  early stopping${what}: ${flat}`);
    }
  }
  if (r.criteria && r.valid === false) {
    const failed = Object.entries(r.criteria)
      .filter(([, v]) => v === false)
      .map(([k]) => k);
    if (failed.length) lines.push(`  criteria not met: ${failed.join(', ')}`);
  }
  const s = record.sut;
  if (s && (s.samples.failed > 0 || s.samples.retried > 0)) {
    const kinds = Object.entries(s.errorKinds)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    lines.push(`  requests: ${s.samples.failed} failed, ${s.samples.retried} retried${kinds ? ` (${kinds})` : ''}`);
  }
  if (record.cost)
    lines.push(
      `  cost: $${record.cost.dollars.toFixed(4)} ($${record.cost.perMillionOutputTokens?.toFixed(2) ?? '-'} per million output tokens, $${record.cost.perGoodQuery?.toFixed(6) ?? '-'} per query within the latency targets)`,
    );
  if (record.budget?.reason) lines.push(`  stopped: ${record.budget.reason}`);
  const acc = record.accuracy;
  if (acc) {
    if ('error' in acc) lines.push(`  accuracy: not scored (${acc.error})`);
    else
      lines.push(
        `  accuracy: ${acc.pass === null ? 'no targets known' : acc.pass ? 'PASS' : 'FAIL'} (${Object.entries(
          acc.metrics,
        )
          .map(([k, v]) => `${k} ${Number(v.toFixed(4))}`)
          .join(', ')})`,
      );
  }
  if (record.resume) {
    const j = record.resume;
    if (j.resumed) lines.push(`  resumed: ${j.restoredSamples} samples from the journal`);
    if (!j.complete)
      lines.push(
        `  incomplete: ${j.journaledSamples} of ${j.accuracySamples} accuracy samples done; continue with the same flags and --resume ${record.outdir}`,
      );
  }
  // Servers the run started and lost on the way (loadgen run with servers:).
  for (const e of record.servers?.events ?? [])
    if (e.kind === 'crashed')
      lines.push(
        `  server ${e.server} crashed during the run (${e.signal ?? `exit code ${e.exitCode}`}); see servers/${e.server}.log`,
      );
  const mt = record.multiturn;
  if (mt) {
    const tools = mt.tools
      ? `; tool calls ${mt.tools.toolCalls} (${mt.tools.malformed} malformed), expected calls matched ${mt.tools.matched} of ${mt.tools.expected}`
      : '';
    lines.push(
      `  conversations (${mt.mode}): ${mt.conversations.completed} of ${mt.conversations.total} completed, ${mt.turns.completed} of ${mt.turns.total} turns${tools}`,
    );
  }
  lines.push(`  output: ${record.outdir}`);
  for (const f of files) lines.push(`    ${f}`);
  return lines.join('\n') + '\n';
}

/** The exit code a finished run maps to; `strict`: a harness-limited measurement turns 0 and 1 into 8 (ExitCode.HarnessLimited). */
export function exitCodeOf(record: RunRecord, interrupted: boolean, strict = false): ExitCode {
  const code = exitCodeOfRun(record, interrupted);
  if (strict && (code === ExitCode.Valid || code === ExitCode.Invalid) && record.sut) {
    if (measurementOf(record).verdict === 'harness-limited') return ExitCode.HarnessLimited;
  }
  return code;
}

function exitCodeOfRun(record: RunRecord, interrupted: boolean): ExitCode {
  const r = record.result;
  if (r.aborted && r.abortReason === 'SIGTERM') return ExitCode.Terminated;
  if (interrupted || (r.aborted && r.abortReason === 'SIGINT')) return ExitCode.Interrupted;
  if (r.aborted && record.budget?.stoppedBy) return ExitCode.Budget;
  if (r.aborted) return ExitCode.Internal;
  const run = runStatusOf(record);
  if (run.status === 'ALL_SAMPLES_FAILED') return ExitCode.Endpoint;
  // Samples failed (or LoadGen logged errors): the submission checker rejects the logs, whatever LoadGen's timing verdict.
  if (run.status !== 'OK') return ExitCode.Failed;
  if (r.valid === false) return ExitCode.Invalid;
  // An accuracy score below its target fails the run like an INVALID one.
  if (record.accuracy && !('error' in record.accuracy) && record.accuracy.pass === false) return ExitCode.Invalid;
  return ExitCode.Valid;
}

const LOG_FILES = [
  'mlperf_log_summary.txt',
  'mlperf_log_detail.txt',
  'mlperf_log_accuracy.json',
  'mlperf_log_trace.json',
];

/** Makes the run's secrets known to the redaction rule before anything is printed: API key, URL passwords (endpoints', GPU telemetry's), servers' secret env. */
export function registerRunSecrets(f: RunFlags): void {
  registerSecret(f.apiKey);
  const urls = (f.endpoint ?? []).flatMap((e) =>
    typeof e === 'string' ? [e] : [e.url, ...(e.gpuMetrics === undefined ? [] : [e.gpuMetrics].flat())],
  );
  for (const u of [...urls, ...(f.gpuMetrics ?? [])]) {
    try {
      splitEndpointCredentials(u);
    } catch {
      // A malformed URL is reported where it is parsed.
    }
  }
}

/** Runs `loadgen run` with already-parsed flags; resolves with the exit code. */
export async function runCommand(cliFlags: RunFlags, argv: readonly string[]): Promise<ExitCode> {
  const stderr = process.stderr;
  let stage: RunStage = 'setup';
  let presses = 0;
  let quiet = cliFlags.quiet === true;
  const progress = createProgressPrinter(stderr);
  const say = (m: string): void => {
    if (quiet) return;
    progress.done();
    stderr.write(`${m}\n`);
  };
  // startTest ends the test on Ctrl-C itself (logs written); here: before
  // and after the test, and a second Ctrl-C that quits at once.
  const onSigint = (): void => {
    presses++;
    if (presses === 1 && stage === 'test') {
      progress.done();
      stderr.write('interrupted: ending the test and writing the logs (Ctrl-C again to quit at once)\n');
      return;
    }
    if (presses === 1 && stage === 'finishing') {
      stderr.write('interrupted: writing the results (Ctrl-C again to quit at once)\n');
      return;
    }
    stderr.write('interrupted\n');
    process.exit(ExitCode.Interrupted);
  };
  process.on('SIGINT', onSigint);
  // SIGTERM (docker stop, a batch scheduler's limit): the same clean end as
  // Ctrl-C during the test, with the logs and results written; before it
  // there is nothing to keep.
  const onSigterm = (): void => {
    if (stage === 'test') {
      progress.done();
      stderr.write('terminated: ending the test and writing the logs\n');
      void import('../core/start-test.js').then((m) => m.abortTest('SIGTERM'));
      return;
    }
    if (stage === 'finishing') return;
    stderr.write('terminated\n');
    process.exit(ExitCode.Terminated);
  };
  process.on('SIGTERM', onSigterm);
  try {
    const flags = cliFlags.config !== undefined ? mergeFlags(readConfigFile(cliFlags.config), cliFlags) : cliFlags;
    registerRunSecrets(flags);
    const plan = planRun(flags, argv);
    quiet = plan.quiet;
    if (plan.dryRun) return await dryRunTrace(plan.options, plan.json);
    const { runBenchmark, writeRunFiles, recordToJson } = await import('../run/run-benchmark.js');
    const runOptions: RunBenchmarkOptions = {
      ...plan.options,
      writeOutputs: false,
      log: say,
      onStage: (s) => {
        stage = s;
      },
      onProgress: quiet ? undefined : (p) => progress.update(p),
    };
    // A servers: section: they are started first and stopped afterwards (lib/fleet).
    const record = flags.servers
      ? await (await import('../run/run-fleet.js')).runWithFleet(flags.servers, runOptions)
      : await runBenchmark(runOptions);
    progress.done();
    const files = await writeRunFiles(record);
    const interrupted = presses > 0;
    const logs = LOG_FILES.map((f) => join(record.outdir, f)).filter((f) => existsSync(f));
    const listed = [...logs, ...files.filter((f) => !logs.includes(f))];
    if (plan.json) {
      // Exactly one JSON document on stdout: the results.json content.
      const resultsFile = join(record.outdir, 'results.json');
      process.stdout.write(existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : recordToJson(record));
      if (!quiet) stderr.write(formatSummary(record, listed));
    } else if (!quiet) {
      process.stdout.write(formatSummary(record, listed));
    }
    const code = exitCodeOf(record, interrupted, plan.strict);
    if (code === ExitCode.Endpoint)
      stderr.write(
        `loadgen run: every request failed (${Object.keys(record.sut?.errorKinds ?? {}).join(', ') || 'see the detail log'}): ${record.endpoints.map((e) => e.url).join(', ')}\n`,
      );
    if (code === ExitCode.Failed)
      stderr.write(
        `loadgen run: ${runStatusOf(record).message}; see ${join(record.outdir, 'mlperf_log_detail.txt')}\n`,
      );
    if (code === ExitCode.Internal)
      stderr.write(`loadgen run: the test was aborted: ${record.result.abortReason ?? 'unknown reason'}\n`);
    if (code === ExitCode.HarnessLimited)
      stderr.write(`loadgen run: --strict: ${measurementLine(measurementOf(record))}\n`);
    return code;
  } catch (err) {
    progress.done();
    return reportError('run', err, stderr);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}

export function registerRunCommand(
  program: Command,
  onExit: (code: ExitCode) => void = (c) => (process.exitCode = c),
): Command {
  const cmd = program
    .command('run')
    .description(
      'run an MLPerf LoadGen test against LLM servers (vLLM, SGLang, OpenAI-compatible), or the built-in simulator',
    );
  return addRunFlags(cmd)
    .addHelpText(
      'after',
      `
Exit codes: 0 VALID, 1 INVALID, 2 usage or input error, 3 endpoint failure (every request failed), 4 internal error, 5 stopped by a budget, 6 samples failed (LoadGen may say VALID; the submission checker rejects the logs), 7 an endpoint was busy with another client's requests (nothing run), 8 with --strict: the measurement is harness-limited, 130 interrupted, 143 terminated.

Examples:
  loadgen run --scenario Server --target-qps 50 --output-dir out
  loadgen run --scenario Server --benchmark llama3_1-8b --endpoint http://gpu1:8000 --dataset cnn_eval.json --target-qps 20
  loadgen run --scenario Offline --backend sglang --api generate --endpoint http://gpu1:30000 --synthetic 1024/256
  loadgen run --scenario Server --target-qps 2 --endpoint http://gpu1:8000 --conversations chats.jsonl --multiturn live`,
    )
    .action(async (flags: RunFlags, cmd: Command) => {
      // The argv after `run`, for the record.
      const at = process.argv.indexOf('run');
      onExit(await runCommand(flags, at >= 0 ? process.argv.slice(at) : cmd.args));
    });
}
