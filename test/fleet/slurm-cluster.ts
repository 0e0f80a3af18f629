// A one-node Slurm cluster on this machine for the Slurm launcher's tests:
// munged with a fresh key, slurmctld and slurmd in the foreground, all state,
// sockets, logs and slurm.conf in a temp dir, on free ports. No cgroups in a
// container: proctrack/linuxproc and task/none. The node is named lgnode1 at
// NodeAddr 127.0.0.1, so the launcher must read the address from Slurm. Clients
// find it through SLURM_CONF (set in the environment by the caller). Needs
// root and Debian's slurm-wlm and munge; otherwise `startSlurm` says why.
// With `nodes: 2`, two slurmd on this host (lgnode1, lgnode2, one port each):
// a heterogeneous job needs it, since the backfill scheduler (the only one
// that starts hetjobs) reserves whole nodes for a planned component, so a
// second component never fits on the node the first one holds.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../ports.js';

export const NODE = 'lgnode1';

export interface SlurmClusterOptions {
  /** How many nodes (slurmd daemons on this host); default 1. */
  nodes?: number;
}

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

/** Why a Slurm cluster cannot be run here, or null when it can be tried. */
export function slurmUnavailable(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root (slurmd must run as root)';
  for (const c of ['munged', 'slurmctld', 'slurmd', 'salloc', 'srun', 'scancel', 'squeue', 'scontrol', 'sinfo'])
    if (!which(c)) return `${c} is missing (apt-get install slurm-wlm munge)`;
  return null;
}

/** Starts the cluster and waits (at most 30 s) for the node to be idle; throws with the daemons' logs if not. */
export async function startSlurm(o: SlurmClusterOptions = {}): Promise<SlurmCluster> {
  const count = o.nodes ?? 1;
  const nodes = Array.from({ length: count }, (_, i) => `lgnode${i + 1}`);
  const dir = mkdtempSync(join(tmpdir(), 'lg-slurm-'));
  mkdirSync(join(dir, 'state'));
  for (const n of nodes) mkdirSync(join(dir, `spool-${n}`));
  const key = join(dir, 'munge.key');
  writeFileSync(key, Buffer.from(Array.from({ length: 1024 }, () => Math.floor(Math.random() * 256))), {
    mode: 0o600,
  });
  const sock = join(dir, 'munge.sock');
  const [ctldPort, ...dPorts] = await freePorts(1 + nodes.length);
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
      `SlurmdPort=${dPorts[0]}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${sock}`,
      `StateSaveLocation=${join(dir, 'state')}`,
      // %n: each slurmd on this host its own spool, pid file and log.
      `SlurmdSpoolDir=${join(dir, 'spool-%n')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd-%n.pid')}`,
      `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'slurmd-%n.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      // Heterogeneous jobs start only from a backfill cycle: every second, not every 30 s.
      'SchedulerParameters=bf_interval=1',
      'MpiDefault=none',
      'ReturnToService=2',
      'JobCompType=jobcomp/none',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      'KillWait=5',
      ...nodes.map(
        (n, i) => `NodeName=${n} NodeAddr=127.0.0.1 Port=${dPorts[i]} CPUs=${availableParallelism()} State=UNKNOWN`,
      ),
      `PartitionName=lgpart Nodes=${nodes.join(',')} Default=YES MaxTime=INFINITE State=UP`,
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
    ['munged.log', 'slurmctld.log', ...nodes.map((n) => `slurmd-${n}.log`)]
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
    // Jobs a test left behind first, while the controller can still cancel them.
    if (daemons.every(running)) {
      try {
        execFileSync('scancel', ['--user=root'], {
          env: { ...process.env, ...env },
          timeout: 10_000,
          stdio: 'ignore',
        });
      } catch {
        // Nothing to cancel.
      }
    }
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
  for (const n of nodes) launch(['slurmd', '-D', '-N', n, '-f', conf], `slurmd-${n}`);
  for (let i = 0; i < 60; i++) {
    try {
      const states = execFileSync('sinfo', ['-h', '-N', '-o', '%T'], {
        env: { ...process.env, ...env },
        timeout: 5000,
      })
        .toString()
        .split('\n')
        .filter((l) => l.trim() !== '');
      if (states.length === count && states.every((s) => s.trim() === 'idle')) return { dir, conf, env, logs, stop };
    } catch {
      // The controller is not up yet.
    }
    await sleep(500);
  }
  const why = logs();
  await stop();
  throw new Error(`the one-node Slurm cluster did not come up:\n${why}`);
}
