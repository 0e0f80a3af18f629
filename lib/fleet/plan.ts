// From `servers:` entries to the servers to start: each entry's GPUs split
// into tensor-parallel groups (one server per group, consecutive ports),
// repeated on every ssh node, each with its command line rendered.
import { createServer, type Server } from 'node:net';

import { UsageError } from '../core/errors.js';
import { MASK, redactText } from '../core/redact.js';
import { perGpu, tensorParallelGroups } from './gpus.js';
import { renderCommand, renderEnv } from './render.js';
import type { SlurmAllocation } from './slurm.js';
import { srunArgv } from './slurm.js';
import { hetSrunArgv } from './slurm-het.js';
import { commandLine, sshArgv, sshHostAddress } from './ssh.js';
import type { PlannedServer, ServerSpec } from './types.js';

// Stands for a hidden value while the line is quoted (shell-safe characters), then becomes ***.
const HIDDEN = '@@loadgen-hidden@@';

/** Ports the OS says are free now (all held open together, so they differ). */
async function freePorts(n: number, host: string): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, host, () => resolve());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

/** The GPU groups of a spec: TP-sized groups of its GPUs, or one group without GPUs. */
export function gpuGroups(spec: ServerSpec): (number[] | null)[] {
  // Slurm gives each step its GPUs itself (CUDA_VISIBLE_DEVICES set by slurmd).
  if (spec.slurm) return Array.from({ length: spec.slurm.serversPerNode }, () => null);
  if (!spec.gpus) return [null];
  const tp = spec.engineArgs.tensorParallelSize ?? 1;
  return tp === 1 ? perGpu(spec.gpus) : tensorParallelGroups(spec.gpus, tp);
}

/** Stands for a Slurm allocation not made (a dry run): nodes <node-1>..., job <jobid>. */
function placeholderAllocation(spec: ServerSpec): SlurmAllocation {
  const nodes = Array.from({ length: spec.slurm!.nodes }, (_, i) => `node${i + 1}`);
  return { jobId: 'JOBID', nodes, addresses: nodes, partition: spec.slurm!.partition ?? null };
}

/**
 * Every server the specs stand for, with names `name[-node][-i]`, ports, URLs
 * and command lines. Slurm entries are placed on the nodes of their
 * allocation (by spec name); without one (a dry run), on placeholder nodes.
 */
export async function planServers(
  specs: readonly ServerSpec[],
  allocations: ReadonlyMap<string, SlurmAllocation> = new Map(),
): Promise<PlannedServer[]> {
  const out: PlannedServer[] = [];
  // mode: sbatch-het entries are the components of one job, in order.
  let hetGroup = -1;
  for (const spec of specs) {
    const het = spec.slurm?.mode === 'sbatch-het';
    if (het) hetGroup++;
    const groups = gpuGroups(spec);
    const alloc = spec.slurm ? (allocations.get(spec.name) ?? placeholderAllocation(spec)) : null;
    const nodes: (string | null)[] = alloc ? alloc.nodes : (spec.nodes ?? [null]);
    const ports =
      spec.port === 'auto'
        ? await freePorts(groups.length, spec.host === '0.0.0.0' ? '127.0.0.1' : spec.host)
        : groups.map((_, i) => (spec.port as number) + i);
    if (ports.some((p) => p > 65535))
      throw new UsageError(
        `servers '${spec.name}': ports from ${spec.port} for ${groups.length} servers go past 65535`,
      );
    for (const [k, node] of nodes.entries()) {
      const address = alloc ? alloc.addresses[k]! : node ? await sshHostAddress(node, spec.ssh) : null;
      groups.forEach((gpus, i) => {
        const name = [spec.name, ...(nodes.length > 1 ? [node] : []), ...(groups.length > 1 ? [String(i)] : [])].join(
          '-',
        );
        const port = ports[i];
        const target = { host: spec.host, port, gpus, name };
        const argv = renderCommand(spec, target);
        const env = renderEnv(spec, gpus, target);
        // A server listening on every interface is reached through its node's name (or locally).
        const urlHost = address ?? (spec.host === '0.0.0.0' || spec.host === '::' ? '127.0.0.1' : spec.host);
        const launcher = alloc ? 'slurm' : node ? 'ssh' : 'local';
        const spawnArgv =
          launcher === 'slurm'
            ? het
              ? hetSrunArgv(hetGroup, { name, argv, env, logPath: '', relative: k }, spec.slurm!)
              : srunArgv(alloc!.jobId, node!, name, argv, spec.slurm!)
            : node
              ? sshArgv(node, argv, env, spec.ssh)
              : argv;
        // Shown and recorded: the spec's env by name (NAME=***), everything through the redaction rule.
        const shownEnv = { ...env, ...Object.fromEntries(Object.keys(spec.env).map((k) => [k, HIDDEN])) };
        const shown = (line: string): string => redactText(line.split(HIDDEN).join(MASK));
        out.push({
          name,
          spec,
          gpus,
          node,
          launcher,
          ...(alloc ? { jobId: alloc.jobId } : {}),
          port,
          url: `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`,
          argv,
          env,
          spawnArgv,
          // Remote: the environment is inside the ssh line; local: shown before the command.
          // ssh: the environment is inside the remote line; here and Slurm (srun exports it): before the command.
          commandLine: shown(
            launcher === 'ssh'
              ? commandLine(sshArgv(node!, argv, shownEnv, spec.ssh))
              : commandLine(spawnArgv, shownEnv),
          ),
        });
      });
    }
  }
  return out;
}
