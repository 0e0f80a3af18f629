// results.json, result_summary.json and report.html from real short runs: every
// results.json field against the TestResult / SutReport it came from, the
// result_summary.json key set of mlcommons/endpoints, and a well-formed,
// self-contained, escaped report page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, test } from 'vitest';

import { toJsonText } from '../../lib/results/json-text.js';
import { buildReportHtml } from '../../lib/results/report-html.js';
import { buildResultSummary, ENDPOINTS_PERCENTILES } from '../../lib/results/result-summary.js';
import { buildResultsJson, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION } from '../../lib/results/results-json.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { loadgenPercentile, seriesFromTimings, sortedCopy } from '../../lib/results/samples.js';
import { writeRunOutputs } from '../../lib/results/write-outputs.js';
import { customRecord, llmRecord } from './helpers.js';

const ms = (ns: number) => ns / 1e6;

/** Checks that the page's tags nest and close (void elements aside). */
function checkWellFormed(html: string): void {
  const voids = new Set(['meta', 'br', 'hr', 'img', 'link', 'input']);
  const stack: string[] = [];
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(\/?)>/g;
  const body = html.replace(/<!DOCTYPE html>/i, '').replace(/<style>[\s\S]*?<\/style>/, '<style></style>');
  for (const m of body.matchAll(re)) {
    const [, close, rawName, selfClose] = m;
    const name = rawName.toLowerCase();
    if (voids.has(name) || selfClose) continue;
    if (close) {
      expect(stack.pop(), `closing </${name}>`).toBe(name);
    } else stack.push(name);
  }
  expect(stack).toEqual([]);
}

function checkSelfContained(html: string): void {
  expect(html).not.toMatch(/\b(?:src|href|action|srcset|poster|xlink:href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
  expect(html).not.toMatch(/url\(\s*["']?\s*(?:https?:)?\/\//i);
  expect(html).not.toMatch(/@import|<script|<link|<iframe|<img/i);
  expect(html).toContain("default-src 'none'");
}

describe('LLM run (two simulated endpoints, timings recorded)', () => {
  let rec: RunRecord;
  beforeAll(async () => {
    rec = await llmRecord();
  });

  test('results.json holds every figure of the TestResult and the SutReport', () => {
    const r = rec.result;
    const sut = rec.sut!;
    const j = buildResultsJson(rec);
    expect(j.schema).toBe(RESULTS_SCHEMA);
    expect(j.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    expect(j.tool).toEqual(rec.tool);
    expect(j.run).toMatchObject({
      startedAt: rec.startedAt,
      endedAt: rec.endedAt,
      command: rec.command,
      outdir: rec.outdir,
      simulated: true,
      aborted: false,
      abortReason: null,
    });
    expect(j.run.wallSeconds).toBeGreaterThan(0);
    expect(j.benchmark).toEqual({
      model: 'llama3_1-8b',
      scenario: 'Server',
      mode: 'PerformanceOnly',
      sutName: r.sutName,
      dataset: rec.dataset,
      endpoints: rec.endpoints,
      issuePolicy: null,
    });
    expect(j.settings.requested).toEqual(rec.settings);
    expect(j.settings.effective).toEqual(r.effective);
    expect(j.verdict.valid).toBe(r.valid);
    expect(j.verdict.status).toBe(r.valid ? 'VALID' : 'INVALID');
    expect(j.verdict.criteria).toEqual(r.criteria);
    expect(j.verdict.reasons).toEqual(r.invalidReasons);
    expect(j.verdict.earlyStopping).toEqual(r.earlyStopping);
    expect(j.metric).toEqual(r.metric);
    expect(j.throughput.qps).toBe(r.completedSamplesPerSecond);
    expect(j.throughput.samplesPerSecond).toBe(r.completedSamplesPerSecond);
    expect(j.throughput.tokensPerSecond).toBe(r.tokensPerSecond);
    expect(j.throughput.tokensPerSecondSource).toBe('loadgen');
    expect(j.throughput.completedSamplesPerSecond).toBe(r.completedSamplesPerSecond);
    expect(j.throughput.scheduledSamplesPerSecond).toBe(r.scheduledSamplesPerSecond);
    expect(j.throughput.tokenThroughput).toEqual(r.tokenThroughput);
    expect(j.throughput.peakTargetQps).toBeNull();
    expect(j.counts).toEqual({ ...r.counts, accuracyLogEntries: r.accuracyLogEntries });
    for (const [key, src] of [
      ['sample', r.latency],
      ['ttft', r.ttft],
      ['tpot', r.tpot],
    ] as const) {
      const got = j.latencyMs[key]!;
      expect(src).not.toBeNull();
      for (const f of ['min', 'max', 'mean', 'p50', 'p90', 'p95', 'p97', 'p99', 'p999'] as const)
        expect(got[f]).toBeCloseTo(ms(src![f]), 9);
    }
    expect(j.latencyMs.query).toBeNull();
    expect(j.errors.loadgen).toEqual(r.errors);
    expect(j.errors.failedSamples).toBe(sut.samples.failed);
    expect(j.errors.retriedSamples).toBe(sut.samples.retried);
    expect(j.errors.retries).toBe(sut.endpoints.reduce((a, e) => a + e.retries, 0));
    expect(j.errors.kinds).toEqual(sut.errorKinds);
    expect(j.errors.warnings).toEqual(sut.warnings);
    expect(j.errors.idMismatch).toEqual({ samples: 0, first: [] });
    expect(j.errors.idMismatch).toEqual(sut.idMismatch);
    expect(j.endpoints).toHaveLength(2);
    const totalCompleted = sut.endpoints.reduce((a, e) => a + e.completed, 0);
    j.endpoints.forEach((e, i) => {
      const s = sut.endpoints[i];
      expect(e).toMatchObject({
        url: s.url,
        backend: rec.endpoints[i].backend,
        api: rec.endpoints[i].api,
        model: rec.endpoints[i].model,
      });
      expect(e).toMatchObject({
        requests: s.requests,
        completed: s.completed,
        errors: s.errors,
        retries: s.retries,
        outputTokens: s.outputTokens,
        breakerOpened: s.breakerOpened,
        errorKinds: s.errorKinds,
      });
      expect(e.ttftMs).toEqual(s.ttftMs);
      expect(e.tpotMs).toEqual(s.tpotMs);
      expect(e.latencyMs).toEqual(s.latencyMs);
      expect(e.share).toBeCloseTo(s.completed / totalCompleted, 12);
      expect(e.outputTokensPerSecond).toBeCloseTo(s.outputTokens / j.throughput.windowSeconds!, 6);
    });
    expect(j.harness).toMatchObject({
      backend: sut.backend,
      api: sut.api,
      workers: sut.workers,
      busyPollIdleMs: null,
      capabilities: sut.capabilities,
      samples: sut.samples,
      peakInFlight: sut.peakInFlight,
      chunks: sut.chunks,
    });
    expect(j.timeline).toEqual(rec.timeline);
    expect(j.logs).toEqual(r.logs);
    expect(j.extra).toBeNull();
    // Per-sample values: one latency per timing; LoadGen's percentile rule over them is close to the engine's.
    expect(j.samples!.latencyNs).toHaveLength(sut.timings!.length);
    expect(j.samples!.ttftNs.length).toBe(sut.timings!.filter((t) => t.firstTokenNs > 0).length);
    const p50 = loadgenPercentile(sortedCopy(j.samples!.latencyNs), 0.5);
    expect(Math.abs(p50 - r.latency!.p50)).toBeLessThan(Math.max(2e6, r.latency!.p50 * 0.2));
  });

  test('result_summary.json has the mlcommons/endpoints key set, in order, in ns', () => {
    const s = buildResultSummary(rec);
    expect(Object.keys(s)).toEqual([
      'version',
      'git_sha',
      'test_started_at',
      'n_samples_issued',
      'n_samples_completed',
      'n_samples_failed',
      'duration_ns',
      'state',
      'complete',
      'ttft',
      'tpot',
      'latency',
      'output_sequence_lengths',
      'input_sequence_lengths',
      'legacy_loadgen_window_duration_ns',
      'qps',
      'tps',
      'finish_reason_counts',
      'run_config',
    ]);
    const sut = rec.sut!;
    expect(s.n_samples_issued).toBe(sut.samples.issued);
    expect(s.n_samples_completed).toBe(sut.samples.completed);
    expect(s.n_samples_failed).toBe(sut.samples.failed);
    expect(s.state).toBe('complete');
    expect(s.complete).toBe(true);
    expect(s.qps).toBe(rec.result.completedSamplesPerSecond);
    expect(s.tps).toBe(rec.result.tokensPerSecond);
    expect(s.legacy_loadgen_window_duration_ns).toBeGreaterThan(0);
    expect(Object.keys(s.finish_reason_counts)).toEqual([
      'stop',
      'length',
      'tool_calls',
      'content_filter',
      'function_call',
      'other',
    ]);
    const series = seriesFromTimings(sut.timings!);
    for (const key of ['ttft', 'tpot', 'latency', 'output_sequence_lengths'] as const) {
      const m = s[key] as Exclude<typeof s.ttft, Record<string, never>>;
      // endpoints writes early-stopping estimates for the three latency series, not for output lengths.
      const es = key === 'output_sequence_lengths' ? [] : ['early_stopping_percentiles'];
      expect(Object.keys(m)).toEqual([
        'total',
        'min',
        'max',
        'median',
        'avg',
        'std_dev',
        'percentiles',
        ...es,
        'histogram',
      ]);
      if (es.length > 0)
        expect(Object.keys(m.early_stopping_percentiles ?? {})).toEqual([
          '99.9',
          '99.0',
          '97.0',
          '95.0',
          '90.0',
          '80.0',
          '75.0',
          '50.0',
        ]);
      expect(Object.keys(m.percentiles)).toEqual([...ENDPOINTS_PERCENTILES]);
      expect(m.histogram.buckets).toHaveLength(30);
      expect(m.histogram.counts.reduce((a, b) => a + b, 0)).toBe(
        key === 'latency'
          ? series.latencyNs.length
          : key === 'ttft'
            ? series.ttftNs.length
            : key === 'tpot'
              ? series.tpotNs.length
              : series.outputTokens.length,
      );
      expect(m.median).toBe(m.percentiles['50.0']);
      expect(m.min).toBeLessThanOrEqual(m.median);
      expect(m.max).toBeGreaterThanOrEqual(m.percentiles['99.9']);
    }
    expect((s.output_sequence_lengths as { total: number }).total).toBe(
      sut.endpoints.reduce((a, e) => a + e.outputTokens, 0),
    );
    expect(s.input_sequence_lengths).toEqual({});
    expect(s.run_config).toMatchObject({
      load_pattern: { type: 'poisson', target_qps: rec.result.effective.targetQps },
    });
    // The text keeps the shape after a JSON round trip.
    expect(JSON.parse(toJsonText(s))).toMatchObject({ version: s.version, qps: s.qps });
  });

  test('report.html is well-formed, self-contained and shows the verdict, charts and endpoints', () => {
    const html = buildReportHtml(rec);
    checkWellFormed(html);
    checkSelfContained(html);
    const status = rec.result.valid ? 'VALID' : 'INVALID';
    expect(html).toMatch(new RegExp(`<section class="verdict ${status}"[^>]*><div class="big">${status}</div>`));
    expect(html).toContain('Time to first token (TTFT)');
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(9);
    expect(html).toContain('histogram');
    for (const e of rec.endpoints) expect(html).toContain(e.url);
    expect(html).not.toContain('no time series recorded');
  });

  test('writeRunOutputs writes its files atomically next to the logs', async () => {
    const { files } = await writeRunOutputs(rec);
    expect(files.map((f) => f.slice(rec.outdir.length + 1))).toEqual([
      'results.json',
      'result_summary.json',
      'config.yaml',
      'report.html',
    ]);
    for (const f of files) expect(existsSync(f)).toBe(true);
    expect(readdirSync(rec.outdir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    const j = JSON.parse(readFileSync(join(rec.outdir, 'results.json'), 'utf8'));
    expect(j.schema).toBe(RESULTS_SCHEMA);
    expect(j.verdict.valid).toBe(rec.result.valid);
    // 64-bit seeds, when given, stay exact in the text.
    const text = toJsonText({ seed: 16159082839903944936n });
    expect(text).toContain('16159082839903944936');
  });
});

describe('custom SUT, Offline (no SUT report, no TTFT)', () => {
  let rec: RunRecord;
  beforeAll(async () => {
    rec = await customRecord('Offline');
  });

  test('results.json: LoadGen figures only, no endpoints, no harness', () => {
    const r = rec.result;
    const j = buildResultsJson(rec);
    expect(j.throughput.qps).toBe(r.samplesPerSecond);
    expect(j.throughput.samplesPerSecond).toBe(r.samplesPerSecond);
    expect(j.latencyMs.ttft).toBeNull();
    expect(j.latencyMs.tpot).toBeNull();
    expect(j.latencyMs.sample!.p99).toBeCloseTo(ms(r.latency!.p99), 9);
    expect(j.endpoints).toEqual([]);
    expect(j.harness).toBeNull();
    expect(j.samples).toBeNull();
    expect(j.errors).toMatchObject({ failedSamples: 0, retries: 0, kinds: {}, idMismatch: { samples: 0, first: [] } });
    expect(j.verdict.status).toBe(r.valid ? 'VALID' : 'INVALID');
  });

  test('result_summary.json falls back to LoadGen statistics', () => {
    const s = buildResultSummary(rec);
    expect(s.ttft).toEqual({});
    const lat = s.latency as { min: number; percentiles: Record<string, number>; std_dev: number | null };
    expect(lat.min).toBe(rec.result.latency!.min);
    expect(lat.percentiles['99.0']).toBe(rec.result.latency!.p99);
    expect(lat.std_dev).toBeNull();
    expect(s.duration_ns).toBe(Math.round(rec.result.latency!.max));
    expect(s.run_config).toMatchObject({ load_pattern: { type: 'max_throughput' } });
  });

  test('report.html renders without SUT data and escapes the SUT name', () => {
    const html = buildReportHtml(rec);
    checkWellFormed(html);
    checkSelfContained(html);
    expect(html).toContain('Custom&lt;SUT&gt;&amp;&quot;x&quot;');
    expect(html).not.toContain('Custom<SUT>');
    expect(html).toContain('not measured (Offline)');
    expect(html).toContain('Custom SUT: no per-endpoint statistics.');
  });

  test('hostile text in the record is escaped everywhere', () => {
    const evil = '<script>alert(1)</script><img src="http://x/y.png">';
    const hostile: RunRecord = {
      ...rec,
      benchmark: evil,
      command: [evil],
      dataset: { ...rec.dataset, name: evil },
      settings: { ...rec.settings, note: evil },
      result: {
        ...rec.result,
        invalidReasons: [evil],
        valid: false,
        errors: { ...rec.result.errors, messages: [evil] },
      },
      extra: { x: evil },
    };
    const html = buildReportHtml(hostile);
    checkWellFormed(html);
    checkSelfContained(html);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toMatch(/<section class="verdict INVALID"/);
  });
});

describe('custom SUT, SingleStream and an aborted record', () => {
  test('SingleStream: QPS with loadgen overhead; aborted runs say so', async () => {
    const rec = await customRecord('SingleStream');
    const j = buildResultsJson(rec);
    expect(j.throughput.qps).toBe(rec.result.qpsWithLoadgenOverhead);
    const aborted: RunRecord = { ...rec, result: { ...rec.result, aborted: true, abortReason: 'SIGINT' } };
    const ja = buildResultsJson(aborted);
    expect(ja.verdict.status).toBe('ABORTED');
    expect(buildResultSummary(aborted)).toMatchObject({ state: 'interrupted', complete: false });
    const html = buildReportHtml(aborted);
    checkWellFormed(html);
    expect(html).toContain('aborted: SIGINT');
  });
});

test('MultiStream: query latency in results.json and on the page', async () => {
  const rec = await customRecord('MultiStream');
  const r = rec.result;
  const j = buildResultsJson(rec);
  expect(r.queryLatency).not.toBeNull();
  expect(j.latencyMs.query!.p99).toBeCloseTo(ms(r.queryLatency!.p99), 9);
  expect(j.metric).toEqual(r.metric);
  const html = buildReportHtml(rec);
  checkWellFormed(html);
  checkSelfContained(html);
  expect(html).toContain('Query latency (MultiStream)');
  expect(Object.keys(buildResultSummary(rec))).toContain('run_config');
});
