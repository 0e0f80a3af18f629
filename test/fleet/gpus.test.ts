// GPU helpers and how one servers: entry expands into servers (GPU groups, nodes, ports, names).
import { describe, expect, test } from 'vitest';

import { cudaVisibleDevices, parseGpuList, perGpu, tensorParallelGroups } from '../../lib/fleet/gpus.js';
import { planServers } from '../../lib/fleet/plan.js';
import { parseServersSection } from '../../lib/fleet/spec.js';

describe('GPU helpers', () => {
  test('GPU lists: a count, ids, ranges', () => {
    expect(parseGpuList(4)).toEqual([0, 1, 2, 3]);
    expect(parseGpuList([3, 1])).toEqual([1, 3]);
    expect(parseGpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(() => parseGpuList('0,0')).toThrow(/GPU 0 is listed twice/);
    expect(() => parseGpuList('3-1')).toThrow(/backwards/);
    expect(() => parseGpuList(0)).toThrow(/integer >= 1/);
    expect(() => parseGpuList('a')).toThrow(/"0-3"/);
  });

  test('one server per GPU, tensor-parallel groups', () => {
    expect(perGpu([0, 1, 2])).toEqual([[0], [1], [2]]);
    expect(tensorParallelGroups([0, 1, 2, 3, 4, 5, 6, 7], 4)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(tensorParallelGroups([0, 1], 2)).toEqual([[0, 1]]);
    expect(() => tensorParallelGroups([0, 1, 2], 2)).toThrow(/cannot be split into tensor-parallel groups of 2/);
    expect(cudaVisibleDevices([4, 5])).toBe('4,5');
  });
});

describe('planning', () => {
  test('8 GPUs at TP 2: four vLLM servers on consecutive ports, each with its CUDA_VISIBLE_DEVICES', async () => {
    const specs = parseServersSection([
      { name: 'llama', backend: 'vllm', model: 'm', gpus: 8, port: 8000, engineArgs: { tensorParallelSize: 2 } },
    ]);
    const planned = await planServers(specs);
    expect(planned.map((p) => [p.name, p.port, p.env.CUDA_VISIBLE_DEVICES, p.url])).toEqual([
      ['llama-0', 8000, '0,1', 'http://127.0.0.1:8000'],
      ['llama-1', 8001, '2,3', 'http://127.0.0.1:8001'],
      ['llama-2', 8002, '4,5', 'http://127.0.0.1:8002'],
      ['llama-3', 8003, '6,7', 'http://127.0.0.1:8003'],
    ]);
    expect(planned[1].commandLine).toBe(
      'CUDA_VISIBLE_DEVICES=2,3 PYTHONUNBUFFERED=1 vllm serve m --host 127.0.0.1 --port 8001 --tensor-parallel-size 2',
    );
  });

  test('one server per GPU by default; a single server without GPUs keeps its name', async () => {
    const planned = await planServers(
      parseServersSection([
        { name: 'a', backend: 'sglang', model: 'm', gpus: '0-1' },
        { name: 'b', backend: 'vllm', model: 'm' },
      ]),
    );
    expect(planned.map((p) => [p.name, p.port, p.gpus])).toEqual([
      ['a-0', 30000, [0]],
      ['a-1', 30001, [1]],
      ['b', 8000, null],
    ]);
  });

  test('ssh nodes: every node gets every group, reached by its name, the command line shown with ssh', async () => {
    const planned = await planServers(
      parseServersSection([
        { name: 'r', backend: 'vllm', model: 'm', gpus: 2, nodes: ['gpu1', 'gpu2'], port: 8000, ssh: { user: 'ml' } },
      ]),
    );
    expect(planned.map((p) => [p.name, p.url])).toEqual([
      ['r-gpu1-0', 'http://gpu1:8000'],
      ['r-gpu1-1', 'http://gpu1:8001'],
      ['r-gpu2-0', 'http://gpu2:8000'],
      ['r-gpu2-1', 'http://gpu2:8001'],
    ]);
    expect(planned[3].spawnArgv.slice(0, 6)).toEqual(['ssh', '-tt', '-o', 'BatchMode=yes', 'ml@gpu2', '--']);
    expect(planned[3].commandLine).toBe(
      "ssh -tt -o BatchMode=yes ml@gpu2 -- 'stty -onlcr 2>/dev/null; CUDA_VISIBLE_DEVICES=1 PYTHONUNBUFFERED=1 exec vllm serve m --host 0.0.0.0 --port 8001'",
    );
  });

  test('port auto: distinct free local ports', async () => {
    const planned = await planServers(parseServersSection([{ name: 's', backend: 'simulator', model: 'm', gpus: 3 }]));
    const ports = planned.map((p) => p.port);
    expect(new Set(ports).size).toBe(3);
    for (const p of ports) expect(p).toBeGreaterThan(0);
  });
});
