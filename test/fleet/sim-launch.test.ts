// `loadgen sim` as a launched server: 503 everywhere while "loading" (or no
// port at all), the vLLM-like start-up log, engine flags mapped, scripted
// failures (fail at start, crash after a time).

import { afterAll, describe, expect, test } from 'vitest';

import { runCli, start, type Running } from './helpers.js';
import { freePort } from '../ports.js';

const spawned: Running[] = [];
afterAll(() => {
  for (const s of spawned) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});

function sim(args: string[]): Running {
  const s = start(['sim', '--port', '0', '--no-precise-pacing', ...args]);
  spawned.push(s);
  return s;
}

async function status(url: string, init?: RequestInit): Promise<number | string> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    return ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';
  }
}

describe('loadgen sim as a launched server', () => {
  test('503 on /health and the API routes until loaded, then 200; the start-up log on stderr', async () => {
    const s = sim(['--model', 'm', '--load-time-ms', '3000', '--max-num-seqs', '8', '--tensor-parallel-size', '2']);
    await s.waitStderr(/listening on (http:\/\/\S+)/);
    const url = /listening on (http:\/\/\S+)/.exec(s.stderr())![1];
    expect(await status(`${url}/health`)).toBe(503);
    expect(
      await status(`${url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', prompt: [1, 2], max_tokens: 2 }),
        headers: { 'content-type': 'application/json' },
      }),
    ).toBe(503);
    expect(await status(`${url}/version`)).toBe(503);
    await s.waitStderr(/Application startup complete/);
    expect(await status(`${url}/health`)).toBe(200);
    expect(s.stderr()).toMatch(/vLLM API server version 0\.11\.0/);
    expect(s.stderr()).toMatch(/non-default args: \{"model":"m","tensorParallelSize":2,"maxNumSeqs":8\}/);
    expect(s.stderr()).toMatch(/Loading safetensors checkpoint shards: 100% Completed/);
    s.child.kill('SIGTERM');
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Shutting down \(SIGTERM\)/);
  });

  test('refuse-while-loading: no port until loaded, as vLLM', async () => {
    const port = await freePort();
    const s = start([
      'sim',
      '--port',
      String(port),
      '--no-precise-pacing',
      '--model',
      'm',
      '--load-time-ms',
      '2000',
      '--refuse-while-loading',
    ]);
    spawned.push(s);
    await s.waitStderr(/Loading safetensors checkpoint shards: 0%/);
    expect(await status(`http://127.0.0.1:${port}/health`)).toBe('ECONNREFUSED');
    await s.waitStderr(/Starting vLLM API server on/);
    expect(s.stderr()).not.toMatch(/listening on/);
    expect(await status(`http://127.0.0.1:${port}/health`)).toBe(200);
    s.child.kill('SIGINT');
    expect((await s.done).code).toBe(0);
  });

  test('SGLang-style engine flags map to the simulator (served name, slots, context, stream interval)', async () => {
    const s = sim([
      '--flavor',
      'sglang',
      '--model-path',
      'org/m',
      '--max-running-requests',
      '6',
      '--context-length',
      '2048',
      '--stream-interval',
      '3',
      '--tp-size',
      '2',
      '--disable-cuda-graph',
      '--load-time-ms',
      '0',
    ]);
    await s.waitStderr(/API server on (http:\/\/\S+)/);
    const url = /API server on (http:\/\/\S+)/.exec(s.stderr())![1];
    const info = (await (await fetch(`${url}/get_server_info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      model_path: 'org/m',
      max_running_requests: 6,
      context_length: 2048,
      stream_interval: 3,
    });
    expect(s.stderr()).toMatch(/server_args=ServerArgs\(model_path="org\/m", .*tpSize=2.*disableCudaGraph=true/);
    s.child.kill('SIGTERM');
    expect((await s.done).code).toBe(0);
  });

  test('fail-at-start: an error in the log, exit 1, never listens', async () => {
    const r = await runCli(['sim', '--port', '0', '--model', 'm', '--fail-at-start']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/EngineCore failed to start[\s\S]*simulated start-up failure/);
    expect(r.stdout).toBe('');
  });

  test('crash-after-ms: exit 1 with the engine error after being ready', async () => {
    const r = await runCli(
      ['sim', '--port', '0', '--model', 'm', '--crash-after-ms', '200', '--no-precise-pacing'],
      undefined,
      30_000,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(r.stderr).toMatch(/EngineCore encountered a fatal error: after 200 ms \(--crash-after-ms\)/);
  });
});
