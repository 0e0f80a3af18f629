// startSimulator: the HTTP server, its route table per flavour, the info
// routes, the /_sim control routes, and shutdown.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { Engine } from './engine.js';
import { SimHttpError, errorBody, type RouteFamily } from './errors.js';
import { Exchange } from './exchange.js';
import { FaultBook, validateFaultRules } from './faults.js';
import { GpuPowerModel } from './gpu-power.js';
import { Metrics } from './metrics.js';
import { resolveOptions, type ResolvedOptions } from './options.js';
import { PrefixCache } from './prefix-cache.js';
import { RecordStore, nowNs } from './records.js';
import { Reply } from './reply.js';
import { parseGenerate, parseOpenAi, type GenRequest } from './requests.js';
import type { SimFaultRule, SimRequestRecord, SimStats, Simulator, SimulatorOptions } from './types.js';

/** Largest request body accepted (a batch of long token-id prompts fits easily). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface State {
  opts: ResolvedOptions;
  engine: Engine;
  metrics: Metrics;
  gpu: GpuPowerModel;
  records: RecordStore;
  faults: FaultBook;
  /** null when the prefix cache is off. */
  prefixCache: PrefixCache | null;
  totalRequests: number;
  unauthorized: number;
  closing: boolean;
  startedS: number;
}

type Handler = (st: State, reply: Reply, body: unknown) => void;

interface Route {
  method: 'GET' | 'POST';
  family: RouteFamily;
  handler: Handler;
  /** The handler needs a JSON body. */
  json?: boolean;
}

function stats(st: State): SimStats {
  return {
    running: st.engine.runningCount,
    waiting: st.engine.waitingLength,
    totalRequests: st.totalRequests,
    totalTokens: st.engine.totalTokens,
    unauthorized: st.unauthorized,
  };
}

function modelCard(st: State): Record<string, unknown> {
  const { opts } = st;
  const card: Record<string, unknown> = {
    id: opts.model,
    object: 'model',
    created: st.startedS,
    owned_by: opts.flavor,
    root: opts.model,
    parent: null,
    max_model_len: opts.maxModelLen,
  };
  if (opts.flavor === 'vllm') {
    card.permission = [
      {
        id: 'modelperm-sim',
        object: 'model_permission',
        created: st.startedS,
        allow_create_engine: false,
        allow_sampling: true,
        allow_logprobs: true,
        allow_search_indices: false,
        allow_view: true,
        allow_fine_tuning: false,
        organization: '*',
        group: null,
        is_blocking: false,
      },
    ];
  }
  return card;
}

function serverInfo(st: State): Record<string, unknown> {
  const { opts } = st;
  // A subset of SGLang's ServerArgs dump, plus the fields clients read.
  return {
    model_path: opts.model,
    tokenizer_path: opts.model,
    served_model_name: opts.model,
    host: opts.host,
    port: opts.port,
    context_length: opts.maxModelLen,
    max_running_requests: opts.maxRunningSeqs,
    max_queued_requests: null,
    stream_interval: opts.tokensPerChunk,
    stream_output: opts.sglangOutputIds === 'delta',
    incremental_streaming_output: opts.sglangOutputIds === 'delta',
    enable_metrics: true,
    tp_size: 1,
    dp_size: 1,
    skip_tokenizer_init: false,
    scheduler_info: { max_total_num_tokens: opts.maxRunningSeqs * opts.maxModelLen },
    internal_states: [{ avg_spec_accept_length: null, last_gen_throughput: 0 }],
    version: opts.version,
  };
}

function generation(parse: (st: State, reply: Reply, body: unknown) => GenRequest): Handler {
  return (st, reply, body) => {
    const req = parse(st, reply, body);
    reply.record.promptTokens = req.prompts.reduce((n, p) => n + p.ids.length, 0);
    if (st.prefixCache) {
      let cached = 0;
      for (const p of req.prompts) cached += p.cachedTokens = st.prefixCache.lookupAndInsert(p.ids);
      reply.record.cachedTokens = cached;
      st.metrics.prefixCacheQueries = st.prefixCache.queries;
      st.metrics.prefixCacheHits = st.prefixCache.hits;
    }
    const call = req.prompts.find((p) => p.toolCall)?.toolCall;
    if (call) reply.record.toolCall = call.name;
    new Exchange({ opts: st.opts, engine: st.engine, metrics: st.metrics }, req, reply).start();
  };
}

const completions = generation((st, reply, body) =>
  parseOpenAi({ opts: st.opts, path: reply.record.path, body, requestId: reply.record.requestId }, 'completions'),
);
const chat = generation((st, reply, body) =>
  parseOpenAi({ opts: st.opts, path: reply.record.path, body, requestId: reply.record.requestId }, 'chat'),
);
const generate = generation((st, reply, body) =>
  parseGenerate({ opts: st.opts, path: reply.record.path, body, requestId: reply.record.requestId }),
);

function metricsRoute(st: State, reply: Reply): void {
  const kvTokens = st.engine.kvTokens();
  const text = st.metrics.render({
    running: st.engine.runningCount,
    waiting: st.engine.waitingLength,
    kvTokens,
    kvUsage: Math.min(1, kvTokens / (st.opts.maxRunningSeqs * st.opts.maxModelLen)),
  });
  reply.sendBody(200, text, 'text/plain; version=0.0.4; charset=utf-8');
}

function dcgmRoute(st: State, reply: Reply): void {
  reply.sendBody(200, st.gpu.render(st.engine.kvTokens()), 'text/plain; version=0.0.4; charset=utf-8');
}

function buildRoutes(flavor: 'vllm' | 'sglang'): Map<string, Route> {
  const routes = new Map<string, Route>();
  routes.set('/health', { method: 'GET', family: 'other', handler: (_st, reply) => reply.sendEmpty(200) });
  routes.set('/v1/models', {
    method: 'GET',
    family: 'openai',
    handler: (st, reply) => reply.sendJson(200, { object: 'list', data: [modelCard(st)] }),
  });
  routes.set('/metrics', { method: 'GET', family: 'other', handler: metricsRoute });
  // dcgm-exporter listens on a port of its own (9400) at /metrics; here the same text shares the server.
  routes.set('/dcgm/metrics', { method: 'GET', family: 'other', handler: dcgmRoute });
  routes.set('/v1/completions', { method: 'POST', family: 'openai', handler: completions, json: true });
  routes.set('/v1/chat/completions', { method: 'POST', family: 'openai', handler: chat, json: true });
  if (flavor === 'vllm') {
    routes.set('/version', {
      method: 'GET',
      family: 'other',
      handler: (st, reply) => reply.sendJson(200, { version: st.opts.version }),
    });
    routes.set('/load', {
      method: 'GET',
      family: 'other',
      handler: (st, reply) => reply.sendJson(200, { server_load: st.engine.runningCount + st.engine.waitingLength }),
    });
  } else {
    // SGLang: the version is read from /get_server_info (or /server_info);
    // the simulator does not answer /version for this flavour.
    routes.set('/generate', { method: 'POST', family: 'generate', handler: generate, json: true });
    routes.set('/health_generate', { method: 'GET', family: 'other', handler: (_st, reply) => reply.sendEmpty(200) });
    const info: Handler = (st, reply) => reply.sendJson(200, serverInfo(st));
    routes.set('/get_server_info', { method: 'GET', family: 'other', handler: info });
    routes.set('/server_info', { method: 'GET', family: 'other', handler: info });
    const modelInfo: Handler = (st, reply) =>
      reply.sendJson(200, {
        model_path: st.opts.model,
        tokenizer_path: st.opts.model,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
      });
    routes.set('/get_model_info', { method: 'GET', family: 'other', handler: modelInfo });
    routes.set('/model_info', { method: 'GET', family: 'other', handler: modelInfo });
  }
  return routes;
}

/** Reads the whole body (bounded); null if it was too large. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooBig = true;
      else parts.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(parts)));
    req.on('error', () => resolve(null));
    req.on('aborted', () => resolve(null));
  });
}

function sendError(
  st: State,
  reply: Reply,
  family: RouteFamily,
  err: SimHttpError,
  headers?: Record<string, string | number>,
): void {
  reply.sendJson(err.status, errorBody(st.opts.flavor, family, err.status, err.message, err.param, err.type), {
    headers,
  });
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  if (Array.isArray(v)) return v[0] ?? null;
  return v ?? null;
}

async function handle(st: State, routes: Map<string, Route>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  const receivedNs = nowNs();
  if (st.closing) {
    res.destroy();
    return;
  }
  const path = (req.url ?? '/').split('?')[0]!;
  const method = req.method ?? 'GET';

  if (path.startsWith('/_sim/')) {
    control(st, path, method, raw, res);
    return;
  }

  st.totalRequests++;
  let body: unknown = null;
  let jsonError: string | null = null;
  if (raw !== null && raw.length > 0) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      jsonError = (err as Error).message;
    }
  }
  const record: SimRequestRecord = {
    seq: st.records.takeSeq(),
    requestId: header(req, 'x-request-id'),
    method,
    path,
    body,
    receivedNs,
    headersNs: null,
    firstTokenNs: null,
    endNs: null,
    status: 0,
    promptTokens: 0,
    outputTokens: 0,
    chunks: 0,
    fault: null,
    clientAborted: false,
  };
  st.records.add(record);
  const fault = st.faults.pick(path);
  record.fault = fault?.kind ?? null;
  const reply = new Reply(req, res, record, fault, () => st.closing);
  const route = routes.get(path);
  const family: RouteFamily = route?.family ?? 'other';

  if (
    st.opts.requireAuthorization !== null &&
    (st.opts.authorizationScope === 'all' || path.startsWith('/v1/')) &&
    header(req, 'authorization') !== st.opts.requireAuthorization
  ) {
    st.unauthorized++;
    sendError(st, reply, family, new SimHttpError(401, 'Unauthorized'));
    return;
  }
  if (fault?.kind === 'status') {
    const status = fault.status ?? 500;
    const headers: Record<string, string | number> = {};
    if (fault.retryAfterS !== undefined && (status === 429 || status === 503))
      headers['retry-after'] = fault.retryAfterS;
    sendError(st, reply, family, new SimHttpError(status, `Simulated fault: HTTP ${status}`), headers);
    return;
  }
  if (fault?.kind === 'reset-before') {
    reply.reset();
    return;
  }

  try {
    if (!route) throw new SimHttpError(404, 'Not Found', null, st.opts.flavor === 'vllm' ? 'Not Found' : undefined);
    if (route.method !== method) {
      throw new SimHttpError(
        405,
        'Method Not Allowed',
        null,
        st.opts.flavor === 'vllm' ? 'Method Not Allowed' : undefined,
      );
    }
    if (route.json) {
      if (raw === null) throw new SimHttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
      if (jsonError !== null) throw new SimHttpError(400, `Invalid JSON body: ${jsonError}`);
      if (body === null) throw new SimHttpError(400, 'The request body must be a JSON object.');
    }
    route.handler(st, reply, body);
  } catch (err) {
    if (err instanceof SimHttpError) sendError(st, reply, family, err);
    else
      sendError(st, reply, family, new SimHttpError(500, `Simulator error: ${(err as Error)?.message ?? String(err)}`));
  }
}

function control(st: State, path: string, method: string, raw: Buffer | null, res: ServerResponse): void {
  const json = (status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const key = `${method} ${path}`;
  switch (key) {
    case 'GET /_sim/records':
      json(200, st.records.snapshot());
      return;
    case 'DELETE /_sim/records':
      st.records.clear();
      json(200, { ok: true });
      return;
    case 'GET /_sim/stats':
      json(200, stats(st));
      return;
    case 'DELETE /_sim/faults':
      st.faults.clear();
      json(200, { ok: true });
      return;
    case 'POST /_sim/faults': {
      try {
        const parsed: unknown = JSON.parse(raw?.toString('utf8') ?? '');
        const rules = validateFaultRules(Array.isArray(parsed) ? parsed : [parsed]);
        st.faults.add(rules);
        json(200, { ok: true, added: rules.length, active: st.faults.size });
      } catch (err) {
        json(400, { ok: false, error: (err as Error).message });
      }
      return;
    }
    default:
      json(404, { ok: false, error: `unknown control route ${key}` });
  }
}

export async function startSimulator(options?: SimulatorOptions): Promise<Simulator> {
  const opts = resolveOptions(options);
  const metrics = new Metrics(opts.flavor, opts.model);
  // A server with the cache on exports its counters from the start, at 0 (a fresh cache).
  if (opts.prefixCache) metrics.prefixCacheQueries = metrics.prefixCacheHits = 0;
  const gpu = new GpuPowerModel({
    gpus: opts.gpus,
    idleWatts: opts.gpuIdleWatts,
    wattsPerSeq: opts.gpuWattsPerSeq,
    maxWatts: opts.gpuMaxWatts,
    modelName: opts.gpuModelName,
    maxRunningSeqs: opts.maxRunningSeqs,
    kvCapacityTokens: opts.maxRunningSeqs * opts.maxModelLen,
  });
  const engine = new Engine({
    onRunningChange: (running) => gpu.setRunning(running),
    maxRunningSeqs: opts.maxRunningSeqs,
    prefillNsPerToken: opts.prefillNsPerToken,
    decodeStepNs: opts.decodeStepNs,
    decodeStepNsPerSeq: opts.decodeStepNsPerSeq,
    precisePacing: opts.precisePacing,
    eosTokenId: opts.eosTokenId,
    onSeqDone: (seq) => {
      metrics.generationTokens += seq.ids.length;
      metrics.finished[seq.finishReason ?? 'length']++;
    },
  });
  const faults = new FaultBook();
  faults.add(opts.faults);
  const st: State = {
    opts,
    engine,
    metrics,
    gpu,
    records: new RecordStore(opts.record, opts.maxRecords),
    faults,
    // 1M blocks: far more than a test or a short run fills.
    prefixCache: opts.prefixCache ? new PrefixCache(opts.prefixCacheBlockTokens, 1_000_000) : null,
    totalRequests: 0,
    unauthorized: 0,
    closing: false,
    startedS: Math.floor(Date.now() / 1000),
  };
  const routes = buildRoutes(opts.flavor);

  const server = createServer(
    {
      // Long streams must not be cut by Node's request/header timers.
      requestTimeout: 0,
      headersTimeout: 0,
      keepAliveTimeout: 65_000,
      noDelay: true,
    },
    (req, res) => {
      handle(st, routes, req, res).catch(() => {
        if (!res.destroyed) res.destroy();
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Garbage on the wire: answer 400 if possible, never crash.
  server.on('clientError', (_err, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: thousands of clients may connect at once (Node's default is 511).
    server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  opts.port = port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${port}`;

  let closed: Promise<void> | null = null;
  return {
    url,
    port,
    flavor: opts.flavor,
    gpuMetricsUrl: `${url}/dcgm/metrics`,
    gpuEnergyJoules: (fromNs?: number, toNs?: number) =>
      fromNs === undefined && toNs === undefined ? gpu.totalJoules() : gpu.energyBetween(fromNs ?? 0, toNs ?? nowNs()),
    stats: () => stats(st),
    records: () => st.records.snapshot(),
    clearRecords: () => st.records.clear(),
    injectFaults: (rules: SimFaultRule[]) => st.faults.add(validateFaultRules(rules)),
    clearFaults: () => st.faults.clear(),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        st.closing = true;
        engine.close();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}
