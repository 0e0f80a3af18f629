import { accessSync, constants, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { native } from '../lib/core/binding.js';
import { CPU_DMA_LATENCY, holdCpuIdleLatency } from '../lib/core/cpu-idle-latency.js';
import { SettingsError } from '../lib/core/settings.js';
import { startTest } from '../lib/core/start-test.js';
import { cleanupTempDirs, inlineSut, makeTempDir, nullQsl } from './helpers.js';

afterAll(cleanupTempDirs);

const openFds = () => readdirSync('/proc/self/fd').length;

function deviceWritable(): boolean {
  try {
    accessSync(CPU_DMA_LATENCY, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const SETTINGS = {
  scenario: 'Offline',
  mode: 'PerformanceOnly',
  offlineExpectedQps: 1000,
  minDurationMs: 0,
  minQueryCount: 32,
} as const;

describe.skipIf(process.platform !== 'linux')('cpu idle latency (PM QoS) request', () => {
  test('writes the bound as the 32-bit binary value the kernel reads, and holds the file open until released', () => {
    const file = join(makeTempDir(), 'qos');
    writeFileSync(file, '');
    const before = openFds();
    const hold = holdCpuIdleLatency(70, file);
    expect(hold.us).toBe(70);
    expect(openFds()).toBe(before + 1);
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(4);
    expect(bytes.readInt32LE(0)).toBe(70);
    hold.release();
    hold.release();
    expect(openFds()).toBe(before);
  });

  test('a bad bound is a SettingsError naming the option; a file that cannot be opened an error naming it and why', () => {
    for (const bad of [-1, 1.5, Number.NaN, '0', 3e9]) {
      let err: unknown;
      try {
        holdCpuIdleLatency(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SettingsError);
      expect((err as SettingsError).field).toBe('cpuIdleLatencyUs');
    }
    const missing = join(makeTempDir(), 'no', 'such', 'dir');
    expect(() => holdCpuIdleLatency(0, missing)).toThrow(
      new RegExp(`cannot open ${missing.replace(/[/.]/g, '\\$&')} \\(ENOENT\\)`),
    );
  });

  test('startTest holds the request for the test and reports it, or refuses before starting when it cannot be held', async () => {
    const before = openFds();
    expect(() =>
      startTest(inlineSut(), nullQsl(64), SETTINGS, { outdir: makeTempDir() }, { cpuIdleLatencyUs: -5 }),
    ).toThrow(SettingsError);
    expect(native.testRunning()).toBe(false);
    if (deviceWritable()) {
      const result = await startTest(
        inlineSut(),
        nullQsl(64),
        SETTINGS,
        { outdir: makeTempDir() },
        { cpuIdleLatencyUs: 0 },
      );
      expect(result.cpuIdleLatencyUs).toBe(0);
      expect(result.valid).not.toBeNull();
    } else {
      expect(() =>
        startTest(inlineSut(), nullQsl(64), SETTINGS, { outdir: makeTempDir() }, { cpuIdleLatencyUs: 0 }),
      ).toThrow(/cpuIdleLatencyUs: cannot open \/dev\/cpu_dma_latency/);
      expect(native.testRunning()).toBe(false);
    }
    expect(openFds()).toBe(before);
    // Without the option nothing is held and the result says so.
    const plain = await startTest(inlineSut(), nullQsl(64), SETTINGS, { outdir: makeTempDir() });
    expect(plain.cpuIdleLatencyUs).toBeNull();
  });
});
