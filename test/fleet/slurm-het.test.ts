// Servers in one heterogeneous Slurm batch job (lib/fleet/slurm-het.ts): the
// sbatch argv and the batch script as unit tests (quoting of values with
// spaces, quotes and shell syntax), then for real on a two-node cluster
// started here (test/fleet/slurm-cluster.ts): one sbatch job, one component
// per entry, each server an `srun --het-group` step on its component's node,
// found with scontrol, healthy, one LoadGen run over both, the job
// cancelled, nothing left. Skips, saying why, where Slurm cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { planServers } from '../../lib/fleet/plan.js';
import {
  type HetComponent,
  hetBatchScript,
  hetComponents,
  parsableJobId,
  sbatchArgv,
} from '../../lib/fleet/slurm-het.js';
import { parseServersSection } from '../../lib/fleet/spec.js';
import { allGone, killGroups, runCli, tempDir } from './helpers.js';
import { type SlurmCluster, slurmUnavailable, startSlurm } from './slurm-cluster.js';

const dir = tempDir();
const started: number[] = [];
// A directory whose name a shell would split and unquote: the steps' --chdir and their logs.
const odd = join(dir, `it's "a" dir $(touch PWNED)`);
mkdirSync(odd);
const NASTY = `x'y "z" $(touch PWNED) ; touch PWNED2`;

let why = slurmUnavailable();
let cluster: SlurmCluster | undefined;
if (!why) {
  try {
    cluster = await startSlurm({ nodes: 2 });
    Object.assign(process.env, cluster.env);
  } catch (err) {
    why = (err as Error).message;
  }
}
if (why) console.warn(`Slurm heterogeneous-job tests skipped: ${why}`);

afterAll(async () => {
  killGroups(started);
  if (cluster) {
    try {
      execFileSync('scancel', ['--user=root'], { env: process.env, timeout: 10_000, stdio: 'ignore' });
    } catch {
      // Nothing to cancel.
    }
    await cluster.stop();
  }
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const sh = (script: string): string =>
  execFileSync('/bin/sh', ['-c', script], { cwd: dir, timeout: 10_000 }).toString();

describe('rendering', () => {
  const base = { backend: 'vllm', model: 'org/m', port: 8000, launcher: 'slurm' };

  test('sbatch: job-wide options, then one component per entry separated by ":", then the script', () => {
    const [a, b] = parseServersSection([
      { ...base, name: 'a', slurm: { partition: 'gpu', 'gpus-per-server': 2, 'servers-per-node': 4 } },
      { ...base, name: 'b', slurm: { nodes: 2, account: 'm', 'time-limit': '10', 'alloc-options': ['--qos=hi'] } },
    ]);
    const comps: HetComponent[] = [
      { options: a.slurm!, servers: [] },
      { options: b.slurm!, servers: [] },
    ];
    expect(sbatchArgv('loadgen', comps, '/o/job.sh', '/o/batch.log')).toEqual([
      'sbatch',
      '--parsable',
      '--job-name=loadgen',
      '--output=/o/batch.log',
      '--nodes=1',
      '--ntasks-per-node=4',
      '--partition=gpu',
      '--gres=gpu:8',
      ':',
      '--nodes=2',
      '--ntasks-per-node=1',
      '--account=m',
      '--time=10',
      '--qos=hi',
      '/o/job.sh',
    ]);
    expect(parsableJobId('41\n')).toBe('41');
    expect(parsableJobId('41;lgtest\n')).toBe('41');
    expect(parsableJobId('sbatch: error: x')).toBeNull();
  });

  test('the batch script: every word quoted, values with spaces, quotes and shell syntax arrive verbatim', () => {
    const [a] = parseServersSection([{ ...base, name: 'a', slurm: { workdir: odd, 'srun-options': ['--mpi=none'] } }]);
    const script = hetBatchScript([
      {
        options: a.slurm!,
        servers: [
          {
            name: 'a-0',
            argv: ['printf', '%s|', NASTY, 'plain'],
            env: { LG_NOTE: NASTY },
            logPath: join(odd, 'a 0.log'),
            relative: 0,
          },
        ],
      },
    ]);
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/bin/sh');
    expect(lines.at(-2)).toBe('wait');
    const srun = lines.find((l) => l.endsWith('&'))!;
    expect(
      srun.startsWith(`env 'LG_NOTE=x'\\''y "z" $(touch PWNED) ; touch PWNED2' srun --het-group=0 --job-name=a-0 `),
    ).toBe(true);
    expect(srun).toContain(' --relative=0 --overlap --kill-on-bad-exit=1 ');
    expect(srun).toContain(` '--chdir=${odd.replace(/'/g, `'\\''`)}' --mpi=none -- printf '%s|' `);
    expect(srun.endsWith(' 2>&1 </dev/null &')).toBe(true);
    // Run by a real shell with srun as a stub that prints its argv: each word comes back whole.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'srun'),
      '#!/bin/sh\nprintf "%s\\n" "$LG_NOTE"\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\n',
      {
        mode: 0o755,
      },
    );
    writeFileSync(join(dir, 'stub.sh'), script);
    sh(`PATH=${bin}:$PATH sh ./stub.sh`);
    const out = readFileSync(join(odd, 'a 0.log'), 'utf8').split('\n');
    expect(out[0]).toBe(NASTY);
    expect(out).toContain(`[--chdir=${odd}]`);
    expect(out).toContain(`[${NASTY}]`);
    expect(out.slice(-4)).toEqual(['[%s|]', `[${NASTY}]`, '[plain]', '']);
    expect(existsSync(join(dir, 'PWNED')) || existsSync(join(dir, 'PWNED2'))).toBe(false);
  });

  test("components from scontrol -o show job: each offset's state and nodes, in order", () => {
    const text = [
      'JobId=8 HetJobId=7 HetJobOffset=1 JobName=lg JobState=RUNNING Reason=None ReqNodeList=(null) NodeList=gpu[3-4] BatchHost=gpu3',
      'JobId=7 HetJobId=7 HetJobOffset=0 JobName=lg JobState=PENDING Reason=Resources ReqNodeList=(null) NodeList=(null)',
      '',
    ].join('\n');
    expect(hetComponents(text)).toEqual([
      { offset: 0, state: 'PENDING', nodeList: '(null)' },
      { offset: 1, state: 'RUNNING', nodeList: 'gpu[3-4]' },
    ]);
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function activeJobs(ms = 15_000): Promise<string[]> {
  const end = Date.now() + ms;
  let jobs: string[] = [];
  while (Date.now() < end) {
    jobs = execFileSync('squeue', ['-h', '-t', 'PENDING,RUNNING,COMPLETING', '-o', '%i'], { timeout: 10_000 })
      .toString()
      .split('\n')
      .filter((l) => l.trim() !== '');
    if (jobs.length === 0) return jobs;
    await sleep(250);
  }
  return jobs;
}

async function healthy(url: string, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(`${url}/health`)).ok) return true;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  return false;
}

describe.skipIf(why !== null)('servers in one heterogeneous sbatch job, on a two-node cluster', () => {
  test('two entries as two components: each server on its own node, healthy, one run over both, scancel leaves nothing', async () => {
    const entry = async (name: string): Promise<object> => ({
      name,
      backend: 'simulator',
      model: 'sim-m',
      port: await freePort(),
      launcher: 'slurm',
      env: { LG_NOTE: NASTY },
      slurm: { workdir: odd },
      simulator: { 'decode-step-ms': 4 },
    });
    const specs = parseServersSection([await entry('a'), await entry('b')]);
    const planned = await planServers(specs);
    const components: HetComponent[] = specs.map((spec) => ({
      options: spec.slurm!,
      servers: planned
        .filter((p) => p.spec === spec)
        .map((p, i) => ({ name: p.name, argv: p.argv, env: p.env, logPath: join(odd, `${p.name}.log`), relative: i })),
    }));
    const script = join(dir, 'job.sh');
    writeFileSync(script, hetBatchScript(components));
    const jobId = parsableJobId(
      execFileSync('sbatch', sbatchArgv('loadgen', components, script, join(dir, 'batch.log')).slice(1), {
        timeout: 10_000,
      }).toString(),
    );
    expect(jobId).toMatch(/^\d+$/);
    try {
      let comps: ReturnType<typeof hetComponents> = [];
      for (let i = 0; i < 150; i++) {
        comps = hetComponents(execFileSync('scontrol', ['-o', 'show', 'job', jobId!], { timeout: 10_000 }).toString());
        if (comps.length === 2 && comps.every((c) => c.state === 'RUNNING')) break;
        await sleep(200);
      }
      expect(
        comps.map((c) => [c.offset, c.state]),
        execFileSync('scontrol', ['show', 'job', jobId!]).toString(),
      ).toEqual([
        [0, 'RUNNING'],
        [1, 'RUNNING'],
      ]);
      // One node each (the backfill scheduler never puts two components on one node).
      expect(new Set(comps.map((c) => c.nodeList))).toEqual(new Set(['lgnode1', 'lgnode2']));
      // Both nodes have NodeAddr 127.0.0.1: the servers are reached there.
      const urls = planned.map((p) => `http://127.0.0.1:${p.port}`);
      for (const u of urls) expect(await healthy(u), u).toBe(true);
      const r = await runCli([
        'run',
        '--scenario',
        'Server',
        // Accuracy mode: every sample once, a short run.
        '--mode',
        'accuracy',
        '--synthetic-samples',
        '40',
        '--target-qps',
        '40',
        '--endpoint',
        urls[0]!,
        '--endpoint',
        urls[1]!,
        '--synthetic',
        '64/16',
        '--output-dir',
        join(dir, 'out'),
        '--quiet',
      ]);
      expect([0, 1], r.stderr).toContain(r.code);
      const res = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
      expect(res.errors.failedSamples).toBe(0);
      expect(res.endpoints.length).toBe(2);
      for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
    } finally {
      execFileSync('scancel', [jobId!], { timeout: 10_000 });
    }
    const engines = planned.map((p) => {
      const f = join(odd, `${p.name}.log`);
      return existsSync(f) ? Number(/Started server process \[(\d+)\]/.exec(readFileSync(f, 'utf8'))?.[1] ?? 0) : 0;
    });
    started.push(...engines);
    expect(engines.every((p) => p > 0)).toBe(true);
    expect(await allGone(engines)).toBe(true);
    expect(await activeJobs()).toEqual([]);
    expect(existsSync(join(dir, 'PWNED')) || existsSync(join(odd, 'PWNED'))).toBe(false);
  }, 150_000);
});
