// Scrapes each endpoint's /metrics on a timer while a run goes, one request
// at a time per endpoint (a slow server is skipped, not piled up), with a
// timeout shorter than the interval. Scrapes right before and right after
// the test are taken with scrapeAll(), so the run's counter increases are
// exact whatever the interval.
import { endpointRequestInfo, parseEndpointUrl } from '../sut/endpoint-url.js';
import { parsePrometheusText } from './prom-text.js';
import { MetricsSeries } from './series.js';
import { snapshotOf } from './server-snapshot.js';

export interface ScraperOptions {
  /** Base URLs as given to the run (with or without /v1). */
  urls: readonly string[];
  intervalMs: number;
  headers?: Record<string, string>;
  /** Points kept per endpoint (default 1000). */
  maxPoints?: number;
}

export class MetricsScraper {
  readonly series: MetricsSeries[];
  private readonly targets: string[];
  private readonly headers: Record<string, string>[];
  private readonly busy: boolean[];
  private timer: NodeJS.Timeout | null = null;
  /** performance.now() when the scraper was made: points' tMs count from here. */
  readonly t0 = performance.now();

  constructor(private readonly o: ScraperOptions) {
    this.targets = o.urls.map((u) => {
      const { origin, prefix } = parseEndpointUrl(u);
      return `${origin}${prefix}/metrics`;
    });
    // A URL's user:password goes as Basic authorization (in place of one in o.headers).
    this.headers = o.urls.map((u) => endpointRequestInfo(u, o.headers ?? {}).headers);
    this.series = o.urls.map(() => new MetricsSeries(o.maxPoints ?? 1000));
    this.busy = o.urls.map(() => false);
  }

  start(): void {
    if (this.timer || !(this.o.intervalMs > 0)) return;
    this.timer = setInterval(() => {
      for (let i = 0; i < this.targets.length; i++) if (!this.busy[i]) void this.scrape(i);
    }, this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One scrape of every endpoint, awaited (waits for a scrape already under way). */
  async scrapeAll(): Promise<void> {
    await Promise.all(
      this.targets.map(async (_, i) => {
        while (this.busy[i]) await new Promise((r) => setTimeout(r, 5));
        await this.scrape(i);
      }),
    );
  }

  private async scrape(i: number): Promise<void> {
    this.busy[i] = true;
    const s = this.series[i];
    try {
      const timeout = Math.max(500, Math.min(10_000, this.o.intervalMs || 10_000));
      const res = await fetch(this.targets[i], { headers: this.headers[i], signal: AbortSignal.timeout(timeout) });
      const text = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      s.add(Math.round(performance.now() - this.t0), snapshotOf(parsePrometheusText(text)));
    } catch (err) {
      // A server that is down (or restarting) misses points; the counters' increases stay right.
      s.failures++;
      s.lastError = (err as Error).message;
    } finally {
      this.busy[i] = false;
    }
  }
}
