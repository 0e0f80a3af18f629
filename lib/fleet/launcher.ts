// Starting and stopping one server process. Each runs in its own process
// group (engines fork workers: vLLM's EngineCore, SGLang's schedulers), so
// a stop reaches all of them: SIGTERM to the group, SIGKILL after a grace
// period. Its stdout and stderr go straight into <outdir>/servers/<name>.log.
// Whatever happens to this process (an error, process.exit, Ctrl-C twice),
// the 'exit' hook still ends every group it started: no engine is left
// holding a GPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ErrorCode, LoadgenError } from '../core/errors.js';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const live = new Set<ServerProcess>();
const cleanups = new Set<() => void>();
let hooked = false;

/** Runs `fn` at process exit, after the servers are ended (a Slurm job to cancel); the returned function unregisters it. */
export function registerExitCleanup(fn: () => void): () => void {
  hookExit();
  cleanups.add(fn);
  return () => {
    cleanups.delete(fn);
  };
}

function runCleanups(): void {
  for (const fn of [...cleanups]) {
    cleanups.delete(fn);
    try {
      fn();
    } catch {
      // At exit there is nobody to tell.
    }
  }
}

/** Whether a pid still runs (a zombie counts as gone: it holds nothing). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (not Linux): trust kill(0).
    return true;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Sleeps without an event loop (the 'exit' hook cannot wait on timers). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Synchronous last resort at process exit: SIGTERM every live group, wait up to their grace, then SIGKILL. */
export function killAllNow(): void {
  killLiveNow();
  runCleanups();
}

function killLiveNow(): void {
  const procs = [...live].filter((p) => p.pid !== null);
  if (procs.length === 0) return;
  for (const p of procs) killGroup(p.pid!, 'SIGTERM');
  // At exit nobody waits for long: at most 5 s, whatever the grace says.
  const deadline = Date.now() + Math.min(5000, Math.max(...procs.map((p) => p.graceMs)));
  while (Date.now() < deadline && procs.some((p) => pidAlive(p.pid!))) sleepSync(50);
  for (const p of procs) killGroup(p.pid!, 'SIGKILL');
  live.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllNow);
  // With no other listener, these signals would end Node without 'exit' (and leave the engines
  // running): exit properly instead. Commands that handle them (loadgen run's Ctrl-C, the test's
  // own SIGINT handler, loadgen serve) keep their behaviour.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(code);
    });
  }
}

export class SpawnError extends LoadgenError {
  constructor(message: string) {
    super(ErrorCode.Spawn, message);
  }
}

/** One launched server process. */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number | null;
  readonly startedAt = Date.now();
  /** Resolves when the process has exited (its group may linger until stop()). */
  readonly exited: Promise<ExitInfo>;
  exit: ExitInfo | null = null;
  /** Set when stop() sent the signals: an exit after that is not a crash. */
  stopping = false;
  killed = false;
  private stopped: Promise<ExitInfo> | null = null;

  private constructor(
    readonly name: string,
    readonly logPath: string,
    readonly graceMs: number,
    child: ChildProcess,
  ) {
    this.child = child;
    this.pid = child.pid ?? null;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    live.add(this);
    void this.exited.then(() => {
      // The group may still hold children; stop() or the exit hook ends them.
      if (this.stopping) live.delete(this);
    });
  }

  /** Spawns argv with env added, output to logPath; throws SpawnError when the program cannot be run. */
  static async start(
    name: string,
    argv: readonly string[],
    env: Record<string, string>,
    logPath: string,
    graceMs: number,
  ): Promise<ServerProcess> {
    hookExit();
    mkdirSync(dirname(logPath), { recursive: true });
    const fd = openSync(logPath, 'a');
    writeSync(fd, `# loadgen: starting ${name} at ${new Date().toISOString()}\n`);
    let child: ChildProcess;
    try {
      child = spawn(argv[0], argv.slice(1), {
        env: { ...process.env, ...env },
        stdio: ['ignore', fd, fd],
        // Its own process group (and session): signals reach its workers, and a terminal's Ctrl-C does not.
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    // spawn reports a missing program asynchronously: wait for 'spawn' or 'error'.
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err: NodeJS.ErrnoException) => {
        reject(new SpawnError(err.code === 'ENOENT' ? `${argv[0]}: command not found` : `${argv[0]}: ${err.message}`));
      });
    });
    return new ServerProcess(name, logPath, graceMs, child);
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** SIGTERM to the group, SIGKILL after the grace period; resolves with how the process ended. */
  stop(): Promise<ExitInfo> {
    this.stopped ??= (async () => {
      this.stopping = true;
      if (this.pid === null) return this.exit ?? { code: null, signal: null };
      killGroup(this.pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), this.graceMs)));
      const first = await Promise.race([this.exited, graceOver]);
      clearTimeout(timer);
      if (first === 'timeout') this.killed = true;
      // The group's other processes get the same end as the leader.
      killGroup(this.pid, 'SIGKILL');
      const info = await this.exited;
      live.delete(this);
      return info;
    })();
    return this.stopped;
  }
}
