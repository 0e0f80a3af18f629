// `loadgen sweep` as a child process against the built-in simulator: a list
// of rates writes every point (its own run directory with the MLPerf logs),
// sweep.json and sweep.html (checked in headless Chromium when installed);
// started again it runs nothing; bad sweep flags exit 2.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { buildCli, runCli, spawnCli, tempDir, writeText, type CliRun } from './helpers.js';
import { dumpDom, findChromium } from '../chromium.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-sweep-cli-');
});
afterAll(() => cleanup?.());

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

/** A simulator config file and the flags every sweep test shares (less the scenario's bounds). */
function simArgs(file: string, simulator: string, minQueries: number, extra: string[], out: string): string[] {
  const config = writeText(dir, file, `simulator:\n${simulator}`);
  return [
    '--config',
    config,
    '--scenario',
    'Server',
    '--synthetic',
    '16/10',
    '--synthetic-samples',
    '64',
    '--workers',
    '1',
    '--metrics-interval',
    '0',
    '--set',
    'min_duration=1000',
    '--set',
    `min_query_count=${minQueries}`,
    ...extra,
    '--output-dir',
    out,
  ];
}

/** The small server of test/run/helpers.ts (ceiling 200 samples/s), as a config file. */
function args(out: string, minQueries = 500): string[] {
  return [
    'sweep',
    ...simArgs(
      'sim.yaml',
      '  maxRunningSeqs: 8\n  decodeStepNs: 4000000\n  prefillNsPerToken: 10000\n  outputLength: 10\n',
      minQueries,
      ['--set', 'server_ttft_latency=400000000'],
      out,
    ),
  ];
}

describe('loadgen sweep --rates', () => {
  const out = () => join(dir, 'list');

  test('every point in its own run directory, sweep.json and sweep.html; exit 0', async () => {
    const r = await runCli(cli, [...args(out()), '--rates', '100,300'], dir, 90_000);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^Sweep: 2 points, 1 VALID/);
    const s = JSON.parse(readFileSync(join(out(), 'sweep.json'), 'utf8'));
    expect(s.schema).toBe('@x/loadgen/sweep');
    expect(s.kind).toBe('list');
    expect(s.command[0]).toBe('sweep');
    expect(s.points.map((p: { value: number; verdict: string }) => [p.value, p.verdict])).toEqual([
      [100, 'VALID'],
      [300, 'INVALID'],
    ]);
    for (const q of [100, 300]) {
      const d = join(out(), 'points', `qps-${q}`);
      for (const f of ['mlperf_log_summary.txt', 'mlperf_log_detail.txt', 'results.json', 'report.html'])
        expect(existsSync(join(d, f)), f).toBe(true);
    }
    const html = readFileSync(join(out(), 'sweep.html'), 'utf8');
    expect(html).toMatch(/TTFT p99 vs throughput/);
    expect(html).toMatch(/TTFT bound 400 ms/);
    expect(html).toMatch(/Pareto/);
    expect(html).not.toMatch(/<script|https?:\/\//);
  }, 120_000);

  test('started again: both points read back, nothing run', async () => {
    const r = await runCli(cli, [...args(out()), '--rates', '100,300'], dir, 60_000);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stderr).not.toMatch(/simulated run/);
    expect(r.stderr.match(/done before/g)).toHaveLength(2);
    const s = JSON.parse(readFileSync(join(out(), 'sweep.json'), 'utf8'));
    expect(s.points.every((p: { resumed: boolean }) => p.resumed)).toBe(true);
  }, 60_000);

  const CHROMIUM = findChromium();
  test.skipIf(!CHROMIUM)(
    'sweep.html in headless Chromium: every chart survives into the DOM',
    () => {
      const page = join(out(), 'sweep.html');
      const html = readFileSync(page, 'utf8');
      const dom = dumpDom(CHROMIUM!, page);
      expect(dom.status, dom.stderr).toBe(0);
      const svgs = (html.match(/<svg /g) ?? []).length;
      expect(svgs).toBeGreaterThanOrEqual(5);
      expect((dom.stdout.match(/<svg /g) ?? []).length).toBe(svgs);
      expect(dom.stdout).toMatch(/<section class="verdict/);
      expect(dom.stdout).not.toMatch(/<parsererror/);
    },
    90_000,
  );
});

describe('loadgen sweep: the capacity search', () => {
  test('capacity.qps in sweep.json, confirmed; loadgen run there is VALID and 20 % above INVALID', async () => {
    const out = join(dir, 'search');
    const a = args(out, 662);
    const r = await runCli(cli, [...a, '--start', '100', '--probe-duration', '1s', '--confirm'], dir, 120_000);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(
      /^Capacity: [\d.]+ QPS \(INVALID at [\d.]+, precision 5\.0 %; \d+ probes\); confirmation run VALID/,
    );
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    const c = s.capacity;
    expect(c.reached).toBe(true);
    expect(c.confirmed).toBe(true);
    expect(c.lowerInvalid).toBeLessThanOrEqual(c.qps * 1.05 + 1e-9);
    expect(s.points.at(-1)).toMatchObject({
      kind: 'confirm',
      value: c.qps,
      dir: join('points', `confirm-qps-${c.qps}`),
    });
    // The same settings as the probes: `loadgen run` with the sweep's flags (less --output-dir).
    const runArgs = (qps: number, name: string) => [
      'run',
      ...a.slice(1, -2),
      '--target-qps',
      String(qps),
      '--output-dir',
      join(dir, name),
    ];
    const above = await runCli(cli, runArgs(c.qps * 1.2, 'run-above'), dir, 60_000);
    expect(above.code, explain(above)).toBe(1);
    let at = await runCli(cli, runArgs(c.qps, 'run-at'), dir, 60_000);
    // Timer jitter on a shared machine can tip a run at the very edge: one more try.
    if (at.code !== 0) at = await runCli(cli, runArgs(c.qps, 'run-at-again'), dir, 60_000);
    expect(at.code, explain(at)).toBe(0);
  }, 240_000);
});

test('Ctrl-C ends the point in progress and the sweep: sweep.json says stopped, exit 130', async () => {
  const out = join(dir, 'interrupted');
  const s = spawnCli(cli, [...args(out), '--rates', '100,300'], dir);
  await s.waitStderr(/sut: /);
  s.child.kill('SIGINT');
  const r = await s.done;
  expect(r.code, explain(r)).toBe(130);
  const j = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
  expect(j.stopped).toBe(true);
  expect(j.points.length).toBeLessThanOrEqual(1);
}, 60_000);

describe('usage errors exit 2', () => {
  test.each([
    [['--precision', '2']],
    [['--rates', '1,x']],
    [['--rates', '1,2', '--concurrencies', '4']],
    [['--rates', '1,2', '--confirm']],
    [['--probe-duration', 'soon']],
  ])('%j', async (extra) => {
    const r = await runCli(cli, [...args(join(dir, 'bad')), ...extra], dir, 30_000);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(/^loadgen sweep: /m);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  });
  test('the search needs the Server scenario', async () => {
    const a = args(join(dir, 'bad'));
    a[a.indexOf('Server')] = 'Offline';
    const r = await runCli(cli, a, dir, 30_000);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(/needs the Server scenario/);
  });
});

// A closed loop of C users keeps C sequences in the simulator's batch, whose
// decode step is 2 ms + 4 ms per sequence: TPOT = 2 + 4C ms. Under a 44 ms
// TPOT bound the true capacity is 10 users (42 ms; 11 users give 46 ms).
// Harness noise only adds to TPOT, so the search may land one below, never above.
describe('loadgen sweep --concurrency-sweep: closed-loop users', () => {
  function closedArgs(out: string): string[] {
    return simArgs(
      'sim-closed.yaml',
      '  maxRunningSeqs: 256\n  decodeStepNs: 2000000\n  decodeStepNsPerSeq: 4000000\n  prefillNsPerToken: 0\n  outputLength: 6\n',
      100,
      // p90: early stopping passes with 100 queries, so probes stay short.
      ['--set', 'server_target_latency_percentile=0.9', '--set', 'server_tpot_latency=44000000'],
      out,
    );
  }

  test('capacity.concurrency is 10 users as the model says (or 9); a closed-loop run there is VALID, 12 users INVALID', async () => {
    const out = join(dir, 'closed-search');
    const r = await runCli(
      cli,
      [
        'sweep',
        ...closedArgs(out),
        '--concurrency-sweep',
        '--start',
        '2',
        '--probe-duration',
        '1s',
        '--probe-queries',
        '100',
      ],
      dir,
      180_000,
    );
    expect(r.code, explain(r)).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(s.dimension).toBe('concurrency');
    expect(s.capacity.reached).toBe(true);
    expect([9, 10]).toContain(s.capacity.concurrency);
    // Every point ran as a closed loop of its users, and says it is not MLPerf.
    for (const p of s.points) {
      const j = JSON.parse(readFileSync(join(out, p.dir, 'results.json'), 'utf8'));
      expect(j.benchmark.issuePolicy).toBe(`closed loop, concurrency ${p.value}`);
      expect(j.settings.requested.closedLoopConcurrency).toBe(p.value);
    }
    const run = (users: number, name: string) =>
      runCli(cli, ['run', ...closedArgs(join(dir, name)), '--closed-loop', String(users)], dir, 60_000);
    const above = await run(12, 'closed-above');
    expect(above.code, explain(above)).toBe(1);
    expect(above.stdout).toMatch(/issue policy: closed loop, concurrency 12: not an MLPerf scenario/);
    let at = await run(s.capacity.concurrency, 'closed-at');
    if (at.code !== 0) at = await run(s.capacity.concurrency, 'closed-at-again');
    expect(at.code, explain(at)).toBe(0);
  }, 300_000);

  test('a concurrency sweep outside the Server scenario exits 2 naming why', async () => {
    const a = closedArgs(join(dir, 'closed-offline'));
    a[a.indexOf('Server')] = 'Offline';
    const r = await runCli(cli, ['sweep', ...a, '--concurrency-sweep'], dir, 30_000);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(/concurrency sweep runs closed loops/);
  }, 60_000);
});
