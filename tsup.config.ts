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

export default defineConfig([
  {
    // Library: dist/index.js (ESM), dist/index.cjs (CJS), dist/index.d.ts + dist/index.d.cts.
    ...common,
    entry: { index: 'lib/index.ts' },
    format: ['esm', 'cjs'],
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
