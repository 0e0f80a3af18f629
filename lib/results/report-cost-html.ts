// report.html's sections for cost and tokens, budgets, the journal/resume,
// and the servers' own metrics over time next to the client's figures.
// Each returns '' when the run has nothing for it.
import { esc, fmtInt, fmtMs, fmtNum, fmtPct, card, table } from './html-text.js';
import type { ResultsJson } from './results-json.js';
import type { RunRecord } from './run-record.js';
import { energySection } from './energy-html.js';
import { emptyChart, lineChart, PALETTE } from './svg-charts.js';

const usd = (v: number | null | undefined, digits = 4): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '—' : `$${v.toFixed(digits)}`;

function costSection(j: ResultsJson): string {
  const t = j.tokens;
  const c = j.cost;
  const g = j.goodput;
  if (!t && !c) return '';
  const cards: string[] = [];
  if (c) {
    cards.push(
      card('run cost', usd(c.dollars)),
      card('$ per hour', usd(c.dollarsPerHour, 2)),
      card('$ / M output tokens', usd(c.perMillionOutputTokens)),
      card('$ / M input tokens', usd(c.perMillionInputTokens)),
    );
    cards.push(
      card('$ / 1,000 queries', usd(c.perThousandQueries)),
      card('$ / query within targets', usd(c.perGoodQuery, 6)),
    );
  }
  if (g)
    cards.push(card('goodput (within targets)', `${fmtInt(g.good)} of ${fmtInt(g.samples)} (${fmtPct(g.fraction)})`));
  if (t)
    cards.push(
      card('prompt tokens', t.promptTokens === null ? 'unknown (text prompts)' : fmtInt(t.promptTokens)),
      card('output tokens', fmtInt(t.outputTokens)),
    );
  const rows = (t?.endpoints ?? []).map((e, i) => {
    const p = c?.endpoints[i];
    return [
      e.url,
      p ? String(p.gpus) : '—',
      p ? usd(p.pricePerGpuHour, 2) : '—',
      p ? usd(p.dollars) : '—',
      fmtInt(e.samples),
      e.promptTokens === null ? '—' : fmtInt(e.promptTokens),
      fmtInt(e.outputTokens),
    ];
  });
  const targets = g
    ? g.targets.kind === 'token-latencies'
      ? `TTFT ≤ ${fmtMs(g.targets.ttftMs)} and TPOT ≤ ${fmtMs(g.targets.tpotMs)}`
      : g.targets.kind === 'latency'
        ? `latency ≤ ${fmtMs(g.targets.latencyMs)}`
        : 'no latency target in this scenario: every successful query counts'
    : '';
  const note = c
    ? `Cost: each endpoint's GPUs × price per GPU-hour over the test's wall time (${fmtNum(c.billedSeconds)} s); each per-unit figure divides the whole cost. A query is one sample (one request). Targets: ${targets}.`
    : `No --gpu-hour-price: tokens only. Targets: ${targets}.`;
  return `<h2>Cost and tokens</h2><div class="cards">${cards.join('')}</div>${table(['endpoint', 'GPUs', '$/GPU-h', 'cost', 'samples', 'prompt tokens', 'output tokens'], rows)}<p class="note">${esc(note)}</p>`;
}

function budgetSection(j: ResultsJson): string {
  const b = j.budget;
  if (!b) return '';
  const rows: string[][] = [];
  if (b.limits.outputTokens !== undefined)
    rows.push(['output tokens', fmtInt(b.limits.outputTokens), fmtInt(b.used.outputTokens)]);
  if (b.limits.dollars !== undefined) rows.push(['cost', usd(b.limits.dollars, 2), usd(b.used.dollars)]);
  if (b.limits.minutes !== undefined) rows.push(['minutes', fmtNum(b.limits.minutes), fmtNum(b.used.minutes)]);
  const stop = b.reason ? `<p><b>Stopped:</b> ${esc(b.reason)}</p>` : '<p class="note">No budget was reached.</p>';
  return `<h2>Budgets</h2>${table(['budget', 'limit', 'used'], rows)}${stop}`;
}

function resumeSection(j: ResultsJson): string {
  const r = j.resume;
  if (!r) return '';
  const rows = [
    ['resumed run', r.resumed ? 'yes' : 'no'],
    ['samples restored from the journal', fmtInt(r.restoredSamples)],
    ['accuracy samples done', `${fmtInt(r.journaledSamples)} of ${fmtInt(r.accuracySamples)}`],
    ['complete', r.complete ? 'yes' : 'NO: continue with --resume'],
    ['journal', r.journal ?? 'removed (run complete)'],
  ];
  return `<h2>Journal and resume</h2>${table(['', ''], rows)}`;
}

function serverSection(j: ResultsJson, record: RunRecord): string {
  const m = j.serverMetrics;
  if (!m) return '';
  const secs = (ms: number) => ms / 1000;
  const charts: string[] = [];
  const client = record.timeline;
  const clientRate: Array<[number, number]> = [];
  for (let i = 1; i < client.length; i++) {
    const dt = (client[i].tMs - client[i - 1].tMs) / 1000;
    if (dt > 0) clientRate.push([secs(client[i].tMs), (client[i].outputTokens - client[i - 1].outputTokens) / dt]);
  }
  m.endpoints.forEach((e, k) => {
    const name = m.endpoints.length > 1 ? ` (#${k + 1})` : '';
    const pts = e.points;
    const series = (f: (p: (typeof pts)[number]) => number | null): Array<[number, number]> =>
      pts.filter((p) => f(p) !== null).map((p) => [secs(p.tMs), f(p) as number]);
    charts.push(
      lineChart(
        `Running and waiting requests, server${name}`,
        [
          { name: 'running', points: series((p) => p.running) },
          { name: 'waiting', points: series((p) => p.waiting), color: PALETTE[3] },
        ],
        'time (s)',
        'requests',
      ),
    );
    charts.push(
      lineChart(
        `KV-cache usage, server${name}`,
        [{ name: 'KV usage', points: series((p) => (p.kvUsage === null ? null : p.kvUsage * 100)), color: PALETTE[4] }],
        'time (s)',
        '%',
      ),
    );
    const rate: Array<[number, number]> = [];
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1];
      const b = pts[i];
      const dt = (b.tMs - a.tMs) / 1000;
      if (dt > 0 && a.generationTokens !== null && b.generationTokens !== null)
        rate.push([secs(b.tMs), (b.generationTokens - a.generationTokens) / dt]);
    }
    charts.push(
      lineChart(
        `Output tokens per second: server vs client${name}`,
        [
          { name: 'server (generation counter)', points: rate, color: PALETTE[1] },
          ...(m.endpoints.length === 1 ? [{ name: 'client', points: clientRate, color: PALETTE[0] }] : []),
        ],
        'time (s)',
        'tokens/s',
      ),
    );
    const ttft = series((p) => p.ttftMeanMs);
    charts.push(
      ttft.length >= 2
        ? lineChart(
            `Server TTFT, mean per interval${name}`,
            [{ name: 'server TTFT', points: ttft, color: PALETTE[5] }],
            'time (s)',
            'ms',
          )
        : emptyChart(`Server TTFT${name}`, 'too few first tokens between scrapes'),
    );
    const hit = series((p) => (p.prefixHitRate === null ? null : p.prefixHitRate * 100));
    if (hit.length >= 2)
      charts.push(
        lineChart(
          `Prefix-cache hit rate, server${name}`,
          [{ name: 'hit rate', points: hit, color: PALETTE[2] }],
          'time (s)',
          '%',
        ),
      );
  });
  const rows = m.endpoints.map((e, k) => {
    const ep = j.endpoints[k];
    return [
      e.url,
      e.flavor ?? '—',
      `${fmtInt(e.scrapes)}${e.failedScrapes ? ` (${fmtInt(e.failedScrapes)} failed)` : ''}`,
      fmtInt(e.generationTokens),
      fmtInt(e.client?.outputTokens),
      e.generationTokensRatio === null ? '—' : fmtNum(e.generationTokensRatio, 4),
      fmtInt(e.promptTokens),
      e.client?.promptTokens === null || e.client?.promptTokens === undefined ? '—' : fmtInt(e.client.promptTokens),
      fmtMs(e.ttftMs?.mean),
      fmtMs(e.ttftMs?.p99),
      fmtMs(ep?.ttftMs.p99),
      fmtNum(e.peak.running, 0),
      fmtNum(e.peak.waiting, 0),
      fmtPct(e.peak.kvUsage),
      e.prefixCacheHitRate === null ? '—' : fmtPct(e.prefixCacheHitRate),
      fmtInt(e.restarts),
    ];
  });
  return `<h2>Server metrics</h2>${table(
    [
      'endpoint',
      'server',
      'scrapes',
      'gen. tokens (server)',
      'output tokens (client)',
      'server/client',
      'prompt tokens (server)',
      'prompt tokens (client)',
      'TTFT mean (server)',
      'TTFT p99 (server)',
      'TTFT p99 (client)',
      'peak running',
      'peak waiting',
      'peak KV',
      'prefix hit rate',
      'restarts',
    ],
    rows,
  )}<div class="charts">${charts.join('')}</div><p class="note">From each endpoint's Prometheus /metrics, scraped every ${esc(fmtNum(m.intervalMs / 1000))} s and once before and after the test; counters are increases over the run (a server restart is counted from zero). Server TTFT is measured from the server's arrival (tokenisation included), client TTFT from the request write; server token counters also count other clients' requests.</p>`;
}

/** The cost, energy, budget, resume and server-metrics sections, in that order. */
export function costAndServerSections(j: ResultsJson, record: RunRecord): string {
  return [costSection(j), energySection(j), budgetSection(j), resumeSection(j), serverSection(j, record)]
    .filter(Boolean)
    .map((s) => `${s}\n`)
    .join('');
}
