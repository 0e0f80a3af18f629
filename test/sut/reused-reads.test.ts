import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { Pool } from 'undici';

import { createLlmSut } from '../../lib/index.js';
import { keepable, markBody, markIdle, reusedReadConnector } from '../../lib/sut/reused-reads.js';
import { accuracyRun, hexToInt32, idDataset, logPaths, readAccuracy, track } from './helpers.js';
import { rawHttpServer } from './raw-http-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Got {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  /** body chunks that were views of the shared read buffer */
  lentReads: number;
}

/** A legacy undici handler that marks the response phase as the adapter's does. */
function fetchVia(pool: Pool, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let got: Got | null = null;
    let lent = 0;
    pool.dispatch({ method: 'GET', path }, {
      onConnect() {},
      onHeaders(status: number, raw: Buffer[] | string[] | null, _resume: () => void, statusText: string) {
        markBody(status);
        const headers: Record<string, string> = {};
        for (let i = 0; raw && i < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
        got = { status, statusText, headers, body: Buffer.alloc(0), lentReads: 0 };
        return true;
      },
      onData(chunk: Buffer) {
        const k = keepable(chunk);
        if (k !== chunk) lent++;
        parts.push(k);
        return true;
      },
      onComplete() {
        markIdle();
        got!.body = Buffer.concat(parts);
        got!.lentReads = lent;
        resolve(got!);
      },
      onError(err: Error) {
        markIdle();
        reject(err);
      },
    } as never);
  });
}

const servers: net.Server[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function listen(onConn: (sock: net.Socket, path: string) => void): Promise<string> {
  const srv = net.createServer((sock) => {
    sock.setNoDelay(true);
    let acc = '';
    sock.on('data', (d) => {
      acc += d.toString('latin1');
      let end: number;
      while ((end = acc.indexOf('\r\n\r\n')) >= 0) {
        const path = acc.slice(0, end).split(' ')[1];
        acc = acc.slice(end + 4);
        onConn(sock, path);
      }
    });
    sock.on('error', () => {});
  });
  servers.push(srv);
  return new Promise((r) =>
    srv.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`)),
  );
}

/** A megabyte of a recognisable pattern. */
function floodPattern(step: number): Buffer {
  const b = Buffer.alloc(1 << 20);
  for (let i = 0; i < b.length; i++) b[i] = (i * step) & 0xff;
  return b;
}

/** Streams `bytes` as one response in 16 KB writes, overwriting the shared read buffer meanwhile. */
async function serveFlood(sock: net.Socket, bytes: Buffer): Promise<void> {
  sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${bytes.length}\r\n\r\n`);
  for (let o = 0; o < bytes.length; o += 16384) {
    sock.write(bytes.subarray(o, o + 16384));
    await sleep(2);
  }
}

const LONG = (tag: string) => `${tag}-${'x'.repeat(300)}-${tag}`;

describe('reused read buffers', () => {
  test('a header block split over many reads survives other sockets reusing the buffer in between', async () => {
    // /split answers with its status line and headers a few bytes per write,
    // with pauses; /flood streams a megabyte meanwhile, so the shared read
    // buffer is overwritten between the split response's reads.
    const floodBytes = floodPattern(7);
    const url = await listen(async (sock, path) => {
      if (path === '/flood') return serveFlood(sock, floodBytes);
      const n = Number(path.split('/')[2]);
      const head = `HTTP/1.1 203 Split Status Text\r\nx-first: ${LONG(`a${n}`)}\r\nx-second: ${LONG(`b${n}`)}\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n`;
      for (let o = 0; o < head.length; o += 37) {
        sock.write(head.slice(o, o + 37));
        await sleep(8);
      }
      for (let k = 0; k < 5; k++) {
        const ev = `data: {"n":${n},"k":${k}}\n\n`;
        sock.write(`${Buffer.byteLength(ev).toString(16)}\r\n${ev}\r\n`);
        await sleep(5);
      }
      sock.write('0\r\n\r\n');
    });
    const pool = new Pool(url, { connections: 2, connect: reusedReadConnector(2000) });
    try {
      const flood = fetchVia(pool, '/flood');
      await sleep(5);
      // Three split responses in a row on one keep-alive socket.
      for (let n = 0; n < 3; n++) {
        const got = await fetchVia(pool, `/split/${n}`);
        expect(got.status).toBe(203);
        expect(got.statusText).toBe('Split Status Text');
        expect(got.headers['x-first']).toBe(LONG(`a${n}`));
        expect(got.headers['x-second']).toBe(LONG(`b${n}`));
        expect(got.headers['content-type']).toBe('text/event-stream');
        const events = got.body.toString().split('\n\n').filter(Boolean);
        expect(events).toEqual([0, 1, 2, 3, 4].map((k) => `data: {"n":${n},"k":${k}}`));
      }
      const f = await flood;
      expect(f.body.equals(floodBytes)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  test('a response written at once is parsed from the shared buffer; a 1xx block does not count as the body', async () => {
    const floodBytes = floodPattern(13);
    const url = await listen(async (sock, path) => {
      if (path === '/flood') return serveFlood(sock, floodBytes);
      const n = Number(path.split('/')[2]);
      const body = `data: {"n":${n}}\n\n`.repeat(50);
      const head = `HTTP/1.1 200 OK\r\nx-first: ${LONG(`a${n}`)}\r\ncontent-length: ${body.length}\r\n\r\n`;
      if (path.startsWith('/once/')) {
        sock.write(head + body);
        return;
      }
      // /hints/: an informational block with the start of the final header
      // block in the same write, then the rest a few bytes per write while
      // the flood reuses the buffer.
      sock.write(`HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n${head.slice(0, 37)}`);
      await sleep(8);
      for (let o = 37; o < head.length; o += 37) {
        sock.write(head.slice(o, o + 37));
        await sleep(8);
      }
      sock.write(body);
    });
    const pool = new Pool(url, { connections: 2, connect: reusedReadConnector(2000) });
    try {
      const flood = fetchVia(pool, '/flood');
      await sleep(5);
      for (const kind of ['once', 'hints', 'once']) {
        for (let n = 0; n < 2; n++) {
          const got = await fetchVia(pool, `/${kind}/${n}`);
          expect(got.status).toBe(200);
          expect(got.headers['x-first']).toBe(LONG(`a${n}`));
          expect(got.body.toString()).toBe(`data: {"n":${n}}\n\n`.repeat(50));
          // Written at once: header block and body came in one read, lent.
          if (kind === 'once') expect(got.lentReads).toBeGreaterThan(0);
        }
      }
      expect((await flood).body.equals(floodBytes)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  test('keepable copies only views of the shared buffer', async () => {
    const url = await listen((sock) => {
      sock.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n');
      setTimeout(() => sock.write('0123456789'), 20);
    });
    const pool = new Pool(url, { connections: 1, connect: reusedReadConnector(2000) });
    const seen: { same: boolean; copyEqual: boolean }[] = [];
    try {
      await new Promise<void>((resolve, reject) =>
        pool.dispatch({ method: 'GET', path: '/' }, {
          onConnect() {},
          onHeaders(status: number) {
            markBody(status);
            return true;
          },
          onData(chunk: Buffer) {
            const k = keepable(chunk);
            seen.push({ same: k === chunk, copyEqual: k.equals(chunk) });
            return true;
          },
          onComplete() {
            markIdle();
            resolve();
          },
          onError: reject,
        } as never),
      );
    } finally {
      await pool.close();
    }
    // The body came in a read of its own, inside the body: lent, so copied.
    expect(seen).toEqual([{ same: false, copyEqual: true }]);
    const own = Buffer.from('abc');
    expect(keepable(own)).toBe(own);
  });

  test('a server that completes no handshake ends in a connect timeout error', async () => {
    // A listener with a backlog of 1 in a stopped process: once its queue is
    // full the kernel drops further SYNs, so a connect can only time out.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "require('net').createServer().listen({port:0,host:'127.0.0.1',backlog:1},function(){console.log(this.address().port)})",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    const port = await new Promise<number>((r) => child.stdout!.once('data', (d) => r(Number(String(d).trim()))));
    child.kill('SIGSTOP');
    const fillers = [0, 1, 2, 3].map(() => net.connect(port, '127.0.0.1').on('error', () => {}));
    await sleep(100);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1, connect: reusedReadConnector(300) });
    try {
      await expect(fetchVia(pool, '/')).rejects.toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
    } finally {
      for (const f of fillers) f.destroy();
      await pool.destroy();
    }
  });

  test('the adapter against a vLLM-style server that dribbles every response while another socket floods the buffer: ids and retries intact', async () => {
    // Sample i (prompt [1, 100 + i, 7]) streams ids 1000 + 10 i + k, k < 5.
    // The first request of each even sample gets a 429 whose headers and
    // JSON error body come in pieces; meanwhile /flood keeps the shared read
    // buffer busy on the same thread (workers: 0).
    const seen = new Map<number, number>();
    let floodDone = false;
    const dribble = async (sock: net.Socket, text: string) => {
      for (let o = 0; o < text.length; o += 23) {
        sock.write(text.slice(o, o + 23));
        await sleep(2);
      }
    };
    const frame = (t: string) => `${Buffer.byteLength(t).toString(16)}\r\n${t}\r\n`;
    const answer = async (sock: net.Socket, method: string, path: string, body: string) => {
      const json = (code: number, obj: unknown) => {
        const b = JSON.stringify(obj);
        sock.write(
          `HTTP/1.1 ${code} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`,
        );
      };
      if (method === 'GET' && path === '/flood') {
        // Until the test is done: chunked pieces of bytes no response has.
        sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
        while (!floodDone) {
          sock.write(frame('#'.repeat(4000)));
          await sleep(1);
        }
        sock.write('0\r\n\r\n');
        return;
      }
      if (method !== 'POST') {
        if (path === '/v1/models')
          json(200, { object: 'list', data: [{ id: 'm', object: 'model', max_model_len: 4096 }] });
        else if (path === '/version') json(200, { version: '0.11.0' });
        else if (path === '/health') json(200, {});
        else json(404, { error: 'no' });
        return;
      }
      const req = JSON.parse(body) as { prompt: number[]; stream?: boolean; max_tokens: number };
      const i = req.prompt[1] - 100;
      const n = Math.min(5, req.max_tokens);
      const ids = Array.from({ length: n }, (_, k) => 1000 + 10 * i + k);
      if (!req.stream) {
        // Headers and body a few bytes per write: the body comes in lent reads.
        const b = JSON.stringify({
          id: 'c',
          object: 'text_completion',
          model: 'm',
          choices: [{ index: 0, text: 'x', token_ids: ids, finish_reason: 'length' }],
          usage: { prompt_tokens: 3, completion_tokens: n, total_tokens: 3 + n },
        });
        await dribble(
          sock,
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n`,
        );
        await dribble(sock, b);
        return;
      }
      const tries = (seen.get(i) ?? 0) + 1;
      seen.set(i, tries);
      if (i % 2 === 0 && tries === 1) {
        const b = JSON.stringify({
          object: 'error',
          message: `busy ${'z'.repeat(200)}`,
          type: 'TooManyRequests',
          code: 429,
        });
        await dribble(
          sock,
          `HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\nx-pad: ${'p'.repeat(300)}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n`,
        );
        await dribble(sock, b);
        return;
      }
      await dribble(
        sock,
        `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-pad: ${'q'.repeat(300)}\r\ntransfer-encoding: chunked\r\n\r\n`,
      );
      for (let k = 0; k < n; k++) {
        const ev = {
          id: 'c',
          object: 'text_completion',
          model: 'm',
          choices: [{ index: 0, text: 'x', token_ids: [ids[k]], finish_reason: k === n - 1 ? 'length' : null }],
        };
        sock.write(frame(`data: ${JSON.stringify(ev)}\n\n`));
        await sleep(1);
      }
      const usage = {
        id: 'c',
        object: 'text_completion',
        model: 'm',
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: n, total_tokens: 3 + n },
      };
      sock.write(frame(`data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`) + '0\r\n\r\n');
    };
    const { url, server } = await rawHttpServer(answer);
    servers.push(server);
    const floodPool = new Pool(url, { connections: 1, connect: reusedReadConnector(2000) });
    const flood = fetchVia(floodPool, '/flood');
    try {
      for (const stream of [true, false]) {
        seen.clear();
        const llm = track(
          await createLlmSut({
            endpoints: [url],
            dataset: idDataset(12, 5),
            backend: 'vllm',
            model: 'm',
            capabilities: { tokenSource: 'token_ids' },
            stream,
            workers: 0,
            retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
            onWarning: () => {},
          }),
        );
        const { outdir } = await accuracyRun(llm);
        const report = await llm.report();
        expect(report.samples.failed).toBe(0);
        expect(report.samples.retried).toBe(stream ? 6 : 0);
        const entries = readAccuracy(logPaths(outdir).accuracy);
        expect(entries.length).toBe(12);
        for (const e of entries)
          expect(hexToInt32(e.data)).toEqual([0, 1, 2, 3, 4].map((k) => 1000 + 10 * e.qsl_idx + k));
        await llm.close();
      }
      floodDone = true;
      const f = await flood;
      expect(f.body.length % 4000).toBe(0);
      expect(f.body.every((c) => c === 0x23)).toBe(true);
    } finally {
      floodDone = true;
      await floodPool.close();
    }
  });
});
