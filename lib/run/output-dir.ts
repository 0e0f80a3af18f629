// The output directory: checked before anything is created (no half-made
// directory after a usage error), then made. Node's recursive mkdir spins
// forever on a pseudo filesystem (mkdir under /proc answers ENOENT for
// every level), so the path is checked first: the nearest existing ancestor
// must be a writable directory on a real filesystem.
import { accessSync, constants, mkdirSync, realpathSync, statSync, statfsSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

import { UsageError } from '../core/errors.js';

/** Kernel filesystems that hold no files of ours (statfs f_type, linux/magic.h). */
const PSEUDO_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
]);

/** /proc, /sys and /dev by path (devtmpfs looks like tmpfs to statfs); /dev/shm is an ordinary tmpfs. */
function pseudoRoot(real: string): string | null {
  for (const root of ['/proc', '/sys', '/dev']) {
    if (real === root || real.startsWith(root + sep)) {
      if (root === '/dev' && (real === '/dev/shm' || real.startsWith('/dev/shm/'))) return null;
      return root;
    }
  }
  return null;
}

function fail(outdir: string, why: string): never {
  throw new UsageError(`--output-dir ${outdir}: ${why}`);
}

/**
 * Checks that `outdir` can be used without creating anything: an existing
 * writable directory, or a path whose nearest existing ancestor is one, on
 * a real filesystem. Returns the absolute path; throws a UsageError naming
 * the problem.
 */
export function checkOutputDir(outdir: string): string {
  if (typeof outdir !== 'string' || outdir === '') throw new UsageError('an output directory is required');
  if (outdir.includes('\0')) fail(JSON.stringify(outdir), 'contains a NUL byte');
  const abs = resolve(outdir);
  // The nearest existing ancestor (the directory itself when it exists).
  let at = abs;
  for (;;) {
    try {
      statSync(at);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR: a file on the way up; the walk stops at it.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        fail(outdir, `${at}: ${code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
      const up = dirname(at);
      if (up === at) fail(outdir, 'no part of the path exists');
      at = up;
    }
  }
  let real = at;
  try {
    real = realpathSync(at);
  } catch {
    // Keep the path as given.
  }
  const root = pseudoRoot(real);
  if (root !== null) fail(outdir, `${real} is on the ${root} pseudo filesystem: choose a directory on a disk`);
  try {
    const fs = PSEUDO_FS.get(Number(statfsSync(at).type));
    if (fs !== undefined) fail(outdir, `${real} is on a ${fs} pseudo filesystem: choose a directory on a disk`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // statfs unavailable: the path check above stands.
  }
  if (!statSync(at).isDirectory())
    fail(outdir, at === abs ? 'a file is in the way (not a directory)' : `${at} is a file, not a directory`);
  try {
    accessSync(at, constants.W_OK | constants.X_OK);
  } catch {
    fail(outdir, at === abs ? 'not writable' : `cannot create it: ${at} is not writable`);
  }
  return abs;
}

/** Checks (see checkOutputDir), then creates the directory; returns its absolute path. */
export function createOutputDir(outdir: string): string {
  const abs = checkOutputDir(outdir);
  try {
    mkdirSync(abs, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail(
      outdir,
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way'
        : code === 'EACCES'
          ? 'not writable'
          : (err as Error).message,
    );
  }
  return abs;
}
