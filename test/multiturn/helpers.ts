// Shared bits of the multi-turn tests: fixture paths and a temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURES = join(__dirname, '..', 'fixtures', 'multiturn');
export const fixture = (name: string): string => join(FIXTURES, name);

export function tempDir(): { dir: string; file(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lg-multiturn-'));
  return { dir, file: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
