// GPU telemetry in Prometheus text: NVIDIA's dcgm-exporter (DCGM_FI_DEV_*)
// first, the NVML-based exporters' names where a node serves those instead.
// Each GPU (one label set: Hostname + UUID, else gpu index) becomes a track
// of points on the steady clock, each with the energy used since the
// track's first point, two ways: from the energy counter (mJ since boot,
// resets handled as Prometheus does) and from the power gauge integrated
// between points (trapezoids). Both are cumulative, so thinning the points
// of a long run loses none of the energy. lib/metrics/energy.ts cuts a
// window out of the tracks.
import { endpointRequestInfo } from '../sut/endpoint-url.js';
import { parsePrometheusText, type PromSample } from './prom-text.js';

export interface GpuReading {
  gpu: string | null;
  uuid: string | null;
  host: string | null;
  model: string | null;
  powerW: number | null;
  /** The energy counter as served, mJ (since boot for DCGM). */
  energyMj: number | null;
  utilPct: number | null;
  memUsedMiB: number | null;
  smClockMHz: number | null;
}

type Field = 'powerW' | 'energyMj' | 'utilPct' | 'memUsedMiB' | 'smClockMHz';

// Name, field, factor to the field's unit. Earlier names win when a GPU has several.
const NAMES: ReadonlyArray<readonly [string, Field, number]> = [
  ['DCGM_FI_DEV_POWER_USAGE', 'powerW', 1],
  ['nvidia_smi_power_draw_watts', 'powerW', 1],
  ['nvidia_gpu_power_usage_milliwatts', 'powerW', 1e-3],
  ['DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'energyMj', 1],
  ['DCGM_FI_DEV_GPU_UTIL', 'utilPct', 1],
  ['nvidia_smi_utilization_gpu_ratio', 'utilPct', 100],
  ['nvidia_gpu_duty_cycle', 'utilPct', 1],
  ['DCGM_FI_DEV_FB_USED', 'memUsedMiB', 1],
  ['nvidia_smi_memory_used_bytes', 'memUsedMiB', 1 / 1048576],
  ['nvidia_gpu_memory_used_bytes', 'memUsedMiB', 1 / 1048576],
  ['DCGM_FI_DEV_SM_CLOCK', 'smClockMHz', 1],
  ['nvidia_smi_clocks_current_sm_clock_hz', 'smClockMHz', 1e-6],
];
const RANK = new Map(NAMES.map(([n, f, k], i) => [n, { field: f, factor: k, rank: i }]));

function label(l: Record<string, string>, ...keys: string[]): string | null {
  for (const k of keys) if (l[k] !== undefined && l[k] !== '') return l[k]!;
  return null;
}

/** The GPUs in one scrape, keyed by host and UUID (else index); empty when no known name is there. */
export function readGpuMetrics(samples: readonly PromSample[]): Map<string, GpuReading> {
  const out = new Map<string, GpuReading>();
  const ranks = new Map<string, number>();
  for (const s of samples) {
    const known = RANK.get(s.name);
    if (!known || !Number.isFinite(s.value)) continue;
    const l = s.labels;
    const uuid = label(l, 'UUID', 'uuid');
    const gpu = label(l, 'gpu', 'minor_number', 'index');
    const host = label(l, 'Hostname', 'hostname', 'instance');
    const key = `${host ?? ''}/${uuid ?? `gpu${gpu ?? '?'}`}`;
    let r = out.get(key);
    if (!r) {
      r = {
        gpu,
        uuid,
        host,
        model: label(l, 'modelName', 'name'),
        powerW: null,
        energyMj: null,
        utilPct: null,
        memUsedMiB: null,
        smClockMHz: null,
      };
      out.set(key, r);
    }
    const rk = `${key}\u0000${known.field}`;
    const prev = ranks.get(rk);
    if (prev !== undefined && prev <= known.rank) continue;
    ranks.set(rk, known.rank);
    r[known.field] = s.value * known.factor;
  }
  return out;
}

export interface GpuPoint {
  /** Steady-clock ns (process.hrtime, the adapter's timings' clock): the middle of the scrape. */
  tNs: number;
  powerW: number | null;
  utilPct: number | null;
  memUsedMiB: number | null;
  smClockMHz: number | null;
  /** Counter increase since the track's first point, J (null: no counter in this scrape). */
  counterJ: number | null;
  /** Power integrated since the track's first point, J (null before two powered points). */
  integratedJ: number | null;
  /** Taken at a test's edge: kept when points are thinned. */
  edge: boolean;
}

export class GpuTrack {
  readonly points: GpuPoint[] = [];
  resets = 0;
  private lastCounterMj: number | null = null;
  private counterJ: number | null = null;
  private integratedJ: number | null = null;
  private lastPower: { tNs: number; w: number } | null = null;

  constructor(
    readonly key: string,
    readonly info: Pick<GpuReading, 'gpu' | 'uuid' | 'host' | 'model'>,
    private readonly maxPoints: number,
  ) {}

  add(tNs: number, r: GpuReading, edge: boolean): void {
    if (r.energyMj !== null) {
      const prev = this.lastCounterMj;
      // A counter that went down restarted (driver reload, GPU reset): what it shows now was all used since.
      const inc = prev === null ? 0 : r.energyMj >= prev ? r.energyMj - prev : r.energyMj;
      if (prev !== null && r.energyMj < prev) this.resets++;
      this.counterJ = (this.counterJ ?? 0) + inc / 1000;
      this.lastCounterMj = r.energyMj;
    }
    if (r.powerW !== null) {
      const lp = this.lastPower;
      if (lp) this.integratedJ = (this.integratedJ ?? 0) + ((lp.w + r.powerW) / 2) * ((tNs - lp.tNs) / 1e9);
      else this.integratedJ = 0;
      this.lastPower = { tNs, w: r.powerW };
    }
    this.points.push({
      tNs,
      powerW: r.powerW,
      utilPct: r.utilPct,
      memUsedMiB: r.memUsedMiB,
      smClockMHz: r.smClockMHz,
      counterJ: r.energyMj !== null ? this.counterJ : null,
      integratedJ: r.powerW !== null ? this.integratedJ : null,
      edge,
    });
    if (this.points.length > this.maxPoints) this.thin();
  }

  private thin(): void {
    const last = this.points.length - 1;
    const kept = this.points.filter((p, i) => i % 2 === 0 || p.edge || i === last);
    this.points.length = 0;
    this.points.push(...kept);
  }
}

export interface GpuSource {
  /** The URL without credentials. */
  url: string;
  /** The endpoint whose GPUs these are, when the config says so. */
  endpoint: string | null;
  scrapes: number;
  failures: number;
  lastError: string | null;
  /** Scrapes that answered but held no GPU metric name. */
  empty: number;
  tracks: Map<string, GpuTrack>;
}

export interface GpuScraperOptions {
  /** Full URLs of the telemetry pages (dcgm-exporter: http://node:9400/metrics); user:password goes as Basic. */
  urls: readonly { url: string; endpoint: string | null }[];
  intervalMs: number;
  /** Points kept per GPU (default 20000; more are thinned, edges kept). */
  maxPoints?: number;
}

function steadyNs(): number {
  return Number(process.hrtime.bigint());
}

/** Scrapes GPU telemetry pages on a timer, one request at a time per page; failures are counted, never thrown. */
export class GpuTelemetryScraper {
  readonly sources: GpuSource[];
  private readonly requests: { url: string; headers: Record<string, string> }[];
  private readonly busy: boolean[];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: GpuScraperOptions) {
    this.requests = o.urls.map((u) => endpointRequestInfo(u.url, {}));
    this.sources = o.urls.map((u, i) => ({
      url: this.requests[i]!.url,
      endpoint: u.endpoint,
      scrapes: 0,
      failures: 0,
      lastError: null,
      empty: 0,
      tracks: new Map(),
    }));
    this.busy = o.urls.map(() => false);
  }

  start(): void {
    if (this.timer || !(this.o.intervalMs > 0)) return;
    this.timer = setInterval(() => {
      for (let i = 0; i < this.sources.length; i++) if (!this.busy[i]) void this.scrape(i, false);
    }, this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One scrape of every page, awaited; `edge` marks points taken at a test's start or end. */
  async scrapeAll(edge = false): Promise<void> {
    await Promise.all(
      this.sources.map(async (_, i) => {
        for (let n = 0; this.busy[i] && n < 2000; n++) await new Promise((r) => setTimeout(r, 5));
        await this.scrape(i, edge);
      }),
    );
  }

  private async scrape(i: number, edge: boolean): Promise<void> {
    this.busy[i] = true;
    const src = this.sources[i]!;
    const req = this.requests[i]!;
    try {
      const sent = steadyNs();
      const timeout = Math.max(500, Math.min(5000, this.o.intervalMs || 5000));
      const res = await fetch(req.url, { headers: req.headers, signal: AbortSignal.timeout(timeout) });
      const text = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      // The server read its counters somewhere between our request and its reply.
      const tNs = Math.round((sent + steadyNs()) / 2);
      const gpus = readGpuMetrics(parsePrometheusText(text));
      src.scrapes++;
      if (gpus.size === 0) src.empty++;
      for (const [key, r] of gpus) {
        let track = src.tracks.get(key);
        if (!track) {
          track = new GpuTrack(
            key,
            { gpu: r.gpu, uuid: r.uuid, host: r.host, model: r.model },
            this.o.maxPoints ?? 20_000,
          );
          src.tracks.set(key, track);
        }
        track.add(tNs, r, edge);
      }
    } catch (err) {
      src.failures++;
      const e = err as Error & { cause?: { code?: string } };
      src.lastError = e.cause?.code ? `${e.message} (${e.cause.code})` : e.message;
    } finally {
      this.busy[i] = false;
    }
  }
}
