// The package's entries, as package.json "exports" lists them: `@x/loadgen`
// (lib/index.ts) and its subpaths (`@x/loadgen/<name>`, lib/<name>.ts), with
// the runtime names each module exports. Shared by api.test.ts and
// dist-entries.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from '../helpers.js';

export const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | Record<string, Record<string, string>>>;
};

export interface Entry {
  /** What users import: '@x/loadgen' or '@x/loadgen/accuracy'. */
  specifier: string;
  /** The exports key: '.' or './accuracy'. */
  key: string;
  /** The file name in dist/ and lib/ without extension: 'index' or 'accuracy'. */
  name: string;
  /** lib/<name>.ts, relative to the repository. */
  source: string;
}

export const ENTRIES: Entry[] = Object.keys(PACKAGE.exports)
  .filter((key) => key !== './package.json')
  .map((key) => {
    const name = key === '.' ? 'index' : key.slice(2);
    return { specifier: key === '.' ? PACKAGE.name : `${PACKAGE.name}/${name}`, key, name, source: `lib/${name}.ts` };
  });

/** The runtime names the TypeScript module of an entry exports, sorted. */
export async function runtimeNames(entry: Entry): Promise<string[]> {
  const mod = (await import(join(REPO_ROOT, entry.source))) as Record<string, unknown>;
  return Object.keys(mod).sort();
}
