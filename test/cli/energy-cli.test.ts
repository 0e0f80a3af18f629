// `loadgen run` energy figures from the command line: the default run (the
// built-in simulator's GPU telemetry), --gpu-metrics at a simulator started
// on its own, per-endpoint gpuMetrics in a config file, bad URLs, and
// `loadgen report --aggregate` over runs with energy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { startSimulator, type Simulator } from '../../lib/index.js';
import { buildCli, runCli, tempDir, writeText, type CliRun } from './helpers.js';

let cli: string;
let cleanup: () => void;
let dir: string;
let sim: Simulator;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-energy-');
  sim = await startSimulator({ maxRunningSeqs: 16, decodeStepNs: 4_000_000, precisePacing: false, gpus: 2 });
});
afterAll(async () => {
  cleanup?.();
  await sim?.close();
});

const QUICK = ['--scenario', 'Server', '--target-qps', '50', '--set', 'min_duration=2500', '--synthetic-samples', '64'];

function results(out: string): Record<string, any> {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
}

function explain(r: CliRun): string {
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

const within5 = (got: number, truth: number) => Math.abs(got - truth) / truth;

describe('loadgen run energy', () => {
  test('a default run reports J per output token within 5 % of the simulator’s true energy', async () => {
    const out = join(dir, 'default');
    const r = await runCli(cli, ['run', ...QUICK, '--output-dir', out], dir);
    expect([0, 1], explain(r)).toContain(r.code);
    const e = results(out).energy;
    expect(e.missing).toBeNull();
    expect(e.method).toBe('counter');
    expect(within5(e.joulesPerOutputToken, e.simulator.trueJoulesPerOutputToken)).toBeLessThan(0.05);
    expect(r.stdout).toMatch(/energy: [\d.]+ J over [\d.]+ s on 1 GPU \(counter\), [\d.]+ J per output token/);
  });

  test('--gpu-metrics at a dcgm-exporter-shaped page gives the same', async () => {
    const out = join(dir, 'gpu-metrics');
    const r = await runCli(
      cli,
      ['run', ...QUICK, '--endpoint', sim.url, '--gpu-metrics', sim.gpuMetricsUrl, '--output-dir', out],
      dir,
    );
    expect([0, 1], explain(r)).toContain(r.code);
    const e = results(out).energy;
    expect(e.gpus).toHaveLength(2);
    expect(e.sources[0].endpoint).toBeNull();
    // The child's steady clock is the machine's CLOCK_MONOTONIC, the simulator's too.
    const truth = sim.gpuEnergyJoules(e.window.startNs, e.window.endNs);
    expect(within5(e.energyJ, truth)).toBeLessThan(0.05);
    expect(within5(e.joulesPerOutputToken, truth / e.outputTokens)).toBeLessThan(0.05);
  });

  test('per-endpoint gpuMetrics in a config file: J per token for that endpoint; aggregate sums the runs', async () => {
    const out = join(dir, 'config');
    const cfg = writeText(dir, 'energy.yaml', `endpoint:\n  - url: ${sim.url}\n    gpuMetrics: ${sim.gpuMetricsUrl}\n`);
    const r = await runCli(cli, ['run', '--config', cfg, ...QUICK, '--output-dir', out], dir);
    expect([0, 1], explain(r)).toContain(r.code);
    const e = results(out).energy;
    expect(e.sources[0].endpoint).toBe(sim.url);
    expect(e.sources[0].joulesPerOutputToken).toBeCloseTo(e.joulesPerOutputToken, 9);
    const agg = join(dir, 'agg.json');
    const a = await runCli(cli, ['report', '--aggregate', join(dir, 'default'), out, '--output', agg], dir);
    expect(a.code, explain(a)).toBe(0);
    expect(a.stdout).toMatch(/Energy +[\d,.]+ J over \d+ output tokens: [\d.]+ J\/token \(2 of 2 runs/);
    const j = JSON.parse(readFileSync(agg, 'utf8'));
    const runs = [results(join(dir, 'default')).energy, e];
    expect(j.energy.energyJ).toBeCloseTo(runs[0].energyJ + runs[1].energyJ, 6);
    expect(j.energy.outputTokens).toBe(runs[0].outputTokens + runs[1].outputTokens);
  });

  test('a telemetry page of garbage: a warning, the energy section says why, the run ends as usual', async () => {
    const out = join(dir, 'garbage');
    const r = await runCli(
      cli,
      ['run', ...QUICK, '--set', 'min_duration=300', '--gpu-metrics', `${sim.url}/v1/models`, '--output-dir', out],
      dir,
    );
    expect([0, 1], explain(r)).toContain(r.code);
    expect(r.stderr.split('\n').filter((l) => l.includes('GPU telemetry'))).toHaveLength(1);
    const e = results(out).energy;
    expect(e.energyJ).toBeNull();
    expect(e.missing).toMatch(/served no GPU metric/);
    expect(r.stdout).toMatch(/energy: none \(/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toMatch(/<h2>Energy<\/h2><p class="note">no GPU energy/);
  });

  test('a --gpu-metrics that is not an http URL is a usage error (exit 2), its password not shown', async () => {
    const r = await runCli(cli, ['run', ...QUICK, '--gpu-metrics', 'ftp://u:pw1234@x/metrics'], dir);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toMatch(/--gpu-metrics must be an http:\/\/ or https:\/\/ URL/);
    expect(r.stderr).not.toContain('pw1234');
  });
});
