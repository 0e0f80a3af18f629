// The built package (`npm run build:ts`): every entry resolves by the
// package's own name (a self-reference, as a user's import would) in ESM and
// in CJS, exposes the same runtime names as its TypeScript module, shares one
// copy of each module with the other entries (one LoadgenError for
// instanceof), and its types resolve for both (.d.ts for import, .d.cts for
// require) with the same value names.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers.js';
import { ENTRIES, PACKAGE, runtimeNames } from './entries.js';

const DIST = join(REPO_ROOT, 'dist');
const STALE = 'dist/ differs from lib/: run `npm run build:ts` (npm test does it first)';

const expected = new Map<string, string[]>();
let loaded: {
  esm: Record<string, string[]>;
  cjs: Record<string, string[]>;
  shared: Record<string, boolean>;
};

beforeAll(async () => {
  const files = ENTRIES.flatMap((e) => ['js', 'cjs', 'd.ts', 'd.cts'].map((x) => join(DIST, `${e.name}.${x}`)));
  if (!files.every((f) => existsSync(f))) execSync('npm run build:ts', { cwd: REPO_ROOT, stdio: 'inherit' });
  for (const e of ENTRIES) expected.set(e.specifier, await runtimeNames(e));

  // A separate Node process resolves the specifiers as a user's code would
  // (package.json "exports" through the self-reference).
  const script = `
    import { createRequire } from 'node:module';
    const specs = ${JSON.stringify(ENTRIES.map((e) => e.specifier))};
    const require = createRequire(process.cwd() + '/package.json');
    const esm = {}, cjs = {}, e = {}, c = {};
    for (const s of specs) {
      e[s] = await import(s);
      c[s] = require(s);
      esm[s] = Object.keys(e[s]).sort();
      cjs[s] = Object.keys(c[s]).sort();
    }
    const main = ${JSON.stringify(PACKAGE.name)};
    const shared = {
      esmErrorBase: new e[main + '/accuracy'].TokenizerError('x') instanceof e[main].LoadgenError,
      cjsErrorBase: new c[main + '/accuracy'].TokenizerError('x') instanceof c[main].LoadgenError,
      esmSameFunction: e[main].readRunLogs === e[main + '/report'].readRunLogs,
      cjsSameFunction: c[main].readRunLogs === c[main + '/report'].readRunLogs,
    };
    process.stdout.write(JSON.stringify({ esm, cjs, shared }));
  `;
  loaded = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8' }),
  );
}, 180_000);

describe('dist/ entries', () => {
  it.each(ENTRIES.map((e) => [e.specifier]))('%s: import() gives the names of its TypeScript module', (spec) => {
    expect(loaded.esm[spec], STALE).toEqual(expected.get(spec));
  });

  it.each(ENTRIES.map((e) => [e.specifier]))('%s: require() gives the names of its TypeScript module', (spec) => {
    expect(loaded.cjs[spec], STALE).toEqual(expected.get(spec));
  });

  it('entries share their modules (one LoadgenError, one readRunLogs) in ESM and in CJS', () => {
    expect(loaded.shared).toEqual({
      esmErrorBase: true,
      cjsErrorBase: true,
      esmSameFunction: true,
      cjsSameFunction: true,
    });
  });

  describe('types', () => {
    let dir: string;
    beforeAll(() => {
      // Inside the package (node_modules/.cache), so that the self-reference resolves.
      const cache = join(REPO_ROOT, 'node_modules', '.cache');
      mkdirSync(cache, { recursive: true });
      dir = mkdtempSync(join(cache, 'loadgen-api-types-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('resolve for import (.d.ts) and require (.d.cts), with the same value names as the modules', () => {
      const esm = ENTRIES.map((e, i) => `import * as e${i} from '${e.specifier}';\nvoid e${i};`).join('\n');
      const cjs = ENTRIES.map((e, i) => `import e${i} = require('${e.specifier}');\nvoid e${i};`).join('\n');
      writeFileSync(join(dir, 'esm.mts'), esm + '\n');
      writeFileSync(join(dir, 'cjs.cts'), cjs + '\n');
      const program = ts.createProgram([join(dir, 'esm.mts'), join(dir, 'cjs.cts')], {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);

      const checker = program.getTypeChecker();
      for (const [file, ext] of [
        ['esm.mts', '.d.ts'],
        ['cjs.cts', '.d.cts'],
      ] as const) {
        const source = program.getSourceFile(join(dir, file))!;
        const specs: ts.Expression[] = [];
        source.forEachChild((n) => {
          if (ts.isImportDeclaration(n)) specs.push(n.moduleSpecifier);
          if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference))
            specs.push(n.moduleReference.expression);
        });
        for (const [i, spec] of specs.entries()) {
          const entry = ENTRIES[i];
          const moduleSymbol = checker.getSymbolAtLocation(spec)!;
          const declFile = moduleSymbol.declarations![0].getSourceFile().fileName;
          expect(declFile, entry.specifier).toBe(join(DIST, entry.name + ext));
          const values = checker
            .getExportsOfModule(moduleSymbol)
            .filter((s) => {
              const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
              return (target.flags & ts.SymbolFlags.Value) !== 0;
            })
            .map((s) => s.name)
            .sort();
          expect(values, `${entry.specifier} (${ext}); ${STALE}`).toEqual(expected.get(entry.specifier));
        }
      }
    });
  });
});
