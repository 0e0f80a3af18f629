// SMOKE TEST OF THE BUILD: checks only that the native addon compiled and
// loads through lib/core/binding.ts, and that the CLI entry point parses. The
// library's behaviour is tested elsewhere.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { bindingPath, native, packageRoot } from '../lib/core/binding.js';
import { createProgram, NOT_IMPLEMENTED_EXIT_CODE } from '../lib/cli/main.js';

describe('build smoke test', () => {
  it('loads the addon and reads native.engineVersion', () => {
    expect(typeof native.engineVersion).toBe('string');
    expect(native.engineVersion.length).toBeGreaterThan(0);
  });

  it('reports where the addon came from', () => {
    const path = bindingPath();
    expect(path.endsWith('.node')).toBe(true);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(`${packageRoot}/package.json`)).toBe(true);
  });

  it('builds the CLI program with its placeholder subcommands', () => {
    const program = createProgram();
    expect(program.name()).toBe('loadgen');
    expect(program.commands.map((c) => c.name())).toEqual(expect.arrayContaining(['run', 'probe', 'report', 'sim']));
    expect(NOT_IMPLEMENTED_EXIT_CODE).toBe(2);
  });
});

describe("built CLI smoke test (dist/cli.js, made by `npm test`'s pretest)", () => {
  const cli = `${packageRoot}/dist/cli.js`;

  it.skipIf(!existsSync(cli))(
    'prints the package version; every command is there; a usage error exits 2 without a stack trace',
    () => {
      const { version } = JSON.parse(readFileSync(`${packageRoot}/package.json`, 'utf8')) as { version: string };

      const v = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
      expect(v.status).toBe(0);
      expect(v.stdout.trim()).toBe(version);

      const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
      expect(help.status).toBe(0);
      for (const cmd of ['run', 'probe', 'report', 'accuracy', 'sim', 'serve'])
        expect(help.stdout).toMatch(new RegExp(`^\\s+${cmd}\\b`, 'm'));
      expect(help.stdout).not.toContain('not implemented');

      // No --scenario: a usage error, one clear line.
      const run = spawnSync(process.execPath, [cli, 'run'], { encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/scenario/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
