// The simulated GPUs' power, tied to the simulated batch: each GPU draws its
// idle watts plus a fixed amount per running sequence (a tensor-parallel
// server's GPUs all work on the whole batch), up to a cap. The power is a
// step function of the batch size, so its integral is known exactly: the
// model keeps the cumulative energy at every change of the batch, and
// answers "how many joules between these two instants" without error. That
// is the truth tests compare a scraped energy figure with. The same model
// renders dcgm-exporter's Prometheus text (/dcgm/metrics on the simulator).
import { nowNs } from './records.js';

export interface GpuPowerConfig {
  gpus: number;
  idleWatts: number;
  wattsPerSeq: number;
  maxWatts: number;
  modelName: string;
  maxRunningSeqs: number;
  /** Tokens the KV cache holds when full (for the memory gauge). */
  kvCapacityTokens: number;
}

// Change points kept for exact queries; a longer run keeps the latest half.
const MAX_CHANGES = 1_000_000;
// A GPU's energy counter counts from boot: the simulated GPUs booted a while ago.
const BOOT_ENERGY_MJ = 987_654_321;
const FB_TOTAL_MIB = 81_559;
const WEIGHTS_MIB = 16_384;
const SM_CLOCK_BUSY_MHZ = 1980;
const SM_CLOCK_IDLE_MHZ = 345;

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class GpuPowerModel {
  private running = 0;
  // Parallel arrays: when the batch changed, the energy per GPU until then (J), the power per GPU from then (W).
  private tNs: number[] = [];
  private cumJ: number[] = [];
  private watts: number[] = [];
  private trimmed = false;

  constructor(private readonly cfg: GpuPowerConfig) {
    this.tNs.push(nowNs());
    this.cumJ.push(0);
    this.watts.push(this.powerFor(0));
  }

  /** Watts of one GPU with `running` sequences in the batch. */
  powerFor(running: number): number {
    return Math.min(this.cfg.maxWatts, this.cfg.idleWatts + this.cfg.wattsPerSeq * running);
  }

  /** The batch changed size now. */
  setRunning(running: number): void {
    if (running === this.running) return;
    const t = Math.max(nowNs(), this.tNs[this.tNs.length - 1]!);
    const cum = this.perGpuAt(t);
    this.running = running;
    this.tNs.push(t);
    this.cumJ.push(cum);
    this.watts.push(this.powerFor(running));
    if (this.tNs.length > MAX_CHANGES) {
      const drop = this.tNs.length >> 1;
      this.tNs.splice(0, drop);
      this.cumJ.splice(0, drop);
      this.watts.splice(0, drop);
      this.trimmed = true;
    }
  }

  /** Energy of one GPU since the model started, at tNs (NaN before the kept history). */
  private perGpuAt(tNs: number): number {
    const ts = this.tNs;
    if (tNs < ts[0]!) return this.trimmed ? Number.NaN : 0;
    let lo = 0;
    let hi = ts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ts[mid]! <= tNs) lo = mid;
      else hi = mid - 1;
    }
    return this.cumJ[lo]! + (this.watts[lo]! * (tNs - ts[lo]!)) / 1e9;
  }

  /** Exact energy of all the GPUs between two instants (process.hrtime ns, as records carry them), J. */
  energyBetween(fromNs: number, toNs: number): number {
    if (!(toNs >= fromNs)) return 0;
    return (this.perGpuAt(toNs) - this.perGpuAt(fromNs)) * this.cfg.gpus;
  }

  /** Energy of all the GPUs since the model started, J. */
  totalJoules(): number {
    return this.perGpuAt(nowNs()) * this.cfg.gpus;
  }

  /** dcgm-exporter's text for the GPUs now; kvTokens is what the batch holds in the KV cache. */
  render(kvTokens: number): string {
    const perGpuJ = this.perGpuAt(nowNs());
    const watts = this.powerFor(this.running);
    const busy = this.running > 0;
    // Stand-ins: a busy GPU is mostly busy; memory is the weights plus the KV cache's share of the rest.
    const util = busy ? Math.min(100, Math.round(60 + (40 * this.running) / this.cfg.maxRunningSeqs)) : 0;
    const kvShare = Math.min(1, kvTokens / Math.max(1, this.cfg.kvCapacityTokens));
    const fbUsed = Math.round(WEIGHTS_MIB + kvShare * 0.9 * (FB_TOTAL_MIB - WEIGHTS_MIB));
    const clock = busy ? SM_CLOCK_BUSY_MHZ : SM_CLOCK_IDLE_MHZ;
    const metrics: Array<[string, 'gauge' | 'counter', string, (g: number) => string]> = [
      ['DCGM_FI_DEV_SM_CLOCK', 'gauge', 'SM clock frequency (in MHz).', () => String(clock)],
      ['DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilization (in %).', () => String(util)],
      ['DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer memory free (in MiB).', () => String(FB_TOTAL_MIB - fbUsed)],
      ['DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer memory used (in MiB).', () => String(fbUsed)],
      ['DCGM_FI_DEV_POWER_USAGE', 'gauge', 'Power draw (in W).', () => watts.toFixed(6)],
      [
        'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
        'counter',
        'Total energy consumption since boot (in mJ).',
        (g) => String(BOOT_ENERGY_MJ * (g + 1) + Math.floor(perGpuJ * 1000)),
      ],
    ];
    const out: string[] = [];
    for (const [name, type, help, value] of metrics) {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (let g = 0; g < this.cfg.gpus; g++) {
        const hex = (0x5100 + g).toString(16).padStart(4, '0');
        const labels = [
          `gpu="${g}"`,
          `UUID="GPU-00000000-0000-4000-8000-00000000${hex}"`,
          `pci_bus_id="00000000:${(0x18 + g).toString(16).toUpperCase().padStart(2, '0')}:00.0"`,
          `device="nvidia${g}"`,
          `modelName="${esc(this.cfg.modelName)}"`,
          'Hostname="loadgen-sim"',
        ].join(',');
        out.push(`${name}{${labels}} ${value(g)}`);
      }
    }
    return `${out.join('\n')}\n`;
  }
}
