// MBXP, mixtral-8x7b's code part: programs in several languages run against
// the row's test code, as the reference (mixtral-8x7b/evaluate_mbxp.py with
// mxeval's check_correctness_*) runs them. Restated rules:
//   - a row is MBXP when its `dataset` is neither GSM8K nor OpenOrca; its
//     `id` is `<language>_<entry point>` (split at the first `_`); its
//     `gt_output` is the test code; the prompt is not prepended (the model
//     repeats it);
//   - the program is the decoded answer cut before its first ``` (when there
//     is one), left-stripped for Python, with every `\_` made `_`;
//   - only python, javascript, cpp, php, ruby and typescript rows are
//     evaluated; rows of other languages are left out of the figure;
//   - Python: answer + "\n" + tests + "\n" + `check(<entry point>)` executed
//     in a fresh namespace with its output swallowed, 20 s; passed when no
//     exception is raised. Others: answer + tests (nothing between) in one
//     file: node FILE.js, ruby FILE.rb, php FILE.php, g++ FILE.cpp then the
//     binary (compile 100 s); 20 s to run; passed when every command exits 0;
//   - JavaScript and TypeScript tests compare with lodash's isEqual: the
//     reference's set-up installs lodash beside its evaluator, so the job
//     links the package this module resolves into its directory;
//   - TypeScript: answer + tests in FILE.ts, `tsc FILE.ts --target es5 --lib
//     es2016`, then node FILE.js; the reference counts the compile as done
//     only when tsc exits 2 (errors reported, output written: without the
//     DOM library every `console` is an error), so a clean exit 0 fails;
//   - mbxp = 100 × passed / evaluated rows.
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

import { runProgramJobs, sandboxCanUse, sandboxPython, sandboxUserName } from './code-sandbox.js';
import { sourceOf } from './code-tests.js';
import type { CodeExecutionOptions, CodeResult, ProgramJob } from './code-types.js';
import type { DatasetCounts } from './score-types.js';

/** The languages the reference evaluates; rows of any other are left out of its figure. */
export const MBXP_EVALUATED = ['cpp', 'python', 'php', 'javascript', 'ruby', 'typescript'] as const;

// The reference's run limit (mxeval's timeout=20.0); codeExecution.testTimeoutSec overrides it.
const RUN_SEC = 20;
const COMPILE_SEC = 100;

/** The language and entry point of an MBXP row id; null when the id has no `_`. */
export function parseMbxpId(id: string): { lang: string; entryPoint: string } | null {
  const i = id.indexOf('_');
  if (i <= 0) return null;
  return { lang: id.slice(0, i), entryPoint: id.slice(i + 1) };
}

/** The program text from a decoded answer, as the reference cuts and cleans it. */
export function extractMbxp(answer: string, lang: string): string {
  const fence = answer.indexOf('```');
  let code = fence >= 0 ? answer.slice(0, fence) : answer;
  if (lang === 'python') code = code.trimStart();
  return code.replaceAll('\\_', '_');
}

/** An executable's absolute path from PATH, or null. */
export function findTool(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Why the sandbox's uid cannot use `path` (read it, or run it), or null when it can. */
function outOfReach(what: string, path: string, how: 'r' | 'x'): string | null {
  return sandboxCanUse(path, how)
    ? null
    : `${what} at ${path} cannot be ${how === 'x' ? 'run' : 'read'} by ${sandboxUserName()}`;
}

/**
 * `node_modules/lodash` for a JavaScript/TypeScript job (lodash is a
 * dependency), or why it cannot be given: not resolvable, or out of the
 * sandbox's reach.
 */
function lodashLink(): { links: Record<string, string> } | { missing: string } {
  let main: string;
  try {
    main = createRequire(import.meta.url).resolve('lodash');
  } catch {
    return { missing: 'lodash is not installed' };
  }
  const why = outOfReach('lodash', main, 'r');
  return why ? { missing: why } : { links: { 'node_modules/lodash': dirname(main) } };
}

/**
 * How to run TypeScript's compiler: `tsc` on PATH (what the reference's
 * `npx tsc` finds), else the `typescript` package this module can resolve,
 * run by this Node; null when neither is there.
 */
export function findTsc(): string[] | null {
  const onPath = findTool('tsc');
  if (onPath) return [onPath];
  try {
    return [process.execPath, createRequire(import.meta.url).resolve('typescript/bin/tsc')];
  } catch {
    return null;
  }
}

// Executes the program the way mxeval's Python check does: a fresh namespace
// (so `if __name__ == "__main__":` blocks do not run), stdout/stderr
// swallowed, empty stdin, and any exception (SystemExit too) a failure.
const PY_WRAPPER = `import contextlib, io, os, sys
with open('program.py', encoding='utf-8') as f:
    source = f.read()
sink = io.StringIO()
sys.stdin = io.StringIO()
ok = False
try:
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        exec(compile(source, 'program.py', 'exec'), {})
    ok = True
except BaseException as e:
    sys.__stderr__.write(type(e).__name__ + ': ' + str(e)[:200] + '\\n')
sys.__stderr__.flush()
os._exit(0 if ok else 1)
`;

/**
 * The job that runs one row, or the reason it cannot run here (the
 * language's toolchain is not installed, or not implemented).
 */
export function mbxpJob(
  lang: string,
  entryPoint: string,
  code: string,
  tests: string,
  o: CodeExecutionOptions,
): ProgramJob | { missing: string } {
  const runSec = o.testTimeoutSec ?? RUN_SEC;
  switch (lang) {
    case 'python':
      return {
        files: { 'main.py': PY_WRAPPER, 'program.py': `${code}\n${tests}\ncheck(${entryPoint})` },
        steps: [{ name: 'run', argv: [sandboxPython(o), '-I', 'main.py'], timeoutSec: runSec }],
      };
    case 'javascript':
    case 'ruby':
    case 'php': {
      const [bin, ext] = lang === 'javascript' ? ['node', 'js'] : lang === 'ruby' ? ['ruby', 'rb'] : ['php', 'php'];
      const path = findTool(bin);
      if (!path) return { missing: `${bin} is not installed` };
      const unusable = outOfReach(bin, path, 'x');
      if (unusable) return { missing: unusable };
      const lodash = lang === 'javascript' ? lodashLink() : { links: {} };
      if ('missing' in lodash) return lodash;
      return {
        files: { [`main.${ext}`]: code + tests },
        links: lodash.links,
        steps: [{ name: 'run', argv: [path, `main.${ext}`], timeoutSec: runSec }],
      };
    }
    case 'cpp': {
      const gxx = findTool('g++');
      if (!gxx) return { missing: 'g++ is not installed' };
      const why = outOfReach('g++', gxx, 'x');
      if (why) return { missing: why };
      return {
        files: { 'main.cpp': code + tests },
        steps: [
          { name: 'compile', argv: [gxx, 'main.cpp', '-o', 'main_cpp'], timeoutSec: COMPILE_SEC },
          { name: 'run', argv: ['./main_cpp'], timeoutSec: runSec },
        ],
      };
    }
    case 'typescript': {
      const tsc = findTsc();
      if (!tsc) return { missing: 'tsc is not installed (npm install typescript)' };
      const node = findTool('node');
      if (!node) return { missing: 'node is not installed' };
      const why =
        outOfReach('node', node, 'x') ??
        outOfReach('tsc', tsc[0]!, 'x') ??
        (tsc[1] !== undefined ? outOfReach('tsc', tsc[1], 'r') : null);
      if (why) return { missing: why };
      const lodash = lodashLink();
      if ('missing' in lodash) return lodash;
      return {
        files: { 'main.ts': code + tests },
        links: lodash.links,
        steps: [
          {
            name: 'compile',
            argv: [...tsc, 'main.ts', '--target', 'es5', '--lib', 'es2016'],
            timeoutSec: COMPILE_SEC,
            okCodes: [2],
          },
          { name: 'run', argv: [node, 'main.js'], timeoutSec: runSec },
        ],
      };
    }
    default:
      return { missing: `${lang} is not run here` };
  }
}

/** One MBXP row to score: its decoded answer, id and test code. */
export interface MbxpRow {
  qslIdx: number;
  answer: string;
  id: string | undefined;
  tests: string;
  empty: boolean;
}

export interface MbxpScore {
  /** 100 × passed / evaluated, over the rows run; undefined when none was. */
  value?: number;
  passed: number;
  /** Rows the reference evaluates that ran here. */
  evaluated: number;
  /** Per language (key `MBXP/<lang>`). */
  counts: Record<string, DatasetCounts>;
  /** Rows the reference evaluates that could not run here, per reason. */
  notRun: Record<string, number>;
  /** Rows of languages the reference leaves out. */
  leftOut: Record<string, number>;
  /** Per qsl_idx: the outcome. */
  results: Map<number, CodeResult>;
}

function zero(): DatasetCounts {
  return { samples: 0, passed: 0, failed: 0, timedOut: 0, empty: 0, unscored: 0 };
}

/** Runs the MBXP rows (in the sandbox) and counts them per language. */
export async function scoreMbxp(rows: readonly MbxpRow[], o: CodeExecutionOptions): Promise<MbxpScore> {
  const counts: Record<string, DatasetCounts> = {};
  const notRun: Record<string, number> = {};
  const leftOut: Record<string, number> = {};
  const jobs: ProgramJob[] = [];
  const owners: MbxpRow[] = [];
  const results = new Map<number, CodeResult>();
  for (const r of rows) {
    const parsed = r.id !== undefined ? parseMbxpId(r.id) : null;
    const lang = parsed?.lang ?? '?';
    const c = (counts[`MBXP/${lang}`] ??= zero());
    c.samples++;
    if (!parsed || !(MBXP_EVALUATED as readonly string[]).includes(lang)) {
      c.unscored++;
      leftOut[lang] = (leftOut[lang] ?? 0) + 1;
      continue;
    }
    const job = mbxpJob(lang, parsed.entryPoint, extractMbxp(r.answer, lang), r.tests, o);
    if ('missing' in job) {
      c.unscored++;
      notRun[job.missing] = (notRun[job.missing] ?? 0) + 1;
      continue;
    }
    jobs.push(job);
    owners.push(r);
  }
  const out = await runProgramJobs(jobs, o);
  let passed = 0;
  out.forEach((res, i) => {
    const r = owners[i]!;
    results.set(r.qslIdx, res);
    const c = counts[`MBXP/${parseMbxpId(r.id!)!.lang}`]!;
    if (res.status === 'passed') {
      passed++;
      c.passed++;
    } else {
      if (res.status === 'timeout') c.timedOut++;
      else c.failed++;
      if (r.empty) c.empty++;
    }
  });
  return {
    ...(jobs.length > 0 ? { value: (100 * passed) / jobs.length } : {}),
    passed,
    evaluated: jobs.length,
    counts,
    notRun,
    leftOut,
    results,
  };
}

/** Each row's `id` (MBXP's `<language>_<entry point>`) from the dataset file's first `limit` rows; undefined when no row has one. */
export async function readMbxpIds(path: string, limit?: number): Promise<Array<string | undefined> | undefined> {
  const src = await sourceOf(path);
  try {
    if (src.columns && !src.columns.includes('id')) return undefined;
    const out: Array<string | undefined> = [];
    for await (const r of src.rows({
      ...(src.columns ? { columns: ['id'] } : {}),
      ...(limit !== undefined ? { limit } : {}),
    })) {
      const v = (r.value as Record<string, unknown> | null)?.id;
      out.push(typeof v === 'string' ? v : undefined);
    }
    return out.some((v) => v !== undefined) ? out : undefined;
  } finally {
    await src.close();
  }
}
