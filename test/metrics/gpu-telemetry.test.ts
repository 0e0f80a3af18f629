// GPU telemetry: exporters' names and units, the energy counter's resets,
// a window's energy by counter and by integrated power, and the simulator's
// dcgm-exporter page and exact energy.
import { describe, expect, it } from 'vitest';

import { summarizeEnergy } from '../../lib/metrics/energy.js';
import { GpuTrack, readGpuMetrics, type GpuReading, type GpuSource } from '../../lib/metrics/gpu-telemetry.js';
import { parsePrometheusText } from '../../lib/metrics/prom-text.js';
import { startSimulator } from '../../lib/index.js';

const L =
  'gpu="0",UUID="GPU-abc",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"';
const DCGM = `# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{${L}} 312.5
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${L}} 123456789
DCGM_FI_DEV_GPU_UTIL{${L}} 97
DCGM_FI_DEV_FB_USED{${L}} 70000
DCGM_FI_DEV_SM_CLOCK{${L}} 1980
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-def",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 80
`;

function reading(over: Partial<GpuReading>): GpuReading {
  return {
    gpu: '0',
    uuid: 'GPU-x',
    host: 'h',
    model: 'm',
    powerW: null,
    energyMj: null,
    utilPct: null,
    memUsedMiB: null,
    smClockMHz: null,
    ...over,
  };
}

function source(tracks: GpuTrack[], extra: Partial<GpuSource> = {}): GpuSource {
  return {
    url: 'http://n:9400/metrics',
    endpoint: null,
    scrapes: tracks.length ? 5 : 0,
    failures: 0,
    lastError: null,
    empty: 0,
    tracks: new Map(tracks.map((t) => [t.key, t])),
    ...extra,
  };
}

const S = 1e9;

describe('readGpuMetrics', () => {
  it("reads dcgm-exporter's fields per GPU with their labels", () => {
    const gpus = [...readGpuMetrics(parsePrometheusText(DCGM)).values()];
    expect(gpus).toHaveLength(2);
    expect(gpus[0]).toEqual({
      gpu: '0',
      uuid: 'GPU-abc',
      host: 'node1',
      model: 'NVIDIA H100 80GB HBM3',
      powerW: 312.5,
      energyMj: 123456789,
      utilPct: 97,
      memUsedMiB: 70000,
      smClockMHz: 1980,
    });
    expect(gpus[1]).toMatchObject({ gpu: '1', uuid: 'GPU-def', powerW: 80, energyMj: null });
  });

  it("converts NVML exporters' units, and prefers DCGM's name when a GPU has both", () => {
    const text = [
      'nvidia_smi_power_draw_watts{uuid="GPU-1",name="NVIDIA A100"} 250',
      'nvidia_smi_utilization_gpu_ratio{uuid="GPU-1"} 0.5',
      'nvidia_smi_memory_used_bytes{uuid="GPU-1"} 2147483648',
      'nvidia_smi_clocks_current_sm_clock_hz{uuid="GPU-1"} 1.41e9',
      'nvidia_gpu_power_usage_milliwatts{minor_number="3",uuid="GPU-2"} 65000',
      'DCGM_FI_DEV_POWER_USAGE{UUID="GPU-2"} 66',
      'nvidia_gpu_duty_cycle{uuid="GPU-2"} 12',
    ].join('\n');
    const gpus = readGpuMetrics(parsePrometheusText(text));
    expect(gpus.get('/GPU-1')).toMatchObject({
      powerW: 250,
      utilPct: 50,
      memUsedMiB: 2048,
      smClockMHz: 1410,
      model: 'NVIDIA A100',
    });
    expect(gpus.get('/GPU-2')).toMatchObject({ powerW: 66, utilPct: 12 });
  });

  it('a page without GPU names gives no GPU', () => {
    expect(readGpuMetrics(parsePrometheusText('vllm:num_requests_running{engine="0"} 3\n')).size).toBe(0);
  });
});

describe('energy over a window', () => {
  it('counter: a window between scrapes is carried from the idle scrapes beside it with their power', () => {
    // 50 W idle, 200 W from 1.5 s to 3.5 s (the window): 400 J inside.
    const t = new GpuTrack('k', { gpu: '0', uuid: 'GPU-x', host: 'h', model: 'm' }, 100);
    const mj = 5e9; // since boot
    t.add(0, reading({ powerW: 50, energyMj: mj }), true);
    t.add(1 * S, reading({ powerW: 50, energyMj: mj + 50_000 }), false);
    t.add(2 * S, reading({ powerW: 200, energyMj: mj + 175_000 }), false);
    t.add(3 * S, reading({ powerW: 200, energyMj: mj + 375_000 }), false);
    t.add(4 * S, reading({ powerW: 50, energyMj: mj + 500_000 }), true);
    const e = summarizeEnergy([source([t])], { startNs: 1.5 * S, endNs: 3.5 * S }, 1000, 800);
    expect(e.method).toBe('counter');
    expect(e.energyJ).toBeCloseTo(400, 9);
    expect(e.joulesPerOutputToken).toBeCloseTo(0.5, 9);
    expect(e.outputTokensPerSecondPerWatt).toBeCloseTo(2, 9);
    expect(e.meanPowerW).toBeCloseTo(200, 9);
    expect(e.gpus[0]!.peakPowerW).toBe(200);
    // Idle: the 50 W read just before the window; the work itself: (400 - 50 × 2) J over 800 tokens.
    expect(e.idlePowerW).toBe(50);
    expect(e.joulesPerOutputTokenAboveIdle).toBeCloseTo(0.375, 9);
    expect(e.missing).toBeNull();
  });

  it('counter resets count from zero; a GPU without a counter falls back to integrated power', () => {
    const a = new GpuTrack('a', { gpu: '0', uuid: 'A', host: null, model: null }, 100);
    a.add(0, reading({ energyMj: 9_000_000 }), true);
    a.add(1 * S, reading({ energyMj: 9_100_000 }), false);
    a.add(2 * S, reading({ energyMj: 40_000 }), false); // reset: 40 J since
    a.add(3 * S, reading({ energyMj: 140_000 }), true);
    expect(a.resets).toBe(1);
    const b = new GpuTrack('b', { gpu: '1', uuid: 'B', host: null, model: null }, 100);
    for (let i = 0; i <= 3; i++) b.add(i * S, reading({ powerW: 100 }), i === 0 || i === 3);
    const e = summarizeEnergy([source([a, b])], { startNs: 0, endNs: 3 * S }, 1000, 100);
    expect(e.gpus.map((g) => [g.method, g.energyJ])).toEqual([
      ['counter', 240],
      ['power', 300],
    ]);
    expect(e.method).toBe('mixed');
    expect(e.energyJ).toBeCloseTo(540, 9);
  });

  it('says why when a source did not answer or had no power', () => {
    const util = new GpuTrack('u', { gpu: '0', uuid: 'U', host: null, model: null }, 100);
    util.add(0, reading({ utilPct: 50 }), true);
    util.add(S, reading({ utilPct: 60 }), true);
    const down = source([], { url: 'http://down:9400/metrics', failures: 3, lastError: 'fetch failed (ECONNREFUSED)' });
    const e = summarizeEnergy([down, source([util])], { startNs: 0, endNs: S }, 1000, 10);
    expect(e.energyJ).toBeNull();
    expect(e.joulesPerOutputToken).toBeNull();
    expect(e.sources.map((s) => s.error)).toEqual([
      'did not answer (fetch failed (ECONNREFUSED))',
      'served no GPU power or energy over the test',
    ]);
    expect(e.missing).toMatch(/^no GPU energy: http:\/\/down:9400\/metrics did not answer/);
    expect(e.gpus[0]!.meanUtilPct).toBe(55);
  });

  it('thinning a long track keeps the edges and the energy', () => {
    const t = new GpuTrack('k', { gpu: '0', uuid: 'X', host: null, model: null }, 10);
    for (let i = 0; i <= 100; i++) t.add(i * S, reading({ powerW: 100, energyMj: i * 100_000 }), i === 0 || i === 37);
    expect(t.points.length).toBeLessThanOrEqual(12);
    expect(t.points.some((p) => p.tNs === 37 * S)).toBe(true);
    const e = summarizeEnergy([source([t])], { startNs: 0, endNs: 100 * S }, 1000, 1);
    expect(e.energyJ).toBeCloseTo(10_000, 6);
  });
});

describe("the simulator's GPUs", () => {
  it('serve dcgm-exporter text and know their exact energy (idle: gpus × idle watts × time)', async () => {
    const sim = await startSimulator({ gpus: 3, gpuIdleWatts: 40, gpuWattsPerSeq: 10, gpuModelName: 'Sim GPU' });
    const t0 = Number(process.hrtime.bigint());
    try {
      const res = await fetch(sim.gpuMetricsUrl);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const gpus = [...readGpuMetrics(parsePrometheusText(await res.text())).values()];
      expect(gpus).toHaveLength(3);
      expect(gpus.map((g) => [g.gpu, g.model, g.powerW, g.utilPct])).toEqual([
        ['0', 'Sim GPU', 40, 0],
        ['1', 'Sim GPU', 40, 0],
        ['2', 'Sim GPU', 40, 0],
      ]);
      expect(gpus[0]!.energyMj).toBeGreaterThan(1e8); // counted since "boot"
      const t1 = Number(process.hrtime.bigint());
      expect(sim.gpuEnergyJoules(t0, t1)).toBeCloseTo((3 * 40 * (t1 - t0)) / S, 6);
    } finally {
      await sim.close();
    }
  });

  it('a running sequence adds its watts for as long as it runs', async () => {
    const sim = await startSimulator({ decodeStepNs: 10_000_000, gpus: 2, gpuIdleWatts: 50, gpuWattsPerSeq: 100 });
    try {
      const res = await fetch(`${sim.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim-model', prompt: 'hi', max_tokens: 20, ignore_eos: true }),
      });
      await res.text();
      const r = sim.records().find((x) => x.path === '/v1/completions')!;
      const seconds = (r.endNs! - r.receivedNs) / S;
      expect(seconds).toBeGreaterThan(0.19);
      // Both GPUs at 150 W while the one sequence ran (from its arrival to its last token, within a step).
      const j = sim.gpuEnergyJoules(r.receivedNs, r.endNs!);
      expect(j).toBeGreaterThan(2 * 150 * seconds * 0.9);
      expect(j).toBeLessThanOrEqual(2 * 150 * seconds + 1e-9);
    } finally {
      await sim.close();
    }
  });

  it('refuses bad power options by name', async () => {
    await expect(startSimulator({ gpuMaxWatts: 10, gpuIdleWatts: 50 })).rejects.toThrow(
      /'gpuMaxWatts' must be >= gpuIdleWatts/,
    );
    await expect(startSimulator({ gpus: 0 })).rejects.toThrow(/'gpus' must be an integer/);
  });
});
