// THE PACKAGE AS USERS INSTALL IT: `npm pack`, then fresh projects outside the
// repository install the tarball, once with install scripts blocked
// (`--ignore-scripts`, as many companies enforce) and once with them, offline,
// from npm's cache only. Each checks what a user touches: ESM import, CJS
// require, the types from a TypeScript file compiled with the project's tsc,
// a startTest with a TypeScript SUT, and `npx loadgen run` against the
// built-in simulator; and that the addon loaded is the shipped prebuild, not
// a source build. A file the package needs but `files` leaves out fails here.
//
// The tarball is packed with --ignore-scripts from what `npm test`'s pretest
// built (dist/ and the prebuild): running prepare here would rebuild dist/
// under the tests running beside this one. `npm pack`'s prepack makes the
// same prebuild (scripts/prebuild.mjs), which this file also runs (it only
// compiles when native/ changed, in build-prebuild/, away from build/).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
};
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const TUPLE = `${platform()}-${arch()}`;
const LIBC = existsSync('/etc/alpine-release') ? 'musl' : 'glibc';
/** Where the prebuild for this machine sits, in the repository and in the tarball. */
const PREBUILD = `prebuilds/${TUPLE}/${PKG.name.replace('/', '+')}${platform() === 'linux' ? `.${LIBC}` : ''}.node`;
/** Links in the shipped Markdown that point into the repository, not the package. */
const REPO_ONLY = ['CONTRIBUTING.md', 'bench/', 'examples/'];
/** Every child gets a deadline: an install that hangs fails the test instead. */
const MINUTE = 60_000;

function npmVersion(): string | null {
  const r = spawnSync('npm', ['--version'], { encoding: 'utf8', timeout: MINUTE });
  return r.status === 0 ? r.stdout.trim() : null;
}
const NPM = npmVersion();
if (!NPM) console.warn('test/package/consumer.test.ts skipped: `npm --version` failed, so nothing can be packed');

/**
 * The environment of a child npm or node: this process's, without the npm_*
 * variables `npm test` exported (npm_config_local_prefix and the like would
 * point the child at the repository). The cache and nodedir stay.
 */
function childEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_nodedir', 'npm_config_userconfig', 'npm_config_globalconfig']);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') || keep.has(k)) env[k] = v;
  env.LOADGEN_DEBUG = '';
  return env;
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The command and its output, for failure messages. */
  explain: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Ran {
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, {
    cwd,
    env: childEnv(),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const how = r.error ? ` (${r.error.message})` : r.signal ? ` (signal ${r.signal})` : '';
  const explain = `$ ${cmd} ${args.join(' ')}  [in ${cwd}] -> exit ${r.status}${how}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', explain };
}

function node(args: string[], cwd: string, timeoutMs = MINUTE): Ran {
  return run(process.execPath, args, cwd, timeoutMs);
}

/** A new project outside the repository, with its own package.json. */
function newProject(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', private: true }, null, 2)}\n`);
  return dir;
}

/** Relative link targets in a Markdown file (anchors and web links dropped). */
function localLinks(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].split('#')[0];
    if (target && !/^[a-z]+:/i.test(target)) out.push(target);
  }
  return out;
}

/**
 * The script each consumer runs: loads the package (ESM or CJS), touches the
 * addon, and reports which native objects the process loaded.
 */
const LOAD_ESM = `
import * as lg from '@x/loadgen';
import * as accuracy from '@x/loadgen/accuracy';
import * as report from '@x/loadgen/report';
import * as multiturn from '@x/loadgen/multiturn';
import * as fleet from '@x/loadgen/fleet';
import * as metrics from '@x/loadgen/metrics';
const subpaths = { accuracy, report, multiturn, fleet, metrics };
console.log(JSON.stringify({
  startTest: typeof lg.startTest,
  engineVersion: lg.engineVersion,
  subpaths: Object.fromEntries(Object.entries(subpaths).map(([k, m]) => [k, Object.keys(m).length])),
  natives: process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node')),
}));
`;
const LOAD_CJS = `
const lg = require('@x/loadgen');
const subpaths = ['accuracy', 'report', 'multiturn', 'fleet', 'metrics'];
console.log(JSON.stringify({
  startTest: typeof lg.startTest,
  engineVersion: lg.engineVersion,
  subpaths: Object.fromEntries(subpaths.map((k) => [k, Object.keys(require('@x/loadgen/' + k)).length])),
  natives: process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node')),
}));
`;

/** A TypeScript SUT run through startTest; the types must be the package's real ones. */
const SUT_MTS = `
import { querySamplesComplete, startTest, type QuerySample, type TestResult } from '@x/loadgen';
import type { AccuracyReport } from '@x/loadgen/accuracy';

class EchoSut {
  readonly name = 'consumer-echo';
  issued = 0;
  issueQuery(samples: QuerySample[]): void {
    this.issued += samples.length;
    setImmediate(() => querySamplesComplete(samples.map((s) => ({ id: s.id }))));
  }
  flushQueries(): void {}
}
const qsl = {
  name: 'consumer-qsl',
  totalSampleCount: 64,
  performanceSampleCount: 64,
  loadSamplesToRam(_indices: number[]): void {},
  unloadSamplesFromRam(_indices: number[]): void {},
};

// Had the types not resolved (any), these lines would not be errors, and the
// unused @ts-expect-error directives would fail the compile.
// @ts-expect-error a scenario is one of the four names
const badScenario: Parameters<typeof startTest>[2] = { scenario: 'Sometimes' };
// @ts-expect-error an accuracy report is not a number
const badReport: AccuracyReport = 3;
void badScenario;
void badReport;

const sut = new EchoSut();
const result: TestResult = await startTest(
  sut,
  qsl,
  { scenario: 'Offline', minDurationMs: 100, minQueryCount: 1, offlineExpectedQps: 1000 },
  { outdir: 'ts-out' },
);
console.log(JSON.stringify({ valid: result.valid, samples: result.counts.samples, issued: sut.issued }));
`;
const TYPES_CTS = `
import { engineVersion, LoadgenError } from '@x/loadgen';
import type { TestResult } from '@x/loadgen';

const version: string = engineVersion;
const valid: TestResult['valid'] = null;
console.log(JSON.stringify({ engineVersion: version, errorBase: typeof LoadgenError, valid }));
`;
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    types: ['node'],
    skipLibCheck: false,
    noEmitOnError: true,
    outDir: 'js',
  },
  include: ['src'],
};

describe.skipIf(!NPM)(`${PKG.name} packed and installed into fresh projects (npm ${NPM})`, () => {
  let work = '';
  let tarball = '';
  let files: { path: string; size: number }[] = [];
  /** Installed with --ignore-scripts. */
  let blocked = '';

  beforeAll(() => {
    expect(existsSync(join(REPO, 'dist', 'index.js')), 'dist/ is missing: run `npm run build:ts` (npm test does)').toBe(
      true,
    );
    const prebuild = node([join(REPO, 'scripts', 'prebuild.mjs')], REPO, 10 * MINUTE);
    expect(prebuild.status, prebuild.explain).toBe(0);

    work = mkdtempSync(join(tmpdir(), 'loadgen-consumer-'));
    const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO, 2 * MINUTE);
    expect(packed.status, packed.explain).toBe(0);
    const [info] = JSON.parse(packed.stdout) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string; size: number }[];
    }[];
    tarball = join(work, info.filename);
    files = info.files;
    const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
    console.log(
      `${info.filename}: ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked, ${files.length} files\n` +
        files.map((f) => `  ${kb(f.size).padStart(10)}  ${f.path}`).join('\n'),
    );

    // The repository's @types/node, so its tarball is in npm's cache.
    const typesNode = JSON.parse(readFileSync(join(REPO, 'node_modules/@types/node/package.json'), 'utf8')).version;
    blocked = newProject(work, 'consumer-blocked');
    const install = run(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        tarball,
        `@types/node@${typesNode}`,
      ],
      blocked,
      5 * MINUTE,
    );
    expect(install.status, install.explain).toBe(0);
  }, 15 * MINUTE);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the tarball holds dist/, docs/, the prebuild and the sources for a fallback build; its Markdown links resolve', () => {
    const inTarball = new Set(files.map((f) => f.path));
    const missing = (paths: string[]) => paths.filter((p) => !inTarball.has(p));

    expect(missing(['package.json', 'README.md', 'API.md', 'CHANGELOG.md', 'LICENSE', 'binding.gyp'])).toEqual([]);
    expect(missing([PREBUILD]), `no prebuild for ${TUPLE} (${LIBC})`).toEqual([]);
    const docs = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    expect(docs.length).toBeGreaterThan(0);
    expect(missing(docs.map((f) => `docs/${f}`))).toEqual([]);

    // What binding.gyp compiles when no prebuild matches (never native/tests).
    const sources = ['native/engine', 'native/sse', 'native/addon'].flatMap((d) =>
      readdirSync(join(REPO, d))
        .filter((f) => /\.(cc|h)$/.test(f))
        .map((f) => `${d}/${f}`),
    );
    expect(missing(sources)).toEqual([]);
    expect([...inTarball].filter((p) => p.startsWith('native/tests/'))).toEqual([]);

    // Every file package.json points at.
    const targets = JSON.stringify(PKG.exports).match(/\.\/dist\/[^"]+/g) ?? [];
    expect(targets.length).toBeGreaterThan(10);
    expect(missing([...targets.map((t) => t.slice(2)), ...Object.values(PKG.bin)])).toEqual([]);

    // The shipped guides' links land in the package (or, named, in the repository).
    const broken: string[] = [];
    for (const md of [...inTarball].filter((p) => p.endsWith('.md'))) {
      for (const link of localLinks(readFileSync(join(REPO, md), 'utf8'))) {
        const target = posix.normalize(posix.join(posix.dirname(md), link)).replace(/\/$/, '');
        if (REPO_ONLY.some((r) => target === r || target.startsWith(r))) continue;
        if (!inTarball.has(target) && ![...inTarball].some((p) => p.startsWith(`${target}/`)))
          broken.push(`${md} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('with install scripts blocked: no source build, and ESM import loads the shipped prebuild', () => {
    const pkgDir = join(blocked, 'node_modules', ...PKG.name.split('/'));
    expect(existsSync(join(pkgDir, 'build')), 'a build/ folder: something compiled the addon').toBe(false);
    const r = node(['--input-type=module', '-e', LOAD_ESM], blocked);
    expect(r.status, r.explain).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.startTest).toBe('function');
    expect(out.engineVersion).toMatch(/^\d+\.\d+\.\d+/);
    for (const n of Object.values(out.subpaths)) expect(n).toBeGreaterThan(0);
    expect(out.natives).toEqual([join(pkgDir, PREBUILD)]);
  });

  it('CJS require loads the same prebuild', () => {
    const r = node(['-e', LOAD_CJS], blocked);
    expect(r.status, r.explain).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.startTest).toBe('function');
    expect(out.engineVersion).toMatch(/^\d+\.\d+\.\d+/);
    for (const n of Object.values(out.subpaths)) expect(n).toBeGreaterThan(0);
    expect(out.natives).toEqual([join(blocked, 'node_modules', ...PKG.name.split('/'), PREBUILD)]);
  });

  it(
    "the types resolve for ESM and CJS under the project's tsc, and a TypeScript SUT runs a test",
    () => {
      mkdirSync(join(blocked, 'src'), { recursive: true });
      writeFileSync(join(blocked, 'src', 'sut.mts'), SUT_MTS);
      writeFileSync(join(blocked, 'src', 'types.cts'), TYPES_CTS);
      writeFileSync(join(blocked, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
      const tsc = node([TSC, '-p', 'tsconfig.json'], blocked, 3 * MINUTE);
      expect(tsc.status, tsc.explain).toBe(0);

      const cjs = node([join('js', 'types.cjs')], blocked);
      expect(cjs.status, cjs.explain).toBe(0);
      expect(JSON.parse(cjs.stdout)).toMatchObject({ errorBase: 'function', valid: null });

      const sut = node([join('js', 'sut.mjs')], blocked, 2 * MINUTE);
      expect(sut.status, sut.explain).toBe(0);
      const result = JSON.parse(sut.stdout);
      expect(result.samples).toBeGreaterThan(0);
      expect(result.issued).toBe(result.samples);
      expect(existsSync(join(blocked, 'ts-out', 'mlperf_log_summary.txt'))).toBe(true);
    },
    5 * MINUTE,
  );

  it(
    '`npx loadgen run` against the built-in simulator writes the logs and results',
    () => {
      const version = run('npx', ['--no', '--', 'loadgen', '--version'], blocked, MINUTE);
      expect(version.status, version.explain).toBe(0);
      expect(version.stdout.trim()).toBe(PKG.version);

      const out = join(blocked, 'cli-out');
      const args = ['run', '--scenario', 'Offline', '--set', 'min_duration=1000', '--synthetic-samples', '32'];
      const r = run('npx', ['--no', '--', 'loadgen', ...args, '--json', '--output-dir', out], blocked, 3 * MINUTE);
      expect(r.status, r.explain).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.schema).toBe('@x/loadgen/results');
      for (const f of ['mlperf_log_summary.txt', 'mlperf_log_detail.txt', 'results.json', 'report.html'])
        expect(existsSync(join(out, f)), f).toBe(true);
    },
    5 * MINUTE,
  );

  it(
    "with install scripts, offline from npm's cache: the install script finds the prebuild and compiles nothing",
    () => {
      const project = newProject(work, 'consumer-scripts');
      const install = run(
        'npm',
        ['install', '--offline', '--foreground-scripts', '--no-audit', '--no-fund', tarball],
        project,
        5 * MINUTE,
      );
      expect(install.status, install.explain).toBe(0);
      // The install script ran (npm prints it with --foreground-scripts) ...
      expect(install.stdout + install.stderr).toMatch(/>\s*node-gyp-build\b/);
      // ... and node-gyp-build's check of the prebuild passed, so no node-gyp build.
      const pkgDir = join(project, 'node_modules', ...PKG.name.split('/'));
      expect(existsSync(join(pkgDir, 'build')), install.explain).toBe(false);

      const r = node(['--input-type=module', '-e', LOAD_ESM], project);
      expect(r.status, r.explain).toBe(0);
      expect(JSON.parse(r.stdout).natives).toEqual([join(pkgDir, PREBUILD)]);
    },
    6 * MINUTE,
  );
});
