// The client benchmark's loopback server (bench/client/server.mjs) has two
// engines: the C one (default) must send the very bytes the Node one sends,
// and keep the same truth records, or the bench compares clients against a
// different server than it says.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

const SERVER = join(__dirname, '..', '..', 'bench', 'client', 'server.mjs');
const hasCc = spawnSync(process.env.CC ?? 'cc', ['--version']).status === 0;

interface Started {
  child: ChildProcess;
  port: number;
  hello: Record<string, unknown>;
}

const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) c.kill('SIGTERM');
});

async function start(engine: 'c' | 'node', extra: string[]): Promise<Started> {
  const child = spawn(process.execPath, [SERVER, '--engine', engine, '--exit-on-stdin-end', ...extra], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`server (${engine}) exited ${code}: ${err}`)));
  });
  const hello = JSON.parse(line) as Record<string, unknown>;
  return { child, port: Number(hello.port), hello };
}

// One raw exchange per connection: the request bytes, then everything until
// the response is complete (content-length or the chunked terminator).
function exchange(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    const done = (): boolean => {
      const all = Buffer.concat(parts);
      const he = all.indexOf('\r\n\r\n');
      if (he < 0) return false;
      const head = all.subarray(0, he).toString('latin1').toLowerCase();
      const cl = /content-length: (\d+)/.exec(head);
      if (cl) return all.length >= he + 4 + Number(cl[1]);
      return all.subarray(all.length - 5).toString() === '0\r\n\r\n';
    };
    sock.on('data', (d) => {
      parts.push(d);
      if (done()) {
        sock.destroy();
        resolve(Buffer.concat(parts));
      }
    });
    sock.on('error', reject);
    sock.write(request);
  });
}

const post = (body: string, id: string | null): string =>
  `POST /v1/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${id === null ? '' : `X-Request-Id: ${id}\r\n`}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const get = (path: string, method = 'GET'): string => `${method} ${path} HTTP/1.1\r\nhost: x\r\n\r\n`;

async function json(port: number, path: string, method = 'GET'): Promise<any> {
  const raw = await exchange(port, get(path, method));
  return JSON.parse(raw.subarray(raw.indexOf('\r\n\r\n') + 4).toString());
}

describe.skipIf(!hasCc)('bench server engines', () => {
  test.each([
    ['at once, one frame per event', ['--tokens', '7']],
    ['at once, one frame', ['--tokens', '7', '--framing', 'single']],
    ['paced', ['--tokens', '4', '--paced-ms', '5']],
  ])('%s: the C engine sends the Node engine’s bytes and keeps the same records', async (_name, extra) => {
    const [c, node] = await Promise.all([start('c', extra), start('node', extra)]);
    const before = process.hrtime.bigint();
    expect(c.hello.engine).toBe('c');
    expect(c.hello.pid).not.toBe(c.child.pid); // the C process's own pid: CPU is read from it
    for (const req of [
      post('{"model":"m","prompt":[1,2],"max_tokens":7,"stream": true}', '101'),
      post('{"model":"m","prompt":[1,2],"max_tokens":7,"stream":false}', 'req-7'),
      post('{"model":"m","stream" :\n true}', null),
      get('/v1/models'),
      get('/version'),
      get('/health'),
      get('/nowhere'),
    ]) {
      const [a, b] = await Promise.all([exchange(c.port, req), exchange(node.port, req)]);
      expect(a.toString('latin1')).toBe(b.toString('latin1'));
    }
    const [rc, rn] = await Promise.all([json(c.port, '/_records'), json(node.port, '/_records')]);
    expect(Object.keys(rc.records).sort()).toEqual(['101', 'req-7']);
    expect(Object.keys(rn.records).sort()).toEqual(['101', 'req-7']);
    const after = process.hrtime.bigint();
    // C: [kernel arrival, first write, read], moved to this process's monotonic clock.
    for (const r of Object.values(rc.records) as string[][]) {
      expect(r).toHaveLength(3);
      const [arrival, first, read] = r.map(BigInt);
      expect(arrival >= before && arrival <= read && read <= first && first <= after).toBe(true);
    }
    for (const [read, first] of Object.values(rn.records) as [string, string][])
      expect(BigInt(read) >= before && BigInt(first) >= BigInt(read)).toBe(true);
    const stats = await json(c.port, '/_stats');
    expect(stats).toMatchObject({ requests: 3, streams: 2, nonStream: 1, engine: 'c' });
    expect(await json(c.port, '/_records', 'DELETE')).toEqual({ cleared: 2 });
    expect((await json(c.port, '/_records')).records).toEqual({});
  });

  test('keep-alive: pipelined requests on one connection, a paced stream holding the next one back', async () => {
    const { port } = await start('c', ['--tokens', '3', '--paced-ms', '5']);
    const body = '{"stream":true}';
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(port, '127.0.0.1');
      let got = '';
      sock.on('data', (d) => {
        got += d.toString('latin1');
        if (got.split('0\r\n\r\n').length - 1 === 2) {
          sock.destroy();
          resolve(got);
        }
      });
      sock.on('error', reject);
      sock.write(post(body, 'a') + post(body, 'b'));
    });
    expect(raw.split('HTTP/1.1 200 OK').length - 1).toBe(2);
    expect(raw.split('data: [DONE]').length - 1).toBe(2);
    // The second response starts after the first one's terminator.
    expect(raw.indexOf('HTTP/1.1 200 OK', 1)).toBeGreaterThan(raw.indexOf('0\r\n\r\n'));
    const r = await json(port, '/_records');
    expect(Object.keys(r.records).sort()).toEqual(['a', 'b']);
  });
});
