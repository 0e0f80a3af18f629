// The servers' whole life through `node dist/cli.js`, with the simulator as
// the launched engine: the example fleet end to end, a server that fails to
// start, one never healthy, one crashing mid-run, Ctrl-C while loading and
// while testing (no process left behind), and `loadgen serve`.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { allGone, killGroups, REPO, runCli, serverPids, start, tempDir, writeConfig } from './helpers.js';

const dir = tempDir();
const started: number[] = [];
afterAll(() => {
  // Only if a test failed half-way: nothing may outlive the suite.
  killGroups(started);
  rmSync(dir, { recursive: true, force: true });
});

const sim = (name: string, extra = ''): string =>
  `  - { name: ${name}, backend: simulator, model: sim-m, port: auto, startup-timeout-s: 30, stop-grace-s: 3, simulator: { decode-step-ms: 4${extra} } }\n`;

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Record<string, any>;
}

describe('loadgen run with servers', () => {
  test('examples/fleet.yaml: two simulated servers started, a Server run across both, both stopped, logs and results left', async () => {
    const out = join(dir, 'example');
    const r = await runCli(['run', '--config', join(REPO, 'examples', 'fleet.yaml'), '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    expect(r.stderr).toMatch(/server sim-a: healthy after/);
    expect(r.stderr).toMatch(/servers ready: sim-a http:\/\/127\.0\.0\.1:\d+ \(version 0\.11\.0\), sim-b/);
    // VALID on an idle machine; the verdict is not what this test is about.
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stdout).toMatch(/Result: (VALID|INVALID)/);
    expect(pids).toHaveLength(2);
    expect(await allGone(pids)).toBe(true);
    for (const name of ['sim-a', 'sim-b']) {
      const log = readFileSync(join(out, 'servers', `${name}.log`), 'utf8');
      expect(log).toMatch(/vLLM API server version/);
      expect(log).toMatch(/Application startup complete/);
      expect(log).toMatch(/Shutting down \(SIGTERM\)/);
    }
    const res = results(out);
    expect(res.servers.servers.map((s: any) => [s.name, s.backend, s.version, s.maxModelLen, s.exit.how])).toEqual([
      ['sim-a', 'simulator', '0.11.0', 8192, 'stopped'],
      ['sim-b', 'simulator', '0.11.0', 8192, 'stopped'],
    ]);
    expect(res.servers.servers[0].engineArgs).toEqual({ maxNumSeqs: 32, tensorParallelSize: 1 });
    expect(res.servers.servers[0].commandLine).toMatch(
      / sim --flavor vllm --model sim-llm-8b --host 127\.0\.0\.1 --port \d+ --tensor-parallel-size 1 --max-num-seqs 32 /,
    );
    expect(res.servers.events.filter((e: any) => e.kind === 'warmed-up').map((e: any) => e.message)).toEqual([
      '2/2 warm-up requests answered',
      '2/2 warm-up requests answered',
    ]);
    // Both carried measured traffic.
    expect(res.errors.failedSamples).toBe(0);
    expect(res.endpoints).toHaveLength(2);
    for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
  });

  test('a server launched with --api-key: health open, info and warm-up sent with the run key, the key written nowhere', async () => {
    const out = join(dir, 'keyed');
    const key = 'sk-fleet-7f3a9c2e';
    const file = writeConfig(
      dir,
      `scenario: Server\ntarget-qps: 10\nset: [minDurationMs=1500, minQueryCount=10]\nservers:\n${sim('keyed').replace(' }\n', `, extra-args: [--api-key, ${key}] }\n`)}`,
      'keyed.yaml',
    );
    const r = await runCli(['run', '--config', file, '--api-key', key, '--output-dir', out]);
    started.push(...serverPids(r.stderr));
    expect([0, 1], r.stderr).toContain(r.code);
    const res = results(out);
    expect(res.servers.events.filter((e: any) => e.kind === 'warmed-up').map((e: any) => e.message)).toEqual([
      '2/2 warm-up requests answered',
    ]);
    expect(res.servers.servers[0].version).toBe('0.11.0');
    expect(res.errors.failedSamples).toBe(0);
    // Nowhere: not in the output, the results, the server's log or its recorded command line.
    expect(r.stdout + r.stderr).not.toContain(key);
    for (const f of ['results.json', 'result_summary.json', 'report.html', join('servers', 'keyed.log')])
      expect(readFileSync(join(out, f), 'utf8'), f).not.toContain(key);
  });

  test('a server that fails to start: exit 3, which one and its log tail, the other stopped', async () => {
    const out = join(dir, 'fail');
    const file = writeConfig(
      dir,
      `scenario: Server\ntarget-qps: 10\nservers:\n${sim('good', ', load-time-ms: 60000')}${sim('bad', ', fail-at-start: true')}`,
      'fail.yaml',
    );
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/loadgen run: server bad exited with code 1 before becoming healthy/);
    expect(r.stderr).toMatch(/last lines of .*bad\.log:\n[\s\S]*simulated start-up failure \(--fail-at-start\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await allGone(pids)).toBe(true);
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  });

  test('a command that does not exist: exit 3, named', async () => {
    const file = writeConfig(
      dir,
      'scenario: Server\nservers:\n  - { name: nope, backend: custom, command: [/nonexistent/serve-it, --port, "{port}"] }\n',
      'missing.yaml',
    );
    const r = await runCli(['run', '--config', file, '--output-dir', join(dir, 'missing')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/server nope could not be started: \/nonexistent\/serve-it: command not found/);
  });

  test("a fixed port already taken here: exit 3 before anything starts (its health would be another server's)", async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', () => res()));
    const port = (taken.address() as { port: number }).port;
    try {
      const file = writeConfig(
        dir,
        `scenario: Server\nservers:\n  - { name: clash, backend: simulator, model: m, port: ${port} }\n`,
        'clash.yaml',
      );
      const r = await runCli(['run', '--config', file, '--output-dir', join(dir, 'clash')]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`server clash: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(serverPids(r.stderr)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  test('a server never healthy: the deadline error, exit 3, its process stopped', async () => {
    const file = writeConfig(
      dir,
      `scenario: Server\nservers:\n  - { name: slow, backend: simulator, model: m, port: auto, startup-timeout-s: 1.5, stop-grace-s: 2, simulator: { load-time-ms: 600000, refuse-while-loading: true } }\n`,
      'slow.yaml',
    );
    const r = await runCli(['run', '--config', file, '--output-dir', join(dir, 'slow')]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /server slow is not healthy after 1\.5 s \(GET http:\/\/127\.0\.0\.1:\d+\/health; raise startup-timeout-s/,
    );
    expect(r.stderr).toMatch(/Loading safetensors checkpoint shards/);
    expect(await allGone(pids)).toBe(true);
  });

  test('a server crashing mid-run: reported with its log tail, the run finishes on the other, results.json has the event', async () => {
    const out = join(dir, 'crash');
    const file = writeConfig(
      dir,
      `scenario: Server\ntarget-qps: 20\nsettings: { min_duration: 4000 }\nservers:\n${sim('steady')}${sim('fragile', ', crash-after-requests: 12, load-time-ms: 300')}`,
      'crash.yaml',
    );
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    // Streams cut by the crash fail (6), unless none was in flight on it.
    expect([0, 1, 6]).toContain(r.code);
    expect(r.stderr).toMatch(/warning: server fragile \(http:\/\/127\.0\.0\.1:\d+\) exited with code 1 during the run/);
    expect(r.stderr).toMatch(/last lines of .*fragile\.log:[\s\S]*simulated engine crash/);
    expect(r.stdout).toMatch(/Result: (VALID|INVALID)/);
    expect(r.stdout).toMatch(/server fragile crashed during the run \(exit code 1\); see servers\/fragile\.log/);
    const res = results(out);
    const crash = res.servers.events.find((e: any) => e.kind === 'crashed');
    expect(crash).toMatchObject({ server: 'fragile', exitCode: 1 });
    expect(crash.logTail.join('\n')).toMatch(/simulated engine crash/);
    expect(res.servers.servers.find((s: any) => s.name === 'fragile').exit.how).toBe('crashed');
    const steady = res.endpoints.find((e: any) => e.url === res.servers.servers[0].url);
    expect(steady.completed).toBeGreaterThan(0);
    expect(await allGone(pids)).toBe(true);
  });

  test('Ctrl-C while the servers load: exit 130 at once, no server left', async () => {
    const file = writeConfig(
      dir,
      `scenario: Server\nservers:\n${sim('l1', ', load-time-ms: 600000')}${sim('l2', ', load-time-ms: 600000, refuse-while-loading: true')}`,
      'int-load.yaml',
    );
    const s = start(['run', '--config', file, '--output-dir', join(dir, 'int-load')]);
    await s.waitStderr(/server l2: pid \d+/);
    const pids = serverPids(s.stderr());
    started.push(...pids);
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(await allGone(pids)).toBe(true);
  });

  test('Ctrl-C during the test: the test ends, results written, servers stopped', async () => {
    const out = join(dir, 'int-test');
    const file = writeConfig(
      dir,
      `scenario: Server\ntarget-qps: 10\nsettings: { min_duration: 60000 }\nservers:\n${sim('t1')}${sim('t2')}`,
      'int-test.yaml',
    );
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/servers ready/);
    const pids = serverPids(s.stderr());
    started.push(...pids);
    // The engine opens its detail log when the test starts: from then on Ctrl-C ends the test.
    for (let i = 0; i < 200 && !existsSync(join(out, 'mlperf_log_detail.txt')); i++)
      await new Promise((res) => setTimeout(res, 50));
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/stopping t1, t2/);
    expect(await allGone(pids)).toBe(true);
    const res = results(out);
    expect(res.run.aborted).toBe(true);
    expect(res.servers.servers.map((x: any) => x.exit.how)).toEqual(['stopped', 'stopped']);
  });
});

describe('loadgen serve', () => {
  test('starts the servers, prints their URLs, stops them on SIGTERM', async () => {
    const out = join(dir, 'serve');
    const file = writeConfig(
      dir,
      `servers:\n${sim('s1', ', load-time-ms: 200')}  - { name: s2, backend: simulator, flavor: sglang, model: sim-m, port: auto, stop-grace-s: 3, warmup-requests: 0 }\n`,
      'serve.yaml',
    );
    const s = start(['serve', '--config', file, '--output-dir', out]);
    await s.waitStderr(/serving until Ctrl-C/);
    const pids = serverPids(s.stderr());
    started.push(...pids);
    // The URLs go to stdout before that note: wait (bounded) for both.
    for (let i = 0; i < 50 && (s.stdout().match(/http:\/\/\S+/g) ?? []).length < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    const stdoutUrls = s.stdout().match(/http:\/\/\S+/g) ?? [];
    expect(stdoutUrls.length).toBe(2);
    const info = (await (await fetch(`${stdoutUrls[1]}/get_server_info`)).json()) as { version: string };
    expect(info.version).toBe('0.5.4');
    s.child.kill('SIGTERM');
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/servers stopped/);
    expect(await allGone(pids)).toBe(true);
    expect(readFileSync(join(out, 'servers', 's2.log'), 'utf8')).toMatch(/server_args=ServerArgs\(model_path="sim-m"/);
  });
});
