// `loadgen run` as a child process: exit codes (0 VALID, 1 INVALID, 2 bad
// input, 3 endpoint failure, 130 Ctrl-C), the files it writes, --json and
// --quiet, config files, datasets, several endpoints and the SGLang flavour.
// Runs are short (1 s minimum duration, small datasets) and bounded.
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { startSimulator, type Simulator } from '../../lib/sim/index.js';
import { buildCli, runCli, spawnCli, STACK_LINE, tempDir, writeText, type CliRun } from './helpers.js';
import { freePort } from '../ports.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir();
});
afterAll(() => cleanup?.());

const QUICK = ['--set', 'min_duration=1000', '--synthetic-samples', '32'];
const LOGS = ['mlperf_log_summary.txt', 'mlperf_log_detail.txt', 'mlperf_log_accuracy.json', 'mlperf_log_trace.json'];
const RESULTS = ['results.json', 'result_summary.json', 'report.html'];

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
}

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

describe('results', () => {
  test('Server against the built-in simulator with the default settings: VALID, exit 0, every file', async () => {
    const out = join(dir, 'server');
    const r = await runCli(
      cli,
      ['run', '--scenario', 'Server', '--target-qps', '50', '--output-dir', out],
      dir,
      90_000,
    );
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/^Result: VALID/);
    expect(r.stderr).toMatch(/simulated run/);
    for (const f of [...LOGS, ...RESULTS]) expect(statSync(join(out, f)).size, f).toBeGreaterThan(0);
    const j = results(out);
    expect(j.verdict.status).toBe('VALID');
    expect(j.run.simulated).toBe(true);
    expect(j.settings.requested).toMatchObject({
      scenario: 'Server',
      serverTargetQps: 50,
      minDurationMs: 10000,
      useTokenLatencies: true,
    });
    expect(j.timeline.length).toBeGreaterThan(3);
    expect(j.endpoints[0].completed).toBeGreaterThan(400);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  test('--json: exactly one JSON document on stdout (results.json), notes on stderr', async () => {
    const out = join(dir, 'json');
    const r = await runCli(cli, ['run', '--scenario', 'Offline', ...QUICK, '--json', '--output-dir', out], dir);
    expect(r.code, explain(r)).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.schema).toBe('@x/loadgen/results');
    expect(doc).toEqual(results(out));
    expect(r.stderr).toMatch(/Result: VALID/);
  });

  test('--quiet: nothing on stderr; with --json only the document on stdout', async () => {
    const out = join(dir, 'quiet');
    const r = await runCli(
      cli,
      ['run', '--scenario', 'Offline', ...QUICK, '--json', '--quiet', '--output-dir', out],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).verdict.status).toBe('VALID');
    const r2 = await runCli(
      cli,
      ['run', '--scenario', 'Offline', ...QUICK, '--quiet', '--output-dir', join(dir, 'quiet2')],
      dir,
    );
    expect(r2.code, explain(r2)).toBe(0);
    expect(r2.stdout + r2.stderr).toBe('');
  });

  test('INVALID (an impossible first-token bound via --set) exits 1', async () => {
    const out = join(dir, 'invalid');
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Server',
        '--target-qps',
        '20',
        ...QUICK,
        '--set',
        'min_query_count=20',
        '--set',
        'ttft_latency=0.001',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect(r.code, explain(r)).toBe(1);
    expect(r.stdout).toMatch(/^Result: INVALID/);
    expect(results(out).verdict.status).toBe('INVALID');
    expect(results(out).settings.requested.ttftLatencyNs).toBe(1000);
  });

  test('accuracy mode runs every sample once and writes the accuracy log', async () => {
    const out = join(dir, 'accuracy');
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Offline',
        '--mode',
        'accuracy',
        '--synthetic',
        '16/4',
        '--synthetic-samples',
        '24',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    const acc = JSON.parse(readFileSync(join(out, 'mlperf_log_accuracy.json'), 'utf8')) as {
      qsl_idx: number;
      data: string;
    }[];
    expect(acc.map((e) => e.qsl_idx).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(acc.every((e) => e.data.length === 4 * 4 * 2)).toBe(true);
  });

  test('a config file under the flags: the file sets, the flags win', async () => {
    const out = join(dir, 'config');
    const cfg = writeText(
      dir,
      'run.yaml',
      `scenario: Offline
synthetic: 32/8
synthetic-samples: 16
output-dir: ${join(dir, 'config-from-file')}
settings:
  min_duration: 60000
  min_query_count: 50
`,
    );
    // 1 ms: the minimum duration is met however fast the run is (with 100 ms
    // a run faster than that was INVALID, exit 1).
    const r = await runCli(cli, ['run', '--config', cfg, '--set', 'minDurationMs=1', '--output-dir', out], dir);
    expect(r.code, explain(r)).toBe(0);
    expect(existsSync(join(dir, 'config-from-file'))).toBe(false);
    expect(results(out).settings.requested).toMatchObject({ minDurationMs: 1, minQueryCount: 50 });
  });

  test('a JSONL dataset with text prompts over the chat API', async () => {
    const out = join(dir, 'dataset');
    const rows = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ question: `question ${i}?`, answer: `answer ${i}`, cap: 6 }),
    ).join('\n');
    const data = writeText(dir, 'qa.jsonl', rows + '\n');
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Offline',
        '--set',
        'min_duration=1',
        '--set',
        'min_query_count=24',
        '--dataset',
        data,
        '--field-text',
        'question',
        '--field-reference',
        'answer',
        '--field-max-tokens',
        'cap',
        '--api',
        'chat',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    const j = results(out);
    expect(j.benchmark.dataset).toMatchObject({ size: 12, path: data });
    expect(j.endpoints[0].api).toBe('chat');
    expect(j.endpoints[0].outputTokens / j.endpoints[0].completed).toBe(6);
  });

  test('--benchmark with --user-conf: the official settings, user.conf over them, --set over both', async () => {
    const out = join(dir, 'benchmark');
    const uc = writeText(dir, 'user.conf', 'llama3_1-8b.Server.target_qps = 40\n*.Server.min_query_count = 500\n');
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Server',
        '--benchmark',
        'llama3_1-8b',
        '--user-conf',
        uc,
        '--set',
        'min_duration=1000',
        '--set',
        'min_query_count=20',
        '--synthetic-samples',
        '32',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect([0, 1], explain(r)).toContain(r.code);
    expect(r.stderr).toMatch(/performance sample count is 13368; the dataset has 32 samples/);
    const j = results(out);
    expect(j.settings.requested).toMatchObject({
      serverTargetQps: 40,
      minDurationMs: 1000,
      minQueryCount: 20,
      useTokenLatencies: true,
      ttftLatencyNs: 2e9,
      tpotLatencyNs: 1e8,
      sampleConcatenatePermutation: true,
    });
    expect(j.benchmark.model).toBe('llama3_1-8b');
  });

  test('--benchmark picks its dataset preset: an MLPerf cnn_eval.json-shaped file', async () => {
    const out = join(dir, 'cnn');
    const rows = Array.from({ length: 8 }, (_, i) => ({
      input: `article ${i}`,
      tok_input: [128000, 100 + i, 200 + i, 300],
      output: `highlights ${i}`,
      instruction: { llama: 'Summarize:\n{input}\n\nSummary:' },
    }));
    const data = writeText(dir, 'cnn_eval.json', JSON.stringify(rows, null, 4));
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Offline',
        '--benchmark',
        'llama3_1-8b',
        '--dataset',
        data,
        '--set',
        'min_duration=1',
        '--set',
        'min_query_count=8',
        '--target-qps',
        '2000',
        '--max-tokens',
        '8',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    expect(r.stderr).toMatch(/cnn_eval.json: 8 samples \(json; tokenIds=tok_input/);
    const j = results(out);
    expect(j.benchmark.dataset).toMatchObject({ size: 8, preset: 'llama3_1-8b' });
    // --max-tokens replaces the preset's 128-token cap for rows without their own.
    expect(j.endpoints[0].outputTokens / j.endpoints[0].completed).toBe(8);
  });

  test('the SGLang flavour: --backend sglang --api generate against an SGLang simulator', async () => {
    const out = join(dir, 'sglang');
    const r = await runCli(
      cli,
      ['run', '--scenario', 'Offline', ...QUICK, '--backend', 'sglang', '--api', 'generate', '--output-dir', out],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    expect(r.stderr).toMatch(/built-in sglang simulator/);
    expect(results(out).endpoints[0]).toMatchObject({ backend: 'sglang', api: 'generate' });
  });
});

describe('several endpoints', () => {
  const sims: Simulator[] = [];
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });

  test('--endpoint twice with --concurrency: both serve, each under its share', async () => {
    for (let i = 0; i < 2; i++)
      sims.push(await startSimulator({ decodeStepNs: 2_000_000, precisePacing: false, model: 'm' }));
    const out = join(dir, 'multi');
    const r = await runCli(
      cli,
      [
        'run',
        '--scenario',
        'Offline',
        ...QUICK,
        '--endpoint',
        sims[0].url,
        '--endpoint',
        `${sims[1].url}/v1`,
        '--concurrency',
        '4',
        '--workers',
        '1',
        '--model',
        'm',
        '--ignore-eos',
        '--api-key',
        'sk-test',
        '--output-dir',
        out,
      ],
      dir,
    );
    expect(r.code, explain(r)).toBe(0);
    const eps = results(out).endpoints as { url: string; completed: number }[];
    expect(eps.map((e) => e.url)).toEqual([sims[0].url, `${sims[1].url}/v1`]);
    expect(eps.every((e) => e.completed > 0)).toBe(true);
    // No simulator of the harness's own, and at most 2 requests at once per server.
    expect(r.stderr).not.toMatch(/simulated run/);
    const maxRunning = Math.max(...sims.map((s) => (s.records().length > 0 ? peakConcurrency(s) : 0)));
    expect(maxRunning).toBeLessThanOrEqual(2);
    // --model and --ignore-eos reach the request bodies; the key stays out of the record.
    const body = sims[0]
      .records()
      .find((x) => x.path === '/v1/completions' && (x.body as { max_tokens?: number }).max_tokens === 32)!
      .body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'm', ignore_eos: true });
    expect(results(out).run.command).toContain('***');
    expect(JSON.stringify(results(out))).not.toContain('sk-test');
  });
});

/** Most requests a simulator had open at once, from its records. */
function peakConcurrency(sim: Simulator): number {
  const events: [number, number][] = [];
  for (const r of sim.records()) {
    if (r.path === '/health' || r.method === 'GET' || r.endNs === null) continue;
    events.push([r.receivedNs, 1], [r.endNs, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (now += d));
  return peak;
}

describe('endpoint failures', () => {
  test('connection refused: exit 3 with the URL in the message', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await runCli(
      cli,
      ['run', '--scenario', 'Server', '--endpoint', url, '--output-dir', join(dir, 'refused')],
      dir,
    );
    expect(r.code, explain(r)).toBe(3);
    expect(r.stderr).toContain(url);
    expect(r.stderr).toMatch(/ECONNREFUSED|refused/i);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});

describe('Ctrl-C', () => {
  test('SIGINT during the test: logs written and readable, results.json marked aborted, exit 130', async () => {
    const out = join(dir, 'sigint');
    const s = spawnCli(
      cli,
      [
        'run',
        '--scenario',
        'Server',
        '--target-qps',
        '20',
        '--set',
        'min_duration=60000',
        '--synthetic-samples',
        '32',
        '--output-dir',
        out,
      ],
      dir,
    );
    const killer = setTimeout(() => s.child.kill('SIGKILL'), 60_000);
    try {
      await s.waitStderr(/progress: issued/); // the first plain progress line: the test is running
      s.child.kill('SIGINT');
      const r = await s.done;
      expect(r.code, explain(r)).toBe(130);
      expect(r.stderr).toMatch(/interrupted/);
      const summary = readFileSync(join(out, 'mlperf_log_summary.txt'), 'utf8');
      expect(summary).toMatch(/MLPerf Results Summary[\s\S]*aborted: SIGINT/);
      expect(r.stdout).toMatch(/^Result: ABORTED \(SIGINT\)/);
      expect(readFileSync(join(out, 'mlperf_log_detail.txt'), 'utf8')).toMatch(/:::MLLOG/);
      const j = results(out);
      expect(j.run.aborted).toBe(true);
      expect(j.run.abortReason).toMatch(/SIGINT/);
      expect(r.stderr).not.toMatch(STACK_LINE);
    } finally {
      clearTimeout(killer);
    }
  });
});

describe('SIGTERM', () => {
  test('during the test: the same clean end as Ctrl-C, results written, exit 143', async () => {
    const out = join(dir, 'sigterm');
    const s = spawnCli(
      cli,
      [
        'run',
        '--scenario',
        'Server',
        '--target-qps',
        '20',
        '--set',
        'min_duration=60000',
        '--synthetic-samples',
        '32',
        '--output-dir',
        out,
      ],
      dir,
    );
    const killer = setTimeout(() => s.child.kill('SIGKILL'), 60_000);
    try {
      await s.waitStderr(/progress: issued/);
      s.child.kill('SIGTERM');
      const r = await s.done;
      expect(r.code, explain(r)).toBe(143);
      expect(r.stderr).toMatch(/terminated: ending the test/);
      expect(readFileSync(join(out, 'mlperf_log_summary.txt'), 'utf8')).toMatch(/aborted: SIGTERM/);
      expect(r.stdout).toMatch(/^Result: ABORTED \(SIGTERM\)/);
      const j = results(out);
      expect(j.run.aborted).toBe(true);
      expect(j.run.abortReason).toMatch(/SIGTERM/);
      expect(r.stderr).not.toMatch(STACK_LINE);
    } finally {
      clearTimeout(killer);
    }
  });
});

describe('Ctrl-C before the test', () => {
  test('while the endpoint is being probed: exit 130 at once', async () => {
    // A server that accepts connections and never answers: the probe waits.
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const s = spawnCli(
      cli,
      ['run', '--scenario', 'Server', '--endpoint', url, '--output-dir', join(dir, 'sigint-setup')],
      dir,
    );
    const killer = setTimeout(() => s.child.kill('SIGKILL'), 30_000);
    try {
      await s.waitStderr(/dataset: synthetic/);
      while (sockets.length === 0) await new Promise((r) => setTimeout(r, 20));
      s.child.kill('SIGINT');
      const r = await s.done;
      expect(r.code, explain(r)).toBe(130);
      expect(r.stderr).toMatch(/interrupted/);
    } finally {
      clearTimeout(killer);
      for (const k of sockets) k.destroy();
      silent.close();
    }
  });
});

describe('bad input: exit 2, a clear message, no stack trace', () => {
  let badRows: string;
  let fileInTheWay: string;
  let dataset: string;
  let userConf: string;
  beforeAll(() => {
    badRows = writeText(dir, 'bad.jsonl', '{"text_input": "a"}\n{"text_input": "b"}\n{"text_input": 5}\n');
    dataset = writeText(dir, 'ok.jsonl', '{"text_input": "a"}\n');
    fileInTheWay = writeText(dir, 'not-a-dir', 'x');
    userConf = writeText(dir, 'bad-user.conf', '*.Server.target_qps = fast\n');
    mkdirSync(join(dir, 'cfg'), { recursive: true });
    writeFileSync(join(dir, 'cfg', 'unknown.yaml'), 'scenario: Server\ntarget_qpss: 5\n');
    writeFileSync(join(dir, 'cfg', 'broken.yaml'), 'scenario: [Server\n');
  });

  const cases: Array<[string, () => string[], RegExp]> = [
    ['no scenario', () => ['run'], /--scenario is required/],
    ['unknown scenario', () => ['run', '--scenario', 'Fastest'], /--scenario "Fastest"/],
    ['unknown mode', () => ['run', '--scenario', 'Server', '--mode', 'turbo'], /--mode "turbo"/],
    ['unknown flag', () => ['run', '--scenario', 'Server', '--turbo'], /unknown option '--turbo'/],
    ['flag without its value', () => ['run', '--scenario'], /argument missing/],
    ['not a number', () => ['run', '--scenario', 'Server', '--target-qps', 'many'], /expected a number/],
    ['zero QPS', () => ['run', '--scenario', 'Server', '--target-qps', '0'], /--target-qps must be a number > 0/],
    [
      'QPS for SingleStream',
      () => ['run', '--scenario', 'SingleStream', '--target-qps', '5'],
      /applies to the Server and Offline/,
    ],
    [
      'unknown --set key',
      () => ['run', '--scenario', 'Server', '--set', 'min_duraton=5'],
      /unknown setting 'min_duraton'.*did you mean 'min_duration'/,
    ],
    ['bad --set value', () => ['run', '--scenario', 'Server', '--set', 'min_duration=soon'], /expected a number/],
    ['--set without =', () => ['run', '--scenario', 'Server', '--set', 'min_duration'], /expected key=value/],
    [
      'bad setting range',
      () => ['run', '--scenario', 'Server', '--set', 'target_latency_percentile=150'],
      /serverTargetLatencyPercentile/,
    ],
    ['not a URL', () => ['run', '--scenario', 'Server', '--endpoint', 'gpu1:8000'], /must start with http/],
    ['URL with a query', () => ['run', '--scenario', 'Server', '--endpoint', 'http://a:1/?x=1'], /query or fragment/],
    ['unknown backend', () => ['run', '--scenario', 'Server', '--backend', 'tgi'], /--backend "tgi"/],
    ['unknown api', () => ['run', '--scenario', 'Server', '--api', 'grpc'], /--api "grpc"/],
    [
      'generate API on vLLM',
      () => ['run', '--scenario', 'Server', '--backend', 'vllm', '--api', 'generate', '--output-dir', join(dir, 'gen')],
      /generate API is SGLang's/,
    ],
    [
      'missing dataset',
      () => ['run', '--scenario', 'Server', '--dataset', join(dir, 'nope.json')],
      /nope.json: no such file/,
    ],
    [
      'malformed row',
      () => ['run', '--scenario', 'Server', '--dataset', badRows, '--output-dir', join(dir, 'rows')],
      /bad.jsonl: line 3: column 'text_input'/,
    ],
    [
      'unknown field',
      () => ['run', '--scenario', 'Server', '--dataset', dataset, '--field-text', 'prompt_txt'],
      /names column 'prompt_txt'.*available columns: 'text_input'/,
    ],
    [
      'unknown dataset format',
      () => ['run', '--scenario', 'Server', '--dataset', dataset, '--dataset-format', 'csv'],
      /--dataset-format "csv"/,
    ],
    [
      'unknown preset',
      () => ['run', '--scenario', 'Server', '--dataset', dataset, '--preset', 'gpt-5'],
      /unknown dataset preset 'gpt-5'/,
    ],
    [
      'mapping without a dataset',
      () => ['run', '--scenario', 'Server', '--field-text', 'q'],
      /--field-text needs --dataset/,
    ],
    [
      'dataset and synthetic',
      () => ['run', '--scenario', 'Server', '--dataset', dataset, '--synthetic', '8/8'],
      /exclude each other/,
    ],
    ['bad synthetic lengths', () => ['run', '--scenario', 'Server', '--synthetic', '8x8'], /--synthetic "8x8"/],
    ['unknown benchmark', () => ['run', '--scenario', 'Server', '--benchmark', 'llama9'], /unknown benchmark 'llama9'/],
    [
      'mlperf.conf without benchmark',
      () => ['run', '--scenario', 'Server', '--mlperf-conf', 'x.conf'],
      /--mlperf-conf needs --benchmark/,
    ],
    [
      'missing user.conf',
      () => ['run', '--scenario', 'Server', '--benchmark', 'llama3_1-8b', '--user-conf', join(dir, 'none.conf')],
      /none.conf/,
    ],
    [
      'malformed user.conf',
      () => ['run', '--scenario', 'Server', '--benchmark', 'llama3_1-8b', '--user-conf', userConf],
      /bad-user.conf:1: value needs to be integer or double/,
    ],
    ['missing config file', () => ['run', '--config', join(dir, 'nope.yaml')], /nope.yaml: no such file/],
    ['unknown config key', () => ['run', '--config', join(dir, 'cfg', 'unknown.yaml')], /unknown key 'target_qpss'/],
    ['broken YAML', () => ['run', '--config', join(dir, 'cfg', 'broken.yaml')], /invalid YAML/],
    [
      'zero concurrency',
      () => ['run', '--scenario', 'Server', '--concurrency', '0'],
      /--concurrency must be an integer >= 1/,
    ],
    ['negative workers', () => ['run', '--scenario', 'Server', '--workers', '-2'], /--workers must be an integer >= 0/],
    [
      'output dir is a file',
      () => ['run', '--scenario', 'Server', '--output-dir', fileInTheWay],
      /--output-dir .*not-a-dir: a file is in the way/,
    ],
    [
      'find-peak on Offline',
      () => ['run', '--scenario', 'Offline', '--mode', 'find-peak'],
      /find-peak mode needs the Server scenario/,
    ],
    [
      'token-id prompts on the chat API',
      () => [
        'run',
        '--scenario',
        'Offline',
        '--api',
        'chat',
        '--synthetic-samples',
        '4',
        '--output-dir',
        join(dir, 'chat'),
      ],
      /the chat API needs a text or messages prompt/,
    ],
    [
      'simulator options that do not exist',
      () => ['run', '--config', writeText(dir, 'sim.yaml', 'scenario: Server\nsimulator: { decodeSteps: 3 }\n')],
      /simulator: .*decodeSteps/,
    ],
  ];

  // Two at a time: short processes, a shared machine.
  const pending = new Map<string, Promise<CliRun>>();
  const start = (name: string, args: () => string[]) => {
    if (!pending.has(name)) pending.set(name, runCli(cli, args(), dir, 60_000));
    return pending.get(name)!;
  };
  test.each(cases)('%s', async (name, args, message) => {
    const i = cases.findIndex((c) => c[0] === name);
    const next = cases[i + 1];
    const run = start(name, args);
    if (next) void start(next[0], next[1]);
    const r = await run;
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout).toBe('');
  });
});
