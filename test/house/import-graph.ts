// The import graph of lib/ (static imports, type-only imports, re-exports and
// dynamic import() calls with a literal path), for the house rules' tests.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function listTsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTsFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

/** file (relative to root) → the lib files it imports (relative to root). */
export function importGraph(root: string, libDir = 'lib'): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const abs of listTsFiles(join(root, libDir))) {
    const from = relative(root, abs);
    const text = readFileSync(abs, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2];
      if (!spec?.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(abs), spec.replace(/\.js$/, '.ts')));
      deps.push(target);
    }
    graph.set(from, deps);
  }
  return graph;
}

/** Every cycle's files, one list per strongly connected component of more than one file (or a self-import). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
