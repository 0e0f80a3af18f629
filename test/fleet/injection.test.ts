// No shell injection: a hostile value in any placeholder of a custom
// command (a string run by /bin/sh -c, or a list whose program is a shell
// with -c) runs nothing and arrives as one verbatim argument; the same for
// the ssh remote line (run here by /bin/sh -c, as sshd's login shell would).
// Real processes: the plan is spawned by the launcher, each argument dumped.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeEach, describe, expect, test } from 'vitest';

import { ServerProcess } from '../../lib/fleet/launcher.js';
import { planServers } from '../../lib/fleet/plan.js';
import { parseServersSection } from '../../lib/fleet/spec.js';
import { remoteLine, sshArgv } from '../../lib/fleet/ssh.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKER = join(dir, 'pwned');
beforeEach(() => rmSync(MARKER, { force: true }));
const DUMP = join(dir, 'dump.cjs');
// Writes its arguments (and LOADGEN_TEST_ENV) as JSON to $DUMP_OUT.
writeFileSync(
  DUMP,
  'require("fs").writeFileSync(process.env.DUMP_OUT, JSON.stringify({ argv: process.argv.slice(2), env: process.env.LOADGEN_TEST_ENV ?? null }));\n',
);

const HOSTILE = [
  `m$(touch ${MARKER})`,
  `m\`touch ${MARKER}\``,
  `m; touch ${MARKER}`,
  `m | touch ${MARKER}`,
  `m && touch ${MARKER}`,
  `m\ntouch ${MARKER}`,
  `m'; touch ${MARKER}; '`,
  `m"; touch ${MARKER}; "`,
  `m' "$(touch ${MARKER})" '`,
  `m" '$(touch ${MARKER})' "`,
  `$HOME * ?`,
  `trailing\\`,
  `'`,
  `"`,
];

let n = 0;

/** Plans one custom server with this command and model/host, starts it with the launcher, returns what it received. */
async function launched(command: unknown, value: string): Promise<{ argv: string[] }> {
  const out = join(dir, `out-${++n}.json`);
  const [server] = await planServers(
    parseServersSection([
      { name: 'x', backend: 'custom', model: value, host: value, port: 8000, command, env: { DUMP_OUT: out } },
    ]),
  );
  const p = await ServerProcess.start(server.name, server.spawnArgv, server.env, join(dir, `x-${n}.log`), 1000);
  const exit = await p.exited;
  await p.stop();
  expect(exit.code, readFileSync(join(dir, `x-${n}.log`), 'utf8')).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as { argv: string[] };
}

describe('custom commands', () => {
  test.each(HOSTILE.map((v) => [JSON.stringify(v), v]))(
    'a string command: %s in {model} and {host}, bare, in "..." and in \'...\'',
    async (_, value) => {
      const got = await launched(
        `node ${DUMP} {model} "{model}" '{model}' --host {host} x{model}y "a{host}b" 'c{host}d' {port}`,
        value,
      );
      expect(got.argv).toEqual([
        value,
        value,
        value,
        '--host',
        value,
        `x${value}y`,
        `a${value}b`,
        `c${value}d`,
        '8000',
      ]);
      expect(existsSync(MARKER)).toBe(false);
    },
  );

  test.each(HOSTILE.map((v) => [JSON.stringify(v), v]))('a list command through bash -c: %s', async (_, value) => {
    const got = await launched(['bash', '-c', `exec node ${DUMP} {model} "{host}" '{model}'`], value);
    expect(got.argv).toEqual([value, value, value]);
    expect(existsSync(MARKER)).toBe(false);
  });

  test('a list command without a shell: each placeholder arrives verbatim', async () => {
    for (const value of HOSTILE.slice(0, 4)) {
      const got = await launched(['node', DUMP, '{model}', '--host={host}'], value);
      expect(got.argv).toEqual([value, `--host=${value}`]);
    }
    expect(existsSync(MARKER)).toBe(false);
  });

  test('plain values are written into the script (the command line stays readable)', async () => {
    const [server] = await planServers(
      parseServersSection([
        {
          name: 'x',
          backend: 'custom',
          model: 'org/Model-8B',
          port: 8000,
          command: 'exec serve {model} --port {port}',
        },
      ]),
    );
    expect(server.argv).toEqual(['/bin/sh', '-c', 'exec serve org/Model-8B --port 8000']);
    expect(Object.keys(server.env).filter((k) => k.startsWith('LOADGEN_'))).toEqual([]);
    const [odd] = await planServers(
      parseServersSection([{ name: 'x', backend: 'custom', model: 'a b', port: 8000, command: 'exec serve {model}' }]),
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${...}, not a template.
    expect(odd.argv).toEqual(['/bin/sh', '-c', 'exec serve "${LOADGEN_MODEL}"']);
    expect(odd.env.LOADGEN_MODEL).toBe('a b');
  });
});

describe('ssh', () => {
  test.each(HOSTILE.map((v) => [JSON.stringify(v), v]))(
    'the remote line runs %s as data (argv, env, workdir)',
    (_, value) => {
      const work = join(dir, `w ${n++}`);
      spawnSync('mkdir', ['-p', `${work}/${value.replace(/\//g, '_')}`]);
      const line = remoteLine(
        ['node', DUMP, value, `--x=${value}`],
        { DUMP_OUT: join(dir, 'ssh.json'), LOADGEN_TEST_ENV: value },
        `${work}/${value.replace(/\//g, '_')}`,
      );
      const r = spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(readFileSync(join(dir, 'ssh.json'), 'utf8')) as { argv: string[]; env: string };
      expect(got).toEqual({ argv: [value, `--x=${value}`], env: value });
      expect(existsSync(MARKER)).toBe(false);
    },
  );

  test('nodes and users that ssh would read as options or the remote shell would split are refused', () => {
    expect(() =>
      parseServersSection([
        { name: 'x', backend: 'vllm', model: 'm', port: 8000, nodes: ['-oProxyCommand=touch /tmp/x'] },
      ]),
    ).toThrow(/'servers\[0\]\.nodes\[0\]' must not start with '-'/);
    expect(() =>
      parseServersSection([{ name: 'x', backend: 'vllm', model: 'm', port: 8000, nodes: 'gpu1;touch x' }]),
    ).toThrow(/'servers\[0\]\.nodes' must be a host name or address/);
    expect(() =>
      parseServersSection([
        { name: 'x', backend: 'vllm', model: 'm', port: 8000, nodes: ['gpu1'], ssh: { user: '-lroot' } },
      ]),
    ).toThrow(/'servers\[0\]\.ssh\.user' must not start with '-'/);
    expect(() => sshArgv('-oProxyCommand=x', ['true'], {})).toThrow(/ssh host must not start with '-'/);
    expect(() =>
      parseServersSection([
        { name: 'x', backend: 'vllm', model: 'm', port: 8000, nodes: ['gpu1', '10.0.0.2', 'fe80::1%eth0'] },
      ]),
    ).not.toThrow();
  });
});
