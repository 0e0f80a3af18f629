#!/usr/bin/env node
// Makes the Node-API prebuild that the package ships:
// prebuilds/<platform>-<arch>/@x+loadgen[.<libc>].node (linux-x64:
// @x+loadgen.glibc.node), built by prebuildify for the machine it runs on and
// found at run time by node-gyp-build (lib/core/binding.ts). docs/install.md
// says how a release adds other platforms.
//
//   node scripts/prebuild.mjs          rebuild only when native/ or binding.gyp
//                                      is newer than the prebuild (npm run build, npm test, npm pack)
//   node scripts/prebuild.mjs --force  always rebuild (a release: docs/install.md)
//
// prebuildify always runs `node-gyp rebuild` in its working directory, which
// would wipe build/ under tests loading build/Release/loadgen.node; so it
// works in a staging copy, build-prebuild/, and writes prebuilds/ here.
//
// Headers: node-gyp takes them from npm's `nodedir` (npm_config_nodedir) when
// set; otherwise, when the running Node has its headers beside it
// (<prefix>/include/node, as in the official tarballs and distro packages),
// from there. Only when neither exists does node-gyp download them.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const SOURCE_DIRS = ['native/engine', 'native/sse', 'native/addon'];
const outDir = join(root, 'prebuilds', `${platform()}-${arch()}`);
// On Linux the libc goes in the name (….glibc.node / ….musl.node), so that
// node-gyp-build never picks a glibc binary on musl (Alpine) or the reverse;
// both can then sit in prebuilds/linux-x64/ (a release gathers them there).
const libc = platform() === 'linux' ? (existsSync('/etc/alpine-release') ? 'musl' : 'glibc') : null;
/** The file this machine makes; other files in outDir (another libc's) are left alone. */
const target = join(outDir, `@x+loadgen${libc ? `.${libc}` : ''}.node`);
const stage = join(root, 'build-prebuild');

/** Newest modification time under `path` (a file or a directory tree). */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}

const inputs = [...SOURCE_DIRS, 'binding.gyp', 'scripts/prebuild.mjs'].map((p) => join(root, p));
if (!force && existsSync(target) && statSync(target).mtimeMs > Math.max(...inputs.map(newest))) {
  console.log(`prebuild: ${target} is up to date`);
  process.exit(0);
}

// The staging copy: binding.gyp and the sources it lists (never native/tests).
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(join(root, 'binding.gyp'), join(stage, 'binding.gyp'));
for (const dir of SOURCE_DIRS) cpSync(join(root, dir), join(stage, dir), { recursive: true });

const env = { ...process.env };
const localHeaders = join(dirname(dirname(process.execPath)), 'include', 'node');
if (!env.npm_config_nodedir && existsSync(join(localHeaders, 'node_api.h'))) {
  env.npm_config_nodedir = dirname(dirname(localHeaders));
}
// node-gyp compiles with one job unless told.
env.JOBS ??= 'max';

// A failed build must not leave the old binary to be shipped.
rmSync(target, { force: true });

const requireHere = createRequire(import.meta.url);

/** node-gyp's script: the project's, else npm's own (as npm scripts use), else `node-gyp` on PATH. */
function nodeGyp() {
  try {
    return requireHere.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    // Not a dependency: npm's copy below.
  }
  const npmCli = env.npm_execpath ?? join(dirname(dirname(process.execPath)), 'lib/node_modules/npm/bin/npm-cli.js');
  const bundled = join(dirname(dirname(npmCli)), 'node_modules/node-gyp/bin/node-gyp.js');
  return existsSync(bundled) ? bundled : 'node-gyp';
}

const prebuildify = requireHere.resolve('prebuildify/bin.js');
const args = [
  prebuildify,
  '--napi',
  '--strip',
  ...(libc ? ['--tag-libc', `--libc=${libc}`] : []),
  // Built against the running Node's headers; Node-API keeps it loadable by
  // every later Node.
  `--target=node@${process.versions.node}`,
  '--name=@x/loadgen',
  `--node-gyp=${nodeGyp()}`,
  `--cwd=${stage}`,
  `--out=${root}`,
];
console.log(
  `prebuild: prebuildify in ${stage} (nodedir ${env.npm_config_nodedir ?? 'not set: node-gyp may download headers'})`,
);
const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`prebuild: prebuildify failed (exit ${r.status ?? r.signal})`);
  process.exit(1);
}
if (!existsSync(target)) {
  console.error(`prebuild: prebuildify succeeded but made no ${target}`);
  process.exit(1);
}
console.log(`prebuild: ${target}`);
