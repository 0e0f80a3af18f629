// Warm-up requests: the adapter's own request bodies for dataset prompts,
// sent outside the test (no worker, no engine, no counter of the adapter's),
// so they reach the servers like the test's requests but count in no figure.
// What they did is reported on its own (results.json `warmup`).
import { endpointRequestInfo, parseEndpointUrl } from './endpoint-url.js';
import { describeNetworkError, streamOnce, type Decode } from './probe.js';
import type { TokenSource, WireApiName } from './types.js';
import { decodeGenerateChunk } from './wire/generate-chunks.js';
import { decodeOpenAiChunk } from './wire/openai-chunks.js';
import { apiPath } from './wire/request-body.js';

export interface WarmupReport {
  /** Warm-up requests sent. */
  requests: number;
  failed: number;
  /** Harness-side TTFT of the warm-up requests that succeeded (null when none did). */
  ttftMs: { p50: number; p99: number } | null;
  /** From the first warm-up request to the last answer. */
  durationMs: number;
  /** The first failure's message, when one failed. */
  firstError: string | null;
}

export interface WarmupTarget {
  /** Endpoint URLs (credentials in them go as Basic authorization). */
  urls: readonly string[];
  headers: Record<string, string>;
  api: WireApiName;
  tokenSource: TokenSource;
  /** The body for dataset sample i. */
  body: (index: number) => Buffer;
  datasetSize: number;
}

function percentile(sorted: readonly number[], q: number): number {
  // Nearest rank, as LoadGen reports percentiles.
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[k]!;
}

/**
 * Sends `n` requests (dataset samples 0, 1, ... wrapping around), round robin
 * over the endpoints, at most `concurrency` at a time; never throws.
 */
export async function sendWarmup(
  t: WarmupTarget,
  n: number,
  concurrency: number,
  timeoutMs = 300_000,
): Promise<WarmupReport> {
  const chat = t.api === 'chat';
  const decode: Decode =
    t.api === 'generate'
      ? (text, s, e, st) => decodeGenerateChunk(text, s, e, st)
      : (text, s, e, st) => decodeOpenAiChunk(text, s, e, st, t.tokenSource, chat);
  const targets = t.urls.map((u) => {
    const { origin, prefix } = parseEndpointUrl(u);
    return { url: `${origin}${prefix}${apiPath(t.api)}`, headers: endpointRequestInfo(u, t.headers).headers };
  });
  const ttfts: number[] = [];
  let failed = 0;
  let firstError: string | null = null;
  let next = 0;
  const t0 = performance.now();
  const one = async (i: number): Promise<void> => {
    const target = targets[i % targets.length]!;
    try {
      const body = JSON.parse(t.body(i % t.datasetSize).toString('utf8')) as unknown;
      const r = await streamOnce(target.url, body, target.headers, timeoutMs, decode);
      if (r.ttftMs !== null) ttfts.push(r.ttftMs);
    } catch (err) {
      failed++;
      firstError ??= describeNetworkError(err);
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(n, concurrency)) }, async () => {
    while (next < n) await one(next++);
  });
  await Promise.all(lanes);
  ttfts.sort((a, b) => a - b);
  return {
    requests: n,
    failed,
    ttftMs: ttfts.length ? { p50: percentile(ttfts, 0.5), p99: percentile(ttfts, 0.99) } : null,
    durationMs: performance.now() - t0,
    firstError,
  };
}
