// report.html: one self-contained page (inline CSS and SVG, no script, no
// network: a Content-Security-Policy forbids any load) with the verdict, the
// key figures, latency/TTFT/TPOT distributions, rates and in-flight requests
// over time, and the per-endpoint comparison. Works with whatever the run
// has: no SUT report (custom SUT), no TTFT (Offline), no timeline.
import { traceReplayLine } from './trace-replay.js';
import { esc, fmtInt, fmtMs, fmtNum, fmtPct, card, table } from './html-text.js';
import { buildResultsJson, type MsStats, type ResultsJson } from './results-json.js';
import type { RunRecord } from './run-record.js';
import { logHistogram, seriesFromTimings, type SampleSeries } from './samples.js';
import { barChart, histogramChart, lineChart, PALETTE, percentileBars, emptyChart } from './svg-charts.js';
import { timeSeries } from './time-series.js';
import { costAndServerSections } from './report-cost-html.js';
import { multiturnSection } from './multiturn-html.js';
import { accuracySection } from './accuracy-html.js';
import { serverStateLines } from './server-state-html.js';
import { harnessSection, measurementBanner } from './harness-html.js';

export const REPORT_CSS = `
:root{--ok:#15803d;--bad:#b91c1c;--warn:#b45309;--none:#475569;--fg:#0f172a;--mut:#64748b;--line:#e2e8f0}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:#f8fafc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
.meta{color:var(--mut);margin-bottom:16px}
.verdict{border-radius:8px;padding:14px 18px;color:#fff;margin:12px 0 18px}
.verdict .big{font-size:26px;font-weight:700;letter-spacing:.5px}
.verdict ul{margin:6px 0 0 18px;padding:0}
.VALID{background:var(--ok)}.INVALID{background:var(--bad)}.ABORTED{background:var(--warn)}.NO_RESULT{background:var(--none)}
.measure{margin-top:8px;padding-top:6px;border-top:1px solid rgba(255,255,255,.35)}
.crit{display:flex;flex-wrap:wrap;gap:8px;margin-top:8px}.crit span{background:rgba(255,255,255,.18);border-radius:4px;padding:2px 8px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .k{color:var(--mut);font-size:12px}.card .v{font-size:20px;font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
.chart{background:#fff;border:1px solid var(--line);border-radius:8px;max-width:100%;height:auto}
.chart .ct{font-weight:600;font-size:13px;fill:var(--fg)}.chart .tick{font-size:11px;fill:#334155}
.chart .axis{font-size:11px;fill:var(--mut)}.chart .grid{stroke:#eef2f7}.chart .muted{fill:var(--mut);font-size:13px}
.chart .empty{fill:#f8fafc;stroke:var(--line)}.chart .marker{stroke:#dc2626;stroke-dasharray:4 3}.chart .mlabel{font-size:11px;fill:#dc2626}
table{border-collapse:collapse;background:#fff;border:1px solid var(--line);margin:6px 0}
th,td{padding:3px 8px;font-size:13px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f1f5f9;font-weight:600}
.note{color:var(--mut);font-size:12px}.wrap{overflow-x:auto}
code{font-size:12px}
`;

function verdictSection(j: ResultsJson): string {
  const v = j.verdict;
  const yes = (b: boolean | null | undefined) => (b === null || b === undefined ? 'n/a' : b ? 'yes' : 'NO');
  const crit = v.criteria
    ? `<div class="crit"><span>performance constraints: ${esc(yes(v.criteria.perfConstraintsMet))}</span><span>min duration: ${esc(yes(v.criteria.minDurationMet))}</span><span>min queries: ${esc(
        yes(v.criteria.minQueriesMet),
      )}</span><span>early stopping: ${esc(yes(v.criteria.earlyStoppingMet))}</span></div>`
    : '';
  const reasons = [...v.reasons];
  // The run's own status first: failed samples make it INVALID whatever LoadGen's timing criteria say.
  if (v.run && v.run.status !== 'OK' && v.run.message) reasons.unshift(v.run.message);
  if (j.run.aborted) reasons.unshift(`aborted: ${j.run.abortReason ?? 'unknown reason'}`);
  if (v.status === 'NO_RESULT') reasons.push(`${j.benchmark.mode}: no performance result to judge`);
  // LoadGen gives no recommendation when only early stopping fails: its own text says why.
  if (v.criteria && !v.criteria.earlyStoppingMet && v.earlyStopping) {
    for (const [name, text] of [
      ['', v.earlyStopping.text],
      ['TTFT ', v.earlyStopping.ttftText],
      ['TPOT ', v.earlyStopping.tpotText],
    ]) {
      if (!text.trim() || /Run successful/.test(text)) continue;
      // One item per " * " bullet; the engine wraps long bullets over several lines.
      const bullets = text
        .split(/(?:^|\s)\*\s+/)
        .map((b) => b.replace(/\s+/g, ' ').trim())
        .filter(Boolean);
      reasons.push(`${name}early stopping: ${bullets.join(' ')}`);
    }
  }
  const list = reasons.length > 0 ? `<ul>${reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : '';
  const metric = j.metric
    ? `<div>${esc(j.metric.name)}: <b>${esc(j.metric.unit === 'ns' ? fmtMs(j.metric.value / 1e6) : `${fmtNum(j.metric.value)} ${j.metric.unit}`)}</b></div>`
    : '';
  const overall = v.overall ?? v.status;
  const loadgen =
    overall !== v.status || (v.run && v.run.status !== 'OK')
      ? `<div>LoadGen's own verdict: ${esc(v.status === 'NO_RESULT' ? 'none (no performance pass)' : v.status)}</div>`
      : '';
  const policy = j.benchmark.issuePolicy
    ? `<div class="policy" id="issue-policy">Issue policy: ${esc(j.benchmark.issuePolicy)}: not an MLPerf scenario, not for a submission</div>${j.trace ? `<div id="trace-replay">${esc(traceReplayLine(j.trace))}</div>` : ''}`
    : '';
  return `<section class="verdict ${esc(overall)}" id="verdict"><div class="big">${esc(overall)}</div>${policy}${loadgen}${metric}${crit}${list}${measurementBanner(j)}</section>`;
}

/** The measured span: the harness window, else (Offline) LoadGen's longest latency, else wall time. */
function durationText(j: ResultsJson): string {
  const show = (ms: number) => (ms >= 1000 ? `${fmtNum(ms / 1000)} s` : fmtMs(ms));
  if (j.throughput.windowSeconds !== null) return show(j.throughput.windowSeconds * 1000);
  if (j.benchmark.scenario === 'Offline' && j.latencyMs.sample) return show(j.latencyMs.sample.max);
  return j.run.wallSeconds !== null ? `${show(j.run.wallSeconds * 1000)} (wall)` : '—';
}

/** A latency figure, or n/a where no sample gave one. */
function msOrNa(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? 'n/a' : fmtMs(ms);
}

function keyFigures(j: ResultsJson): string {
  const t = j.throughput;
  const l = j.latencyMs;
  const cards = [
    card('QPS', fmtNum(t.qps)),
    card('samples/s', fmtNum(t.samplesPerSecond)),
    card(`tokens/s${t.tokensPerSecondSource === 'harness' ? ' (harness)' : ''}`, fmtNum(t.tokensPerSecond)),
    card('p99 latency', msOrNa(l.sample?.p99)),
    card('p99 TTFT', msOrNa(l.ttft?.p99)),
    card('p99 TPOT', msOrNa(l.tpot?.p99)),
    card('samples', fmtInt(j.counts.samples)),
    card('queries', fmtInt(j.counts.queries)),
    card('errors', fmtInt(j.errors.loadgen.count + j.errors.failedSamples)),
    card('retries', fmtInt(j.errors.retries)),
    card('duration', durationText(j)),
  ];
  if (t.peakTargetQps !== null) cards.unshift(card('peak target QPS', fmtNum(t.peakTargetQps)));
  return `<div class="cards">${cards.join('')}</div>`;
}

function distChart(title: string, values: Float64Array | null, stats: MsStats | null, absentNote: string): string {
  if (values && values.length > 0) {
    // Buckets over ns (sub-ms values keep their own buckets), labelled in ms.
    const ns = logHistogram(values, 30, 1.2);
    const h = { buckets: ns.buckets.map(([a, b]) => [a / 1e6, b / 1e6] as [number, number]), counts: ns.counts };
    const markers = stats
      ? [
          { label: 'p50', value: stats.p50 },
          { label: 'p99', value: stats.p99 },
        ]
      : [];
    return histogramChart({ title, buckets: h.buckets, counts: h.counts, unit: 'ms', markers });
  }
  if (stats) {
    return percentileBars(
      `${title} (percentiles)`,
      [
        { label: 'min', value: stats.min },
        { label: 'p50', value: stats.p50 },
        { label: 'p90', value: stats.p90 },
        { label: 'p95', value: stats.p95 },
        { label: 'p97', value: stats.p97 },
        { label: 'p99', value: stats.p99 },
        { label: 'p99.9', value: stats.p999 },
        { label: 'max', value: stats.max },
      ],
      'ms',
    );
  }
  return emptyChart(title, absentNote);
}

function distributions(j: ResultsJson, series: SampleSeries | null): string {
  const l = j.latencyMs;
  const noneOk = j.verdict.run?.status === 'ALL_SAMPLES_FAILED';
  const tokenNote = noneOk
    ? 'n/a: no sample succeeded'
    : j.benchmark.scenario === 'Offline'
      ? 'not measured (Offline)'
      : 'not measured (no token latencies)';
  const charts = [
    distChart(
      j.benchmark.scenario === 'MultiStream' ? 'Sample latency' : 'Latency',
      series?.latencyNs ?? null,
      l.sample,
      noneOk ? 'n/a: no sample succeeded' : 'no performance result',
    ),
    distChart('Time to first token (TTFT)', series?.ttftNs ?? null, l.ttft, tokenNote),
    distChart('Time per output token (TPOT)', series?.tpotNs ?? null, l.tpot, tokenNote),
  ];
  if (l.query) charts.push(distChart('Query latency (MultiStream)', null, l.query, 'no query latency'));
  const row = (name: string, s: MsStats | null): string[] => [
    name,
    ...(s ? [s.min, s.p50, s.p90, s.p95, s.p97, s.p99, s.p999, s.max, s.mean].map(fmtMs) : Array(9).fill('n/a')),
  ];
  const rows = [row('latency', l.sample), row('TTFT', l.ttft), row('TPOT', l.tpot)];
  if (l.query) rows.push(row('query latency', l.query));
  const note = series
    ? `<p class="note">Histograms: every sample's harness timings (${fmtInt(series.latencyNs.length)} samples), from its scheduled time. Markers and table: ${j.latencyMs.source === 'harness' ? "the harness's timings of the samples that succeeded (LoadGen's statistics count failed samples too)" : "LoadGen's figures"}.</p>`
    : `<p class="note">No per-sample timings were recorded: the charts show LoadGen's percentiles.</p>`;
  return `<div class="charts">${charts.join('')}</div>${note}${table(['', 'min', 'p50', 'p90', 'p95', 'p97', 'p99', 'p99.9', 'max', 'mean'], rows)}`;
}

function overTime(record: RunRecord): string {
  const ts = timeSeries(record.timeline, record.sut?.timings);
  if (!ts) {
    return `<div class="charts">${emptyChart('Samples per second', 'no time series recorded')}${emptyChart('Tokens per second', 'no time series recorded')}${emptyChart('In-flight requests', 'no time series recorded')}</div>`;
  }
  const src =
    ts.source === 'timeline' ? 'the run’s progress samples (about once a second)' : 'per-sample harness timings';
  const hasTokens = ts.tokensPerSecond.some(([, v]) => v > 0);
  return `<div class="charts">${lineChart('Completed samples per second', [{ name: 'samples/s', points: ts.completedPerSecond }], 'time (s)', 'samples/s')}${
    hasTokens
      ? lineChart(
          'Output tokens per second',
          [{ name: 'tokens/s', points: ts.tokensPerSecond, color: PALETTE[1] }],
          'time (s)',
          'tokens/s',
        )
      : emptyChart('Output tokens per second', 'no token counts')
  }${lineChart('In-flight requests', [{ name: 'in flight', points: ts.inFlight, color: PALETTE[2] }], 'time (s)', 'requests')}</div><p class="note">From ${esc(src)}.</p>`;
}

function endpointsSection(j: ResultsJson): string {
  if (j.endpoints.length === 0) {
    return `<p class="note">${esc(j.harness ? 'The adapter reported no endpoints.' : 'Custom SUT: no per-endpoint statistics.')}</p>`;
  }
  const rows = j.endpoints.map((e) => [
    e.url,
    `${e.backend} · ${e.model}`,
    fmtInt(e.requests),
    fmtInt(e.completed),
    fmtPct(e.share),
    fmtInt(e.errors),
    fmtInt(e.retries),
    fmtNum(e.outputTokensPerSecond),
    fmtMs(e.ttftMs.p50),
    fmtMs(e.ttftMs.p99),
    fmtMs(e.tpotMs.p99),
    fmtMs(e.latencyMs.p99),
    fmtInt(e.breakerOpened),
  ]);
  const label = (i: number) => `#${i + 1} ${j.endpoints[i].url.replace(/^[a-z]+:\/\//i, '')}`;
  const charts = [
    barChart(
      'Completed requests per endpoint',
      j.endpoints.map((e, i) => ({
        label: label(i),
        value: e.completed,
        text: `${fmtInt(e.completed)} (${fmtPct(e.share)})`,
      })),
      'requests',
    ),
    barChart(
      'Output tokens per second per endpoint',
      j.endpoints.map((e, i) => ({ label: label(i), value: e.outputTokensPerSecond })),
      'tokens/s',
    ),
    barChart(
      'p99 TTFT per endpoint (harness side)',
      j.endpoints.map((e, i) => ({
        label: label(i),
        value: e.ttftMs.count > 0 ? e.ttftMs.p99 : null,
        text: fmtMs(e.ttftMs.p99),
      })),
      'ms',
    ),
  ];
  if (j.endpoints.some((e) => e.errors > 0 || e.retries > 0)) {
    charts.push(
      barChart(
        'Errors and retries per endpoint',
        j.endpoints.flatMap((e, i) => [
          { label: `${label(i)} errors`, value: e.errors, color: '#dc2626' },
          { label: `${label(i)} retries`, value: e.retries, color: '#d97706' },
        ]),
        'count',
      ),
    );
  }
  return `${table(['endpoint', 'backend · model', 'requests', 'completed', 'share', 'errors', 'retries', 'tokens/s', 'TTFT p50', 'TTFT p99', 'TPOT p99', 'latency p99', 'breaker'], rows)}<p class="note">Per-endpoint latencies are measured by the harness from the request write.</p><div class="charts">${charts.join('')}</div>`;
}

function errorsSection(j: ResultsJson): string {
  const e = j.errors;
  const rows: string[][] = [
    ['LoadGen errors', fmtInt(e.loadgen.count)],
    ['LoadGen warnings', fmtInt(e.loadgen.warnings)],
    ['failed samples (adapter)', fmtInt(e.failedSamples)],
    ['retried samples', fmtInt(e.retriedSamples)],
    ['retries', fmtInt(e.retries)],
    ['unknown ids', fmtInt(e.loadgen.unknownIds)],
    ['duplicate completions', fmtInt(e.loadgen.duplicateCompletions)],
    ['token count errors', fmtInt(e.loadgen.tokenCountErrors)],
    ['missing first tokens', fmtInt(e.loadgen.missingFirstTokens)],
  ];
  for (const [k, n] of Object.entries(e.kinds)) rows.push([`error kind: ${k}`, fmtInt(n)]);
  const msgs = [...e.loadgen.messages.slice(0, 20), ...e.warnings.slice(0, 20)];
  const list = msgs.length > 0 ? `<ul>${msgs.map((m) => `<li><code>${esc(m)}</code></li>`).join('')}</ul>` : '';
  return table(['', 'count'], rows) + list;
}

function settingsSection(j: ResultsJson): string {
  const show = (v: unknown): string =>
    typeof v === 'bigint'
      ? v.toString()
      : typeof v === 'object' && v !== null
        ? JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))
        : String(v);
  const req = Object.entries(j.settings.requested).map(([k, v]) => [k, show(v)]);
  const eff = Object.entries(j.settings.effective).map(([k, v]) => [k, show(v)]);
  const bench = [
    ['benchmark', j.benchmark.model ?? '—'],
    ['SUT', j.benchmark.sutName],
    [
      'dataset',
      `${j.benchmark.dataset.name} (${fmtInt(j.benchmark.dataset.size)} samples${j.benchmark.dataset.preset ? `, preset ${j.benchmark.dataset.preset}` : ''})`,
    ],
    ['simulated endpoints', j.run.simulated ? 'yes' : 'no'],
    ['command', j.run.command ? j.run.command.join(' ') : '—'],
  ];
  if (j.harness)
    bench.push([
      'adapter',
      `${j.harness.backend} / ${j.harness.api}, ${j.harness.workers} workers${j.harness.busyPollIdleMs != null ? ` busy-polling (idle ${j.harness.busyPollIdleMs} ms)` : ''}, tokens from ${j.harness.capabilities.tokenSource}`,
    ]);
  return `${table(['run', ''], bench)}<div class="charts"><div>${table(['requested setting', 'value'], req)}</div><div>${table(['effective setting', 'value'], eff)}</div></div>`;
}

/** The whole page as one string. */
export function buildReportHtml(record: RunRecord, results: ResultsJson = buildResultsJson(record)): string {
  const j = results;
  const series = record.sut?.timings && record.sut.timings.length > 0 ? seriesFromTimings(record.sut.timings) : null;
  const title = `${j.benchmark.model ?? j.benchmark.sutName} · ${j.benchmark.scenario} · ${j.benchmark.mode}`;
  const meta = `${j.run.startedAt} → ${j.run.endedAt} · ${j.tool.name} ${j.tool.version} (engine ${j.tool.engineVersion})${j.run.simulated ? ' · simulated endpoints' : ''}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`LoadGen report: ${title}`)}</title>
<style>${REPORT_CSS}</style></head>
<body>
<h1>${esc(title)}</h1>
<div class="meta">${esc(meta)}</div>
${verdictSection(j)}
${
  j.accuracy
    ? `<h2>Accuracy</h2>
${accuracySection(j.accuracy)}`
    : ''
}<h2>Key figures</h2>
${keyFigures(j)}
<h2>Latency distributions</h2>
${distributions(j, series)}
<h2>Over time</h2>
${overTime(record)}
${
  j.multiturn
    ? `<h2>Conversations</h2>
${multiturnSection(j.multiturn)}
`
    : ''
}<h2>Endpoints</h2>
${endpointsSection(j)}
${serverStateLines(j)}
${costAndServerSections(j, record)}<h2>Errors and retries</h2>
${errorsSection(j)}
<h2>Harness</h2>
${harnessSection(j)}
<h2>Settings</h2>
${settingsSection(j)}
<p class="note">Schema ${esc(j.schema)} v${esc(j.schemaVersion)} · logs: ${esc(Object.values(j.logs).filter(Boolean).join(', '))}</p>
</body></html>
`;
}
