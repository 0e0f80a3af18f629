// Option validation, the `loadgen sim` flags, and the command end to end
// (the CLI is bundled to a temp dir with esbuild so dist/ is left alone).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { registerSimCommand, simOptionsFromFlags, type SimFlags } from '../../lib/cli/sim-command.js';
import { startSimulator, type SimulatorOptions } from '../../lib/sim/index.js';
import { httpCall, post, sseJson } from './helpers.js';

const REPO = resolve(import.meta.dirname, '..', '..');

describe('option validation', () => {
  const cases: Array<[SimulatorOptions, RegExp]> = [
    [{ flavor: 'tgi' as never }, /option 'flavor'/],
    [{ maxRunningSeqs: 0 }, /option 'maxRunningSeqs'/],
    [{ maxRunningSeqs: 1.5 }, /option 'maxRunningSeqs'/],
    [{ decodeStepNs: -1 }, /option 'decodeStepNs'/],
    [{ decodeStepNsPerSeq: Number.NaN }, /option 'decodeStepNsPerSeq'/],
    [{ prefillNsPerToken: Infinity }, /option 'prefillNsPerToken'/],
    [{ tokensPerChunk: 0 }, /option 'tokensPerChunk'/],
    [{ eosAfter: 0 }, /option 'eosAfter'/],
    [{ outputLength: 0 }, /option 'outputLength'/],
    [{ outputLength: 'x' as never }, /option 'outputLength'/],
    [{ sglangOutputIds: 'both' as never }, /option 'sglangOutputIds'/],
    [{ port: 70000 }, /option 'port'/],
    [{ model: '' }, /option 'model'/],
    [{ maxModelLen: 1 }, /option 'maxModelLen'/],
    [{ returnTokenIds: 'yes' as never }, /option 'returnTokenIds'/],
    [{ maxRecords: 0 }, /option 'maxRecords'/],
    [{ precisePacing: 1 as never }, /option 'precisePacing'/],
    [{ faults: {} as never }, /option 'faults'/],
    [{ maxRunningSeq: 4 } as never, /option 'maxRunningSeq' is not a known option/],
  ];
  test.each(cases)('%j is refused', async (options, message) => {
    await expect(startSimulator(options)).rejects.toThrow(message);
  });

  test('defaults', async () => {
    const sim = await startSimulator();
    try {
      expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sim.port).toBeGreaterThan(0);
      expect(sim.flavor).toBe('vllm');
      const models = JSON.parse((await httpCall(sim.url, '/v1/models')).body);
      expect(models.data[0]).toMatchObject({ id: 'sim-model', max_model_len: 8192 });
      expect(sim.stats()).toEqual({ running: 0, waiting: 0, totalRequests: 1, totalTokens: 0, unauthorized: 0 });
    } finally {
      await sim.close();
    }
  });
});

describe('loadgen sim flags', () => {
  async function parse(args: string[]): Promise<SimFlags> {
    const program = new Command().exitOverride();
    registerSimCommand(program);
    const cmd = program.commands.find((c) => c.name() === 'sim')!;
    cmd.exitOverride().configureOutput({ writeErr: () => {} });
    let flags: SimFlags | undefined;
    cmd.action((f: SimFlags) => {
      flags = f;
    });
    await program.parseAsync(['node', 'loadgen', 'sim', ...args]);
    return flags!;
  }

  test('flags map to options (ms/us -> ns, per-flavour default port)', async () => {
    const flags = await parse([
      '--port',
      '0',
      '--flavor',
      'sglang',
      '--model',
      'llama',
      '--max-model-len',
      '4096',
      '--max-running-seqs',
      '8',
      '--decode-step-ms',
      '12.5',
      '--decode-step-ms-per-seq',
      '0.25',
      '--prefill-us-per-token',
      '3',
      '--tokens-per-chunk',
      '4',
      '--eos-after',
      '9',
      '--sglang-output-ids',
      'delta',
      '--no-return-token-ids',
      '--output-ids-ahead',
      '2',
      '--parser-withholds',
      '3',
      '--finish-after-token-ids',
      '--no-sse-done',
      '--no-precise-pacing',
      '--server-version',
      '0.5.9',
      '--faults',
      '[{"kind":"status","status":503,"count":1}]',
    ]);
    expect(simOptionsFromFlags(flags)).toEqual({
      flavor: 'sglang',
      port: 0,
      host: '127.0.0.1',
      model: 'llama',
      maxModelLen: 4096,
      version: '0.5.9',
      maxRunningSeqs: 8,
      decodeStepNs: 12_500_000,
      decodeStepNsPerSeq: 250_000,
      precisePacing: false,
      prefillNsPerToken: 3000,
      tokensPerChunk: 4,
      eosAfter: 9,
      sglangOutputIds: 'delta',
      outputIdsAhead: 2,
      parserWithholds: 3,
      finishAfterTokenIds: true,
      sseDone: false,
      returnTokenIds: false,
      faults: [{ kind: 'status', status: 503, count: 1 }],
    });
    expect(simOptionsFromFlags(await parse([])).port).toBe(8000);
    expect(simOptionsFromFlags(await parse(['--flavor', 'sglang'])).port).toBe(30000);
    const gpu = ['--gpus', '8', '--gpu-idle-watts', '60', '--gpu-watts-per-seq', '2.5', '--gpu-max-watts', '650'];
    expect(simOptionsFromFlags(await parse(gpu))).toMatchObject({
      gpus: 8,
      gpuIdleWatts: 60,
      gpuWattsPerSeq: 2.5,
      gpuMaxWatts: 650,
    });
  });

  test('bad flag values are refused', async () => {
    await expect(parse(['--max-running-seqs', '0'])).rejects.toThrow(/integer >= 1/);
    await expect(parse(['--flavor', 'tgi'])).rejects.toThrow(/vllm/);
    await expect(parse(['--decode-step-ms', '-2'])).rejects.toThrow(/>= 0/);
    await expect(parse(['--faults', '{nope'])).rejects.toThrow(/JSON/);
  });
});

describe('loadgen sim (spawned)', () => {
  let dir: string;
  let cli: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lg-sim-cli-'));
    cli = join(dir, 'cli.mjs');
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(REPO, 'lib/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: cli,
      logLevel: 'silent',
      // commander is CommonJS: give the ESM bundle a real require().
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function run(args: string[]): {
    child: ReturnType<typeof spawn>;
    url: Promise<string>;
    exit: Promise<number | null>;
    stderr: () => string;
  } {
    const child = spawn(process.execPath, [cli, 'sim', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const url = new Promise<string>((res, rej) => {
      child.stdout!.on('data', (d) => {
        out += d;
        const line = out.split('\n')[0];
        if (out.includes('\n')) res(line!);
      });
      child.on('exit', () => rej(new Error(`exited before printing a URL: ${err}`)));
    });
    const exit = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    return { child, url, exit, stderr: () => err };
  }

  test('prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const p = run(['--port', '0', '--flavor', 'sglang', '--decode-step-ms', '1', '--tokens-per-chunk', '2']);
    const url = await p.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const info = JSON.parse((await httpCall(url, '/get_server_info')).body);
    expect(info.stream_interval).toBe(2);
    const r = await post(url, '/generate', { input_ids: [1, 2], sampling_params: { max_new_tokens: 5 }, stream: true });
    expect(sseJson(r.body).at(-1)!.meta_info.completion_tokens).toBe(5);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
  });

  test('SIGINT closes open streams and exits 0', async () => {
    const p = run(['--port', '0', '--decode-step-ms', '5']);
    const url = await p.url;
    const stream = post(url, '/v1/completions', { prompt: [1], max_tokens: 5000, stream: true });
    await new Promise((r) => setTimeout(r, 100));
    p.child.kill('SIGINT');
    expect(await p.exit).toBe(0);
    expect((await stream).error).not.toBeNull();
  });

  test('a bad flag exits non-zero with a message', async () => {
    const p = run(['--port', '0', '--max-running-seqs', 'lots']);
    await expect(p.url).rejects.toThrow();
    expect(await p.exit).not.toBe(0);
    expect(p.stderr()).toMatch(/max-running-seqs/);
  });
});
