import { rmSync } from 'node:fs';
import { defineConfig } from 'tsup';

// The two builds below run in parallel, so neither uses tsup's `clean`
// (one could delete the other's output): dist/ is emptied once, here.
rmSync('dist', { recursive: true, force: true });

const common = {
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  splitting: false,
  // import.meta.url in CJS output and __dirname in ESM output (lib/core/binding.ts).
  shims: true,
  clean: false,
  outDir: 'dist',
} as const;

/** dist name → source: `@x/loadgen` and its subpaths (test/house/api.test.ts lists the same). */
export const LIBRARY_ENTRIES = {
  index: 'lib/index.ts',
  accuracy: 'lib/accuracy.ts',
  report: 'lib/report.ts',
  multiturn: 'lib/multiturn.ts',
  fleet: 'lib/fleet.ts',
  metrics: 'lib/metrics.ts',
};

export default defineConfig([
  {
    // Library: the main entry and the subpath entries (package.json "exports"),
    // each as ESM (.js) and CJS (.cjs) with types for both (.d.ts, .d.cts).
    // Code shared by entries goes to chunks, so that one process holds one
    // copy of each module whatever entries it loads: one LoadgenError (for
    // instanceof), one running-test state.
    ...common,
    entry: LIBRARY_ENTRIES,
    format: ['esm', 'cjs'],
    splitting: true,
    dts: true,
  },
  {
    // Adapter worker thread: dist/sut-worker.js, loaded by createLlmSut.
    ...common,
    entry: { 'sut-worker': 'lib/sut/worker-main.ts' },
    format: ['esm'],
    dts: false,
  },
  {
    // CLI: dist/cli.js (ESM), the package's `loadgen` bin.
    ...common,
    entry: { cli: 'lib/cli/main.ts' },
    format: ['esm'],
    dts: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
