// HTTP helpers for the simulator tests: a node:http client that never
// rejects (faults show up as `error`), keeps every socket read with its
// arrival time, and splits SSE bodies into events.
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface Read {
  /** process.hrtime.bigint() as a number, when the read arrived. */
  ns: number;
  text: string;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  reads: Read[];
  /** When the request was sent / the headers arrived (hrtime ns). */
  sentNs: number;
  headersNs: number | null;
  /** Set when the connection failed or broke before the response ended. */
  error: Error | null;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Destroy the request after this many ms. */
  timeoutMs?: number;
  /** Called on every read; return true to destroy the connection. */
  onRead?: (read: Read, soFar: string) => boolean;
  agent?: Agent;
}

const now = (): number => Number(process.hrtime.bigint());

export function httpCall(baseUrl: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
  return new Promise((resolve) => {
    const url = new URL(path, baseUrl);
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const result: HttpResult = {
      status: 0,
      headers: {},
      body: '',
      reads: [],
      sentNs: now(),
      headersNs: null,
      error: null,
    };
    let settled = false;
    const done = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      if (err) result.error = err;
      if (timer) clearTimeout(timer);
      resolve(result);
    };
    const req = httpRequest(
      url,
      {
        method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        agent: opts.agent,
      },
      (res) => {
        result.status = res.statusCode ?? 0;
        result.headers = res.headers;
        result.headersNs = now();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const read = { ns: now(), text: chunk };
          result.reads.push(read);
          result.body += chunk;
          if (opts.onRead?.(read, result.body)) {
            req.destroy();
            done(new Error('destroyed by test'));
          }
        });
        res.on('end', () => done(null));
        res.on('aborted', () => done(new Error('response aborted')));
        res.on('error', (err) => done(err));
        res.on('close', () => {
          if (!res.complete) done(new Error('response closed before it completed'));
        });
      },
    );
    const timer =
      opts.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            req.destroy();
            done(new Error('timeout'));
          }, opts.timeoutMs);
    req.on('error', (err) => done(err));
    result.sentNs = now();
    req.end(payload);
  });
}

export function post(baseUrl: string, path: string, body: unknown, opts: RequestOptions = {}): Promise<HttpResult> {
  return httpCall(baseUrl, path, { ...opts, body, method: 'POST' });
}

/** `data:` payloads of an SSE body, in order (the text after "data: "). */
export function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .filter((e) => e.length > 0)
    .map((e) => {
      if (!e.startsWith('data: ')) throw new Error(`not an SSE data event: ${JSON.stringify(e)}`);
      return e.slice('data: '.length);
    });
}

/** Parsed JSON events of an SSE body, without the final [DONE]. */
export function sseJson(body: string): Array<Record<string, any>> {
  return sseData(body)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as Record<string, any>);
}

/** Tokens per chunk of a vLLM stream with return_token_ids (chunks with choices). */
export function tokenIdChunks(body: string): number[][] {
  return sseJson(body)
    .filter((e) => Array.isArray(e.choices) && e.choices.length > 0 && Array.isArray(e.choices[0].token_ids))
    .map((e) => e.choices[0].token_ids as number[]);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` until true or the deadline; returns whether it became true. */
export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(5);
  }
  return cond();
}

export { now as nowNs };
