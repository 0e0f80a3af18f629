// Running generated programs against their tests, contained: one process
// (and its per-test children) per sample, in a temporary directory removed
// afterwards, with
//   - no network: an empty network namespace (`unshare --net`, as root; as
//     another user through a user namespace) and a PID namespace, so every
//     process the program started dies with the batch;
//   - limits set by `prlimit` before Python starts: address space (memory),
//     CPU seconds, file size, processes; as root the batch runs as an
//     unprivileged uid (`setpriv`), since RLIMIT_NPROC is not enforced for
//     root;
//   - a wall-clock limit after which the whole process group is killed;
//   - stdout/stderr read up to a cap, past which the batch is killed.
// Where the namespaces cannot be made, scoring refuses to run programs
// unless allowUnsandboxed is set; then only the limits apply (set by the
// runner itself through Python's resource module).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

import { AccuracyInputError } from './score-types.js';
import { CHILD_PY, RUNNER_PY } from './code-runner-py.js';
import type { CodeExecutionOptions, CodeJob, CodeOutcome, CodeResult, ProgramJob } from './code-types.js';

export type {
  CodeExecutionOptions,
  CodeJob,
  CodeOutcome,
  CodeResult,
  CodeTest,
  ProgramJob,
  ProgramStep,
} from './code-types.js';

/** The uid/gid batches run as when scoring runs as root ("nobody"). */
const SANDBOX_ID = 65534;

export interface SandboxPlan {
  sandboxed: boolean;
  /** Why the namespaces are not used, when they are not. */
  reason?: string;
  /** The batch's files must be readable/writable by this uid. */
  uid?: number;
}

function defaultPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

function limitsArgv(
  o: Required<Pick<CodeExecutionOptions, 'memoryBytes' | 'fileSizeBytes' | 'maxProcesses'>>,
  cpuSec: number,
) {
  return [
    'prlimit',
    `--as=${o.memoryBytes}`,
    `--cpu=${cpuSec}`,
    `--fsize=${o.fileSizeBytes}`,
    `--nproc=${o.maxProcesses}`,
    '--core=0',
    '--',
  ];
}

type Probe = SandboxPlan & { ns: string[]; drop: string[] };
let probed: Probe | undefined;

/** Finds out once whether an empty network namespace can be made here, and how. */
export function probeSandbox(python = defaultPython()): Probe {
  if (probed) return probed;
  const root = process.getuid?.() === 0;
  const candidates: Array<{ ns: string[]; uid?: number }> = [];
  if (process.platform === 'linux') {
    const common = ['--net', '--pid', '--fork', '--kill-child'];
    if (root) candidates.push({ ns: ['unshare', ...common], uid: SANDBOX_ID });
    candidates.push({ ns: ['unshare', '--user', '--map-root-user', ...common] });
  }
  let reason = process.platform === 'linux' ? '' : `${process.platform} has no network namespaces`;
  for (const c of candidates) {
    const drop = c.uid !== undefined ? ['setpriv', `--reuid=${c.uid}`, `--regid=${c.uid}`, '--clear-groups'] : [];
    const argv = [
      ...c.ns,
      'prlimit',
      '--nproc=64',
      '--',
      ...drop,
      python,
      '-c',
      'import socket; print(len(socket.if_nameindex()))',
    ];
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && r.stdout.trim() === '1') {
      probed = { sandboxed: true, ...(c.uid !== undefined ? { uid: c.uid } : {}), ns: c.ns, drop };
      return probed;
    }
    reason = `'${c.ns.join(' ')}' failed: ${(r.error?.message ?? r.stderr ?? '').trim().split('\n').pop() || `exit status ${r.status}`}`;
  }
  probed = { sandboxed: false, reason: reason || 'no way to make a network namespace', ns: [], drop: [] };
  return probed;
}

/** Forgets the probe (tests). */
export function resetSandboxProbe(): void {
  probed = undefined;
  usable.clear();
}

const usable = new Map<string, boolean>();

/**
 * Whether the sandbox's uid may read (`r`) or run (`x`) a path. A tool or a
 * package below a directory only root may enter (a project under /root, a
 * Node from ~/.nvm) is out of the programs' reach, and a row that needs it
 * would fail for a reason that is not the program's: it must be counted as
 * not run, not as failed. True when batches keep the caller's uid.
 */
export function sandboxCanUse(path: string, how: 'r' | 'x'): boolean {
  const plan = probeSandbox();
  if (!plan.sandboxed || plan.drop.length === 0) return true;
  const key = `${how}\0${path}`;
  let ok = usable.get(key);
  if (ok === undefined) {
    // The probe ran this Python as the sandbox's uid, so it is there to ask (a `test` binary may not be on PATH).
    const ask = `import os, sys; sys.exit(0 if os.access(sys.argv[1], os.${how === 'r' ? 'R_OK' : 'X_OK'}) else 1)`;
    const argv = [...plan.drop, defaultPython(), '-I', '-c', ask, path];
    const r = spawnSync(argv[0]!, argv.slice(1), { timeout: 10_000 });
    ok = r.status === 0;
    usable.set(key, ok);
  }
  return ok;
}

/** The uid batches run as, for messages ('' when they keep the caller's). */
export function sandboxUserName(): string {
  const plan = probeSandbox();
  return plan.uid !== undefined ? `the sandbox user (uid ${plan.uid})` : '';
}

function resolved(o: CodeExecutionOptions) {
  return {
    testTimeoutSec: o.testTimeoutSec ?? 60,
    memoryBytes: o.memoryBytes ?? 1024 * 1024 * 1024,
    fileSizeBytes: o.fileSizeBytes ?? 16 * 1024 * 1024,
    maxProcesses: o.maxProcesses ?? 64,
    outputCapBytes: o.outputCapBytes ?? 4 * 1024 * 1024,
    python: o.python ?? defaultPython(),
  };
}

/** The Python that runs programs (the option, else /usr/bin/python3 when present, else python3 on PATH). */
export function sandboxPython(o: CodeExecutionOptions = {}): string {
  return resolved(o).python;
}

/**
 * Checks that programs can be run as asked: sandboxed, or with
 * allowUnsandboxed. Throws AccuracyInputError naming the reason otherwise.
 */
export function sandboxOrRefuse(o: CodeExecutionOptions): ReturnType<typeof probeSandbox> {
  const p = probeSandbox(resolved(o).python);
  if (!p.sandboxed && !o.allowUnsandboxed) {
    throw new AccuracyInputError(
      `scoring generated code needs an empty network namespace and this platform cannot make one (${p.reason}); pass --allow-unsandboxed (allowUnsandboxed) to run the programs with resource limits only`,
    );
  }
  return p;
}

/** Runs one program against its tests in the sandbox; never throws for anything the program does. */
export async function runCodeJob(job: CodeJob, o: CodeExecutionOptions = {}): Promise<CodeResult> {
  const r = resolved(o);
  const plan = sandboxOrRefuse(o);
  const dir = await mkdtemp(join(tmpdir(), 'lg-code-'));
  try {
    const work = join(dir, 'w');
    await writeFile(join(dir, 'runner.py'), RUNNER_PY);
    await mkdir(work);
    await writeFile(join(work, 'child.py'), CHILD_PY);
    const cpuSec = Math.ceil((r.testTimeoutSec + 1) * Math.max(1, job.tests.length) + 5);
    const limits = plan.sandboxed
      ? undefined
      : {
          RLIMIT_AS: r.memoryBytes,
          RLIMIT_CPU: cpuSec,
          RLIMIT_FSIZE: r.fileSizeBytes,
          RLIMIT_NPROC: r.maxProcesses,
        };
    await writeFile(
      join(work, 'job.json'),
      JSON.stringify({
        code: job.code,
        tests: job.tests,
        mode: job.mode,
        fn: job.fnName ?? null,
        testTimeoutSec: r.testTimeoutSec,
        outputCap: r.outputCapBytes,
        ...(limits ? { limits } : {}),
      }),
    );
    if (plan.uid !== undefined) {
      await chmod(dir, 0o755);
      await chown(work, plan.uid, plan.uid);
      for (const f of ['child.py', 'job.json']) await chown(join(work, f), plan.uid, plan.uid);
    }
    const result = join(work, 'result.json');
    const python = [r.python, '-I', join(dir, 'runner.py'), join(work, 'job.json'), result];
    // prlimit runs before the uid drop: lowering limits needs no privilege, but the order keeps them out of the program's reach.
    const full = plan.sandboxed ? [...plan.ns, ...limitsArgv(r, cpuSec), ...plan.drop, ...python] : python;
    // LiveCodeBench's global limit per sample: (per-test limit + 1) x tests + 5 s.
    const wallMs = cpuSec * 1000;
    const exit = await runBounded(full, work, wallMs, r.outputCapBytes);
    if (exit.killed === 'time') return { status: 'timeout', detail: `wall-clock limit of ${cpuSec} s`, testsPassed: 0 };
    if (exit.killed === 'output')
      return { status: 'failed', detail: `printed over ${r.outputCapBytes} bytes`, testsPassed: 0 };
    let text: string;
    try {
      text = await readFile(result, 'utf8');
    } catch {
      const why = exit.signal ? `signal ${exit.signal}` : `exit status ${exit.code}`;
      return {
        status: 'failed',
        detail: `the batch ended without a result (${why}): ${exit.stderr.slice(-200)}`,
        testsPassed: 0,
      };
    }
    try {
      const v = JSON.parse(text) as CodeResult;
      const status: CodeOutcome = ['passed', 'failed', 'timeout', 'error'].includes(v.status) ? v.status : 'failed';
      return { status, detail: String(v.detail ?? ''), testsPassed: Number(v.testsPassed) || 0 };
    } catch {
      return { status: 'failed', detail: 'unreadable result', testsPassed: 0 };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a program given as files and commands (MBXP's compilers and
 * interpreters) in the same containment as runCodeJob: each command in the
 * namespaces, under the limits (CPU: its own time limit + 1 s) and the
 * sandbox uid, killed at its wall-clock limit. Passed when every command
 * exits with one of its ok statuses (0 unless the step says); the first
 * that does not ends the job. Unsandboxed (allowed), the
 * limits still apply through prlimit on Linux.
 */
export async function runProgramJob(job: ProgramJob, o: CodeExecutionOptions = {}): Promise<CodeResult> {
  const r = resolved(o);
  const plan = sandboxOrRefuse(o);
  const dir = await mkdtemp(join(tmpdir(), 'lg-code-'));
  try {
    const work = join(dir, 'w');
    await mkdir(work);
    for (const [name, text] of Object.entries(job.files)) {
      if (name.includes('/') || name.startsWith('.')) throw new Error(`bad program file name '${name}'`);
      await writeFile(join(work, name), text);
      if (plan.uid !== undefined) await chown(join(work, name), plan.uid, plan.uid);
    }
    for (const [name, target] of Object.entries(job.links ?? {})) {
      if (isAbsolute(name) || name.split('/').some((p) => p === '' || p === '.' || p === '..'))
        throw new Error(`bad program link name '${name}'`);
      await mkdir(dirname(join(work, name)), { recursive: true });
      await symlink(target, join(work, name));
    }
    if (plan.uid !== undefined) {
      await chmod(dir, 0o755);
      await chown(work, plan.uid, plan.uid);
    }
    for (const step of job.steps) {
      const cpuSec = Math.ceil(step.timeoutSec + 1);
      const limits = plan.sandboxed || process.platform === 'linux' ? limitsArgv(r, cpuSec) : [];
      const full = plan.sandboxed ? [...plan.ns, ...limits, ...plan.drop, ...step.argv] : [...limits, ...step.argv];
      const exit = await runBounded(full, work, cpuSec * 1000, r.outputCapBytes);
      if (exit.killed === 'time')
        return { status: 'timeout', detail: `${step.name}: time limit of ${step.timeoutSec} s`, testsPassed: 0 };
      if (exit.killed === 'output')
        return { status: 'failed', detail: `${step.name}: printed over ${r.outputCapBytes} bytes`, testsPassed: 0 };
      if (exit.code === null || !(step.okCodes ?? [0]).includes(exit.code)) {
        const why = exit.signal ? `signal ${exit.signal}` : `exit status ${exit.code}`;
        return { status: 'failed', detail: `${step.name}: ${why}: ${exit.stderr.slice(-200).trim()}`, testsPassed: 0 };
      }
    }
    return { status: 'passed', detail: '', testsPassed: 1 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface BoundedExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  killed?: 'time' | 'output';
  stderr: string;
}

/** Spawns argv in its own process group; kills the group at the wall-clock limit or past the output cap. */
function runBounded(argv: string[], cwd: string, wallMs: number, cap: number): Promise<BoundedExit> {
  return new Promise((resolvePromise) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        HOME: cwd,
        TMPDIR: cwd,
      },
    });
    let killed: BoundedExit['killed'];
    let bytes = 0;
    let stderr = '';
    const kill = (why: BoundedExit['killed']) => {
      killed ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill('time'), wallMs);
    const count = (b: Buffer) => {
      bytes += b.length;
      if (bytes > cap) kill('output');
    };
    child.stdout.on('data', count);
    child.stderr.on('data', (b: Buffer) => {
      count(b);
      if (stderr.length < 4096) stderr += b.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolvePromise({ code: null, signal: null, stderr: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, ...(killed ? { killed } : {}), stderr });
    });
  });
}

/** Runs jobs with at most `workers` at once (default: the CPU count); results in job order. */
export async function runCodeJobs(jobs: readonly CodeJob[], o: CodeExecutionOptions = {}): Promise<CodeResult[]> {
  return runAll(jobs, runCodeJob, o);
}

/** runProgramJob for many jobs, at most `workers` at once; results in job order. */
export async function runProgramJobs(jobs: readonly ProgramJob[], o: CodeExecutionOptions = {}): Promise<CodeResult[]> {
  return runAll(jobs, runProgramJob, o);
}

async function runAll<J>(
  jobs: readonly J[],
  run: (job: J, o: CodeExecutionOptions) => Promise<CodeResult>,
  o: CodeExecutionOptions,
): Promise<CodeResult[]> {
  if (jobs.length === 0) return [];
  sandboxOrRefuse(o);
  const workers = Math.max(1, Math.min(o.workers ?? cpus().length, jobs.length));
  const out: CodeResult[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= jobs.length) return;
      try {
        out[i] = await run(jobs[i]!, o);
      } catch (err) {
        if (err instanceof AccuracyInputError) throw err;
        out[i] = { status: 'error', detail: (err as Error).message, testsPassed: 0 };
      }
      done++;
      o.onProgress?.(done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: workers }, lane));
  return out;
}
