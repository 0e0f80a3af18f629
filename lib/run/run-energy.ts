// A run's GPU energy: the telemetry pages (--gpu-metrics, per-endpoint
// `gpuMetrics`, or the built-in simulator's /dcgm/metrics) scraped every
// second and once on each side of the test, cut to the test window (first
// issue to last completion, from the adapter's timings). Telemetry never
// fails a run: a page that does not answer gets a one-line warning and the
// report says why its figures are missing.
import { UsageError } from '../core/errors.js';
import { summarizeEnergy, type EnergyReport } from '../metrics/energy.js';
import { GpuTelemetryScraper } from '../metrics/gpu-telemetry.js';
import type { RunRecord } from '../results/run-record.js';
import { splitEndpointCredentials } from '../sut/endpoint-url.js';
import type { EndpointConfig } from '../sut/types.js';

/** Seconds between GPU telemetry scrapes: finer than /metrics, for the power plots and the power method's error. */
export const GPU_METRICS_INTERVAL_MS = 1000;

export interface GpuMetricsTarget {
  url: string;
  /** The endpoint (URL without credentials) whose GPUs these are, or null. */
  endpoint: string | null;
}

function checkUrl(u: unknown, what: string): string {
  if (typeof u !== 'string' || u === '') throw new UsageError(`${what} must be a URL, got ${JSON.stringify(u)}`);
  let parsed: URL;
  try {
    parsed = new URL(splitEndpointCredentials(u).url);
  } catch {
    throw new UsageError(`${what} is not a URL: ${JSON.stringify(splitEndpointCredentials(u).url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`${what} must be an http:// or https:// URL, got ${parsed.protocol}`);
  return u;
}

/** The telemetry pages of a run: the global ones, then each endpoint's (checked: a bad URL is a usage error). */
export function gpuMetricsTargets(
  global: readonly string[] | undefined,
  endpoints: readonly (string | EndpointConfig)[],
): GpuMetricsTarget[] {
  if (global !== undefined && !Array.isArray(global))
    throw new UsageError('gpuMetrics (--gpu-metrics) must be a list of URLs');
  const out: GpuMetricsTarget[] = (global ?? []).map((u) => ({
    url: checkUrl(u, '--gpu-metrics'),
    endpoint: null,
  }));
  for (const e of endpoints) {
    if (typeof e === 'string' || e.gpuMetrics === undefined) continue;
    const list = typeof e.gpuMetrics === 'string' ? [e.gpuMetrics] : e.gpuMetrics;
    const endpoint = splitEndpointCredentials(e.url).url;
    for (const u of list) out.push({ url: checkUrl(u, `gpuMetrics of endpoint ${endpoint}`), endpoint });
  }
  return out;
}

export class RunEnergy {
  private readonly scraper: GpuTelemetryScraper;
  private testStartNs = 0;
  private testEndNs = 0;

  constructor(
    targets: GpuMetricsTarget[],
    private readonly log: (m: string) => void,
    private readonly intervalMs = GPU_METRICS_INTERVAL_MS,
  ) {
    this.scraper = new GpuTelemetryScraper({ urls: targets, intervalMs });
  }

  /** Before the test: the baseline scrape (the GPUs idle), then one a second. */
  async begin(): Promise<void> {
    await this.scraper.scrapeAll(true);
    this.scraper.start();
  }

  testStarted(): void {
    this.testStartNs = Number(process.hrtime.bigint());
  }

  testEnded(): void {
    this.testEndNs = Number(process.hrtime.bigint());
  }

  /** Stops the timer (a run that failed before finish()). */
  stop(): void {
    this.scraper.stop();
  }

  /** After the test and the adapter's last reply: the closing scrape and the report. */
  async finish(record: RunRecord): Promise<EnergyReport> {
    this.scraper.stop();
    await this.scraper.scrapeAll(true);
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const t of record.sut?.timings ?? []) {
      if (Number.isFinite(t.issuedNs) && t.issuedNs < start) start = t.issuedNs;
      if (Number.isFinite(t.endNs) && t.endNs > end) end = t.endNs;
    }
    // Without per-sample timings, the test's own start and end.
    if (!(end > start)) {
      start = this.testStartNs;
      end = this.testEndNs;
    }
    const perEndpoint = new Map<string, number>();
    for (const e of record.tokens?.endpoints ?? [])
      perEndpoint.set(splitEndpointCredentials(e.url).url, e.outputTokens);
    const outputTokens = record.tokens?.outputTokens ?? record.result.counts.tokens;
    const report = summarizeEnergy(
      this.scraper.sources,
      { startNs: start, endNs: end },
      this.intervalMs,
      outputTokens,
      perEndpoint,
    );
    for (const s of report.sources)
      if (s.error) this.log(`warning: GPU telemetry ${s.url} ${s.error}: no energy figures from it`);
    for (const g of report.gpus)
      if (g.counterResets > 0)
        this.log(
          `note: GPU ${g.uuid ?? g.gpu} at ${g.source}: its energy counter restarted ${g.counterResets} time(s) during the run (counted from 0 each time)`,
        );
    return report;
  }
}
