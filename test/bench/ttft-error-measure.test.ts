// bench/client/run.mjs measureTtftError: the TTFT error the README's tables
// report (client TTFT − server TTFT, matched by request id), its split into
// send and receive sides, and its percentiles per window of issue time.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { describe, expect, test } from 'vitest';

const MODULE = pathToFileURL(join(__dirname, '..', '..', 'bench', 'client', 'run.mjs')).href;

interface Stats {
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}
interface Measured {
  n: number;
  unmatched: number;
  error: Stats | null;
  send: Stats | null;
  recv: Stats | null;
  serverTtft: Stats | null;
  windows: { fromS: number; n: number; p50: number | null; p99: number | null }[] | null;
}
type Measure = (client: unknown, server: unknown, options?: { windowS?: number | null }) => Measured;
const load = async () => ((await import(MODULE)) as { measureTtftError: Measure }).measureTtftError;

const ms = 1e6;
const s = 1e9;

// One request: issued at `issue`, arrives `send` later, the server answers
// after `srv`, and the client sees it `recv` after that (all ns).
function request(id: string, issue: number, send: number, srv: number, recv: number) {
  const arrival = issue + send;
  const firstWrite = arrival + srv;
  return {
    client: [id, String(issue), String(firstWrite + recv)],
    server: [String(arrival), String(firstWrite), String(arrival + 10_000)],
  };
}

function build(rows: ReturnType<typeof request>[]) {
  const records: Record<string, string[]> = {};
  for (const [i, r] of rows.entries()) records[`r${i}`] = r.server;
  return { client: { records: rows.map((r, i) => [`r${i}`, r.client[1], r.client[2]]) }, server: { records } };
}

describe('measureTtftError', () => {
  test('error = client TTFT − server TTFT, split into send and receive sides; unknown ids counted apart', async () => {
    const measure = await load();
    const { client, server } = build([
      request('a', 100 * ms, 0.2 * ms, 5 * ms, 0.1 * ms),
      request('b', 200 * ms, 0.4 * ms, 7 * ms, 0.3 * ms),
    ]);
    client.records.push(['nope', '0', '1']);
    const m = measure(client, server);
    expect(m.n).toBe(2);
    expect(m.unmatched).toBe(1);
    expect(m.error!.min).toBeCloseTo(0.3, 9);
    expect(m.error!.max).toBeCloseTo(0.7, 9);
    expect(m.send!.max).toBeCloseTo(0.4, 9);
    expect(m.recv!.max).toBeCloseTo(0.3, 9);
    expect(m.serverTtft!.p50).toBeCloseTo(5, 9);
    expect(m.windows).toBeNull();
  });

  test('windows: percentiles per whole window of issue time; the partial last window is left out', async () => {
    const measure = await load();
    const rows = [];
    // 2.5 s of requests, 1000 per second, error 0.1 ms, except a 5 ms stall
    // hitting 20 requests in the second window.
    for (let i = 0; i < 2500; i++) {
      const issue = 1000 * s + i * ms;
      const stalled = i >= 1400 && i < 1420;
      rows.push(request(`x${i}`, issue, 0.05 * ms, 2 * ms, stalled ? 5 * ms : 0.05 * ms));
    }
    const { client, server } = build(rows);
    const m = measure(client, server, { windowS: 1 });
    expect(m.windows).toHaveLength(2);
    expect(m.windows!.map((w) => w.fromS)).toEqual([0, 1]);
    expect(m.windows!.map((w) => w.n)).toEqual([1000, 1000]);
    expect(m.windows![0].p99).toBeCloseTo(0.1, 9);
    // 20 of 1000 stalled: the window's p99 is a stalled one.
    expect(m.windows![1].p99).toBeCloseTo(5.05, 9);
    // Over the whole run 20 of 2500 is under 1 %: p99 stays at 0.1 ms.
    expect(m.error!.p99).toBeCloseTo(0.1, 9);
  });

  test('windows need absolute issue times: duration-only records give none', async () => {
    const measure = await load();
    const m = measure({ records: [['a', String(3 * ms)]] }, { records: { a: ['0', String(2 * ms)] } }, { windowS: 1 });
    expect(m.n).toBe(1);
    expect(m.error!.p50).toBeCloseTo(1, 9);
    expect(m.windows).toBeNull();
  });
});
