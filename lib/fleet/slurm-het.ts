// Servers in ONE heterogeneous Slurm batch job: one component per `servers:`
// entry, submitted with `sbatch OPTS0 : OPTS1 : ... SCRIPT` (the component
// options are sbatch's argv, never script text), and a generated batch script
// that starts every server as `srun --het-group=K --relative=N` step in the
// background, then waits. The script is the only shell text: every word in
// it (engine argv, environment, workdir, log path) is single-quoted, so no
// config value is run as shell code. This module renders and parses only;
// it runs nothing.
import { allocationOptions, stepOptions } from './slurm.js';
import { shellQuote } from './ssh.js';
import type { SlurmOptions } from './types.js';

/** One server of a component: started on the component's node `relative` (0-based). */
export interface HetServer {
  name: string;
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Where its output goes, a path the first node of the job can write (a shared filesystem). */
  logPath: string;
  /** Where the script writes the step's exit code when it ends (the harness watches it). */
  exitPath?: string;
  relative: number;
}

export interface HetComponent {
  options: SlurmOptions;
  servers: readonly HetServer[];
}

/** The sbatch argv: job-wide options, then each component's options separated by ':', then the script. */
export function sbatchArgv(
  jobName: string,
  components: readonly HetComponent[],
  scriptPath: string,
  batchLog: string,
): string[] {
  const out = ['sbatch', '--parsable', `--job-name=${jobName}`, `--output=${batchLog}`];
  components.forEach((c, k) => {
    if (k > 0) out.push(':');
    out.push(...allocationOptions(c.options));
  });
  return [...out, scriptPath];
}

/** The srun argv of one server inside the batch script (its component, its node within it). */
export function hetSrunArgv(k: number, s: HetServer, o: SlurmOptions): string[] {
  const out = [
    'srun',
    `--het-group=${k}`,
    `--job-name=${s.name}`,
    '--nodes=1',
    '--ntasks=1',
    `--relative=${s.relative}`,
    // Several servers of a component on one node share it: each takes its task, not the node.
    '--overlap',
    '--kill-on-bad-exit=1',
  ];
  return [...out, ...stepOptions(o), '--', ...s.argv];
}

/**
 * The batch script. The environment goes through `env 'K=V'` (a word, not an
 * assignment the shell parses), so odd keys or values stay data. `wait` keeps
 * the batch step alive while any server runs; the harness ends the job with
 * scancel.
 */
export function hetBatchScript(components: readonly HetComponent[]): string {
  const lines = ['#!/bin/sh', '# Written by loadgen: one srun step per server, in the background.'];
  components.forEach((c, k) => {
    for (const s of c.servers) {
      const env = Object.entries(s.env).map(([key, v]) => `${key}=${v}`);
      const argv = [...(env.length > 0 ? ['env', ...env] : []), ...hetSrunArgv(k, s, c.options)];
      const run = `${argv.map(shellQuote).join(' ')} >>${shellQuote(s.logPath)} 2>&1 </dev/null`;
      lines.push(s.exitPath ? `{ ${run}; echo $? >${shellQuote(s.exitPath)}; } &` : `${run} &`);
    }
  });
  lines.push('wait', '');
  return lines.join('\n');
}

/** The job id `sbatch --parsable` prints ("12" or "12;cluster"). */
export function parsableJobId(stdout: string): string | null {
  return /^(\d+)(?:;\S*)?\s*$/.exec(stdout.trim())?.[1] ?? null;
}

export interface HetComponentState {
  offset: number;
  state: string;
  nodeList: string;
  reason?: string;
  partition?: string;
}

/** Per component offset, its state and compressed node list, from `scontrol -o show job ID` (one line per component). */
export function hetComponents(text: string): HetComponentState[] {
  const out: HetComponentState[] = [];
  for (const line of text.split('\n')) {
    if (!/^\s*JobId=/.test(line)) continue;
    // One component is a plain job (sbatch without ':'): no HetJobOffset, offset 0.
    const offset = /\bHetJobOffset=(\d+)/.exec(line)?.[1] ?? '0';
    out.push({
      offset: Number(offset),
      state: /\bJobState=(\S+)/.exec(line)?.[1] ?? '',
      nodeList: /\bNodeList=(\S+)/.exec(line)?.[1] ?? '',
      reason: /\bReason=(\S+)/.exec(line)?.[1] ?? '',
      partition: /\bPartition=(\S+)/.exec(line)?.[1] ?? '',
    });
  }
  return out.sort((a, b) => a.offset - b.offset);
}
