// Chunked bodies decoded past undici's parser (lib/sut/reused-reads.ts): the
// payload reaches the sink whole whatever the read boundaries, undici still
// ends each response (keep-alive reuse, trailers), framing errors fail the
// request, and the adapter's own idle-read timeout replaces undici's.
import type net from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Pool } from 'undici';

import { createLlmSut } from '../../lib/index.js';
import { native } from '../../lib/core/binding.js';
import { chunkedOnly, keepable, markBody, markIdle, reusedReadConnector } from '../../lib/sut/reused-reads.js';
import { accuracyRun, expectedIds, hexToInt32, idDataset, logPaths, readAccuracy, sim, track } from './helpers.js';
import { rawHttpServer, type RawServer } from './raw-http-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  vi.restoreAllMocks();
});

interface Got {
  status: number;
  /** payload that came through the sink (bypass) and through undici's onData */
  viaSink: Buffer;
  viaUndici: Buffer;
  trailers: unknown;
}

/** A legacy undici handler that offers a sink for chunked bodies, as the adapter's does. */
function fetchVia(pool: Pool, path: string, offerSink = true): Promise<Got> {
  return new Promise((resolve, reject) => {
    const sink: Buffer[] = [];
    const undici: Buffer[] = [];
    let status = 0;
    pool.dispatch({ method: 'GET', path }, {
      onConnect() {},
      onHeaders(s: number, raw: Buffer[] | null) {
        status = s;
        markBody(
          s,
          offerSink && s === 200 && chunkedOnly(raw)
            ? { onBody: (b: Buffer, start: number, n: number) => sink.push(Buffer.from(b.subarray(start, start + n))) }
            : null,
        );
        return true;
      },
      onData(chunk: Buffer) {
        undici.push(keepable(chunk));
        return true;
      },
      onComplete(trailers: unknown) {
        markIdle();
        resolve({ status, viaSink: Buffer.concat(sink), viaUndici: Buffer.concat(undici), trailers });
      },
      onError(err: Error) {
        markIdle();
        reject(err);
      },
    } as never);
  });
}

/** The raw server, closed after the test; `answer(sock, path, body)`. */
async function listen(
  answer: (sock: net.Socket, path: string, body: string) => Promise<void> | void,
): Promise<RawServer> {
  const raw = await rawHttpServer((sock, _method, path, body) => answer(sock, path, body));
  servers.push(raw.server);
  return raw;
}

const frame = (t: string) => `${Buffer.byteLength(t).toString(16)}\r\n${t}\r\n`;
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const events = (n: number, tag: string) => Array.from({ length: n }, (_, k) => `data: {"${tag}":${k}}\n\n`);

/** Writes `text` in pieces cut at `cuts` (offsets), pausing so each piece is its own read. */
async function writeCut(sock: net.Socket, text: string, cuts: number[]): Promise<void> {
  let from = 0;
  for (const c of [...cuts, text.length]) {
    if (c > from) sock.write(text.slice(from, c));
    from = c;
    await sleep(4);
  }
}

describe('chunked bodies past undici', () => {
  test('written at once, one chunk per read, and cut inside size lines, CRLFs and the last chunk: payload whole, via the sink, on one connection', async () => {
    const body = (tag: string) => events(6, tag).map(frame).join('');
    const { url, connections } = await listen(async (sock, path) => {
      const text = HEAD + body(path.slice(1)) + '0\r\n\r\n';
      const headEnd = HEAD.length;
      if (path === '/once') sock.write(text);
      else if (path === '/per-chunk') {
        const cuts = [headEnd];
        for (let o = headEnd, k = 0; k < 6; k++) cuts.push((o += frame(events(6, 'per-chunk')[k]).length));
        await writeCut(sock, text, cuts);
      } else {
        // Cuts right after the header block (so the bypass is taken), then in
        // a size line, between CR and LF of a data CRLF, in the data, and
        // inside the last chunk's line and the final CRLF.
        const size2 = headEnd + frame(events(6, 'awkward')[0]).length;
        await writeCut(sock, text, [
          headEnd,
          headEnd + 1,
          size2 + 1,
          size2 + 5,
          text.length - 14,
          text.length - 4,
          text.length - 3,
          text.length - 1,
        ]);
      }
    });
    const pool = new Pool(url, { connections: 1, pipelining: 1, connect: reusedReadConnector(2000) });
    try {
      for (const kind of ['once', 'per-chunk', 'awkward', 'once']) {
        const got = await fetchVia(pool, `/${kind}`);
        expect(got.status).toBe(200);
        expect(got.viaSink.toString()).toBe(events(6, kind).join(''));
        expect(got.viaUndici.length).toBe(0);
      }
      expect(connections()).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test('chunk extensions and trailers: extensions skipped, trailers still reach the handler through undici', async () => {
    const { url } = await listen((sock) => {
      sock.write(
        `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-check\r\n\r\n4;name=v\r\nabcd\r\n2 ;x\r\nef\r\n0;end\r\nx-check: 42\r\n\r\n`,
      );
    });
    const pool = new Pool(url, { connections: 1, connect: reusedReadConnector(2000) });
    try {
      const got = await fetchVia(pool, '/');
      expect(got.viaSink.toString()).toBe('abcdef');
      expect(got.viaUndici.length).toBe(0);
      expect(String(got.trailers)).toContain('x-check');
    } finally {
      await pool.close();
    }
  });

  test('what the bypass does not take goes through undici as before: content-length, other codings, a header block split over reads, no sink', async () => {
    const { url } = await listen(async (sock, path) => {
      if (path === '/length') sock.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello');
      else if (path === '/gzip')
        sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
      else if (path === '/split') await writeCut(sock, `${HEAD}5\r\nhello\r\n0\r\n\r\n`, [20, 40]);
      else sock.write(`${HEAD}5\r\nhello\r\n0\r\n\r\n`);
    });
    const pool = new Pool(url, { connections: 1, connect: reusedReadConnector(2000) });
    try {
      for (const path of ['/length', '/gzip', '/split']) {
        const got = await fetchVia(pool, path);
        expect(got.viaSink.length).toBe(0);
        expect(got.viaUndici.toString()).toBe('hello');
      }
      const plain = await fetchVia(pool, '/nosink', false);
      expect(plain.viaUndici.toString()).toBe('hello');
    } finally {
      await pool.close();
    }
    expect(chunkedOnly(['Transfer-Encoding', ' Chunked '])).toBe(true);
    expect(chunkedOnly(['transfer-encoding', 'chunked', 'content-length', '5'])).toBe(false);
    expect(chunkedOnly(['content-type', 'text/event-stream'])).toBe(false);
    expect(chunkedOnly(null)).toBe(false);
  });

  test('broken framing in a bypassed body fails the request with undici parser error; the next request gets a new connection', async () => {
    const { url, connections } = await listen(async (sock, path) => {
      if (path === '/bad-size') await writeCut(sock, `${HEAD}5\r\nhello\r\nzz\r\n`, [HEAD.length]);
      else if (path === '/bad-crlf') await writeCut(sock, `${HEAD}5\r\nhelloXX`, [HEAD.length]);
      else sock.write(`${HEAD}2\r\nok\r\n0\r\n\r\n`);
    });
    const pool = new Pool(url, { connections: 1, connect: reusedReadConnector(2000) });
    try {
      await expect(fetchVia(pool, '/bad-size')).rejects.toMatchObject({
        code: 'HPE_INVALID_CHUNK_SIZE',
        message: expect.stringContaining('invalid chunk size line'),
      });
      await expect(fetchVia(pool, '/bad-crlf')).rejects.toMatchObject({
        code: 'HPE_INVALID_CHUNK_SIZE',
        message: expect.stringContaining('CRLF'),
      });
      const ok = await fetchVia(pool, '/ok');
      expect(ok.viaSink.toString()).toBe('ok');
      expect(connections()).toBe(3);
    } finally {
      await pool.close();
    }
  });
});

describe('the adapter with bypassed bodies', () => {
  test.each([
    ['vllm', 'completions'],
    ['sglang', 'generate'],
  ] as const)(
    '%s simulator (%s), streams paced and written at once, one and four tokens a chunk: every id in the accuracy log, decoded by the native de-chunker',
    async (flavor, api) => {
      const spy = vi.spyOn(native, 'dechunkRead');
      for (const [tokensPerChunk, decodeStepNs] of [
        [1, 2e6],
        [4, 0],
      ]) {
        const s = await sim({ flavor, tokensPerChunk, decodeStepNs });
        const llm = track(
          await createLlmSut({
            endpoints: [s.url],
            dataset: idDataset(16, 9),
            backend: flavor,
            api,
            workers: 0,
            onWarning: () => {},
          }),
        );
        const { outdir } = await accuracyRun(llm);
        const report = await llm.report();
        expect(report.samples.failed).toBe(0);
        const entries = readAccuracy(logPaths(outdir).accuracy);
        expect(entries.length).toBe(16);
        for (const e of entries) expect(hexToInt32(e.data)).toEqual(expectedIds([1, 100 + e.qsl_idx, 7], 9));
        await llm.close();
      }
      expect(spy.mock.calls.length).toBeGreaterThan(16);
    },
  );

  test('chat through the bypass: a role chunk handed back to the TypeScript decoders, events cut across chunks and reads, ids whole in the accuracy log', async () => {
    const chunk = (ids: number[], finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: finish, token_ids: ids }] })}\n\n`;
    const role = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] })}\n\n`;
    const usage = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } })}\n\n`;
    const { url } = await listen(async (sock, path, body) => {
      if (path !== '/v1/chat/completions') {
        const b =
          path === '/v1/models' ? JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }) : '{}';
        sock.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${b.length}\r\n\r\n${b}`);
        return;
      }
      const base =
        700 + 10 * Number((JSON.parse(body) as { messages: { content: string }[] }).messages[0].content.slice(-1));
      const one = chunk([base], null);
      const half = one.length >> 1;
      // role | first event split over two chunks | two events in one chunk | last event, usage, [DONE] and the last chunk
      const text =
        HEAD +
        frame(role) +
        frame(one.slice(0, half)) +
        frame(one.slice(half)) +
        frame(chunk([base + 1], null) + chunk([base + 2, base + 3], null)) +
        frame(chunk([base + 4], 'length') + usage + 'data: [DONE]\n\n') +
        '0\r\n\r\n';
      // The first read holds the headers, the role chunk and a size line's start (so the role
      // event is handed back from inside the read buffer); then cuts inside the split event's
      // chunks, inside a size line and inside the last chunk's line.
      const at = (needle: string, from = 0) => text.indexOf(needle, from);
      const second = at(one.slice(half));
      await writeCut(sock, text, [
        HEAD.length + frame(role).length + 5,
        second - 3,
        second + 9,
        at('data: [DONE]') + 4,
        text.length - 4,
      ]);
    });
    const llm = track(
      await createLlmSut({
        endpoints: [url],
        dataset: {
          name: 'chat',
          size: 3,
          prompt: (i) => ({ messages: [{ role: 'user', content: `say ${i}` }], maxTokens: 5 }),
        },
        backend: 'vllm',
        api: 'chat',
        model: 'm',
        capabilities: { tokenSource: 'token_ids' },
        workers: 0,
        onWarning: () => {},
      }),
    );
    const spy = vi.spyOn(native, 'sseScanRead');
    const { outdir } = await accuracyRun(llm);
    const report = await llm.report();
    expect(report.samples.failed).toBe(0);
    const byIndex = new Map(readAccuracy(logPaths(outdir).accuracy).map((e) => [e.qsl_idx, hexToInt32(e.data)]));
    for (const i of [0, 1, 2]) expect(byIndex.get(i)).toEqual([0, 1, 2, 3, 4].map((k) => 700 + 10 * i + k));
    expect(spy).toHaveBeenCalled(); // scanned in the read buffer, by offsets
    await llm.close();
  });

  test('a stream longer than the idle timeout whose chunks keep coming is not cut; a stall is, as idle-timeout, retried before the first token', async () => {
    // Sample 0 streams 8 chunks 60 ms apart (0.5 s, idle timeout 200 ms);
    // sample 1's first attempt stalls after its headers, the second answers.
    let attempts1 = 0;
    const { url } = await listen(async (sock, path, body) => {
      if (path !== '/v1/completions') {
        const b =
          path === '/v1/models' ? JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }) : '{}';
        sock.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${b.length}\r\n\r\n${b}`);
        return;
      }
      const i = (JSON.parse(body) as { prompt: number[] }).prompt[2] - 3;
      sock.write(HEAD);
      if (i === 1 && attempts1++ === 0) return; // stall: headers, then nothing
      const n = i === 0 ? 8 : 2;
      for (let k = 0; k < n; k++) {
        const ev = {
          id: 'c',
          object: 'text_completion',
          model: 'm',
          choices: [
            { index: 0, text: 'x', token_ids: [500 + 10 * i + k], finish_reason: k === n - 1 ? 'length' : null },
          ],
        };
        sock.write(frame(`data: ${JSON.stringify(ev)}\n\n`));
        if (i === 0) await sleep(60);
      }
      sock.write(frame('data: [DONE]\n\n') + '0\r\n\r\n');
    });
    const llm = track(
      await createLlmSut({
        endpoints: [url],
        dataset: { name: 'two', size: 2, prompt: (i) => ({ tokenIds: [1, 2, 3 + i], maxTokens: 8 }) },
        backend: 'vllm',
        model: 'm',
        capabilities: { tokenSource: 'token_ids' },
        workers: 0,
        timeouts: { firstByteMs: 5000, idleMs: 200, totalMs: 10_000 },
        retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
        onWarning: () => {},
      }),
    );
    const { outdir } = await accuracyRun(llm);
    const report = await llm.report();
    expect(report.samples.failed).toBe(0);
    expect(report.samples.retried).toBe(1);
    expect(report.endpoints[0].errorKinds['idle-timeout']).toBe(1);
    const byIndex = new Map(readAccuracy(logPaths(outdir).accuracy).map((e) => [e.qsl_idx, hexToInt32(e.data)]));
    expect(byIndex.get(0)).toEqual([500, 501, 502, 503, 504, 505, 506, 507]);
    expect(byIndex.get(1)).toEqual([510, 511]);
    await llm.close();
  });
});
