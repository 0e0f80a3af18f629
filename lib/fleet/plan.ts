// From `servers:` entries to the servers to start: each entry's GPUs split
// into tensor-parallel groups (one server per group, consecutive ports),
// repeated on every ssh node, each with its command line rendered.
import { createServer, type Server } from 'node:net';

import { UsageError } from '../core/errors.js';
import { MASK, redactText } from '../core/redact.js';
import { perGpu, tensorParallelGroups } from './gpus.js';
import { renderCommand, renderEnv } from './render.js';
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
  if (!spec.gpus) return [null];
  const tp = spec.engineArgs.tensorParallelSize ?? 1;
  return tp === 1 ? perGpu(spec.gpus) : tensorParallelGroups(spec.gpus, tp);
}

/** Every server the specs stand for, with names `name[-node][-i]`, ports, URLs and command lines. */
export async function planServers(specs: readonly ServerSpec[]): Promise<PlannedServer[]> {
  const out: PlannedServer[] = [];
  for (const spec of specs) {
    const groups = gpuGroups(spec);
    const nodes = spec.nodes ?? [null];
    const ports =
      spec.port === 'auto'
        ? await freePorts(groups.length, spec.host === '0.0.0.0' ? '127.0.0.1' : spec.host)
        : groups.map((_, i) => (spec.port as number) + i);
    if (ports.some((p) => p > 65535))
      throw new UsageError(
        `servers '${spec.name}': ports from ${spec.port} for ${groups.length} servers go past 65535`,
      );
    for (const node of nodes) {
      const address = node ? await sshHostAddress(node, spec.ssh) : null;
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
        const spawnArgv = node ? sshArgv(node, argv, env, spec.ssh) : argv;
        // Shown and recorded: the spec's env by name (NAME=***), everything through the redaction rule.
        const shownEnv = { ...env, ...Object.fromEntries(Object.keys(spec.env).map((k) => [k, HIDDEN])) };
        const shown = (line: string): string => redactText(line.split(HIDDEN).join(MASK));
        out.push({
          name,
          spec,
          gpus,
          node,
          port,
          url: `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`,
          argv,
          env,
          spawnArgv,
          // Remote: the environment is inside the ssh line; local: shown before the command.
          commandLine: shown(node ? commandLine(sshArgv(node, argv, shownEnv, spec.ssh)) : commandLine(argv, shownEnv)),
        });
      });
    }
  }
  return out;
}
