// The Slurm launcher. Rendering (salloc and srun words, GPU and pyxis
// options, which cannot run here) as unit tests; then for real against a
// one-node Slurm cluster started on this machine (test/fleet/slurm-cluster.ts):
// an allocation held with salloc, servers as srun steps on the node Slurm
// gave, found at its NodeAddr, a crash mid-run, Ctrl-C, and the job cancelled
// with nothing left running at every ending. Skips, saying why, where Slurm
// cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { planServers } from '../../lib/fleet/plan.js';
import { jobIdFrom, sallocArgv, srunArgv } from '../../lib/fleet/slurm.js';
import { parseServersSection } from '../../lib/fleet/spec.js';
import { allGone, killGroups, runCli, serverPids, start, tempDir } from './helpers.js';
import { NODE, type SlurmCluster, slurmUnavailable, startSlurm } from './slurm-cluster.js';
import { freePort } from '../ports.js';

const dir = tempDir();
const started: number[] = [];

let why = slurmUnavailable();
let cluster: SlurmCluster | undefined;
if (!why) {
  try {
    cluster = await startSlurm();
    Object.assign(process.env, cluster.env);
  } catch (err) {
    why = (err as Error).message;
  }
}
if (why) console.warn(`Slurm launcher tests skipped: ${why}`);

afterAll(async () => {
  killGroups(started);
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('rendering', () => {
  const base = { name: 'big', backend: 'vllm', model: 'org/m', port: 8000, launcher: 'slurm' };

  test('salloc holds the nodes: partition, account, time, GPUs for every server of a node, extra options', () => {
    const [spec] = parseServersSection([
      {
        ...base,
        slurm: {
          partition: 'gpu',
          account: 'mlperf',
          nodes: 2,
          'servers-per-node': 4,
          'gpus-per-server': 2,
          'time-limit': '02:00:00',
          'alloc-options': ['--exclusive', '--qos=high'],
        },
      },
    ]);
    expect(sallocArgv('loadgen-big', spec.slurm!)).toEqual([
      'salloc',
      '--no-shell',
      '--job-name=loadgen-big',
      '--nodes=2',
      '--ntasks-per-node=4',
      '--partition=gpu',
      '--account=mlperf',
      '--time=02:00:00',
      '--gres=gpu:8',
      '--exclusive',
      '--qos=high',
    ]);
  });

  test('each server an srun step on its node: GPUs, pyxis container options, workdir with spaces kept one word', () => {
    const [spec] = parseServersSection([
      {
        ...base,
        slurm: {
          'gpus-per-server': 2,
          'container-image': 'nvcr.io#nvidia/vllm:25.01',
          'container-mounts': '/data:/data,/models:/models',
          'container-workdir': '/work',
          workdir: `/srv/it's "here"`,
          'srun-options': ['--mpi=none'],
        },
      },
    ]);
    expect(srunArgv('41', 'gpu7', 'big-0', ['vllm', 'serve', 'org/m'], spec.slurm!)).toEqual([
      'srun',
      '--jobid=41',
      '--job-name=big-0',
      '--nodes=1',
      '--ntasks=1',
      '--nodelist=gpu7',
      '--overlap',
      '--kill-on-bad-exit=1',
      '--gres=gpu:2',
      `--chdir=/srv/it's "here"`,
      '--container-image=nvcr.io#nvidia/vllm:25.01',
      '--container-mounts=/data:/data,/models:/models',
      '--container-workdir=/work',
      '--mpi=none',
      '--',
      'vllm',
      'serve',
      'org/m',
    ]);
    expect(jobIdFrom('salloc: Pending job allocation 1234\nsalloc: job 1234 queued and waiting for resources')).toBe(
      '1234',
    );
  });

  test('a dry plan: servers-per-node servers per node on consecutive ports, no GPU list (Slurm assigns them)', async () => {
    const specs = parseServersSection([{ ...base, slurm: { nodes: 2, 'servers-per-node': 2, 'gpus-per-server': 1 } }]);
    const planned = await planServers(specs);
    expect(planned.map((p) => [p.name, p.node, p.port, p.launcher, p.gpus])).toEqual([
      ['big-node1-0', 'node1', 8000, 'slurm', null],
      ['big-node1-1', 'node1', 8001, 'slurm', null],
      ['big-node2-0', 'node2', 8000, 'slurm', null],
      ['big-node2-1', 'node2', 8001, 'slurm', null],
    ]);
    expect(planned[0].env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(planned[0].commandLine).toMatch(
      /^PYTHONUNBUFFERED=1 srun --jobid=JOBID --job-name=big-node1-0 .* --gres=gpu:1 -- vllm serve org\/m --host 0\.0\.0\.0 --port 8000$/,
    );
  });

  test('bad Slurm entries are refused naming the key', () => {
    const cases: [unknown, RegExp][] = [
      [{ ...base, launcher: 'slurm', nodes: ['g1'] }, /'servers\[0\]\.nodes' does not apply to launcher slurm/],
      [{ ...base, gpus: 2 }, /'servers\[0\]\.gpus' does not apply to launcher slurm/],
      [{ ...base, port: 'auto' }, /'servers\[0\]\.port' must be a number for servers on Slurm nodes/],
      [{ ...base, launcher: 'local', slurm: {} }, /'servers\[0\]\.slurm' needs launcher: slurm/],
      [
        { ...base, slurm: { 'srun-options': ['hostname'] } },
        /'servers\[0\]\.slurm\.srun-options\[0\]' must be an option/,
      ],
      [{ ...base, slurm: { nodez: 2 } }, /'servers\[0\]\.slurm\.nodez' is not a known key/],
      [{ ...base, launcher: 'pbs' }, /'servers\[0\]\.launcher' must be local, ssh or slurm/],
    ];
    for (const [entry, re] of cases) expect(() => parseServersSection([entry])).toThrow(re);
  });
});

async function slurmServer(name: string, simulator: Record<string, unknown> = {}, perNode = 1): Promise<object> {
  return {
    name,
    backend: 'simulator',
    model: 'sim-m',
    port: await freePort(),
    launcher: 'slurm',
    slurm: { nodes: 1, 'servers-per-node': perNode, 'queue-timeout-s': 30, workdir: dir },
    'startup-timeout-s': 30,
    'stop-grace-s': 3,
    simulator: { 'decode-step-ms': 4, ...simulator },
  };
}

function config(name: string, body: Record<string, unknown>): string {
  const p = join(dir, `${name}.json`);
  writeFileSync(p, JSON.stringify({ scenario: 'Server', 'target-qps': 10, synthetic: '64/16', ...body }));
  return p;
}

function enginePids(out: string, names: readonly string[]): number[] {
  return names.map((n) => {
    const f = join(out, 'servers', `${n}.log`);
    return existsSync(f) ? Number(/Started server process \[(\d+)\]/.exec(readFileSync(f, 'utf8'))?.[1] ?? 0) : 0;
  });
}

/** Jobs still pending or running (bounded wait for them to drain). */
async function activeJobs(ms = 15_000): Promise<string[]> {
  const end = Date.now() + ms;
  let jobs: string[] = [];
  while (Date.now() < end) {
    jobs = execFileSync('squeue', ['-h', '-t', 'PENDING,RUNNING,COMPLETING', '-o', '%i'], { timeout: 10_000 })
      .toString()
      .split('\n')
      .filter((l) => l.trim() !== '');
    if (jobs.length === 0) return jobs;
    await new Promise((r) => setTimeout(r, 250));
  }
  return jobs;
}

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Record<string, any>;
}

describe.skipIf(why !== null)('servers as Slurm job steps, on a one-node cluster', () => {
  test('srun works on the cluster', () => {
    expect(execFileSync('srun', ['-N1', 'hostname'], { timeout: 30_000 }).toString().trim()).not.toBe('');
  }, 40_000);

  test('two servers as steps of one allocation: found on the node Slurm gave, one run over both, the job cancelled, nothing left', async () => {
    const out = join(dir, 'two');
    const file = config('two', {
      settings: { min_duration: 1500, min_query_count: 10 },
      servers: [await slurmServer('s', {}, 2)],
    });
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    const pids = serverPids(r.stderr);
    started.push(...pids);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(/slurm loadgen-s: salloc --no-shell --job-name=loadgen-s --nodes=1 --ntasks-per-node=2/);
    expect(r.stderr).toMatch(new RegExp(`slurm loadgen-s: job \\d+ on ${NODE}`));
    expect(r.stderr).toMatch(/server s-0: PYTHONUNBUFFERED=1 srun --jobid=\d+ --job-name=s-0 /);
    expect(r.stderr).toMatch(/slurm job \d+: cancelled \(scancel\)/);
    const engines = enginePids(out, ['s-0', 's-1']);
    started.push(...engines);
    expect(engines.every((p) => p > 0)).toBe(true);
    expect(await allGone([...pids, ...engines])).toBe(true);
    const res = results(out);
    const job = res.servers.slurmJobs[0];
    expect(job).toMatchObject({ spec: 's', nodes: [NODE], partition: 'lgpart', cancelled: true });
    expect(job.jobId).toMatch(/^\d+$/);
    expect(res.servers.servers.map((s: any) => [s.name, s.node, s.launcher, s.jobId, s.exit.how])).toEqual([
      ['s-0', NODE, 'slurm', job.jobId, 'stopped'],
      ['s-1', NODE, 'slurm', job.jobId, 'stopped'],
    ]);
    // Reached at the node's NodeAddr, not its name (which does not resolve here).
    for (const s of res.servers.servers) expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(res.errors.failedSamples).toBe(0);
    for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
    expect(await activeJobs()).toEqual([]);
  }, 120_000);

  test('an engine crashing mid-run in its step: reported with its log tail, traffic moved, both jobs cancelled', async () => {
    const out = join(dir, 'crash');
    const file = config('crash', {
      'target-qps': 20,
      settings: { min_duration: 4000 },
      servers: [await slurmServer('steady'), await slurmServer('fragile', { 'crash-after-requests': 12 })],
    });
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    started.push(...serverPids(r.stderr));
    const engines = enginePids(out, ['steady', 'fragile']);
    started.push(...engines);
    expect([0, 1, 6], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(/warning: server fragile \(http:\/\/127\.0\.0\.1:\d+\) exited with code 1 during the run/);
    expect(r.stderr).toMatch(/last lines of .*fragile\.log:[\s\S]*simulated engine crash/);
    const res = results(out);
    expect(res.servers.events.find((e: any) => e.kind === 'crashed')).toMatchObject({ server: 'fragile', exitCode: 1 });
    expect(res.servers.slurmJobs.map((j: any) => [j.spec, j.cancelled])).toEqual([
      ['steady', true],
      ['fragile', true],
    ]);
    const steady = res.endpoints.find((e: any) => e.url === res.servers.servers[0].url);
    expect(steady.completed).toBeGreaterThan(0);
    expect(await allGone([...serverPids(r.stderr), ...engines])).toBe(true);
    expect(await activeJobs()).toEqual([]);
  }, 120_000);

  test("a partition that does not exist: exit 3, salloc's reason, nothing started", async () => {
    const entry = { ...(await slurmServer('nopart')), slurm: { partition: 'no-such-part', 'queue-timeout-s': 20 } };
    const r = await runCli([
      'run',
      '--config',
      config('nopart', { servers: [entry] }),
      '--output-dir',
      join(dir, 'np'),
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/slurm loadgen-nopart: salloc failed \(exit 1\): .*[Ii]nvalid partition/);
    expect(serverPids(r.stderr)).toEqual([]);
    expect(await activeJobs()).toEqual([]);
  }, 60_000);

  test('an allocation still pending at its deadline: exit 3 naming the job, which is cancelled', async () => {
    // The node's every CPU held by another job: the run's allocation waits in the queue.
    const cpus = execFileSync('sinfo', ['-h', '-o', '%c']).toString().trim();
    const hog = execFileSync(
      'sbatch',
      ['--parsable', `--ntasks=${cpus}`, '--output=/dev/null', `--chdir=${dir}`, '--wrap=sleep 120'],
      { timeout: 10_000 },
    )
      .toString()
      .trim();
    try {
      for (let i = 0; i < 100; i++) {
        if (execFileSync('squeue', ['-h', '-j', hog, '-o', '%T']).toString().trim() === 'RUNNING') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const entry = { ...(await slurmServer('queued')), slurm: { 'queue-timeout-s': 2 } };
      const r = await runCli([
        'run',
        '--config',
        config('queued', { servers: [entry] }),
        '--output-dir',
        join(dir, 'q'),
      ]);
      expect(r.code).toBe(3);
      const pending = /no allocation within 2 s \(job (\d+) still pending\)/.exec(r.stderr);
      expect(pending, r.stderr).not.toBeNull();
      expect(serverPids(r.stderr)).toEqual([]);
      execFileSync('scancel', [hog]);
      expect(await activeJobs()).toEqual([]);
    } finally {
      execFileSync('scancel', [hog]);
    }
  }, 60_000);

  test('Ctrl-C while the engines load: exit 130, the steps ended, the job cancelled', async () => {
    const out = join(dir, 'int');
    const file = config('int', { servers: [await slurmServer('l', { 'load-time-ms': 600000 }, 2)] });
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/server l-1: pid \d+/);
    started.push(...serverPids(s.stderr()));
    let engines: number[] = [];
    for (let i = 0; i < 200; i++) {
      engines = enginePids(out, ['l-0', 'l-1']);
      if (engines.every((p) => p > 0)) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    started.push(...engines);
    expect(engines.every((p) => p > 0)).toBe(true);
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(await allGone([...serverPids(r.stderr), ...engines])).toBe(true);
    expect(await activeJobs()).toEqual([]);
  }, 90_000);
});
