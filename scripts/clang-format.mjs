#!/usr/bin/env node
// clang-format over native/**/*.{cc,h} with the style in .clang-format.
//   node scripts/clang-format.mjs           check (npm run lint:native): lists the files
//                                           that differ and exits 1 when any does
//   node scripts/clang-format.mjs --write   rewrites them in place (npm run format:native)
// The binary is the one the `clang-format` npm package ships (a pinned version,
// so every machine formats alike). Where that package has no binary for the
// platform, a clang-format on PATH is used; with neither, the check is skipped
// with a message rather than failed.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const write = process.argv.includes('--write');

function findBinary() {
  try {
    const require = createRequire(import.meta.url);
    return require('clang-format').getNativeBinary();
  } catch {
    // No bundled binary for this platform (or the package is not installed).
  }
  try {
    execFileSync('clang-format', ['--version'], { stdio: 'ignore' });
    return 'clang-format';
  } catch {
    return null;
  }
}

const bin = findBinary();
if (bin === null) {
  console.log(
    'lint:native skipped: no clang-format (the clang-format npm package has no binary for ' +
      `${process.platform}-${process.arch} and none is on PATH)`,
  );
  process.exit(0);
}

const files = readdirSync(join(root, 'native'), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.cc') || f.endsWith('.h'))
  .sort()
  .map((f) => join('native', f));

const version = spawnSync(bin, ['--version'], { encoding: 'utf8' })
  .stdout.trim()
  .replace(/ \(.*\)$/, '');
const args = write ? ['-i', '--style=file', ...files] : ['--dry-run', '--Werror', '--style=file', ...files];
const r = spawnSync(bin, args, { cwd: root, encoding: 'utf8' });
if (r.error) throw r.error;
if (write) {
  process.stderr.write(r.stderr);
  console.log(`clang-format: formatted ${files.length} files in native/ (${version})`);
  process.exit(r.status ?? 1);
}
if (r.status === 0) {
  console.log(`clang-format: ${files.length} files in native/ are formatted (${version})`);
  process.exit(0);
}
// --dry-run prints one warning per line that would change: name the files.
const bad = new Set();
for (const line of r.stderr.split('\n')) {
  const m = /^(.+?):\d+:\d+: (?:error|warning)/.exec(line);
  if (m) bad.add(relative(root, join(root, m[1])));
}
console.error(`clang-format: ${bad.size} file(s) in native/ are not formatted (${version}):`);
for (const f of bad) console.error(`  ${f}`);
console.error('Run `npm run format:native` to format them.');
process.exit(1);
