// The servers' state around a run: before anything is sent, each endpoint's
// /metrics is read, and requests running or waiting there (not the run's:
// nothing of it has been sent yet) mean another client is using the server,
// so the run refuses to start unless allowBusyServer. Then who each server
// is (version, model, context length, engine config), when it started, and
// its prefix-cache counters before the run and after the test, for
// results.json `serverState`. Warm-up requests (`warmup`) go between the
// check and the test, outside every figure.
import { ServerBusyError, UsageError } from '../core/errors.js';
import { readServerInfo } from '../fleet/server-info.js';
import { isBusy, readServerLoad, type ServerLoad, type ServerStateReport } from '../metrics/server-state.js';
import { endpointRequestInfo, parseEndpointUrl } from '../sut/endpoint-url.js';
import type { LlmSut } from '../sut/llm-sut.js';
import { sendWarmup, type WarmupReport } from '../sut/warmup.js';

/** Re-reads of a busy endpoint before refusing: gauges a moment stale (a request just ended) settle. */
const SETTLE_READS = 4;
const SETTLE_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function checkWarmup(n: unknown): number {
  if (n === undefined) return 0;
  if (!(typeof n === 'number' && Number.isSafeInteger(n) && n >= 0))
    throw new UsageError(`--warmup (warmup) must be an integer >= 0, got ${String(n)}`);
  return n;
}

export class ServerState {
  private readonly report: ServerStateReport;

  private constructor(
    private readonly urls: string[],
    private readonly headers: Record<string, string>,
    allowBusy: boolean,
    loads: ServerLoad[],
    checkedAtS: number,
  ) {
    this.report = {
      allowBusy,
      busyAtStart: loads.some(isBusy),
      endpoints: loads.map((l) => ({
        url: l.url,
        flavor: l.flavor,
        metricsNote: l.error,
        atStart: l.error ? null : { running: l.running, waiting: l.waiting, busy: isBusy(l) },
        identity: { version: null, model: null, maxModelLen: null, engineConfig: null },
        startedAt: l.processStartTimeSeconds !== null ? new Date(l.processStartTimeSeconds * 1000).toISOString() : null,
        uptimeSeconds:
          l.processStartTimeSeconds !== null
            ? Math.max(0, Math.round((checkedAtS - l.processStartTimeSeconds) * 10) / 10)
            : null,
        prefixCache: { start: l.prefixCache, end: null },
      })),
    };
  }

  /**
   * Reads every endpoint's /metrics before the run sends anything; throws
   * ServerBusyError for the first endpoint with requests of another client,
   * unless allowBusy (then a warning). No /metrics: a note, not a refusal.
   */
  static async check(
    urls: readonly string[],
    apiKey: string | undefined,
    allowBusy: boolean,
    log: (m: string) => void,
  ): Promise<ServerState> {
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    const read = (u: string) => readServerLoad(u, headers);
    let loads = await Promise.all(urls.map(read));
    for (let k = 0; k < SETTLE_READS && loads.some(isBusy); k++) {
      await sleep(SETTLE_MS);
      loads = await Promise.all(urls.map((u, i) => (isBusy(loads[i]!) ? read(u) : loads[i]!)));
    }
    const checkedAtS = Date.now() / 1000;
    for (const l of loads) {
      if (l.error) {
        log(
          `note: ${l.url}: ${l.error}: whether another client is using it cannot be told (SGLang serves /metrics with --enable-metrics)`,
        );
        continue;
      }
      if (!isBusy(l)) continue;
      const what = `endpoint ${l.url} is busy: ${l.running ?? 0} running, ${l.waiting ?? 0} waiting requests that are not this run's (another client?)`;
      if (!allowBusy)
        throw new ServerBusyError(`${what}; --allow-busy-server runs anyway`, l.url, l.running ?? 0, l.waiting ?? 0);
      log(`warning: ${what}; running anyway (--allow-busy-server): its figures include the other load`);
    }
    return new ServerState([...urls], headers, allowBusy, loads, checkedAtS);
  }

  /** Who each server is: /version, /get_server_info or /server_info, /v1/models (the adapter's probes fill gaps). */
  async identify(llm: LlmSut | null): Promise<void> {
    await Promise.all(
      this.urls.map(async (u, i) => {
        const { origin, prefix } = parseEndpointUrl(u);
        const info = await readServerInfo(`${origin}${prefix}`, endpointRequestInfo(u, this.headers).headers);
        const probe = llm?.probes[i];
        const model = probe?.models.find((m) => m.id === llm?.model) ?? probe?.models[0];
        this.report.endpoints[i]!.identity = {
          version: info.version ?? probe?.version ?? null,
          model: llm?.model ?? info.modelId ?? model?.id ?? null,
          maxModelLen: model?.maxModelLen ?? info.maxModelLen,
          engineConfig: info.serverInfo,
        };
      }),
    );
  }

  /** Each endpoint's context in tokens, once identify() has read it (null when not told). */
  contexts(): { url: string; maxModelLen: number | null }[] {
    return this.report.endpoints.map((e) => ({ url: e.url, maxModelLen: e.identity.maxModelLen }));
  }

  /** N warm-up requests through the adapter's request bodies, outside every figure; null when there is none. */
  async warmUp(
    llm: LlmSut,
    n: number,
    concurrency: number | undefined,
    datasetSize: number,
    log: (m: string) => void,
  ): Promise<WarmupReport | null> {
    if (n <= 0) return null;
    const body = llm.requestBody?.bind(llm);
    if (!body) {
      log('note: --warmup applies to the request adapter; this run (live conversations) sends no warm-up requests');
      return null;
    }
    log(`warm-up: ${n} request${n > 1 ? 's' : ''} before the test (excluded from every figure)`);
    const r = await sendWarmup(
      {
        urls: this.urls,
        headers: this.headers,
        api: llm.api,
        tokenSource: llm.capabilities.tokenSource,
        body,
        datasetSize,
      },
      n,
      Math.max(1, Math.min(concurrency ?? 16, 16)),
    );
    const ttft = r.ttftMs ? `, TTFT p50 ${r.ttftMs.p50.toFixed(1)} ms, p99 ${r.ttftMs.p99.toFixed(1)} ms` : '';
    log(
      `warm-up: ${r.requests - r.failed} of ${r.requests} requests succeeded in ${(r.durationMs / 1000).toFixed(2)} s${ttft}${r.firstError ? ` (first failure: ${r.firstError})` : ''}`,
    );
    return r;
  }

  /** After the test: the prefix-cache counters again; the record's section. */
  async finish(): Promise<ServerStateReport> {
    const loads = await Promise.all(this.urls.map((u) => readServerLoad(u, this.headers)));
    loads.forEach((l, i) => {
      this.report.endpoints[i]!.prefixCache.end = l.prefixCache;
    });
    return this.report;
  }
}
