// Waiting for servers to load their models: /health polled until it answers
// 200. Connection refused (vLLM opens its port only once the engine is
// built) and 503 (SGLang while starting, vLLM while warming up) both mean
// "not yet". A process that exits meanwhile fails at once; one still not
// healthy at its deadline fails with the deadline. Progress (elapsed time
// and the log's last line, which is where engines report loading) is
// reported every few seconds.
import { formatTail, logTail } from './log-tail.js';
import type { ExitInfo, ServerProcess } from './launcher.js';
import type { PlannedServer } from './types.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

export interface Launched {
  server: PlannedServer;
  proc: ServerProcess;
}

export class FleetStartError extends LoadgenError {
  constructor(
    message: string,
    readonly server: string,
    readonly kind: 'start-failed' | 'unhealthy',
    readonly logTail: string[],
  ) {
    super(ErrorCode.FleetStart, message);
  }
}

export interface HealthWaitOptions {
  /** Told every `progressEveryMs` while some server loads. */
  onProgress?: (line: string) => void;
  progressEveryMs?: number;
  /** Told when each server becomes healthy. */
  onHealthy?: (name: string, seconds: number) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * How a server's process ended, in words. Through ssh, exit 255 is ssh's own
 * failure (the node unreachable, the key refused, the connection lost): the
 * node is named, since the engine may never have started.
 */
export function howEnded(server: PlannedServer, exit: ExitInfo): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (server.launcher === 'ssh' && exit.code === 255)
    return `exited with code 255: ssh to node ${server.node} failed (unreachable, key refused or connection lost; ssh runs with BatchMode=yes, so the key must be accepted without a prompt)`;
  return `exited with code ${exit.code}`;
}

/** One GET of the health route: true on 200. */
export async function healthy(url: string, path: string, timeoutMs = 5000): Promise<boolean> {
  try {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Resolves once every server answers its health route with 200; throws FleetStartError otherwise. */
export async function waitHealthy(
  launched: readonly Launched[],
  o: HealthWaitOptions = {},
): Promise<Map<string, number>> {
  const loadSeconds = new Map<string, number>();
  const every = o.progressEveryMs ?? 10_000;
  let nextProgress = Date.now() + every;
  const pending = new Set(launched);
  let pollMs = 100;
  while (pending.size > 0) {
    await Promise.all(
      [...pending].map(async (l) => {
        const { server, proc } = l;
        if (!proc.running) {
          const tail = logTail(proc.logPath);
          const how = howEnded(server, proc.exit!);
          throw new FleetStartError(
            `server ${server.name} ${how} before becoming healthy\n${formatTail(proc.logPath, tail)}`,
            server.name,
            'start-failed',
            tail,
          );
        }
        if (await healthy(server.url, server.spec.healthPath)) {
          pending.delete(l);
          const s = (Date.now() - proc.startedAt) / 1000;
          loadSeconds.set(server.name, s);
          o.onHealthy?.(server.name, s);
          return;
        }
        const waited = (Date.now() - proc.startedAt) / 1000;
        if (waited > server.spec.startupTimeoutS) {
          const tail = logTail(proc.logPath);
          throw new FleetStartError(
            `server ${server.name} is not healthy after ${server.spec.startupTimeoutS} s (GET ${server.url}${server.spec.healthPath}; raise startup-timeout-s for large models)\n${formatTail(proc.logPath, tail)}`,
            server.name,
            'unhealthy',
            tail,
          );
        }
      }),
    );
    if (pending.size === 0) break;
    if (o.onProgress && Date.now() >= nextProgress) {
      nextProgress = Date.now() + every;
      for (const { server, proc } of pending) {
        const last = logTail(proc.logPath, 1)[0] ?? '';
        o.onProgress(
          `waiting for ${server.name}: ${Math.round((Date.now() - proc.startedAt) / 1000)} s of ${server.spec.startupTimeoutS} s${last ? ` | ${last.slice(0, 100)}` : ''}`,
        );
      }
    }
    await sleep(pollMs);
    // Quick at first (a simulator is up in a second), then once a second.
    pollMs = Math.min(1000, pollMs * 2);
  }
  return loadSeconds;
}
