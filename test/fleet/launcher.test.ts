// Stopping a server: SIGTERM to its process group, SIGKILL after the grace
// period for one that ignores SIGTERM; its workers (same group) go too.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, expect, test } from 'vitest';

import { pidAlive, ServerProcess, SpawnError } from '../../lib/fleet/launcher.js';
import { logTail } from '../../lib/fleet/log-tail.js';
import { allGone, tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a server that ignores SIGTERM is killed after the grace period, with its child', async () => {
  const log = join(dir, 'stubborn.log');
  // The shell ignores SIGTERM and starts a worker (sleep) in the same group.
  const p = await ServerProcess.start(
    'stubborn',
    ['/bin/sh', '-c', 'trap "" TERM; sleep 30 & echo "worker $!"; wait'],
    {},
    log,
    300,
  );
  let worker = 0;
  for (let i = 0; i < 100 && !worker; i++) {
    worker = Number(/worker (\d+)/.exec(readFileSync(log, 'utf8'))?.[1] ?? 0);
    if (!worker) await new Promise((r) => setTimeout(r, 20));
  }
  expect(worker).toBeGreaterThan(0);
  expect(pidAlive(p.pid!)).toBe(true);
  const exit = await p.stop();
  expect(p.killed).toBe(true);
  expect(exit.signal).toBe('SIGKILL');
  expect(await allGone([p.pid!, worker])).toBe(true);
});

test('a clean stop: SIGTERM is enough', async () => {
  const p = await ServerProcess.start(
    'polite',
    ['/bin/sh', '-c', 'echo up; sleep 30'],
    {},
    join(dir, 'polite.log'),
    5000,
  );
  for (let i = 0; i < 100 && logTail(join(dir, 'polite.log')).length === 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  const exit = await p.stop();
  expect(p.killed).toBe(false);
  expect(exit.signal).toBe('SIGTERM');
  expect(logTail(join(dir, 'polite.log'))).toEqual(['up']);
});

test('a program that does not exist is a SpawnError naming it', async () => {
  await expect(ServerProcess.start('x', ['/nonexistent/engine'], {}, join(dir, 'x.log'), 100)).rejects.toThrow(
    SpawnError,
  );
  await expect(ServerProcess.start('x', ['/nonexistent/engine'], {}, join(dir, 'x.log'), 100)).rejects.toThrow(
    '/nonexistent/engine: command not found',
  );
});

test('log tail: last lines, progress bars at their last state, colours removed', () => {
  const p = join(dir, 'tail.log');
  writeFileSync(p, '# loadgen: starting\na\n\x1b[32mb\x1b[0m\nshards 0%\rshards 50%\rshards 100%\n\n');
  expect(logTail(p)).toEqual(['a', 'b', 'shards 100%']);
  expect(logTail(p, 1)).toEqual(['shards 100%']);
  expect(logTail(join(dir, 'none.log'))).toEqual([]);
});
