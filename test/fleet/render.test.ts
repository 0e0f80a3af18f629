// Engine settings rendered to each backend's flags, and the ssh wrapping.
import { describe, expect, test } from 'vitest';

import { flagsFor, genericFlags, renderCommand, renderEnv } from '../../lib/fleet/render.js';
import { parseServersSection } from '../../lib/fleet/spec.js';
import { commandLine, shellQuote, sshArgv } from '../../lib/fleet/ssh.js';
import type { EngineArgs } from '../../lib/fleet/types.js';

const ALL: EngineArgs = {
  tensorParallelSize: 2,
  maxNumSeqs: 256,
  maxNumBatchedTokens: 8192,
  maxModelLen: 4096,
  kvCacheDtype: 'fp8_e4m3',
  cudaGraphs: false,
  gpuMemoryUtilization: 0.9,
  seed: 0,
  enablePrefixCaching: false,
  trustRemoteCode: true,
};

const target = { host: '0.0.0.0', port: 8000, gpus: [0, 1], name: 'x' };

function one(yaml: Record<string, unknown>) {
  return parseServersSection([{ name: 'x', ...yaml }])[0];
}

describe('flag rendering', () => {
  test('vllm serve MODEL with its own flag names', () => {
    const argv = renderCommand(
      one({
        backend: 'vllm',
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        'engine-args': ALL,
        'extra-args': ['--disable-log-requests'],
      }),
      target,
    );
    expect(argv).toEqual([
      'vllm',
      'serve',
      'meta-llama/Llama-3.1-8B-Instruct',
      '--host',
      '0.0.0.0',
      '--port',
      '8000',
      '--tensor-parallel-size',
      '2',
      '--max-num-seqs',
      '256',
      '--max-num-batched-tokens',
      '8192',
      '--max-model-len',
      '4096',
      '--kv-cache-dtype',
      'fp8_e4m3',
      '--gpu-memory-utilization',
      '0.9',
      '--seed',
      '0',
      '--enforce-eager',
      '--no-enable-prefix-caching',
      '--trust-remote-code',
      '--disable-log-requests',
    ]);
  });

  test('python3 -m sglang.launch_server with SGLang flag names', () => {
    const argv = renderCommand(one({ backend: 'sglang', model: 'm', engineArgs: ALL }), { ...target, port: 30000 });
    expect(argv).toEqual([
      'python3',
      '-m',
      'sglang.launch_server',
      '--model-path',
      'm',
      '--host',
      '0.0.0.0',
      '--port',
      '30000',
      '--tp-size',
      '2',
      '--max-running-requests',
      '256',
      '--chunked-prefill-size',
      '8192',
      '--context-length',
      '4096',
      '--kv-cache-dtype',
      'fp8_e4m3',
      '--mem-fraction-static',
      '0.9',
      '--random-seed',
      '0',
      '--disable-cuda-graph',
      '--disable-radix-cache',
      '--trust-remote-code',
    ]);
  });

  test('defaults leave flags out; prefix caching on renders per backend', () => {
    expect(flagsFor('vllm', {})).toEqual([]);
    expect(flagsFor('vllm', { cudaGraphs: true, enablePrefixCaching: true })).toEqual(['--enable-prefix-caching']);
    expect(flagsFor('sglang', { cudaGraphs: true, enablePrefixCaching: true })).toEqual([]);
  });

  test('executable override (a venv, a container wrapper)', () => {
    expect(renderCommand(one({ backend: 'sglang', model: 'm', executable: '/opt/venv/bin/python' }), target)[0]).toBe(
      '/opt/venv/bin/python',
    );
  });

  test('custom: placeholders, then generic flags', () => {
    const spec = one({
      backend: 'custom',
      command: ['./serve.sh', '--listen', '{host}:{port}', '--gpus', '{gpus}', '--name', '{name}'],
      engineArgs: { maxNumSeqs: 8, cudaGraphs: false, trustRemoteCode: true },
    });
    expect(renderCommand(spec, target)).toEqual([
      './serve.sh',
      '--listen',
      '0.0.0.0:8000',
      '--gpus',
      '0,1',
      '--name',
      'x',
      '--max-num-seqs',
      '8',
      '--no-cuda-graphs',
      '--trust-remote-code',
    ]);
    expect(genericFlags({ kvCacheDtype: 'fp8' })).toEqual(['--kv-cache-dtype', 'fp8']);
    // A string command runs through the shell.
    expect(renderCommand(one({ backend: 'custom', command: 'exec ./serve --port {port}' }), target)).toEqual([
      '/bin/sh',
      '-c',
      'exec ./serve --port 8000',
    ]);
  });

  test('simulator: loadgen sim with the flavour flags and its own', () => {
    const argv = renderCommand(
      one({
        backend: 'simulator',
        model: 'sim',
        engineArgs: { maxNumSeqs: 4, tensorParallelSize: 2 },
        simulator: { loadTimeMs: 100, crashAfterRequests: 3, refuseWhileLoading: true },
      }),
      { ...target, host: '127.0.0.1' },
    );
    expect(argv[0]).toBe(process.execPath);
    expect(argv[1]).toMatch(/cli\.js$/);
    expect(argv.slice(2)).toEqual([
      'sim',
      '--flavor',
      'vllm',
      '--model',
      'sim',
      '--host',
      '127.0.0.1',
      '--port',
      '8000',
      '--tensor-parallel-size',
      '2',
      '--max-num-seqs',
      '4',
      '--no-precise-pacing',
      '--load-time-ms',
      '100',
      '--crash-after-requests',
      '3',
      '--refuse-while-loading',
    ]);
    const sg = renderCommand(
      one({ backend: 'simulator', flavor: 'sglang', model: 'sim', engineArgs: { maxNumSeqs: 4 } }),
      target,
    );
    expect(sg.slice(2, 8)).toEqual(['sim', '--flavor', 'sglang', '--model', 'sim', '--host']);
    expect(sg).toContain('--max-running-requests');
    expect(sg.slice(-3)).toEqual(['--no-precise-pacing', '--load-time-ms', '0']);
  });

  test('environment: CUDA_VISIBLE_DEVICES from the group, the spec env on top', () => {
    const spec = one({ backend: 'vllm', model: 'm', env: { VLLM_LOGGING_LEVEL: 'DEBUG', HF_HUB_OFFLINE: 1 } });
    expect(renderEnv(spec, [2, 3])).toEqual({
      CUDA_VISIBLE_DEVICES: '2,3',
      PYTHONUNBUFFERED: '1',
      VLLM_LOGGING_LEVEL: 'DEBUG',
      HF_HUB_OFFLINE: '1',
    });
    expect(renderEnv(spec, null).CUDA_VISIBLE_DEVICES).toBeUndefined();
  });
});

describe('ssh', () => {
  test('quoting', () => {
    expect(shellQuote('abc-1.2:3/x')).toBe('abc-1.2:3/x');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
    expect(shellQuote('')).toBe("''");
    expect(commandLine(['vllm', 'serve', 'a b'], { CUDA_VISIBLE_DEVICES: '0,1' })).toBe(
      "CUDA_VISIBLE_DEVICES=0,1 vllm serve 'a b'",
    );
  });

  test('the ssh command line: tty for SIGHUP on disconnect, batch mode, remote cd, env, exec', () => {
    const argv = sshArgv(
      'gpu1',
      ['vllm', 'serve', 'm', '--port', '8000'],
      { CUDA_VISIBLE_DEVICES: '0' },
      { user: 'me', port: 2222, identityFile: '/k', options: ['StrictHostKeyChecking=no'], workdir: '/srv/run' },
    );
    expect(argv).toEqual([
      'ssh',
      '-tt',
      '-o',
      'BatchMode=yes',
      '-p',
      '2222',
      '-i',
      '/k',
      '-o',
      'StrictHostKeyChecking=no',
      'me@gpu1',
      '--',
      'stty -onlcr 2>/dev/null; cd /srv/run && CUDA_VISIBLE_DEVICES=0 exec vllm serve m --port 8000',
    ]);
    expect(commandLine(argv)).toBe(
      "ssh -tt -o BatchMode=yes -p 2222 -i /k -o StrictHostKeyChecking=no me@gpu1 -- 'stty -onlcr 2>/dev/null; cd /srv/run && CUDA_VISIBLE_DEVICES=0 exec vllm serve m --port 8000'",
    );
  });
});
