// The house rules of lib/ (docs/architecture.md): one-way doors between the
// layers, no import cycles, no file over 700 lines, one error base.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers.js';
import { importCycles, importGraph, listTsFiles } from './import-graph.js';

const graph = importGraph(REPO_ROOT);

function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 2) return 'entry'; // lib/index.ts and the subpath entries
  return parts[1];
}

// What each layer may import (besides itself). Areas sit between core and
// run, in docs/architecture.md's order: each imports only those before it.
const AREAS = [
  'dataset',
  'sim',
  'resume',
  'sut',
  'accuracy',
  'metrics',
  'cost',
  'multiturn',
  'fleet',
  'results',
  'report',
  'compliance',
  'submission',
];
const ALLOWED: Record<string, string[]> = {
  core: [],
  ...Object.fromEntries(AREAS.map((a, i) => [a, ['core', ...AREAS.slice(0, i)]])),
  run: ['core', ...AREAS],
  cli: ['core', ...AREAS, 'run'],
  entry: ['core', ...AREAS, 'run'],
};

describe('lib/ layers', () => {
  it('every folder of lib/ is a known layer', () => {
    for (const file of graph.keys()) expect(Object.keys(ALLOWED), file).toContain(layerOf(file));
  });

  it('nothing outside lib/cli imports lib/cli, and each layer imports only the layers below it', () => {
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      const from = layerOf(file);
      for (const dep of deps) {
        const to = layerOf(dep);
        if (to !== from && !ALLOWED[from].includes(to)) bad.push(`${file} -> ${dep}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('has no import cycle (type imports included)', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('has no source file over 700 lines (lib, native, tests, scripts, benchmarks)', () => {
    const tracked = execFileSync('git', ['ls-files', '-z', 'lib', 'native', 'test', 'scripts', 'bench'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => /\.(ts|mts|mjs|js|cc|h|c|py|sh)$/.test(f));
    expect(tracked.length).toBeGreaterThan(100);
    const long = tracked
      .map((f) => [f, readFileSync(join(REPO_ROOT, f), 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 700);
    expect(long).toEqual([]);
  });

  it('has one error base: every error class derives from LoadgenError', () => {
    const direct: string[] = [];
    for (const f of listTsFiles(join(REPO_ROOT, 'lib'))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/class\s+(\w+)\s+extends\s+(\w*Error)\b/g)) {
        if (m[1] !== 'LoadgenError' && (m[2] === 'Error' || m[2] === 'TypeError' || m[2] === 'RangeError'))
          direct.push(`${f.slice(REPO_ROOT.length + 1)}: ${m[1]}`);
      }
    }
    expect(direct).toEqual([]);
  });
});
