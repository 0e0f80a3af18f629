// Servers in one heterogeneous Slurm batch job (lib/fleet/slurm-het.ts): the
// sbatch argv and the batch script as unit tests (quoting of values with
// spaces, quotes and shell syntax), then for real on a two-node cluster
// started here (test/fleet/slurm-cluster.ts): one sbatch job, one component
// per entry, each server an `srun --het-group` step on its component's node,
// found with scontrol, healthy, one LoadGen run over both, the job
// cancelled, nothing left. Skips, saying why, where Slurm cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { allGone, killGroups, runCli, serverPids, start, tempDir } from './helpers.js';
import { type SlurmCluster, slurmUnavailable, startSlurm } from './slurm-cluster.js';
import { freePort } from '../ports.js';

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
  await cluster?.stop();
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

  test('slurm.mode is checked: salloc or sbatch-het, and sbatch-het components take one node', () => {
    expect(() => parseServersSection([{ ...base, name: 'a', slurm: { mode: 'hetjob' } }])).toThrow(
      /'servers\[0\]\.slurm\.mode' must be salloc or sbatch-het, got "hetjob"/,
    );
    expect(() => parseServersSection([{ ...base, name: 'a', slurm: { mode: 'sbatch-het', nodes: 2 } }])).toThrow(
      /'servers\[0\]\.slurm\.nodes' must be 1 with mode: sbatch-het/,
    );
    expect(parseServersSection([{ ...base, name: 'a', slurm: { mode: 'sbatch-het' } }])[0].slurm!.mode).toBe(
      'sbatch-het',
    );
  });

  test('a dry plan of two sbatch-het entries: each server an srun --het-group step of its component', async () => {
    const specs = parseServersSection([
      { ...base, name: 'a', slurm: { mode: 'sbatch-het', 'servers-per-node': 2 } },
      { ...base, name: 'b', port: 9000, slurm: { mode: 'sbatch-het' } },
    ]);
    const planned = await planServers(specs);
    expect(planned.map((p) => [p.name, p.port, p.commandLine.split(' ').slice(1, 4).join(' ')])).toEqual([
      ['a-0', 8000, 'srun --het-group=0 --job-name=a-0'],
      ['a-1', 8001, 'srun --het-group=0 --job-name=a-1'],
      ['b', 9000, 'srun --het-group=1 --job-name=b'],
    ]);
  });

  test("components from scontrol -o show job: each offset's state and nodes, in order", () => {
    const text = [
      'JobId=8 HetJobId=7 HetJobOffset=1 JobName=lg JobState=RUNNING Reason=None ReqNodeList=(null) NodeList=gpu[3-4] BatchHost=gpu3',
      'JobId=7 HetJobId=7 HetJobOffset=0 JobName=lg JobState=PENDING Reason=Resources ReqNodeList=(null) NodeList=(null)',
      '',
    ].join('\n');
    expect(hetComponents(text).map((c) => [c.offset, c.state, c.nodeList, c.reason])).toEqual([
      [0, 'PENDING', '(null)', 'Resources'],
      [1, 'RUNNING', 'gpu[3-4]', 'None'],
    ]);
  });
});

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

  test('through the CLI: slurm.mode sbatch-het, two entries as two components of one job, one run, the job cancelled, nothing left', async () => {
    const entry = async (name: string): Promise<object> => ({
      name,
      backend: 'simulator',
      model: 'sim-m',
      port: await freePort(),
      launcher: 'slurm',
      env: { LG_NOTE: NASTY },
      slurm: { mode: 'sbatch-het', workdir: odd, 'queue-timeout-s': 30 },
      'startup-timeout-s': 30,
      'stop-grace-s': 3,
      simulator: { 'decode-step-ms': 4 },
    });
    const out = join(dir, 'cli');
    const file = join(dir, 'cli.json');
    writeFileSync(
      file,
      JSON.stringify({
        scenario: 'Server',
        'target-qps': 10,
        synthetic: '64/16',
        settings: { min_duration: 1500, min_query_count: 10 },
        servers: [await entry('a'), await entry('b')],
      }),
    );
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    started.push(...serverPids(r.stderr));
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(
      /slurm: sbatch --parsable --job-name=loadgen .* --nodes=1 --ntasks-per-node=1 : --nodes=1 /,
    );
    expect(r.stderr).toMatch(/slurm job (\d+): \1\+0 on lgnode\d; \1\+1 on lgnode\d/);
    expect(r.stderr).toMatch(/server a: PYTHONUNBUFFERED=1 LG_NOTE=\*\*\* srun --het-group=0 --job-name=a /);
    expect(r.stderr).toMatch(/server b: PYTHONUNBUFFERED=1 LG_NOTE=\*\*\* srun --het-group=1 --job-name=b /);
    const engines = ['a', 'b'].map((n) => {
      const f = join(out, 'servers', `${n}.log`);
      return existsSync(f) ? Number(/Started server process \[(\d+)\]/.exec(readFileSync(f, 'utf8'))?.[1] ?? 0) : 0;
    });
    started.push(...engines);
    expect(engines.every((p) => p > 0)).toBe(true);
    expect(await allGone([...serverPids(r.stderr), ...engines])).toBe(true);
    // The batch script carried the servers' env: removed once sbatch read it.
    expect(existsSync(join(out, 'servers', 'loadgen-het.sh'))).toBe(false);
    expect(existsSync(join(out, 'servers', 'loadgen-het.batch.log'))).toBe(true);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    const jobs = res.servers.slurmJobs;
    expect(jobs.map((j: any) => [j.spec, j.jobId.replace(/^\d+/, 'ID'), j.cancelled])).toEqual([
      ['a', 'ID+0', true],
      ['b', 'ID+1', true],
    ]);
    expect(new Set(jobs.map((j: any) => j.nodes[0]))).toEqual(new Set(['lgnode1', 'lgnode2']));
    expect(res.servers.servers.map((s: any) => [s.name, s.jobId, s.exit.how])).toEqual([
      ['a', jobs[0].jobId, 'stopped'],
      ['b', jobs[1].jobId, 'stopped'],
    ]);
    expect(res.errors.failedSamples).toBe(0);
    for (const e of res.endpoints) expect(e.completed).toBeGreaterThan(0);
    expect(await activeJobs()).toEqual([]);
    expect(existsSync(join(dir, 'PWNED')) || existsSync(join(odd, 'PWNED'))).toBe(false);
  }, 150_000);

  test('an engine crashing mid-run in its het step: reported with its exit code and log tail, traffic moved, the job cancelled', async () => {
    const entry = async (name: string, sim: Record<string, unknown> = {}): Promise<object> => ({
      name,
      backend: 'simulator',
      model: 'sim-m',
      port: await freePort(),
      launcher: 'slurm',
      slurm: { mode: 'sbatch-het', workdir: dir, 'queue-timeout-s': 30 },
      'startup-timeout-s': 30,
      'stop-grace-s': 3,
      simulator: { 'decode-step-ms': 4, ...sim },
    });
    const out = join(dir, 'crash');
    const file = join(dir, 'crash.json');
    writeFileSync(
      file,
      JSON.stringify({
        scenario: 'Server',
        'target-qps': 20,
        synthetic: '64/16',
        settings: { min_duration: 4000 },
        servers: [await entry('steady'), await entry('fragile', { 'crash-after-requests': 12 })],
      }),
    );
    const r = await runCli(['run', '--config', file, '--output-dir', out]);
    started.push(...serverPids(r.stderr));
    expect([0, 1, 6], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(/warning: server fragile \(http:\/\/127\.0\.0\.1:\d+\) exited with code 1 during the run/);
    expect(r.stderr).toMatch(/last lines of .*fragile\.log:[\s\S]*simulated engine crash/);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(res.servers.events.find((e: any) => e.kind === 'crashed')).toMatchObject({ server: 'fragile', exitCode: 1 });
    expect(res.servers.slurmJobs.map((j: any) => j.cancelled)).toEqual([true, true]);
    const steady = res.endpoints.find((e: any) => e.url === res.servers.servers[0].url);
    expect(steady.completed).toBeGreaterThan(0);
    const engine = Number(
      /Started server process \[(\d+)\]/.exec(readFileSync(join(out, 'servers', 'steady.log'), 'utf8'))?.[1] ?? 0,
    );
    started.push(engine);
    expect(engine).toBeGreaterThan(0);
    expect(await allGone([...serverPids(r.stderr), engine])).toBe(true);
    expect(await activeJobs()).toEqual([]);
  }, 150_000);

  test('Ctrl-C while the engines load: exit 130, the job cancelled, no engine left', async () => {
    const out = join(dir, 'int');
    const file = join(dir, 'int.json');
    const entry = async (name: string): Promise<object> => ({
      name,
      backend: 'simulator',
      model: 'sim-m',
      port: await freePort(),
      launcher: 'slurm',
      slurm: { mode: 'sbatch-het', workdir: dir, 'queue-timeout-s': 30 },
      'startup-timeout-s': 600,
      simulator: { 'load-time-ms': 600000 },
    });
    writeFileSync(
      file,
      JSON.stringify({
        scenario: 'Server',
        'target-qps': 10,
        synthetic: '64/16',
        servers: [await entry('p'), await entry('q')],
      }),
    );
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/server q: pid \d+/);
    started.push(...serverPids(s.stderr()));
    let engines: number[] = [];
    for (let i = 0; i < 200; i++) {
      engines = ['p', 'q'].map((n) => {
        const f = join(out, 'servers', `${n}.log`);
        return existsSync(f) ? Number(/Started server process \[(\d+)\]/.exec(readFileSync(f, 'utf8'))?.[1] ?? 0) : 0;
      });
      if (engines.every((p) => p > 0)) break;
      await sleep(100);
    }
    started.push(...engines);
    expect(engines.every((p) => p > 0)).toBe(true);
    s.child.kill('SIGINT');
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(await allGone([...serverPids(r.stderr), ...engines])).toBe(true);
    expect(await activeJobs()).toEqual([]);
  }, 90_000);

  test('a job still pending at the deadline: exit 3 naming the job and its reason, which is cancelled', async () => {
    // Every CPU of both nodes held by another job: the heterogeneous job waits in the queue.
    const hog = execFileSync(
      'sbatch',
      ['--parsable', '--nodes=2', '--exclusive', '--output=/dev/null', `--chdir=${dir}`, '--wrap=sleep 120'],
      { timeout: 10_000 },
    )
      .toString()
      .trim();
    try {
      for (let i = 0; i < 100; i++) {
        if (execFileSync('squeue', ['-h', '-j', hog, '-o', '%T']).toString().trim() === 'RUNNING') break;
        await sleep(100);
      }
      const e = {
        name: 'w',
        backend: 'simulator',
        model: 'sim-m',
        port: await freePort(),
        launcher: 'slurm',
        slurm: { mode: 'sbatch-het', 'queue-timeout-s': 2 },
      };
      const file = join(dir, 'pend.json');
      writeFileSync(file, JSON.stringify({ scenario: 'Server', 'target-qps': 10, synthetic: '64/16', servers: [e] }));
      const r = await runCli(['run', '--config', file, '--output-dir', join(dir, 'pend')]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /slurm heterogeneous job: no allocation within 2 s \(job \d+ still PENDING, reason \w+\)/,
      );
      expect(serverPids(r.stderr)).toEqual([]);
      execFileSync('scancel', [hog]);
      expect(await activeJobs()).toEqual([]);
    } finally {
      execFileSync('scancel', [hog]);
    }
  }, 60_000);

  test('the job cancelled from outside mid-run: its servers are reported as crashed, nothing left', async () => {
    const out = join(dir, 'ext');
    const file = join(dir, 'ext.json');
    const entry = async (name: string): Promise<object> => ({
      name,
      backend: 'simulator',
      model: 'sim-m',
      port: await freePort(),
      launcher: 'slurm',
      slurm: { mode: 'sbatch-het', workdir: dir, 'queue-timeout-s': 30 },
      'startup-timeout-s': 30,
      'stop-grace-s': 3,
      simulator: { 'decode-step-ms': 4 },
    });
    writeFileSync(
      file,
      JSON.stringify({
        scenario: 'Server',
        'target-qps': 10,
        synthetic: '64/16',
        settings: { min_duration: 8000 },
        servers: [await entry('x'), await entry('y')],
      }),
    );
    const s = start(['run', '--config', file, '--output-dir', out]);
    await s.waitStderr(/sut: .*2 healthy/);
    started.push(...serverPids(s.stderr()));
    // Well into the run: the requests are flowing.
    await sleep(1500);
    const job = /slurm job (\d+):/.exec(s.stderr())![1]!;
    execFileSync('scancel', [job], { timeout: 10_000 });
    const r = await s.done;
    // With every server gone the run retries its samples until their time is up, then fails them.
    expect([1, 6], r.stderr).toContain(r.code);
    expect(r.stderr).toMatch(/warning: server [xy] \(http:\/\/127\.0\.0\.1:\d+\) exited with code \d+ during the run/);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(res.servers.events.filter((e: any) => e.kind === 'crashed').length).toBeGreaterThan(0);
    expect(await allGone(serverPids(r.stderr))).toBe(true);
    expect(await activeJobs()).toEqual([]);
  }, 150_000);
});
