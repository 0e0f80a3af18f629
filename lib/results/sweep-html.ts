// sweep.html: a sweep on one self-contained page like report.html (inline
// CSS and SVG, no script, no external resource): the capacity, the load
// curves (throughput vs latency, TTFT and TPOT p99 with the bounds drawn),
// the Pareto view (output tokens/s per user vs output tokens/s per GPU, or in
// total when the GPU count is unknown) and a table of every point.
import { join } from 'node:path';

import { scrubText } from '../core/redact.js';
import { card, esc, fmtMs, fmtNum, fmtPct, table } from './html-text.js';
import { toJsonText } from './json-text.js';
import { REPORT_CSS } from './report-html.js';
import { emptyChart, xyChart, type LineSeries } from './svg-charts.js';
import type { SweepJson, SweepPoint } from './sweep-json.js';
import { writeFileAtomic } from './write-outputs.js';

export const SWEEP_FILES = { json: 'sweep.json', html: 'sweep.html' } as const;

function capacitySection(s: SweepJson): string {
  const c = s.capacity;
  const unit = s.dimension === 'qps' ? 'QPS' : 'concurrency';
  if (s.kind === 'list') {
    const valid = s.points.filter((p) => p.withinBounds).length;
    return `<section class="verdict ${valid === s.points.length ? 'VALID' : 'NO_RESULT'}"><div class="big">${esc(`${s.points.length} points`)}</div><div>${esc(`${valid} within the bounds`)}</div></section>`;
  }
  if (!c || c.value === null)
    return `<section class="verdict INVALID"><div class="big">no capacity found</div><div>${esc(`every probe was INVALID (lowest ${unit} tried: ${fmtNum(c?.lowerInvalid ?? null)})`)}</div></section>`;
  const lines = [
    c.lowerInvalid !== null
      ? `INVALID at ${fmtNum(c.lowerInvalid)} ${unit}; precision ${fmtPct(c.precision)}${c.reached ? '' : ' (not reached)'}`
      : `no INVALID ${unit} found above it`,
    `${c.probes} probes of ${fmtMs(s.probeDurationMs)} each`,
  ];
  if (c.calibration)
    lines.push(
      `started at ${fmtNum(c.calibration.start)} QPS: half the ${fmtNum(c.calibration.qps)} samples/s that ${c.calibration.concurrency} users in a closed loop reached`,
    );
  if (c.confirmed !== null) lines.push(`confirmation run with the full settings: ${c.confirmed ? 'VALID' : 'INVALID'}`);
  const cls = c.confirmed === false ? 'INVALID' : 'VALID';
  return `<section class="verdict ${cls}"><div class="big">${esc(`capacity: ${fmtNum(c.value)} ${unit}`)}</div><ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul></section>`;
}

/** The points the curves show: the calibration ran another issue policy (a closed loop at saturation). */
function curvePoints(s: SweepJson): SweepPoint[] {
  return s.points.filter((p) => p.kind !== 'calibration');
}

function xOf(p: SweepPoint): number | null {
  return p.qps;
}

function curve(points: SweepPoint[], y: (p: SweepPoint) => number | null): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const p of points) {
    const a = xOf(p);
    const b = y(p);
    if (a !== null && b !== null) out.push([a, b]);
  }
  return out;
}

/** Every point, and the INVALID ones again in red, so the chart shows where the bound is crossed. */
function split(name: string, points: SweepPoint[], y: (p: SweepPoint) => number | null): LineSeries[] {
  return [
    { name: `${name}, every point`, points: curve(points, y), color: '#2563eb' },
    {
      name: `${name}, INVALID points`,
      points: curve(
        points.filter((p) => !p.withinBounds),
        y,
      ),
      color: '#dc2626',
    },
  ];
}

function loadCurves(s: SweepJson): string {
  const pts = curvePoints(s);
  const b = s.bounds;
  const charts: string[] = [];
  const x = 'throughput (completed samples/s)';
  const limit = (label: string, v: number | null | undefined) =>
    v ? [{ label: `${label} ${fmtMs(v)}`, value: v }] : [];
  if (pts.some((p) => p.ttftMs))
    charts.push(
      xyChart({
        title: 'TTFT p99 vs throughput',
        series: split('TTFT p99', pts, (p) => p.ttftMs?.p99 ?? null),
        xUnit: x,
        yUnit: 'ms',
        limits: limit('TTFT bound', b?.ttftMs),
      }),
    );
  if (pts.some((p) => p.tpotMs))
    charts.push(
      xyChart({
        title: 'TPOT p99 vs throughput',
        series: split('TPOT p99', pts, (p) => p.tpotMs?.p99 ?? null),
        xUnit: x,
        yUnit: 'ms',
        limits: limit('TPOT bound', b?.tpotMs),
      }),
    );
  charts.push(
    xyChart({
      title: 'latency p99 vs throughput',
      series: split('latency p99', pts, (p) => p.latencyMs?.p99 ?? null),
      xUnit: x,
      yUnit: 'ms',
      limits: limit('latency bound', b?.latencyMs),
    }),
  );
  charts.push(
    xyChart({
      title: 'output tokens/s vs throughput',
      series: [{ name: 'output tokens/s', points: curve(pts, (p) => p.tokensPerSecond) }],
      xUnit: x,
      yUnit: 'tokens/s',
    }),
  );
  const joules = curve(pts, (p) => p.joulesPerOutputToken ?? null);
  if (joules.length > 0)
    charts.push(
      xyChart({
        title: 'GPU energy per output token vs throughput',
        series: [{ name: 'J / output token', points: joules }],
        xUnit: x,
        yUnit: 'J / token',
      }),
    );
  return `<div class="charts">${charts.join('')}</div>`;
}

function pareto(s: SweepJson): string {
  const perGpu = s.gpus !== null;
  const total = (p: SweepPoint) => (perGpu ? p.tokensPerSecondPerGpu : p.tokensPerSecond);
  const pts = curvePoints(s).filter((p) => p.tokensPerSecondPerUser !== null && total(p) !== null);
  if (pts.length === 0)
    return emptyChart('Pareto: tokens/s per user vs per GPU', 'no point has TPOT and token figures');
  const series = (name: string, list: SweepPoint[], color: string): LineSeries => ({
    name,
    color,
    points: list.map((p) => [p.tokensPerSecondPerUser as number, total(p) as number]),
  });
  const valid = pts.filter((p) => p.withinBounds);
  return xyChart({
    title: `Pareto: output tokens/s ${perGpu ? 'per GPU' : 'in total'} vs per user`,
    series: [
      series('VALID', valid, '#2563eb'),
      series(
        'INVALID',
        pts.filter((p) => !p.withinBounds),
        '#dc2626',
      ),
    ],
    xUnit: 'output tokens/s per user (1000 / mean TPOT ms)',
    yUnit: perGpu ? 'tokens/s per GPU' : 'tokens/s',
  });
}

function pointsTable(s: SweepJson): string {
  const energy = s.points.some((p) => p.joulesPerOutputToken != null);
  const head = [
    s.dimension === 'qps' ? 'target QPS' : 'concurrency',
    'kind',
    'verdict',
    'measurement',
    'QPS',
    'tokens/s',
    'goodput',
    'latency p99',
    'TTFT p99',
    'TPOT p99',
    ...(energy ? ['J / output token'] : []),
    'run directory',
  ];
  const rows = s.points.map((p) => [
    fmtNum(p.value),
    `${p.kind}${p.resumed ? ' (resumed)' : ''}`,
    p.sustained === false && p.verdict === 'VALID'
      ? `${p.verdict}, not sustained (${p.trend?.metric === 'ttft' ? 'TTFT' : 'latency'} p99 projected ${fmtMs(p.trend?.projectedP99Ms)})`
      : p.verdict,
    p.measurement ?? '—',
    fmtNum(p.qps),
    fmtNum(p.tokensPerSecond),
    p.goodput ? fmtPct(p.goodput.fraction) : '—',
    fmtMs(p.latencyMs?.p99),
    fmtMs(p.ttftMs?.p99),
    fmtMs(p.tpotMs?.p99),
    ...(energy ? [p.joulesPerOutputToken == null ? '—' : String(Number(p.joulesPerOutputToken.toPrecision(4)))] : []),
    p.dir,
  ]);
  return table(head, rows);
}

/** The whole page as one string. */
export function buildSweepHtml(s: SweepJson): string {
  const title = `${s.benchmark ?? 'sweep'} · ${s.scenario} · ${s.kind === 'search' ? `capacity search over ${s.dimension === 'qps' ? 'target QPS' : 'concurrency'}` : 'list of points'}`;
  const meta = `${s.startedAt} → ${s.endedAt}${s.simulated ? ' · simulated endpoint' : ''}${s.stopped ? ' · stopped early' : ''}`;
  const b = s.bounds;
  const cards = [
    card('points', String(s.points.length)),
    card('TTFT bound', fmtMs(b?.ttftMs)),
    card('TPOT bound', fmtMs(b?.tpotMs)),
    card('latency bound', fmtMs(b?.latencyMs)),
    card('GPUs', s.gpus === null ? '—' : String(s.gpus)),
  ].join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`LoadGen sweep: ${title}`)}</title>
<style>${REPORT_CSS}</style></head>
<body>
<h1>${esc(title)}</h1>
<div class="meta">${esc(meta)}</div>
${capacitySection(s)}
<div class="cards">${cards}</div>
<h2>Load curves</h2>
${loadCurves(s)}
<h2>Pareto view</h2>
<div class="charts">${pareto(s)}</div>
<h2>Points</h2>
${pointsTable(s)}
<p class="note">Schema ${esc(s.schema)} v${esc(s.schemaVersion)} · each point's MLPerf logs, results.json and report.html are in its run directory.</p>
</body></html>
`;
}

/** Writes sweep.json and sweep.html into the sweep's outdir (atomically); returns their paths. */
export async function writeSweepOutputs(s: SweepJson): Promise<string[]> {
  const files: string[] = [];
  for (const [name, text] of [
    [SWEEP_FILES.json, toJsonText(s)],
    [SWEEP_FILES.html, buildSweepHtml(s)],
  ] as const) {
    const path = join(s.outdir, name);
    await writeFileAtomic(path, scrubText(text));
    files.push(path);
  }
  return files;
}
