// Loads the compiled addon (loadgen.node) with node-gyp-build.
//
// Works from the ESM build (dist/index.js), the CJS build (dist/index.cjs,
// where tsup's shims provide import.meta.url), the CLI bundle (dist/cli.js)
// and from vitest running lib/ directly: the package root is found by walking
// up from this module's directory to the package.json named @x/loadgen, and
// node-gyp-build looks there in build/Release, build/Debug (a source build:
// a clone, or an install where no prebuild matched), then
// prebuilds/<platform>-<arch>/ (the packed package: docs/install.md).
//
// LOADGEN_NATIVE_PATH=/path/to/loadgen.node loads that file instead (e.g. the
// cmake-js build in build-cmake-js/Release/loadgen.node).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { NativeBinding } from './native-types.js';

const PACKAGE_NAME = '@x/loadgen';

interface NodeGypBuild {
  (dir: string): unknown;
  resolve(dir: string): string;
}

/** The directory of the @x/loadgen package.json at or above `start`. */
export function findPackageRoot(start: string): string {
  let dir = resolve(start);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
        if (name === PACKAGE_NAME) return dir;
      } catch {
        // Not valid JSON: keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`${PACKAGE_NAME}: no package.json named ${PACKAGE_NAME} at or above ${start}`);
    }
    dir = parent;
  }
}

/** Root of the installed @x/loadgen package (holds build/ and prebuilds/). */
export const packageRoot: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

const requireFromHere = createRequire(import.meta.url);
const nodeGypBuild = requireFromHere('node-gyp-build') as NodeGypBuild;

/** Path of the addon file that is (or would be) loaded, for diagnostics. */
export function bindingPath(): string {
  const override = process.env.LOADGEN_NATIVE_PATH;
  if (override) return resolve(override);
  return nodeGypBuild.resolve(packageRoot);
}

function load(): NativeBinding {
  const override = process.env.LOADGEN_NATIVE_PATH;
  try {
    if (override) return requireFromHere(resolve(override)) as NativeBinding;
    return nodeGypBuild(packageRoot) as NativeBinding;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new Error(
      `${PACKAGE_NAME}: could not load the native addon from ${override ?? packageRoot} ` +
        '(no prebuild for this platform and no build: `npm rebuild @x/loadgen --ignore-scripts=false` compiles ' +
        'it, which needs a C++17 compiler and Python 3, see docs/install.md; in a clone, `npm run build:native`): ' +
        detail,
      { cause: err },
    );
  }
}

/** The native addon's exports. */
export const native: NativeBinding = load();
