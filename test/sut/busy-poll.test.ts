// Busy polling (native/addon/busy_poll.h, LlmSutOptions.busyPoll): the
// thread's loop polls while requests are in flight and for the idle window
// after, stops by itself, never keeps a process alive, and runs end to end.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { setImmediate as tick } from 'node:timers/promises';

import { describe, expect, test } from 'vitest';

import { bindingPath, native } from '../../lib/core/binding.js';
import { createLlmSut } from '../../lib/index.js';
import { idDataset, serverRun, sim, track } from './helpers.js';

/** Turns of this thread's loop until `done()` holds (bounded: 20 s). */
async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > end) throw new Error('condition not reached in 20 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('native busy polling on one thread', () => {
  test('polls only while held and within the idle window, then stops; disable closes it', async () => {
    expect(native.busyPollStats().enabled).toBe(false);
    native.busyPollEnable(40);
    try {
      expect(native.busyPollStats()).toMatchObject({ enabled: true, polling: false, holds: 0, spins: 0 });
      native.busyPollHold(1);
      expect(native.busyPollStats()).toMatchObject({ polling: true, holds: 1 });
      for (let i = 0; i < 5; i++) await tick();
      const spun = native.busyPollStats().spins;
      expect(spun).toBeGreaterThan(0);
      // A second hold and one release: still held.
      native.busyPollHold(1);
      native.busyPollHold(-1);
      await tick();
      expect(native.busyPollStats()).toMatchObject({ polling: true, holds: 1 });
      // The last release starts the idle window; polling ends after it.
      native.busyPollHold(-1);
      expect(native.busyPollStats().holds).toBe(0);
      await until(() => !native.busyPollStats().polling);
      const after = native.busyPollStats().spins;
      expect(after).toBeGreaterThan(spun);
      await new Promise((r) => setTimeout(r, 20));
      expect(native.busyPollStats().spins).toBe(after); // no turn counted once stopped
      // A release below zero is clamped, and does not start polling.
      native.busyPollHold(-1);
      expect(native.busyPollStats()).toMatchObject({ polling: false, holds: 0 });
    } finally {
      native.busyPollDisable();
    }
    expect(native.busyPollStats().enabled).toBe(false);
  });

  test('users are counted: the handle closes with the last disable', () => {
    native.busyPollEnable(10);
    native.busyPollEnable(10);
    native.busyPollDisable();
    expect(native.busyPollStats().enabled).toBe(true);
    native.busyPollDisable();
    expect(native.busyPollStats().enabled).toBe(false);
    native.busyPollDisable(); // one too many: harmless
    expect(native.busyPollStats().enabled).toBe(false);
  });

  test('bad idle windows are refused', () => {
    expect(() => native.busyPollEnable(-1)).toThrow(/idleMs must be a finite number >= 0/);
    expect(() => native.busyPollEnable(Number.NaN)).toThrow(/idleMs must be a finite number >= 0/);
    expect(() => (native.busyPollEnable as (x: unknown) => void)('1')).toThrow(/expected idleMs/);
    expect(native.busyPollStats().enabled).toBe(false);
  });

  test('a held poll does not keep a process alive', () => {
    // The child holds the poll and returns from its script: it must exit on its own.
    const script = `const b = require(${JSON.stringify(bindingPath())}); b.busyPollEnable(60000); b.busyPollHold(1); setTimeout(() => { process.stdout.write(String(b.busyPollStats().spins > 0)); }, 30);`;
    const out = execFileSync(process.execPath, ['-e', script], { timeout: 15_000, encoding: 'utf8' });
    expect(out).toBe('true');
  });
});

describe('createLlmSut busyPoll', () => {
  test('bad values are refused before any endpoint is contacted', async () => {
    const base = { endpoints: ['http://127.0.0.1:1'], dataset: idDataset(4) };
    await expect(createLlmSut({ ...base, busyPoll: 'yes' as never })).rejects.toThrow(
      /busyPoll must be true, false or \{ idleMs \}, got yes/,
    );
    await expect(createLlmSut({ ...base, busyPoll: { idleMs: -3 } })).rejects.toThrow(
      /busyPoll.idleMs must be a finite number of milliseconds >= 0, got -3/,
    );
    await expect(createLlmSut({ ...base, busyPoll: { idleMs: Infinity } })).rejects.toThrow(/busyPoll.idleMs/);
  });

  test('on the main thread: a Server run completes, the loop polled during it and stops after', async () => {
    const s = await sim({ decodeStepNs: 200_000 });
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset: idDataset(16, 4),
        workers: 0,
        busyPoll: { idleMs: 30 },
        onWarning: () => {},
      }),
    );
    expect(native.busyPollStats()).toMatchObject({ enabled: true, polling: false });
    const { result } = await serverRun(llm, 40);
    expect(result.errors.messages).toEqual([]);
    const report = await llm.report();
    expect(report.samples).toMatchObject({ completed: 40, failed: 0 });
    expect(report.busyPollIdleMs).toBe(30);
    expect(native.busyPollStats().spins).toBeGreaterThan(0);
    await until(() => !native.busyPollStats().polling);
    await llm.close();
    expect(native.busyPollStats().enabled).toBe(false);
  });

  test('in worker threads: runs and closes; too many polling threads for the CPUs is a warning', async () => {
    const s = await sim({ decodeStepNs: 200_000 });
    const warnings: string[] = [];
    const cpus = availableParallelism();
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset: idDataset(16, 4),
        workers: cpus,
        busyPoll: true,
        onWarning: (m) => warnings.push(m),
      }),
    );
    expect(warnings.join('\n')).toMatch(
      new RegExp(`busyPoll: ${cpus} polling threads? on ${cpus} CPUs? leaves? no core for LoadGen's issue thread`),
    );
    const { result } = await serverRun(llm, 24);
    expect(result.errors.messages).toEqual([]);
    expect(await llm.report()).toMatchObject({ samples: { completed: 24, failed: 0 }, busyPollIdleMs: 1000 });
    await llm.close();
  });

  test('fewer polling threads than CPUs: no warning', async () => {
    const cpus = availableParallelism();
    if (cpus < 2) return;
    const s = await sim();
    const warnings: string[] = [];
    const llm = track(
      await createLlmSut({
        endpoints: [s.url],
        dataset: idDataset(4, 2),
        workers: cpus - 1,
        busyPoll: true,
        onWarning: (m) => warnings.push(m),
      }),
    );
    expect(warnings.filter((m) => m.startsWith('busyPoll'))).toEqual([]);
    await llm.close();
  });
});
