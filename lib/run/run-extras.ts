// What a run adds around the test for resumability and accounting: the
// sample journal and --resume (lib/resume), run-state.json, budgets that end
// the test cleanly, the servers' /metrics scraped over the run, and token,
// goodput and cost figures for the record. runBenchmark calls it at four
// points: before the SUT exists, once it does, around the test, at the end.
import { native } from '../core/binding.js';
import { UsageError } from '../core/errors.js';
import { BudgetMonitor, checkBudgetLimits, type BudgetLimits } from '../cost/budget.js';
import { computeCost } from '../cost/cost.js';
import { countGoodput, goodputTargets } from '../cost/goodput.js';
import { resolvePricing, type EndpointPrice, type PricingInput } from '../cost/pricing.js';
import { accountTokens } from '../cost/token-accounting.js';
import type { Dataset } from '../dataset/types.js';
import { MetricsScraper } from '../metrics/scraper.js';
import { summarizeSeries, type ServerMetricsReport } from '../metrics/summary.js';
import { JournalSession } from '../resume/journal-session.js';
import type { JournalTarget } from '../resume/journal-writer.js';
import { datasetSha256 } from '../resume/run-config.js';
import { writeRunState, type RunState, type RunStateName } from '../resume/run-state.js';
import type { RunRecord } from '../results/run-record.js';
import type { TestSettings } from '../core/settings.js';
import { abortTest, type QuerySampleLibrary, type SystemUnderTest } from '../core/start-test.js';
import { splitEndpointCredentials } from '../sut/endpoint-url.js';
import type { LlmSut } from '../sut/llm-sut.js';
import type { SamplingParams } from '../sut/types.js';

export interface RunExtrasOptions {
  /** Continue the journaled (accuracy or submission) run in the output directory. */
  resume?: boolean;
  /** GPU price and count per endpoint, for the cost figures and cost budgets. */
  pricing?: PricingInput;
  /** Limits at which the test is ended cleanly. */
  budget?: BudgetLimits;
  /** Scrape each endpoint's /metrics every this many ms (0 = never; default 5000). */
  metricsIntervalMs?: number;
  /**
   * GPU telemetry pages (dcgm-exporter's /metrics, full URLs) scraped over the
   * test for the energy figures (docs/energy.md); endpoints may name their own
   * (EndpointConfig.gpuMetrics). A simulated run uses the simulator's.
   */
  gpuMetrics?: string[];
  /** Sent to /metrics as `Authorization: Bearer <apiKey>` too (an endpoint URL's user:password goes as Basic instead). */
  apiKey?: string;
}

export const DEFAULT_METRICS_INTERVAL_MS = 5000;
const CHECK_EVERY_MS = 100;
const STATE_EVERY_MS = 2000;

export class RunExtras {
  /** Live counters the adapter's threads add to: [output tokens, completed samples, failed samples, failed requests]. */
  readonly counters = new SharedArrayBuffer(16);
  private readonly live = new Int32Array(this.counters);
  private scraper: MetricsScraper | null = null;
  private urls: string[] = [];
  private budget: BudgetMonitor | null = null;
  private timer: NodeJS.Timeout | null = null;
  private state: RunState | null = null;
  private lastStateAt = 0;
  private elapsedMs = 0;
  private testStartMs = 0;

  private constructor(
    private readonly o: RunExtrasOptions,
    private readonly settings: TestSettings,
    private readonly outdir: string,
    private readonly dataset: Dataset,
    private readonly prices: EndpointPrice[] | null,
    private readonly limits: BudgetLimits | null,
    private readonly intervalMs: number,
    readonly journal: JournalSession | null,
    private readonly log: (m: string) => void,
  ) {}

  /** Checks the options (usage errors before anything starts) and the journal's preconditions. */
  static prepare(
    o: RunExtrasOptions,
    settings: TestSettings,
    outdir: string,
    dataset: Dataset,
    endpoints: number,
    log: (m: string) => void,
  ): RunExtras {
    const prices = resolvePricing(o.pricing, endpoints);
    const limits = checkBudgetLimits(o.budget, prices !== null);
    const interval = o.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS;
    if (!(typeof interval === 'number' && Number.isFinite(interval) && interval >= 0))
      throw new UsageError(`--metrics-interval must be a number of seconds >= 0, got ${String(interval)}`);
    const accuracySamples =
      settings.accuracySampleCountOverride > 0
        ? Math.min(settings.accuracySampleCountOverride, dataset.size)
        : dataset.size;
    const journal = JournalSession.prepare({ outdir, resume: o.resume === true, mode: settings.mode, accuracySamples });
    return new RunExtras(o, settings, outdir, dataset, prices, limits, interval, journal, log);
  }

  get journalTarget(): JournalTarget | null {
    return this.journal?.target ?? null;
  }

  /** With the SUT up: checks/starts the journal, takes the metrics baseline; returns what the engine gets. */
  async begin(
    llm: LlmSut,
    urls: string[],
    benchmark: string | undefined,
    sampling: SamplingParams | undefined,
    command: string[] | null,
  ): Promise<{ sut: SystemUnderTest; qsl: QuerySampleLibrary }> {
    // Records name endpoints without credentials; the scraper takes them from the URLs.
    this.urls = urls.map((u) => splitEndpointCredentials(u).url);
    let target: { sut: SystemUnderTest; qsl: QuerySampleLibrary } = llm;
    if (this.journal) {
      this.journal.begin(
        {
          settings: { ...this.settings } as unknown as Record<string, unknown>,
          dataset: { name: this.dataset.name, size: this.dataset.size, sha256: datasetSha256(this.dataset) },
          model: llm.model,
          backend: llm.backend,
          api: llm.api,
          benchmark: benchmark ?? null,
          sampling: { ...(sampling ?? {}) },
        },
        command,
      );
      target = this.journal.wrap(llm);
      const n = this.journal.restorable;
      if (this.journal.resume)
        this.log(
          `resume: ${n} of ${this.journal.accuracySamples} accuracy samples come from the journal; the other ${Math.max(0, this.journal.accuracySamples - n)} go to the servers`,
        );
      else
        this.log(
          `journal: completed samples are kept in ${this.journal.dir} (resume an interrupted run with --resume ${this.outdir})`,
        );
    }
    if (this.intervalMs > 0 && urls.length > 0) {
      this.scraper = new MetricsScraper({
        urls,
        intervalMs: this.intervalMs,
        headers: this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : undefined,
      });
      await this.scraper.scrapeAll();
      this.scraper.start();
    }
    if (this.limits)
      this.budget = new BudgetMonitor(
        this.limits,
        this.prices ? this.prices.reduce((a, p) => a + p.dollarsPerHour, 0) : null,
        this.live,
        (reason) => {
          this.log(`stopping: ${reason}`);
          abortTest(reason);
        },
      );
    const now = new Date().toISOString();
    this.state = {
      schema: '@x/loadgen/run-state',
      state: 'running',
      pid: process.pid,
      mode: this.settings.mode,
      scenario: this.settings.scenario,
      startedAt: now,
      updatedAt: now,
      resumable: this.journal !== null,
      progress: null,
      note: null,
    };
    writeRunState(this.outdir, this.state);
    return target;
  }

  /** Budget checks every 100 ms and run-state.json refreshed every 2 s while the test runs. */
  testStarted(): void {
    this.testStartMs = performance.now();
    this.timer = setInterval(() => this.tick(), CHECK_EVERY_MS);
  }

  private tick(): void {
    const p = native.progress();
    if (!p.running) return;
    this.elapsedMs = p.elapsedNs / 1e6;
    this.budget?.check(this.elapsedMs);
    if (this.state && this.elapsedMs - this.lastStateAt >= STATE_EVERY_MS) {
      this.lastStateAt = this.elapsedMs;
      this.state = {
        ...this.state,
        updatedAt: new Date().toISOString(),
        progress: { issued: p.issuedSamples, completed: p.completedSamples, elapsedMs: Math.round(this.elapsedMs) },
      };
      try {
        writeRunState(this.outdir, this.state);
      } catch {
        // A full disk must not end the run; the final state is written again at the end.
      }
    }
  }

  testEnded(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.scraper?.stop();
  }

  /** After the test (results read): final scrape, journal book-keeping, and the record's extra sections. */
  async finish(llm: LlmSut, record: RunRecord): Promise<Partial<RunRecord>> {
    const out: Partial<RunRecord> = {};
    if (this.scraper) await this.scraper.scrapeAll();
    // Every journal segment is written once the adapter is closed.
    await llm.close().catch(() => undefined);
    const r = record.result;
    if (this.journal) out.resume = this.journal.finish(r.aborted);
    const timings = record.sut?.timings ?? [];
    const tokens = accountTokens(timings, this.urls, this.dataset);
    out.tokens = tokens;
    const goodput = countGoodput(timings, goodputTargets(record.settings));
    out.goodput = goodput;
    const billed = (Date.parse(record.endedAt) - Date.parse(record.startedAt)) / 1000;
    out.cost = this.prices
      ? computeCost(this.prices, this.urls, Number.isFinite(billed) ? billed : 0, tokens, goodput)
      : null;
    if (this.budget) {
      this.budget.check(Number.isFinite(billed) ? billed * 1000 : this.elapsedMs, false);
      out.budget = this.budget.report();
    } else out.budget = null;
    if (this.scraper) {
      const report: ServerMetricsReport = {
        intervalMs: this.intervalMs,
        endpoints: this.urls.map((url, i) => {
          const ep = record.sut?.endpoints[i];
          const t = tokens.endpoints[i];
          const m = summarizeSeries(
            url,
            this.scraper!.series[i],
            t
              ? { outputTokens: t.outputTokens, promptTokens: t.promptTokens, completed: ep?.completed ?? t.samples }
              : null,
          );
          // Points timed from the test's start, like the run's timeline (the baseline scrape comes just before it).
          const offset = this.testStartMs > 0 ? this.testStartMs - this.scraper!.t0 : 0;
          m.points = m.points.map((p) => ({ ...p, tMs: Math.round(p.tMs - offset) }));
          return m;
        }),
      };
      out.serverMetrics = report;
      for (const e of report.endpoints) {
        if (e.scrapes === 0)
          this.log(
            `note: ${e.url}: /metrics did not answer (${e.lastError ?? 'no reply'}): no server metrics for it (SGLang serves them with --enable-metrics)`,
          );
        else if (e.flavor === null)
          this.log(`note: ${e.url}: /metrics has no vLLM or SGLang metric names: no server metrics for it`);
      }
    } else out.serverMetrics = null;
    this.writeFinalState(record, out);
    return out;
  }

  private writeFinalState(record: RunRecord, out: Partial<RunRecord>): void {
    if (!this.state) return;
    const r = record.result;
    let state: RunStateName = 'complete';
    let note: string | null = null;
    if (out.budget?.stoppedBy) {
      state = 'stopped-by-budget';
      note = out.budget.reason;
    } else if (r.aborted) {
      state = 'aborted';
      note = r.abortReason;
    }
    if (out.resume && !out.resume.complete) {
      if (state === 'complete') state = 'incomplete';
      const missing = out.resume.accuracySamples - out.resume.journaledSamples;
      note = `${note ? `${note}; ` : ''}${missing} accuracy samples are not done: continue with --resume ${this.outdir}`;
    }
    try {
      // The finished test's totals (every pass; the summary's counts are 0 for accuracy passes and aborted tests).
      const p = native.progress();
      writeRunState(this.outdir, {
        ...this.state,
        state,
        note,
        updatedAt: new Date().toISOString(),
        progress: { issued: p.issuedSamples, completed: p.completedSamples, elapsedMs: Math.round(this.elapsedMs) },
      });
    } catch (err) {
      this.log(`warning: run-state.json could not be written: ${(err as Error).message}`);
    }
  }
}
