// Every fault kind, rule matching/consumption, and the /_sim control routes.
import { connect } from 'node:net';

import { afterEach, describe, expect, test } from 'vitest';

import { startSimulator, type Simulator, type SimulatorOptions } from '../../lib/sim/index.js';
import { httpCall, post, sseData, sseJson, tokenIdChunks, waitFor } from './helpers.js';

const sims: Simulator[] = [];
async function sim(options: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator(options);
  sims.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

const MS = 1_000_000;
const streamReq = { prompt: [1, 2], max_tokens: 6, stream: true, return_token_ids: true };

describe('status faults', () => {
  test('503 with Retry-After in the vLLM nested shape; count limits the hits', async () => {
    const s = await sim({ faults: [{ kind: 'status', status: 503, retryAfterS: 7, count: 1 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('7');
    expect(JSON.parse(r.body)).toEqual({
      error: { message: 'Simulated fault: HTTP 503', type: 'ServiceUnavailableError', param: null, code: 503 },
    });
    expect(s.records()[0]).toMatchObject({ fault: 'status', status: 503 });
    const ok = await post(s.url, '/v1/completions', streamReq);
    expect(ok.status).toBe(200);
    expect(s.records()[1]!.fault).toBeNull();
  });

  test('SGLang shapes: flat on OpenAI routes, {"error":{"message"}} on /generate', async () => {
    const s = await sim({ flavor: 'sglang', faults: [{ kind: 'status', status: 429, retryAfterS: 1, count: 2 }] });
    const a = await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 });
    expect(a.status).toBe(429);
    expect(JSON.parse(a.body)).toMatchObject({ object: 'error', code: 429 });
    const b = await post(s.url, '/generate', { input_ids: [1] });
    expect(b.status).toBe(429);
    expect(JSON.parse(b.body)).toEqual({ error: { message: 'Simulated fault: HTTP 429' } });
  });

  test('match.path and match.every: every 2nd completions request, other paths untouched', async () => {
    const s = await sim();
    s.injectFaults([{ kind: 'status', status: 500, match: { path: '/v1/completions', every: 2 } }]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status);
      expect((await httpCall(s.url, '/health')).status).toBe(200);
    }
    expect(statuses).toEqual([200, 500, 200, 500]);
    s.clearFaults();
    expect((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status).toBe(200);
  });

  test('rules are consumed in order and a request is hit by at most one', async () => {
    const s = await sim({
      faults: [
        { kind: 'status', status: 400, count: 1 },
        { kind: 'status', status: 500, count: 1 },
      ],
    });
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status);
    expect(got).toEqual([400, 500, 200]);
  });
});

describe('connection faults', () => {
  test('reset-before: the connection dies before any response byte', async () => {
    const s = await sim({ faults: [{ kind: 'reset-before', count: 1 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.error).not.toBeNull();
    expect(r.status).toBe(0);
    expect(r.body).toBe('');
    await waitFor(() => s.records()[0]?.endNs !== null);
    expect(s.records()[0]).toMatchObject({ fault: 'reset-before', status: 0, clientAborted: false, headersNs: null });
    // The server is fine afterwards.
    expect((await post(s.url, '/v1/completions', streamReq)).status).toBe(200);
  });

  test('reset-during after 3 tokens: the client gets exactly 3 tokens, then a broken stream', async () => {
    const s = await sim({ faults: [{ kind: 'reset-during', afterTokens: 3 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.status).toBe(200);
    expect(r.error).not.toBeNull();
    expect(r.body).not.toContain('[DONE]');
    expect(tokenIdChunks(r.body).flat()).toHaveLength(3);
    expect(await waitFor(() => s.records()[0]!.endNs !== null)).toBe(true);
    expect(s.records()[0]).toMatchObject({ fault: 'reset-during', outputTokens: 3, clientAborted: false });
    expect(s.stats().running).toBe(0);
  });

  test('reset-during beyond the output fires before the terminator', async () => {
    const s = await sim({ faults: [{ kind: 'reset-during', afterTokens: 100 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.error).not.toBeNull();
    expect(tokenIdChunks(r.body).flat()).toHaveLength(6);
    expect(r.body).not.toContain('[DONE]');
  });

  test('reset-during on a non-streaming request: a truncated body, then the socket closes', async () => {
    const s = await sim({ faults: [{ kind: 'reset-during' }] });
    const r = await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 4 });
    expect(r.status).toBe(200);
    expect(r.error).not.toBeNull();
    expect(() => JSON.parse(r.body)).toThrow();
  });
});

describe('stalls and delays', () => {
  test('stall after 2 tokens for 250 ms: a gap, then the rest coalesced, then [DONE]', async () => {
    const s = await sim({ faults: [{ kind: 'stall', afterTokens: 2, ms: 250 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.error).toBeNull();
    const chunks = tokenIdChunks(r.body);
    expect(chunks.flat()).toHaveLength(6);
    expect(chunks.map((c) => c.length)).toEqual([1, 1, 4]);
    const gapMs = (r.reads.at(-1)!.ns - r.reads[0]!.ns) / MS;
    expect(gapMs).toBeGreaterThan(200);
    expect(sseData(r.body).at(-1)).toBe('[DONE]');
  });

  test('stall forever: the client gives up; the record says clientAborted and the slot is freed', async () => {
    const s = await sim({ decodeStepNs: 5 * MS, faults: [{ kind: 'stall', afterTokens: 1 }] });
    const r = await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 5000, stream: true }, { timeoutMs: 300 });
    expect(r.error?.message).toBe('timeout');
    expect(await waitFor(() => s.records()[0]!.clientAborted && s.stats().running === 0)).toBe(true);
  });

  test('stall at 0 tokens delays the headers', async () => {
    const s = await sim({ faults: [{ kind: 'stall', afterTokens: 0, ms: 200 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.status).toBe(200);
    expect((r.headersNs! - r.sentNs) / MS).toBeGreaterThan(150);
    expect(tokenIdChunks(r.body).flat()).toHaveLength(6);
  });

  test('slow-headers: streaming and non-streaming responses wait, then arrive complete', async () => {
    const s = await sim({ faults: [{ kind: 'slow-headers', ms: 200, count: 2 }] });
    const a = await post(s.url, '/v1/completions', streamReq);
    expect((a.headersNs! - a.sentNs) / MS).toBeGreaterThan(150);
    expect(sseData(a.body).at(-1)).toBe('[DONE]');
    const rec = s.records()[0]!;
    expect((rec.headersNs! - rec.receivedNs) / MS).toBeGreaterThan(190);
    const b = await httpCall(s.url, '/v1/models');
    expect((b.headersNs! - b.sentNs) / MS).toBeGreaterThan(150);
    expect(JSON.parse(b.body).object).toBe('list');
  });
});

describe('bad payloads', () => {
  test('malformed-chunk: one truncated JSON event, then the stream goes on to [DONE]', async () => {
    const s = await sim({ faults: [{ kind: 'malformed-chunk', afterTokens: 2 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    const data = sseData(r.body);
    const bad = data.filter((d) => {
      try {
        JSON.parse(d);
        return false;
      } catch {
        return d !== '[DONE]';
      }
    });
    expect(bad).toHaveLength(1);
    expect(data.indexOf(bad[0]!)).toBe(2);
    expect(data.at(-1)).toBe('[DONE]');
    const good = data.filter((d) => d !== bad[0] && d !== '[DONE]').map((d) => JSON.parse(d));
    expect(good.flatMap((e) => e.choices[0].token_ids)).toHaveLength(6);
  });

  test('malformed-chunk on a non-streaming request: a truncated JSON body', async () => {
    const s = await sim({ faults: [{ kind: 'malformed-chunk' }] });
    const r = await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 2 });
    expect(r.status).toBe(200);
    expect(r.error).toBeNull();
    expect(() => JSON.parse(r.body)).toThrow();
  });

  test('error-event (vLLM): data: {"error":{...}} inside the 200 stream, then [DONE]', async () => {
    const s = await sim({ faults: [{ kind: 'error-event', afterTokens: 2 }] });
    const r = await post(s.url, '/v1/completions', streamReq);
    expect(r.status).toBe(200);
    const data = sseData(r.body);
    expect(data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(data.at(-2)!)).toEqual({
      error: { message: 'Simulated generation error', type: 'InternalServerError', param: null, code: 500 },
    });
    expect(tokenIdChunks(r.body).flat()).toHaveLength(2);
    expect(await waitFor(() => s.stats().running === 0)).toBe(true);
  });

  test('error-event (SGLang /generate and OpenAI); non-stream becomes HTTP 500', async () => {
    const s = await sim({ flavor: 'sglang', faults: [{ kind: 'error-event', afterTokens: 1, count: 3 }] });
    const g = await post(s.url, '/generate', { input_ids: [1], sampling_params: { max_new_tokens: 4 }, stream: true });
    const gd = sseData(g.body);
    expect(JSON.parse(gd.at(-2)!)).toEqual({ error: { message: 'Simulated generation error' } });
    expect(gd.at(-1)).toBe('[DONE]');
    const o = await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 4, stream: true });
    expect(JSON.parse(sseData(o.body).at(-2)!).error).toMatchObject({ object: 'error', code: 500 });
    const ns = await post(s.url, '/generate', { input_ids: [1], sampling_params: { max_new_tokens: 4 } });
    expect(ns.status).toBe(500);
    expect(JSON.parse(ns.body)).toEqual({ error: { message: 'Simulated generation error' } });
  });
});

describe('retract-first-token', () => {
  test('SGLang /generate: the first token is taken back (completion_tokens 0) and the output restarts with another id', async () => {
    const s = await sim({ flavor: 'sglang', faults: [{ kind: 'retract-first-token' }] });
    const g = await post(s.url, '/generate', {
      input_ids: [1, 2],
      sampling_params: { max_new_tokens: 4 },
      stream: true,
    });
    const chunks = sseJson(g.body) as Array<{ output_ids: number[]; meta_info: { completion_tokens: number } }>;
    const first = chunks[0]!;
    expect(first.meta_info.completion_tokens).toBe(1);
    expect(chunks[1]).toMatchObject({ output_ids: [], meta_info: { completion_tokens: 0 } });
    const last = chunks.at(-1)!;
    expect(last.meta_info.completion_tokens).toBe(4);
    expect(last.output_ids).toHaveLength(4);
    expect(last.output_ids[0]).toBe(first.output_ids[0]! + 1);
    expect(s.records()[0]!.fault).toBe('retract-first-token');
    // OpenAI routes are left as they are.
    const o = await post(s.url, '/v1/completions', streamReq);
    const text = sseJson(o.body)
      .map((c) => (c.choices?.[0]?.text as string | undefined) ?? '')
      .join('');
    expect(text.match(/ t\d+/g)).toHaveLength(6);
  });
});

describe('fault validation and control routes', () => {
  test('bad rules are refused with the field named', async () => {
    const s = await sim();
    expect(() => s.injectFaults([{ kind: 'nope' as never }])).toThrow(/faults\[0\]\.kind/);
    expect(() => s.injectFaults([{ kind: 'slow-headers' }])).toThrow(/faults\[0\]\.ms is required/);
    expect(() => s.injectFaults([{ kind: 'status', status: 404 as never }])).toThrow(/status must be one of/);
    expect(() => s.injectFaults([{ kind: 'stall', afterTokens: -1 }])).toThrow(/afterTokens/);
    expect(() => s.injectFaults([{ kind: 'status', status: 500, match: { every: 0 } }])).toThrow(/match\.every/);
    await expect(startSimulator({ faults: [{ kind: 'reset-before', ms: 5 } as never] })).rejects.toThrow(
      /option 'faults'.*ms/,
    );
  });

  test('POST/DELETE /_sim/faults, GET/DELETE /_sim/records, GET /_sim/stats', async () => {
    const s = await sim();
    const add = await post(s.url, '/_sim/faults', [
      { kind: 'status', status: 503, count: 1, match: { path: '/v1/completions' } },
    ]);
    expect(add.status).toBe(200);
    expect(JSON.parse(add.body)).toMatchObject({ ok: true, added: 1, active: 1 });
    expect((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status).toBe(503);
    expect((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status).toBe(200);

    await post(s.url, '/_sim/faults', [{ kind: 'status', status: 500 }]);
    expect((await httpCall(s.url, '/_sim/faults', { method: 'DELETE' })).status).toBe(200);
    expect((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 1 })).status).toBe(200);

    const bad = await post(s.url, '/_sim/faults', [{ kind: 'status' }]);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/status must be one of/);
    const notJson = await httpCall(s.url, '/_sim/faults', { method: 'POST', rawBody: '[' });
    expect(notJson.status).toBe(400);

    const recs = JSON.parse((await httpCall(s.url, '/_sim/records')).body);
    // Control routes are neither recorded nor counted.
    expect(recs.map((r: any) => r.status)).toEqual([503, 200, 200]);
    expect(recs[0].fault).toBe('status');
    const stats = JSON.parse((await httpCall(s.url, '/_sim/stats')).body);
    expect(stats).toEqual({ running: 0, waiting: 0, totalRequests: 3, totalTokens: 2, unauthorized: 0 });
    expect((await httpCall(s.url, '/_sim/records', { method: 'DELETE' })).status).toBe(200);
    expect(JSON.parse((await httpCall(s.url, '/_sim/records')).body)).toEqual([]);
    expect((await httpCall(s.url, '/_sim/nope')).status).toBe(404);
  });
});

describe('robustness', () => {
  test('garbage on the socket gets a 400 and the server keeps serving', async () => {
    const s = await sim();
    const reply = await new Promise<string>((resolve) => {
      const sock = connect(s.port, '127.0.0.1', () => sock.write('GARBAGE \x00\x01 NOT HTTP\r\n\r\n'));
      let data = '';
      sock.on('data', (d) => (data += d.toString()));
      sock.on('close', () => resolve(data));
      sock.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await httpCall(s.url, '/health')).status).toBe(200);
  });

  test('weird JSON bodies never crash it', async () => {
    const s = await sim({ flavor: 'sglang' });
    for (const raw of [
      'null',
      '[]',
      '"x"',
      '1',
      '{"messages":5}',
      '{"prompt":{"a":1}}',
      '{"input_ids":[[1],[2,"x"]]}',
      '\u0000',
    ]) {
      for (const path of ['/v1/completions', '/v1/chat/completions', '/generate']) {
        const r = await httpCall(s.url, path, { method: 'POST', rawBody: raw });
        expect(r.status, `${path} ${raw}`).toBe(400);
      }
    }
    const ok = sseJson((await post(s.url, '/v1/completions', { prompt: [1], max_tokens: 2, stream: true })).body);
    expect(ok).toHaveLength(2);
  });

  test('close() ends open streams and is safe to call twice', async () => {
    const s = await startSimulator({ decodeStepNs: 10 * MS, faults: [{ kind: 'stall', afterTokens: 1, count: 1 }] });
    const pending = [
      post(s.url, '/v1/completions', { prompt: [1], max_tokens: 5000, stream: true }),
      post(s.url, '/v1/completions', { prompt: [2], max_tokens: 5000, stream: true }),
    ];
    await waitFor(() => s.records().length === 2 && s.records().every((r) => r.headersNs !== null));
    await Promise.all([s.close(), s.close()]);
    const results = await Promise.all(pending);
    for (const r of results) expect(r.error).not.toBeNull();
    await s.close();
  });
});
