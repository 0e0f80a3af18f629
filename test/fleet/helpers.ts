// The built CLI (dist/cli.js, from `npm run build:ts`) as a child process,
// for the fleet's end-to-end tests. tsup empties dist/ while it builds, so
// a spawn that finds no CLI, or dies at once for that reason, is retried.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { pidAlive } from '../../lib/fleet/launcher.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const CLI = join(REPO, 'dist', 'cli.js');

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  done: Promise<Run>;
  /** Resolves when stderr has matched (rejects if the process ends first). */
  waitStderr(re: RegExp): Promise<void>;
  stderr(): string;
  stdout(): string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitForCli(): Promise<void> {
  for (let i = 0; i < 120 && !existsSync(CLI); i++) await sleep(500);
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build:ts`);
}

export function start(args: string[], cwd: string = tmpdir()): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOADGEN_DEBUG: '' },
  });
  let out = '';
  let err = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of waiters.splice(0)) w.re.test(err) ? w.resolve() : waiters.push(w);
  });
  const done = new Promise<Run>((res) =>
    child.on('close', (code, signal) => res({ code, signal, stdout: out, stderr: err })),
  );
  return {
    child,
    done,
    stderr: () => err,
    stdout: () => out,
    waitStderr: (re) =>
      new Promise<void>((res, rej) => {
        if (re.test(err)) return res();
        waiters.push({ re, resolve: res });
        void done.then(() => rej(new Error(`exited before stderr matched ${re}:\n${err}`)));
      }),
  };
}

/** Runs the CLI to the end (SIGKILL after `timeoutMs`), retrying once if dist/ was being rebuilt. */
export async function runCli(args: string[], cwd?: string, timeoutMs = 90_000): Promise<Run> {
  for (let attempt = 0; ; attempt++) {
    await waitForCli();
    const r = start(args, cwd);
    const timer = setTimeout(() => r.child.kill('SIGKILL'), timeoutMs);
    const res = await r.done.finally(() => clearTimeout(timer));
    if (attempt === 0 && /Cannot find module|ERR_MODULE_NOT_FOUND/.test(res.stderr)) continue;
    return res;
  }
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'lg-fleet-'));
}

export function writeConfig(dir: string, text: string, name = 'fleet.yaml'): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** The pids printed as `server NAME: pid N` on stderr. */
export function serverPids(stderr: string): number[] {
  return [...stderr.matchAll(/server \S+: pid (\d+)/g)].map((m) => Number(m[1]));
}

/** Waits (bounded) until none of the pids runs. */
export async function allGone(pids: readonly number[], ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pids.every((p) => !pidAlive(p))) return true;
    await sleep(100);
  }
  return pids.every((p) => !pidAlive(p));
}

/** Last resort so a failing test leaves nothing behind. */
export function killGroups(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(-p, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
