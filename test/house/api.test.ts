// The public API (issue 24, item 2): the main entry stays small (at most 60
// runtime names), internals are exported by no entry, the entries agree with
// package.json, tsup.config.ts and lib/*.ts, and API.md has a heading for
// every runtime export of every entry, under that entry's section.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers.js';
import { ENTRIES, PACKAGE, runtimeNames } from './entries.js';

const MAIN_LIMIT = 60;

// Internals: no entry may export these (they were exported before the API was curated).
const INTERNAL = [
  'nativeBinding',
  'bindingPath',
  'shellQuote',
  'sshArgv',
  'commandLine',
  'porterStem',
  'rougeTokenize',
  'composeSettings',
  'registerAccuracyCommand',
  'runAccuracyCommand',
  'settingName',
  'parseEndpointUrl',
  'CPU_DMA_LATENCY',
  'SIMULATOR_DEFAULTS',
  'SIMULATED_RUN_DEFAULTS',
  'SYNTHETIC_DEFAULTS',
  'GENERIC_LLM_BOUNDS',
  'classifyError',
  'reportError',
  'writeFileAtomic',
  'WORKER_QUEUES',
];

const names = new Map<string, string[]>();
const modules = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  for (const e of ENTRIES) {
    names.set(e.specifier, await runtimeNames(e));
    modules.set(e.specifier, (await import(join(REPO_ROOT, e.source))) as Record<string, unknown>);
  }
});

/** API.md split by `## <entry>` sections: entry → the `### name` headings in it. */
function apiHeadings(): Map<string, string[]> {
  const text = readFileSync(join(REPO_ROOT, 'API.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const section = /^## (\S+)\s*$/.exec(line);
    if (section) {
      current = section[1].startsWith(PACKAGE.name) ? [] : null;
      if (current) out.set(section[1], current);
      continue;
    }
    if (line.startsWith('## ')) current = null;
    const heading = /^### (.+?)\s*$/.exec(line);
    if (heading && current) current.push(heading[1]);
  }
  return out;
}

describe('the public entries', () => {
  it('package.json exports, tsup.config.ts and lib/*.ts list the same entries', () => {
    const libEntries = readdirSync(join(REPO_ROOT, 'lib'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(ENTRIES.map((e) => e.name).sort()).toEqual(libEntries);
    const tsup = readFileSync(join(REPO_ROOT, 'tsup.config.ts'), 'utf8');
    for (const e of ENTRIES) expect(tsup, e.name).toContain(`${e.name}: '${e.source}'`);
  });

  it('each export has import and require conditions, types first, for .d.ts and .d.cts', () => {
    for (const e of ENTRIES) {
      const cond = PACKAGE.exports[e.key] as Record<string, Record<string, string>>;
      expect(cond, e.key).toEqual({
        import: { types: `./dist/${e.name}.d.ts`, default: `./dist/${e.name}.js` },
        require: { types: `./dist/${e.name}.d.cts`, default: `./dist/${e.name}.cjs` },
      });
      for (const c of Object.values(cond)) expect(Object.keys(c)[0], e.key).toBe('types');
    }
  });

  it(`the main entry exports at most ${MAIN_LIMIT} runtime names`, () => {
    const main = names.get(PACKAGE.name)!;
    expect(main.length, main.join(' ')).toBeLessThanOrEqual(MAIN_LIMIT);
  });

  it('no entry exports an internal', () => {
    const leaked = [...names].flatMap(([spec, list]) =>
      list.filter((n) => INTERNAL.includes(n)).map((n) => `${spec}: ${n}`),
    );
    expect(leaked).toEqual([]);
  });

  it('a name exported by two entries is the same value in both', () => {
    const seen = new Map<string, [string, unknown]>();
    const differ: string[] = [];
    for (const [spec, mod] of modules) {
      for (const [n, v] of Object.entries(mod)) {
        const first = seen.get(n);
        if (!first) seen.set(n, [spec, v]);
        else if (first[1] !== v) differ.push(`${n}: ${first[0]} and ${spec}`);
      }
    }
    expect(differ).toEqual([]);
  });
});

describe('API.md', () => {
  it('has a section per entry', () => {
    expect([...apiHeadings().keys()].sort()).toEqual(ENTRIES.map((e) => e.specifier).sort());
  });

  it('has a heading for every runtime export, in its entry section', () => {
    const headings = apiHeadings();
    const missing = ENTRIES.flatMap((e) =>
      names
        .get(e.specifier)!
        .filter((n) => !(headings.get(e.specifier) ?? []).includes(n))
        .map((n) => `${e.specifier}: ${n}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no heading for a name the entry does not export (### is for exports, #### for the rest)', () => {
    const headings = apiHeadings();
    const stale = ENTRIES.flatMap((e) =>
      (headings.get(e.specifier) ?? [])
        .filter((h) => !names.get(e.specifier)!.includes(h))
        .map((h) => `${e.specifier}: ${h}`),
    );
    expect(stale).toEqual([]);
  });

  it('names each export once per entry', () => {
    const dup = [...apiHeadings()].flatMap(([spec, hs]) =>
      hs.filter((h, i) => hs.indexOf(h) !== i).map((h) => `${spec}: ${h}`),
    );
    expect(dup).toEqual([]);
  });
});
