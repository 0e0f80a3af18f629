// A one-node Slurm cluster on this machine for the Slurm launcher's tests:
// munged with a fresh key, slurmctld and slurmd in the foreground, all state,
// sockets, logs and slurm.conf in a temp dir, on free ports. No cgroups in a
// container: proctrack/linuxproc and task/none. The node is named lgnode1 at
// NodeAddr 127.0.0.1, so the launcher must read the address from Slurm. Clients
// find it through SLURM_CONF (set in the environment by the caller). Needs
// root and Debian's slurm-wlm and munge; otherwise `startSlurm` says why.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

export const NODE = 'lgnode1';

export interface SlurmCluster {
  dir: string;
  conf: string;
  env: Record<string, string>;
  logs(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function which(cmd: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', 'command -v "$1"', 'sh', cmd], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Why a Slurm cluster cannot be run here, or null when it can be tried. */
export function slurmUnavailable(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root (slurmd must run as root)';
  for (const c of ['munged', 'slurmctld', 'slurmd', 'salloc', 'srun', 'scancel', 'squeue', 'scontrol', 'sinfo'])
    if (!which(c)) return `${c} is missing (apt-get install slurm-wlm munge)`;
  return null;
}

/** Starts the cluster and waits (at most 30 s) for the node to be idle; throws with the daemons' logs if not. */
export async function startSlurm(): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'lg-slurm-'));
  for (const d of ['state', 'spool']) mkdirSync(join(dir, d));
  const key = join(dir, 'munge.key');
  writeFileSync(key, Buffer.from(Array.from({ length: 1024 }, () => Math.floor(Math.random() * 256))), {
    mode: 0o600,
  });
  const sock = join(dir, 'munge.sock');
  const [ctldPort, dPort] = [await freePort(), await freePort()];
  const conf = join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      'ClusterName=lgtest',
      // slurmctld refuses to run on a host whose name is not its SlurmctldHost.
      `SlurmctldHost=${hostname().split('.')[0]}(127.0.0.1)`,
      'SlurmUser=root',
      'SlurmdUser=root',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${dPort}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${sock}`,
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      'MpiDefault=none',
      'ReturnToService=2',
      'JobCompType=jobcomp/none',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      'KillWait=5',
      `NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${availableParallelism()} State=UNKNOWN`,
      `PartitionName=lgpart Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { SLURM_CONF: conf };
  const daemons: ChildProcess[] = [];
  const launch = (argv: string[], name: string): void => {
    const out = join(dir, `${name}.out`);
    const child = spawn(argv[0]!, argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.on('error', (e) => writeFileSync(out, String(e)));
    daemons.push(child);
  };
  const logs = (): string =>
    ['munged.log', 'slurmctld.log', 'slurmd.log']
      .map((f) => join(dir, f))
      .filter((f) => existsSync(f))
      .map((f) => `== ${f}\n${readFileSync(f, 'utf8').split('\n').slice(-15).join('\n')}`)
      .join('\n');
  const running = (d: ChildProcess): boolean => d.exitCode === null && d.signalCode === null;
  // If the test process ends without stop() (a crashed worker), the daemons end with it.
  const atExit = (): void => {
    for (const d of daemons) if (running(d)) d.kill('SIGKILL');
  };
  process.on('exit', atExit);
  const stop = async (): Promise<void> => {
    // slurmd first (it ends the steps it runs), then the controller, then munge.
    for (const d of [...daemons].reverse()) {
      if (!running(d)) continue;
      const gone = new Promise<void>((r) => d.once('exit', () => r()));
      d.kill('SIGTERM');
      await Promise.race([gone, sleep(5000)]);
      if (running(d)) {
        d.kill('SIGKILL');
        await Promise.race([gone, sleep(2000)]);
      }
    }
    process.off('exit', atExit);
    // A daemon's last write can race the removal: retry a few times.
    for (let i = 0; i < 5 && existsSync(dir); i++) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        await sleep(200);
      }
    }
  };
  launch(
    [
      'munged',
      '-F',
      '-f',
      `--key-file=${key}`,
      `--socket=${sock}`,
      `--pid-file=${join(dir, 'munged.pid')}`,
      `--log-file=${join(dir, 'munged.log')}`,
      `--seed-file=${join(dir, 'munged.seed')}`,
    ],
    'munged',
  );
  for (let i = 0; i < 50 && !existsSync(sock); i++) await sleep(100);
  launch(['slurmctld', '-D', '-i', '-f', conf], 'slurmctld');
  launch(['slurmd', '-D', '-N', NODE, '-f', conf], 'slurmd');
  for (let i = 0; i < 60; i++) {
    try {
      const state = execFileSync('sinfo', ['-h', '-o', '%T'], { env: { ...process.env, ...env }, timeout: 5000 })
        .toString()
        .trim();
      if (state === 'idle') return { dir, conf, env, logs, stop };
    } catch {
      // The controller is not up yet.
    }
    await sleep(500);
  }
  const why = logs();
  await stop();
  throw new Error(`the one-node Slurm cluster did not come up:\n${why}`);
}
