// The docs stay a front door and guides: README.md at most 300 lines, every
// relative link (and #anchor) in the Markdown files resolves, and docs/
// ships in the package.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers.js';

const SKIP = new Set(['node_modules', '.git', 'build', 'dist', 'prebuilds']);

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith('build-')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, -1, -2 for repeats. */
function anchorsOf(file: string): Set<string> {
  const set = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      continue;
    }
    const m = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    set.add(n ? `${base}-${n}` : base);
  }
  return set;
}

describe('documentation', () => {
  it('README.md is at most 300 lines', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link in the Markdown files resolves, anchors included', () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    let links = 0;
    for (const file of markdownFiles(REPO_ROOT)) {
      let fence = false;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*```/.test(line)) {
            fence = !fence;
            return;
          }
          if (fence) return;
          for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
            const target = m[1];
            if (/^[a-z]+:/i.test(target)) continue;
            links++;
            const [path, anchor] = target.split('#');
            const dest = path ? resolve(dirname(file), path) : file;
            let problem: string | null = null;
            if (!existsSync(dest)) problem = 'no such file';
            else if (anchor && statSync(dest).isFile() && dest.endsWith('.md')) {
              if (!anchors.has(dest)) anchors.set(dest, anchorsOf(dest));
              if (!anchors.get(dest)!.has(anchor)) problem = `no heading #${anchor}`;
            }
            if (problem) broken.push(`${relative(REPO_ROOT, file)}:${i + 1}: ${target}: ${problem}`);
          }
        });
    }
    expect(links).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('docs/ has the guides and ships in the package', () => {
    const guides = readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(guides.length).toBeGreaterThanOrEqual(5);
    const files = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toContain('docs');
    expect(existsSync(join(REPO_ROOT, 'LICENSE'))).toBe(true);
  });
});
