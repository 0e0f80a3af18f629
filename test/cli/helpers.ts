// The CLI as a child process: lib/cli/main.ts bundled (with the adapter
// worker beside it) into a private folder inside the package, so the addon
// is found, exit codes and signals are real, and dist/ (which other builds
// may be replacing at the same time) is not needed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');

/** esbuild options for a Node ESM bundle of lib/ code. */
export const ESBUILD_NODE = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: 'node20',
  logLevel: 'silent' as const,
  // commander and undici are CommonJS: give the ESM bundle a real require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

/**
 * Builds the CLI bundle; returns its path and a cleanup function. `outside`
 * puts it where the package (and its native addon) cannot be found.
 */
export async function buildCli(outside = false): Promise<{ cli: string; cleanup: () => void }> {
  const cacheDir = outside ? tmpdir() : join(REPO, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(join(cacheDir, 'loadgen-cli-test-'));
  const { build } = await import('esbuild');
  const common = ESBUILD_NODE;
  await build({ ...common, entryPoints: [join(REPO, 'lib/cli/main.ts')], outfile: join(dir, 'cli.js') });
  // createLlmSut looks for sut-worker.js beside the bundle that runs it.
  await build({ ...common, entryPoints: [join(REPO, 'lib/sut/worker-main.ts')], outfile: join(dir, 'sut-worker.js') });
  return { cli: join(dir, 'cli.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  /** Resolves when stderr has printed something matching. */
  waitStderr(re: RegExp): Promise<void>;
  done: Promise<CliRun>;
}

export function spawnCli(cli: string, args: string[], cwd: string = tmpdir()): Spawned {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOADGEN_DEBUG: '' },
  });
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.splice(0)) {
      if (w.re.test(stderr)) w.resolve();
      else waiters.push(w);
    }
  });
  const done = new Promise<CliRun>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
  return {
    child,
    done,
    waitStderr: (re) =>
      new Promise<void>((res, rej) => {
        if (re.test(stderr)) return res();
        waiters.push({ re, resolve: res });
        void done.then(() => rej(new Error(`exited before stderr matched ${re}: ${stderr}`)));
      }),
  };
}

/** Runs the CLI to the end (killed after `timeoutMs`). */
export async function runCli(cli: string, args: string[], cwd?: string, timeoutMs = 60_000): Promise<CliRun> {
  const s = spawnCli(cli, args, cwd);
  const timer = setTimeout(() => s.child.kill('SIGKILL'), timeoutMs);
  try {
    return await s.done;
  } finally {
    clearTimeout(timer);
  }
}

/** A fresh temp folder (removed by the returned function). */
export function tempDir(prefix = 'lg-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeText(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** A stack trace line, as Node prints them. */
export const STACK_LINE = /\n\s+at /;
