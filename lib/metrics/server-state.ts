// A server's state as the run found and left it: one read of its /metrics
// (requests running and waiting, prefix-cache counters, the process start
// time), and the record of it that results.json carries (`serverState`): who
// the server is, whether another client was using it when the run started,
// and how warm its prefix cache was at the start and the end.
import { endpointRequestInfo, parseEndpointUrl } from '../sut/endpoint-url.js';
import type { ServerFlavor } from './metric-names.js';
import { parsePrometheusText } from './prom-text.js';
import { snapshotOf } from './server-snapshot.js';

/** Prefix-cache counters at one moment (vLLM: tokens queried and hit, counters; SGLang: a hit-rate gauge). */
export interface PrefixCacheCounters {
  queries: number | null;
  hits: number | null;
  /** hits / queries for vLLM; SGLang's own gauge (0..1). */
  hitRate: number | null;
}

/** One read of an endpoint's /metrics. */
export interface ServerLoad {
  /** The endpoint URL, without credentials. */
  url: string;
  /** Why there are no figures (no /metrics, or no vLLM/SGLang names in it); null when read. */
  error: string | null;
  flavor: ServerFlavor | null;
  running: number | null;
  waiting: number | null;
  prefixCache: PrefixCacheCounters | null;
  /** process_start_time_seconds (Unix s), when exposed. */
  processStartTimeSeconds: number | null;
}

/** What a server said about itself (/version, /get_server_info or /server_info, /v1/models). */
export interface ServerIdentity {
  version: string | null;
  model: string | null;
  maxModelLen: number | null;
  /** The engine configuration the server reports (SGLang's ServerArgs dump, vLLM's /server_info), as it is. */
  engineConfig: Record<string, unknown> | null;
}

/** One endpoint in results.json `serverState.endpoints`. */
export interface ServerStateEndpoint {
  url: string;
  /** 'vllm' | 'sglang' from the metric names; null without /metrics. */
  flavor: ServerFlavor | null;
  /** Why /metrics gave nothing, when it did not. */
  metricsNote: string | null;
  /** Requests running and waiting before the run sent anything (after our own probes settled), null without /metrics. */
  atStart: { running: number | null; waiting: number | null; busy: boolean } | null;
  identity: ServerIdentity;
  /** The server process's start (ISO 8601) and its age when the run started, from process_start_time_seconds. */
  startedAt: string | null;
  uptimeSeconds: number | null;
  /** Prefix-cache counters before the run (and its warm-up) and after the test. */
  prefixCache: { start: PrefixCacheCounters | null; end: PrefixCacheCounters | null };
}

export interface ServerStateReport {
  /** The run was told to go ahead on busy servers (allowBusyServer / --allow-busy-server). */
  allowBusy: boolean;
  /** Some endpoint had requests that were not the run's when it started. */
  busyAtStart: boolean;
  endpoints: ServerStateEndpoint[];
}

function first(samples: ReturnType<typeof parsePrometheusText>, name: string): number | null {
  for (const s of samples) if (s.name === name && Number.isFinite(s.value)) return s.value;
  return null;
}

/** Reads an endpoint's /metrics once (never throws: a server without /metrics gives `error`). */
export async function readServerLoad(
  given: string,
  headers: Record<string, string> = {},
  timeoutMs = 5000,
): Promise<ServerLoad> {
  const { origin, prefix } = parseEndpointUrl(given);
  const info = endpointRequestInfo(given, headers);
  const out: ServerLoad = {
    url: info.url,
    error: null,
    flavor: null,
    running: null,
    waiting: null,
    prefixCache: null,
    processStartTimeSeconds: null,
  };
  let text: string;
  try {
    const res = await fetch(`${origin}${prefix}/metrics`, {
      headers: info.headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
    if (!res.ok) {
      out.error = `GET /metrics answered ${res.status}`;
      return out;
    }
  } catch (err) {
    const e = err as { message?: string; cause?: { message?: string } };
    out.error = `GET /metrics failed: ${e.cause?.message ?? e.message ?? String(err)}`;
    return out;
  }
  const samples = parsePrometheusText(text);
  const snap = snapshotOf(samples);
  out.processStartTimeSeconds = first(samples, 'process_start_time_seconds');
  if (!snap.flavor) {
    out.error = '/metrics has no vLLM or SGLang metric names';
    return out;
  }
  out.flavor = snap.flavor;
  out.running = snap.running;
  out.waiting = snap.waiting;
  if (snap.prefixQueries !== null || snap.prefixHits !== null || snap.cacheHitRate !== null) {
    out.prefixCache = {
      queries: snap.prefixQueries,
      hits: snap.prefixHits,
      hitRate:
        snap.cacheHitRate ??
        (snap.prefixQueries && snap.prefixHits !== null ? snap.prefixHits / snap.prefixQueries : null),
    };
  }
  return out;
}

/** Requests on the server that are not ours (running + waiting > 0). */
export function isBusy(load: ServerLoad): boolean {
  return (load.running ?? 0) + (load.waiting ?? 0) > 0;
}
