// createLlmSut: a SUT and QSL pair that forwards LoadGen's queries to LLM
// servers (vLLM, SGLang, OpenAI-compatible) and reports first tokens and
// completions back. The main thread only dispatches; the HTTP work runs in
// worker threads (or on the main thread with `workers: 0`).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { findPackageRoot } from '../core/binding.js';
import { native } from '../core/binding.js';
import { samplingPreset } from '../dataset/presets.js';
import type { Dataset } from '../dataset/types.js';
import { WORKER_QUEUES, type QuerySample, type QuerySampleLibrary, type SystemUnderTest } from '../core/start-test.js';
import { BodyStore } from './body-store.js';
import { EndpointError, endpointRequestInfo, parseEndpointUrl } from './endpoint-url.js';
import { registerSecret } from '../core/redact.js';
import { Feeder } from './feeder.js';
import type { DriverConfig } from './driver-config.js';
import type { DriverSnapshot } from './driver-stats.js';
import { HttpDriver } from './http-driver.js';
import { probeEndpoint, type ProbeResult } from './probe.js';
import { mergeSnapshots } from './report.js';
import { Router } from './routing.js';
import type {
  Backend,
  BreakerOptions,
  Capabilities,
  EndpointConfig,
  RetryOptions,
  SamplingParams,
  SutReport,
  TimeoutOptions,
  WireApiName,
} from './types.js';
import { buildBody, type BodyContext, type BuiltBody, apiPath } from './wire/request-body.js';
import type { WorkerInit, WorkerRequest } from './worker-main.js';
import type { JournalTarget } from '../resume/journal-writer.js';

/**
 * CPU count − 1 (1..8), but two on a 2-CPU machine: with one worker every
 * request written in a poll batch waits for the whole batch (undici writes
 * in the check phase) and for any pause of that one thread; two halve the
 * batches and keep one reading while the other is held up (the TTFT-error
 * bench in bench/client measures both choices).
 */
export function defaultWorkers(cpus: number): number {
  return cpus <= 2 ? Math.max(1, cpus) : Math.min(8, cpus - 1);
}

export interface LlmSutOptions {
  /** One or more servers (one per GPU node or replica). */
  endpoints: readonly (string | EndpointConfig)[];
  /** Maps a QSL sample index to its prompt. */
  dataset: Dataset;
  /** Server family, or 'auto' (default) to probe it. */
  backend?: Backend | 'auto';
  /** Wire API; default 'completions' (token-id prompts), 'generate' for SGLang's native route. */
  api?: WireApiName;
  /** Served model name; default: the first of /v1/models. */
  model?: string;
  /** Override what probing found (or give it when backend is not 'auto'). */
  capabilities?: Partial<Capabilities>;
  /** Sampling fields, all sent explicitly. Defaults: temperature 0, top_p 1, min_tokens 1, ignore_eos false, max_tokens 128. */
  sampling?: SamplingParams;
  /** MLPerf benchmark whose reference sampling values to send (e.g. 'llama3_1-8b'); `sampling` overrides single fields. */
  benchmark?: string;
  /** Worker threads doing the HTTP work; 0 = on the main thread. Default: CPU count - 1, at least 1, at most 8. */
  workers?: number;
  /**
   * Busy polling: each thread doing the HTTP work polls its sockets instead
   * of sleeping while it has requests in flight and for `idleMs` (default
   * 1000) after its last one ended. Costs a whole core per such thread
   * while it polls; buys a harness that answers at low rates (tens to
   * hundreds of requests a second) as fast as at high ones, where a
   * sleeping, cold CPU adds 0.3-1 ms between LoadGen's issue and the
   * request's write. `true` = `{ idleMs: 1000 }`. Default off.
   */
  busyPoll?: boolean | { idleMs?: number };
  /** In-flight cap per endpoint unless the endpoint sets its own; default 4096. Bounds connections (no port exhaustion). */
  maxInFlightPerEndpoint?: number;
  /** Samples per request when the server takes batched prompts (Offline); default 1. Batched requests do not stream. */
  batchSize?: number;
  /** Stream responses (default true; needed for first-token times). false: one JSON body per request (Offline). */
  stream?: boolean;
  timeouts?: TimeoutOptions;
  retry?: RetryOptions;
  breaker?: BreakerOptions;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Keep every sample's harness timings in the report (memory: ~120 bytes a sample). */
  recordTimings?: boolean;
  /** QSL sizes; default: the dataset size for both. */
  totalSampleCount?: number;
  performanceSampleCount?: number;
  name?: string;
  /** Where warnings go (default: process.emitWarning). */
  onWarning?: (message: string) => void;
  /** Journal completed samples (lib/resume: accuracy and submission runs). */
  journal?: JournalTarget | null;
  /** Int32Array view the threads add to: [0] output tokens, [1] completed samples (live budgets), [2] samples failed and [3] failed requests (retried ones too) when it is that long. */
  counters?: SharedArrayBuffer | null;
}

export interface LlmSut {
  readonly sut: SystemUnderTest;
  readonly qsl: QuerySampleLibrary;
  readonly backend: Backend;
  readonly api: WireApiName;
  readonly model: string;
  readonly capabilities: Capabilities;
  readonly probes: ProbeResult[];
  /** The request body the adapter sends for dataset sample `index` (warm-up requests outside the test). */
  requestBody?(index: number): Buffer;
  /** Per-run figures (call after startTest settles). */
  report(): Promise<SutReport>;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULTS = { temperature: 0, topP: 1, minTokens: 1, ignoreEos: false };

function positiveInt(name: string, v: unknown, min = 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

function positiveMs(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v > 0))
    throw new RangeError(`${name} must be a positive number of milliseconds, got ${String(v)}`);
  return v;
}

function busyPollOption(v: LlmSutOptions['busyPoll']): { idleMs: number } | null {
  if (v === undefined || v === false) return null;
  if (v === true) return { idleMs: 1000 };
  if (v === null || typeof v !== 'object')
    throw new TypeError(`busyPoll must be true, false or { idleMs }, got ${String(v)}`);
  const idleMs = v.idleMs ?? 1000;
  if (typeof idleMs !== 'number' || !(idleMs >= 0) || !Number.isFinite(idleMs))
    throw new RangeError(`busyPoll.idleMs must be a finite number of milliseconds >= 0, got ${String(idleMs)}`);
  return { idleMs };
}

/** The worker script: dist/sut-worker.js next to this bundle, or in the package's dist/ when running from sources. */
function workerScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, 'sut-worker.js');
  if (existsSync(beside)) return beside;
  const inDist = join(findPackageRoot(here), 'dist', 'sut-worker.js');
  if (existsSync(inDist)) return inDist;
  throw new Error(
    `the adapter worker script is missing (looked for ${beside} and ${inDist}); run \`npm run build:ts\`, or use workers: 0`,
  );
}

export async function createLlmSut(options: LlmSutOptions): Promise<LlmSut> {
  if (!options || typeof options !== 'object') throw new TypeError('createLlmSut: options must be an object');
  const dataset = options.dataset;
  if (!dataset || typeof dataset.prompt !== 'function' || !(dataset.size > 0)) {
    throw new TypeError('createLlmSut: options.dataset must be a dataset with size > 0 and prompt(index)');
  }
  if (!Array.isArray(options.endpoints) || options.endpoints.length === 0)
    throw new EndpointError('createLlmSut: give at least one endpoint URL');
  const maxInFlight = positiveInt('maxInFlightPerEndpoint', options.maxInFlightPerEndpoint ?? 4096);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.apiKey) {
    registerSecret(options.apiKey);
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  const warn = options.onWarning ?? ((m: string) => process.emitWarning(m, { code: 'LOADGEN_ADAPTER' }));
  const endpoints = options.endpoints.map((e) => {
    const c: EndpointConfig = typeof e === 'string' ? { url: e } : e;
    const { origin, prefix } = parseEndpointUrl(c.url);
    // http://user:pw@host: sent as Basic authorization (in place of an API key), never shown.
    const { url, headers: own, replaced } = endpointRequestInfo(c.url, headers);
    if (replaced)
      warn(
        `endpoint ${url}: its URL's user and password are sent (HTTP Basic) in place of the API key or Authorization header`,
      );
    const weight = c.weight ?? 1;
    if (!(weight > 0)) throw new RangeError(`endpoint ${url}: weight must be > 0, got ${String(weight)}`);
    return {
      url,
      origin,
      prefix,
      weight,
      headers: own,
      maxInFlight: positiveInt(`endpoint ${url}: maxInFlight`, c.maxInFlight ?? maxInFlight),
    };
  });
  const workers = options.workers ?? defaultWorkers(availableParallelism());
  positiveInt('workers', workers, 0);
  const batchSize = positiveInt('batchSize', options.batchSize ?? 1);
  const busyPoll = busyPollOption(options.busyPoll);
  // Options are checked before any endpoint is contacted.
  const t = options.timeouts ?? {};
  const r = options.retry ?? {};
  const b = options.breaker ?? {};
  const limits = {
    connectMs: positiveMs('timeouts.connectMs', t.connectMs, 10_000),
    firstByteMs: positiveMs('timeouts.firstByteMs', t.firstByteMs, 300_000),
    idleMs: positiveMs('timeouts.idleMs', t.idleMs, 120_000),
    totalMs: positiveMs('timeouts.totalMs', t.totalMs, 3_600_000),
    maxRetries: positiveInt('retry.maxRetries', r.maxRetries ?? 3, 0),
    baseDelayMs: positiveMs('retry.baseDelayMs', r.baseDelayMs, 100),
    maxDelayMs: positiveMs('retry.maxDelayMs', r.maxDelayMs, 5_000),
    giveUpMs: b.giveUpMs === 0 ? 0 : positiveMs('breaker.giveUpMs', b.giveUpMs, 60_000),
  };
  const failureThreshold = positiveInt('breaker.failureThreshold', b.failureThreshold ?? 5);
  const cooldownMs = positiveMs('breaker.cooldownMs', b.cooldownMs, 5_000);
  const preset = options.benchmark ? samplingPreset(options.benchmark) : {};
  const maxTokens = options.sampling?.maxTokens ?? preset.maxTokens;
  if (maxTokens !== undefined) positiveInt('sampling.maxTokens', maxTokens);
  if (options.stream === true && batchSize > 1)
    throw new RangeError('batched requests (batchSize > 1) do not stream: drop stream: true or use batchSize 1');
  const total = positiveInt('totalSampleCount', options.totalSampleCount ?? dataset.size);
  const perf = positiveInt('performanceSampleCount', options.performanceSampleCount ?? Math.min(total, dataset.size));

  // Start-up health check and detection, all endpoints at once.
  const requested = options.backend ?? 'auto';
  if (!['auto', 'vllm', 'sglang', 'openai'].includes(requested))
    throw new RangeError(`backend must be auto, vllm, sglang or openai, got ${String(requested)}`);
  if (options.api !== undefined && !['completions', 'chat', 'generate'].includes(options.api)) {
    throw new RangeError(`api must be completions, chat or generate, got ${String(options.api)}`);
  }
  const needTest = options.capabilities?.tokenSource === undefined;
  const probes = await Promise.all(
    endpoints.map((e, i) =>
      probeEndpoint(e.url, {
        backend: requested === 'auto' ? undefined : requested,
        api: options.api,
        model: options.model,
        headers: e.headers,
        timeoutMs: Math.min(30_000, limits.firstByteMs),
        testRequest: needTest && i === 0,
      }),
    ),
  );
  const healthy = probes.filter((p) => p.healthy);
  if (healthy.length === 0) {
    throw new EndpointError(
      `no endpoint answered the health check: ${probes.map((p) => `${p.url}: ${p.error ?? 'unhealthy'}`).join('; ')}`,
    );
  }
  // Capabilities come from the first endpoint's test request; probe another if it failed.
  let lead = probes[0].healthy ? probes[0] : healthy[0];
  if (needTest && !lead.capabilities) {
    const k = probes.indexOf(lead);
    lead = await probeEndpoint(lead.url, {
      backend: requested === 'auto' ? undefined : requested,
      api: options.api,
      model: options.model,
      headers: endpoints[k]!.headers,
    });
    if (!lead.healthy || !lead.capabilities)
      throw new EndpointError(`the test request to ${lead.url} failed: ${lead.error ?? 'unknown error'}`);
  }
  const backend: Backend = requested === 'auto' ? (lead.backend ?? 'openai') : requested;
  const api: WireApiName = options.api ?? 'completions';
  if (api === 'generate' && backend !== 'sglang')
    throw new RangeError(`the generate API is SGLang's native route; backend ${backend} does not have it`);
  const model = options.model ?? lead.models[0]?.id ?? 'default';
  const capabilities: Capabilities = {
    tokenSource: api === 'generate' ? 'output_ids' : 'none',
    ...(lead.capabilities ?? {}),
    ...(options.capabilities ?? {}),
  } as Capabilities;
  const warnings: string[] = [];
  if (capabilities.tokenSource === 'none') {
    const m = `${lead.url} (${backend}${lead.version ? ` ${lead.version}` : ''}) sends no generated token ids on ${api}: token counts come from its usage figures and the accuracy log cannot be scored (upgrade vLLM >= 0.10.2 for return_token_ids, or use SGLang's generate API)`;
    warnings.push(m);
    warn(m);
  }
  if (
    batchSize > 1 &&
    !(capabilities.batchPrompts && (api === 'generate' || capabilities.tokenSource === 'token_ids'))
  ) {
    throw new RangeError(
      `batchSize ${batchSize}: the ${backend} ${api} API here cannot return per-prompt token ids for batched prompts; use batchSize 1`,
    );
  }

  const sampling: SamplingParams = {
    ...DEFAULTS,
    ...(backend !== 'openai' ? { topK: -1 } : {}),
    ...preset,
    ...(options.sampling ?? {}),
  };
  const bodyCtx: BodyContext = {
    backend,
    api,
    model,
    capabilities,
    sampling,
    stream: batchSize === 1 && options.stream !== false,
  };
  const config: DriverConfig = {
    endpoints: endpoints.map((e) => ({
      origin: e.origin,
      prefix: e.prefix,
      maxConnections: e.maxInFlight,
      headers: e.headers,
    })),
    api,
    path: apiPath(api),
    tokenSource: capabilities.tokenSource,
    stream: bodyCtx.stream,
    headers,
    ...limits,
    recordTimings: options.recordTimings === true,
    maxErrorLines: 1000,
    maxUnsent: 128,
    busyPoll,
    journal: options.journal ?? null,
    counters: options.counters ?? null,
  };
  const cpus = availableParallelism();
  const pollers = Math.max(1, workers); // workers: 0 polls the main thread
  if (busyPoll && pollers >= cpus) {
    const m = `busyPoll: ${pollers} polling thread${pollers > 1 ? 's' : ''} on ${cpus} CPU${cpus > 1 ? 's' : ''} leave${pollers > 1 ? '' : 's'} no core for LoadGen's issue thread and the main thread; use fewer workers`;
    warnings.push(m);
    warn(m);
  }
  const router = Router.create(endpoints, failureThreshold, cooldownMs);
  // Endpoints that failed the health check start with an open circuit: traffic goes elsewhere until a probe succeeds.
  probes.forEach((p, k) => {
    if (!p.healthy) for (let i = 0; i < failureThreshold; i++) router.failure(k);
  });

  const pool =
    workers === 0
      ? new InProcess(config, router, batchSize)
      : await WorkerPool.start(workers, config, router, batchSize);

  const sut: SystemUnderTest = {
    name: options.name ?? `LlmSut(${backend}, ${api}, ${endpoints.length} endpoint${endpoints.length > 1 ? 's' : ''})`,
    issueQuery: (samples: QuerySample[]) => pool.issue(samples),
    flushQueries: () => undefined,
  };
  if (pool instanceof WorkerPool) {
    // startTest then lets the engine's thread feed the workers directly.
    Object.defineProperty(sut, WORKER_QUEUES, { value: pool.group, configurable: true });
  }
  const qsl: QuerySampleLibrary = {
    name: dataset.name,
    totalSampleCount: total,
    performanceSampleCount: perf,
    loadSamplesToRam: async (indices: number[]) => {
      const built = new Map<number, BuiltBody>();
      for (const i of indices) {
        if (i >= dataset.size)
          throw new RangeError(`sample index ${i} is outside the dataset (${dataset.size} samples)`);
        if (!built.has(i)) built.set(i, buildBody(dataset.prompt(i), i, bodyCtx));
      }
      await pool.setBodies(BodyStore.build(Math.max(total, dataset.size), built));
    },
    unloadSamplesFromRam: () => undefined,
  };

  return {
    sut,
    qsl,
    backend,
    api,
    model,
    capabilities,
    probes,
    requestBody: (index: number) => buildBody(dataset.prompt(index), index, bodyCtx).body,
    async report() {
      const snaps = await pool.snapshots();
      return mergeSnapshots(snaps, {
        backend,
        api,
        capabilities,
        workers,
        busyPollIdleMs: busyPoll ? busyPoll.idleMs : null,
        urls: endpoints.map((e) => e.url),
        warnings: [...warnings],
        timesOpened: endpoints.map((_, k) => router.timesOpened(k)),
      });
    },
    idle: () => pool.idle(),
    close: () => {
      delete (sut as unknown as Record<symbol, unknown>)[WORKER_QUEUES];
      return pool.close();
    },
  };
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

interface Pool {
  issue(samples: QuerySample[]): void;
  setBodies(store: BodyStore): Promise<void>;
  snapshots(): Promise<DriverSnapshot[]>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

const CLOSED = 'the adapter was closed (createLlmSut makes a new one)';

class InProcess implements Pool {
  private readonly driver: HttpDriver;
  private readonly feeder: Feeder;
  private final: DriverSnapshot | null = null;

  constructor(config: DriverConfig, router: Router, batchSize: number) {
    this.driver = new HttpDriver(config, router, null);
    this.feeder = new Feeder(this.driver, batchSize);
  }

  issue(samples: QuerySample[]): void {
    for (let i = 0; i < samples.length; i++) this.feeder.add(samples[i].id, samples[i].index);
    this.feeder.flush();
  }

  async setBodies(store: BodyStore): Promise<void> {
    if (this.final) throw new Error(CLOSED);
    this.driver.bodies = store;
  }

  async snapshots(): Promise<DriverSnapshot[]> {
    return [this.final ?? this.driver.snapshot()];
  }

  idle(): Promise<void> {
    return this.driver.whenIdle();
  }

  async close(): Promise<void> {
    if (this.final) return;
    await this.driver.close();
    this.final = this.driver.snapshot();
  }
}

class WorkerPool implements Pool {
  private seq = 0;
  private readonly pending = new Map<number, (m: { snapshot?: DriverSnapshot }) => void>();
  private readonly asking = new Map<Worker, number>(); // replies awaited per worker
  private finals: DriverSnapshot[] | null = null;
  private closing: Promise<void> | null = null;
  private pairs = new Float64Array(2);

  private constructor(
    private readonly workers: Worker[],
    /** Native queue group (native/addon/worker_queues.h): startTest hands it to the engine. */
    readonly group: number,
  ) {
    for (const w of workers) {
      // The workers do not keep the process alive by themselves (a script
      // that forgets close() still exits; a running test holds the loop
      // through the engine's channel), only while a reply is awaited.
      w.unref();
      w.on('message', (m: { seq: number; snapshot?: DriverSnapshot }) => {
        const done = this.pending.get(m.seq);
        if (done) {
          this.pending.delete(m.seq);
          const left = (this.asking.get(w) ?? 1) - 1;
          this.asking.set(w, left);
          if (left === 0) w.unref();
          done(m);
        }
      });
      w.on('error', (err) => {
        native.abortTest(`an adapter worker thread failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  }

  static async start(n: number, config: DriverConfig, router: Router, batchSize: number): Promise<WorkerPool> {
    const script = workerScript();
    const group = native.workerQueuesCreate(n);
    const young = Number(process.env.LOADGEN_WORKER_YOUNG_MB ?? 48);
    const workers = Array.from(
      { length: n },
      (_, k) =>
        new Worker(script, {
          workerData: { config, routing: router.shared, queue: { group, index: k }, batchSize } satisfies WorkerInit,
          // A larger young generation: streams allocate short-lived buffers
          // at a high rate, and fewer scavenges mean fewer pauses in the
          // middle of reads (TTFT) and less CPU per event.
          resourceLimits: young > 0 ? { maxYoungGenerationSizeMb: young } : undefined,
        }),
    );
    try {
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve, reject) => {
              w.once('online', () => resolve());
              w.once('error', reject);
            }),
        ),
      );
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      native.workerQueuesRelease(group);
      throw err;
    }
    return new WorkerPool(workers, group);
  }

  private ask(w: Worker, m: DistributiveOmit<WorkerRequest, 'seq'>): Promise<{ snapshot?: DriverSnapshot }> {
    const seq = ++this.seq;
    this.asking.set(w, (this.asking.get(w) ?? 0) + 1);
    w.ref();
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      w.postMessage({ ...m, seq });
    });
  }

  // Only when the SUT is driven from JS (wrapped by the user): startTest
  // otherwise hands the group to the engine, which pushes natively.
  issue(samples: QuerySample[]): void {
    if (this.closing) throw new Error(CLOSED);
    const n = samples.length;
    if (this.pairs.length < 2 * n) this.pairs = new Float64Array(2 * n);
    const p = this.pairs;
    for (let i = 0; i < n; i++) {
      p[2 * i] = samples[i].id;
      p[2 * i + 1] = samples[i].index;
    }
    native.workerQueuesPush(this.group, p, n);
  }

  async setBodies(store: BodyStore): Promise<void> {
    if (this.closing) throw new Error(CLOSED);
    await Promise.all(this.workers.map((w) => this.ask(w, { type: 'bodies', bodies: store.shared })));
  }

  async snapshots(): Promise<DriverSnapshot[]> {
    if (this.finals) return this.finals;
    const replies = await Promise.all(this.workers.map((w) => this.ask(w, { type: 'snapshot' })));
    return replies.map((r) => r.snapshot!);
  }

  async idle(): Promise<void> {
    if (this.closing) return this.closing;
    await Promise.all(this.workers.map((w) => this.ask(w, { type: 'idle' })));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const replies = await Promise.all(this.workers.map((w) => this.ask(w, { type: 'close' })));
      this.finals = replies.map((r) => r.snapshot!);
      await Promise.all(this.workers.map((w) => w.terminate()));
      native.workerQueuesRelease(this.group);
    })();
    return this.closing;
  }
}
