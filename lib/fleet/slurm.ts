// Servers as Slurm job steps. One allocation per `servers:` entry
// (`salloc --no-shell`: nodes held, no shell or batch step), then one
// `srun --jobid` step per server, pinned to its node. srun runs here: it
// streams the step's output into the server's log and forwards our SIGTERM
// to the engine; a crashed engine ends its srun with the engine's code.
// Whatever way the run ends, the allocation is cancelled (scancel), from the
// 'exit' hook too. Every command is an argv (no shell); option values are
// single `--name=value` words.
import { execFile, spawn, spawnSync } from 'node:child_process';

import { EndpointFailure } from '../core/errors.js';
import { registerExitCleanup } from './launcher.js';
import type { SlurmOptions } from './types.js';

/** A granted allocation: its job id, its nodes in order, the address of each (NodeAddr). */
export interface SlurmAllocation {
  jobId: string;
  nodes: string[];
  addresses: string[];
  partition: string | null;
}

/** The salloc argv that holds the nodes for one entry's servers. */
export function sallocArgv(jobName: string, o: SlurmOptions): string[] {
  return ['salloc', '--no-shell', `--job-name=${jobName}`, ...allocationOptions(o)];
}

/** What one entry's servers ask of Slurm: salloc's options here, a heterogeneous component's in sbatch-het mode. */
export function allocationOptions(o: SlurmOptions): string[] {
  const out = [`--nodes=${o.nodes}`, `--ntasks-per-node=${o.serversPerNode}`];
  if (o.partition) out.push(`--partition=${o.partition}`);
  if (o.account) out.push(`--account=${o.account}`);
  if (o.timeLimit) out.push(`--time=${o.timeLimit}`);
  if (o.gpusPerServer) out.push(`--gres=gpu:${o.gpusPerServer * o.serversPerNode}`);
  return [...out, ...o.allocOptions];
}

/** The srun argv that runs `argv` as one step of `jobId` on `node` (its environment comes from srun's). */
export function srunArgv(
  jobId: string,
  node: string,
  name: string,
  argv: readonly string[],
  o: SlurmOptions,
): string[] {
  const out = [
    'srun',
    `--jobid=${jobId}`,
    `--job-name=${name}`,
    '--nodes=1',
    '--ntasks=1',
    `--nodelist=${node}`,
    // Several servers' steps on one node share it: each takes its task, not the node.
    '--overlap',
    '--kill-on-bad-exit=1',
  ];
  return [...out, ...stepOptions(o), '--', ...argv];
}

/** What an entry asks of each server's job step (salloc and sbatch-het alike): GPUs, directory, container, srun-options. */
export function stepOptions(o: SlurmOptions): string[] {
  const out: string[] = [];
  if (o.gpusPerServer) out.push(`--gres=gpu:${o.gpusPerServer}`);
  if (o.workdir) out.push(`--chdir=${o.workdir}`);
  if (o.containerImage) out.push(`--container-image=${o.containerImage}`);
  if (o.containerMounts) out.push(`--container-mounts=${o.containerMounts}`);
  if (o.containerWorkdir) out.push(`--container-workdir=${o.containerWorkdir}`);
  return [...out, ...o.srunOptions];
}

/** The job id in salloc's own lines ("Pending job allocation 12", "Granted job allocation 12"). */
export function jobIdFrom(text: string): string | null {
  return /job allocation (\d+)/.exec(text)?.[1] ?? null;
}

/** Runs a Slurm client command (an argv), resolving with its stdout. */
export function run(cmd: string, args: string[], timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** Cancels a job now (synchronously: it also runs in the 'exit' hook); false when scancel failed. */
export function scancelNow(jobId: string): boolean {
  const r = spawnSync('scancel', [jobId], { timeout: 10_000, stdio: 'ignore' });
  return r.status === 0;
}

/** The allocation's nodes, expanded (gpu[1-2] -> gpu1, gpu2), and their addresses. */
async function discover(jobId: string): Promise<{ nodes: string[]; addresses: string[]; partition: string | null }> {
  const [list, partition] = (await run('squeue', ['-h', '-j', jobId, '-o', '%N %P'])).trim().split(/\s+/);
  if (!list) throw new Error(`squeue shows no nodes for job ${jobId}`);
  return { ...(await expandNodes(list)), partition: partition ?? null };
}

/** A compressed node list expanded (gpu[1-2] -> gpu1, gpu2), with each node's address (NodeAddr). */
export async function expandNodes(list: string): Promise<{ nodes: string[]; addresses: string[] }> {
  const nodes = (await run('scontrol', ['show', 'hostnames', list])).split('\n').filter((l) => l.trim() !== '');
  const addresses = await Promise.all(
    nodes.map(async (n) => /\bNodeAddr=(\S+)/.exec(await run('scontrol', ['-o', 'show', 'node', n]))?.[1] ?? n),
  );
  return { nodes, addresses };
}

/**
 * Holds the nodes for one entry: salloc until granted (at most `timeoutS`),
 * then the nodes are read from the job. The job is cancelled if anything
 * fails, and at process exit unless `release` ran first.
 */
export async function allocate(
  jobName: string,
  o: SlurmOptions,
  timeoutS: number,
  log: (m: string) => void,
): Promise<{ allocation: SlurmAllocation; release: () => boolean }> {
  const argv = sallocArgv(jobName, o);
  log(`slurm ${jobName}: ${argv.join(' ')}`);
  let jobId: string | null = null;
  let cancelled = false;
  const cancel = (): boolean => {
    if (cancelled || jobId === null) return cancelled;
    cancelled = scancelNow(jobId);
    return cancelled;
  };
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const unregister = registerExitCleanup(() => {
    child.kill('SIGKILL');
    cancel();
  });
  let err = '';
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGTERM');
        reject(
          new EndpointFailure(
            `slurm ${jobName}: no allocation within ${timeoutS} s${jobId ? ` (job ${jobId} still pending)` : ''}: ${err.trim().split('\n').pop() ?? ''}`,
          ),
        );
      }, timeoutS * 1000);
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        jobId ??= jobIdFrom(err);
      });
      child.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new EndpointFailure(
            `slurm ${jobName}: ${e.code === 'ENOENT' ? 'salloc: command not found (is this a Slurm login node?)' : e.message}`,
          ),
        );
      });
      child.once('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    jobId ??= jobIdFrom(err);
    if (code !== 0 || jobId === null)
      throw new EndpointFailure(`slurm ${jobName}: salloc failed (exit ${code}): ${err.trim() || 'no output'}`);
    const found = await discover(jobId);
    log(`slurm ${jobName}: job ${jobId} on ${found.nodes.join(', ')}`);
    return {
      allocation: { jobId, ...found },
      release: () => {
        unregister();
        return cancel();
      },
    };
  } catch (e) {
    unregister();
    cancel();
    throw e instanceof EndpointFailure ? e : new EndpointFailure(`slurm ${jobName}: ${(e as Error).message}`);
  }
}
