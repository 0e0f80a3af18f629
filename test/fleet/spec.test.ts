// The servers: section: every mistake is refused with the key named; through
// the CLI that is exit 2, one line, no stack trace, nothing started.
import { afterAll, describe, expect, test } from 'vitest';
import { rmSync } from 'node:fs';

import { parseServersSection } from '../../lib/fleet/spec.js';
import { readConfigFile } from '../../lib/cli/config-file.js';
import { runCli, tempDir, writeConfig } from './helpers.js';

const ok = { name: 's', backend: 'vllm', model: 'm' };

describe('validation', () => {
  const cases: Array<[unknown, RegExp]> = [
    [
      [{ ...ok, engineArgs: { tensorParalelSize: 2 } }],
      /'servers\[0\]\.engineArgs\.tensorParalelSize' is not a known key .*tensorParallelSize.*extra-args/,
    ],
    [
      [{ ...ok, 'engine-args': { 'max-num-seqs': 0 } }],
      /'servers\[0\]\.engine-args\.max-num-seqs' must be an integer >= 1, got number 0/,
    ],
    [
      [{ ...ok, engineArgs: { gpuMemoryUtilization: 1.5 } }],
      /'servers\[0\]\.engineArgs\.gpuMemoryUtilization' must be a number in \(0, 1\]/,
    ],
    [[{ ...ok, engineArgs: { cudaGraphs: 'no' } }], /'servers\[0\]\.engineArgs\.cudaGraphs' must be true or false/],
    [[{ ...ok, gpu: 2 }], /'servers\[0\]\.gpu' is not a known key/],
    [[{ ...ok, backend: 'tgi' }], /'servers\[0\]\.backend' must be one of vllm, sglang, custom, simulator/],
    [[{ name: 's', model: 'm' }], /'servers\[0\]\.backend' is required/],
    [[{ backend: 'vllm', model: 'm' }], /'servers\[0\]\.name' is required/],
    [[{ ...ok, name: 'a/b' }], /'servers\[0\]\.name' must be letters/],
    [[{ name: 's', backend: 'vllm' }], /'servers\[0\]\.model' is required for backend vllm/],
    [[{ name: 's', backend: 'custom' }], /'servers\[0\]\.command' is required for backend custom/],
    [[{ ...ok, command: ['x'] }], /'servers\[0\]\.command' applies only to backend custom/],
    [[{ ...ok, gpus: [0, 0] }], /'servers\[0\]\.gpus' GPU 0 is listed twice/],
    [
      [{ ...ok, gpus: 3, engineArgs: { tensorParallelSize: 2 } }],
      /'servers\[0\]\.gpus' has 3 GPUs, which tensor-parallel-size 2 does not divide/,
    ],
    [[{ ...ok, port: 70000 }], /'servers\[0\]\.port' must be an integer >= 1 and <= 65535/],
    [[{ ...ok, nodes: ['g1'], port: 'auto' }], /'servers\[0\]\.port' must be a number for servers on ssh nodes/],
    [[{ ...ok, ssh: { user: 'x' } }], /'servers\[0\]\.ssh' needs nodes/],
    [[{ ...ok, nodes: ['g1'], ssh: { usr: 'x' } }], /'servers\[0\]\.ssh\.usr' is not a known key/],
    [[{ ...ok, simulator: { loadTimeMs: 1 } }], /'servers\[0\]\.simulator' applies only to backend simulator/],
    [
      [{ name: 's', backend: 'simulator', model: 'm', simulator: { loadTime: 1 } }],
      /'servers\[0\]\.simulator\.loadTime' is not a known key/,
    ],
    [[{ ...ok, env: { 'A-B': 1 } }], /'servers\[0\]\.env\.A-B' is not a valid environment variable name/],
    [[{ ...ok, healthPath: 'health' }], /'servers\[0\]\.healthPath' must start with '\/'/],
    [[ok, { ...ok }], /'servers\[1\]\.name' repeats the name "s"/],
    [[], /'servers' must be a list of servers/],
    ['vllm', /'servers' must be a list of servers/],
  ];
  test.each(cases)('%j', (v, message) => {
    expect(() => parseServersSection(v)).toThrow(message);
  });

  test('kebab-case and camelCase keys; defaults', () => {
    const [s] = parseServersSection([
      {
        name: 's',
        backend: 'sglang',
        model: 'm',
        'startup-timeout-s': 5,
        'warmup-requests': 0,
        'extra-args': ['--enable-metrics'],
      },
    ]);
    expect(s).toMatchObject({
      port: 30000,
      host: '127.0.0.1',
      startupTimeoutS: 5,
      warmupRequests: 0,
      extraArgs: ['--enable-metrics'],
      healthPath: '/health',
      stopGraceS: 30,
    });
  });
});

describe('through the config file and the CLI', () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('readConfigFile puts the file name in front', () => {
    const file = writeConfig(
      dir,
      'scenario: Server\nservers:\n  - { name: a, backend: vllm, model: m, engine-args: { max-num-seq: 8 } }\n',
      'bad.yaml',
    );
    expect(() => readConfigFile(file)).toThrow(
      `config file ${file}: 'servers[0].engine-args.max-num-seq' is not a known key`,
    );
  });

  test('loadgen run: exit 2, the key named, no stack trace, no server started', async () => {
    const file = writeConfig(
      dir,
      'scenario: Server\nservers:\n  - { name: a, backend: simulator, model: m, engine-args: { tensor-paralel-size: 2 } }\n',
      'bad-run.yaml',
    );
    const r = await runCli(['run', '--config', file, '--output-dir', `${dir}/out`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^loadgen run: config file .*: 'servers\[0\]\.engine-args\.tensor-paralel-size' is not a known key/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toMatch(/server a: pid/);
  });

  test('loadgen serve --dry-run prints the command lines, ssh included', async () => {
    const file = writeConfig(
      dir,
      'servers:\n  - { name: big, backend: vllm, model: org/m, gpus: 4, port: 8000, nodes: [gpu1], ssh: { user: ml }, engine-args: { tensor-parallel-size: 4, kv-cache-dtype: fp8 } }\n',
      'dry.yaml',
    );
    const r = await runCli(['serve', '--config', file, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "# big -> http://gpu1:8000\nssh -tt -o BatchMode=yes ml@gpu1 -- 'stty -onlcr 2>/dev/null; CUDA_VISIBLE_DEVICES=0,1,2,3 PYTHONUNBUFFERED=1 exec vllm serve org/m --host 0.0.0.0 --port 8000 --tensor-parallel-size 4 --kv-cache-dtype fp8'\n",
    );
  });

  test('loadgen serve --dry-run with launcher: slurm: the salloc line, then srun steps on placeholder nodes', async () => {
    const file = writeConfig(
      dir,
      'servers:\n  - { name: big, backend: vllm, model: org/m, port: 8000, launcher: slurm, slurm: { nodes: 2, partition: gpu, gpus-per-server: 4, container-image: "nvcr.io#nvidia/vllm:25.01" } }\n',
      'dry-slurm.yaml',
    );
    const r = await runCli(['serve', '--config', file, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      '# big: allocation',
      'salloc --no-shell --job-name=loadgen-big --nodes=2 --ntasks-per-node=1 --partition=gpu --gres=gpu:4',
      '# big-node1 -> http://node1:8000',
      "PYTHONUNBUFFERED=1 srun --jobid=JOBID --job-name=big-node1 --nodes=1 --ntasks=1 --nodelist=node1 --overlap --kill-on-bad-exit=1 --gres=gpu:4 '--container-image=nvcr.io#nvidia/vllm:25.01' -- vllm serve org/m --host 0.0.0.0 --port 8000",
    ]);
  });

  test('loadgen serve without servers: exit 2', async () => {
    const file = writeConfig(dir, 'scenario: Server\n', 'none.yaml');
    const r = await runCli(['serve', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no 'servers' section/);
  });
});
