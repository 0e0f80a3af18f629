// examples/*.ts: they type-check against the package's API, and each runs
// to the end against the simulator (bundled with '@x/loadgen' pointing at
// lib/, runs shortened with MIN_DURATION_MS).
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { ESBUILD_NODE, REPO, runCli, tempDir } from './helpers.js';

const EXAMPLES = join(REPO, 'examples');
let bundleDir: string;
let cwd: string;

beforeAll(async () => {
  const cache = join(REPO, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  bundleDir = mkdtempSync(join(cache, 'loadgen-examples-'));
  cwd = tempDir('lg-examples-');
  const { build } = await import('esbuild');
  const common = { ...ESBUILD_NODE, alias: { '@x/loadgen': join(REPO, 'lib/index.ts') } };
  await build({
    ...common,
    entryPoints: [join(REPO, 'lib/sut/worker-main.ts')],
    outfile: join(bundleDir, 'sut-worker.js'),
  });
  for (const f of readdirSync(EXAMPLES).filter((n) => n.endsWith('.ts'))) {
    await build({ ...common, entryPoints: [join(EXAMPLES, f)], outfile: join(bundleDir, f.replace(/\.ts$/, '.js')) });
  }
});
afterAll(() => {
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

describe('examples', () => {
  test('type-check against the API', () => {
    const files = readdirSync(EXAMPLES)
      .filter((n) => n.endsWith('.ts'))
      .map((n) => join(EXAMPLES, n));
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(REPO, 'node_modules', '@types')],
      baseUrl: REPO,
      paths: { '@x/loadgen': ['lib/index.ts'] },
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });

  const runs: Array<[string, RegExp]> = [
    ['custom-sut', /^(VALID|INVALID) /],
    ['vllm-server', /^(VALID|INVALID) [\d.]+ samples\/s\nTTFT p99/],
    ['sglang-offline', /^VALID [\d.]+ samples\/s/],
    [
      'multi-node',
      /VALID[\s\S]*http:\/\/127\.0\.0\.1:\d+: \d+ requests[\s\S]*http:\/\/127\.0\.0\.1:\d+: \d+ requests[\s\S]*http:\/\/127\.0\.0\.1:\d+: \d+ requests/,
    ],
    ['accuracy-run', /32 of 32 samples/],
    // The simulator's hits are the plan's reusable tokens: rows 3, 5, ... find the two shared blocks.
    [
      'trace-replay',
      /plan: 40 requests over 1\.95 s, 19456 of \d+ prompt tokens reusable[\s\S]*replayed 40 requests: issue time - trace time p99 [\d.]+ ms[\s\S]*server prefix cache: 19456 hits/,
    ],
  ];
  test.each(runs)('%s runs against the simulator', async (name, output) => {
    const prev = process.env.MIN_DURATION_MS;
    process.env.MIN_DURATION_MS = '1000';
    try {
      const r = await runCli(join(bundleDir, `${name}.js`), [], cwd, 90_000);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(output);
    } finally {
      if (prev === undefined) delete process.env.MIN_DURATION_MS;
      else process.env.MIN_DURATION_MS = prev;
    }
  });
});
