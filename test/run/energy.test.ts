// The energy figures end to end against the simulator, whose GPU power model
// knows its energy exactly: the default run (the built-in simulator's
// telemetry) and --gpu-metrics at a simulator started on its own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runBenchmark, runSweep, startSimulator, type RunBenchmarkOptions } from '../../lib/index.js';

const dirs: string[] = [];
function outdir(): string {
  const d = mkdtempSync(join(tmpdir(), 'loadgen-energy-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SHORT: Omit<RunBenchmarkOptions, 'outdir'> = {
  scenario: 'Server',
  targetQps: 60,
  dataset: { synthetic: { size: 64, inputLength: 16, outputLength: 24 } },
  settings: { minDurationMs: 2500, minQueryCount: 1 },
  workers: 1,
  metricsIntervalMs: 0,
  log: () => undefined,
};

describe('energy', () => {
  it('a default run reports joules per output token within 5 % of the simulator’s true energy', async () => {
    const dir = outdir();
    const record = await runBenchmark({ ...SHORT, outdir: dir });
    const e = record.energy!;
    expect(e.missing).toBeNull();
    expect(e.method).toBe('counter');
    expect(e.outputTokens).toBeGreaterThan(0);
    expect(e.simulator).toBeTruthy();
    const truth = e.simulator!.trueJoulesPerOutputToken!;
    expect(truth).toBeGreaterThan(0);
    expect(Math.abs(e.joulesPerOutputToken! - truth) / truth).toBeLessThan(0.05);
    // The simulator idled at 70 W before the test; what the batch itself cost is the rest.
    expect(e.idlePowerW).toBe(70);
    const aboveIdle = (e.simulator!.trueJoules - 70 * e.window.seconds) / e.outputTokens;
    expect(Math.abs(e.joulesPerOutputTokenAboveIdle! - aboveIdle) / aboveIdle).toBeLessThan(0.1);
    expect(e.gpus).toHaveLength(1);
    expect(e.gpus[0]!.model).toBe('NVIDIA H100 80GB HBM3');
    // Mean power above idle (the batch ran) and below the cap.
    expect(e.meanPowerW!).toBeGreaterThan(70);
    expect(e.peakPowerW!).toBeLessThanOrEqual(700);
    const json = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
      energy?: { joulesPerOutputToken: number };
    };
    expect(json.energy?.joulesPerOutputToken).toBeCloseTo(e.joulesPerOutputToken!, 6);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('J / output token');
  }, 60_000);

  it('--gpu-metrics at a separately started simulator gives its true energy over the window', async () => {
    const sim = await startSimulator({
      maxRunningSeqs: 16,
      decodeStepNs: 4_000_000,
      precisePacing: false,
      gpus: 2,
      gpuIdleWatts: 50,
      gpuWattsPerSeq: 20,
    });
    try {
      const record = await runBenchmark({
        ...SHORT,
        outdir: outdir(),
        endpoints: [sim.url],
        gpuMetrics: [sim.gpuMetricsUrl],
      });
      const e = record.energy!;
      expect(e.gpus).toHaveLength(2);
      expect(e.simulator ?? null).toBeNull();
      const truth = sim.gpuEnergyJoules(e.window.startNs, e.window.endNs);
      expect(truth).toBeGreaterThan(2 * 50 * e.window.seconds);
      expect(Math.abs(e.energyJ! - truth) / truth).toBeLessThan(0.05);
      expect(Math.abs(e.joulesPerOutputToken! - truth / e.outputTokens) / (truth / e.outputTokens)).toBeLessThan(0.05);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a telemetry URL that refuses: a one-line warning, the energy section says why, the run goes on', async () => {
    const sim = await startSimulator({ decodeStepNs: 2_000_000, precisePacing: false });
    const port = sim.port;
    await sim.close();
    const lines: string[] = [];
    const record = await runBenchmark({
      ...SHORT,
      settings: { minDurationMs: 500, minQueryCount: 1 },
      outdir: outdir(),
      gpuMetrics: [`http://u:s3cretpw@127.0.0.1:${port}/metrics`],
      log: (m) => lines.push(m),
    });
    expect(record.result.counts.samples).toBeGreaterThan(0);
    const e = record.energy!;
    expect(e.energyJ).toBeNull();
    expect(e.missing).toMatch(/did not answer/);
    expect(e.sources[0]!.url).not.toContain('s3cretpw');
    const warn = lines.filter((l) => l.includes('GPU telemetry'));
    expect(warn).toHaveLength(1);
    expect(warn[0]).not.toContain('s3cretpw');
  }, 60_000);

  it('a sweep point carries its J per output token, lower at the higher load (idle power spread over more tokens)', async () => {
    const dir = outdir();
    const { sweep } = await runSweep({
      ...SHORT,
      settings: { minDurationMs: 1500, minQueryCount: 1 },
      outdir: dir,
      points: [10, 80],
    });
    const j = sweep.points.map((p) => p.joulesPerOutputToken);
    expect(j.every((v) => v !== null && v > 0)).toBe(true);
    expect(j[1]!).toBeLessThan(j[0]!);
    expect(readFileSync(join(dir, 'sweep.html'), 'utf8')).toContain('GPU energy per output token vs throughput');
  }, 60_000);
});
