// Inline SVG charts for report.html, drawn by hand: no chart library, no
// script, no external resource. Each function returns one <svg> element as
// text; labels go through esc(). Empty data gives a small "no data" panel
// rather than an error, so a report never fails on a missing series.
import { esc, fmtNum } from './html-text.js';

export const PALETTE = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

const W = 560;
const H = 240;
const PAD = { left: 62, right: 16, top: 28, bottom: 42 };

/** Round steps (1, 2, 5 × 10^k) with about `n` ticks; the last tick is at or above `hi`, so an axis ending there holds every value. */
export function niceTicks(lo: number, hi: number, n = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi <= lo) hi = lo + (lo === 0 ? 1 : Math.abs(lo));
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => raw <= s) ?? 10 * mag;
  const out: number[] = [];
  const last = Math.ceil(hi / step - 1e-9) * step;
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= last + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

function frame(title: string, body: string, label: string): string {
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(label)}"><title>${esc(title)}</title><text x="${PAD.left}" y="17" class="ct">${esc(title)}</text>${body}</svg>`;
}

export function emptyChart(title: string, message: string): string {
  return frame(
    title,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" class="empty"/><text x="${W / 2}" y="${H / 2}" text-anchor="middle" class="muted">${esc(message)}</text>`,
    `${title}: ${message}`,
  );
}

function yAxis(ticks: number[], y: (v: number) => number, unit: string): string {
  const parts = ticks.map(
    (t) =>
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" class="grid"/><text x="${PAD.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" class="tick">${esc(fmtNum(t))}</text>`,
  );
  const mid = (PAD.top + H - PAD.bottom) / 2;
  parts.push(
    `<text transform="translate(13 ${mid}) rotate(-90)" text-anchor="middle" class="axis">${esc(unit)}</text>`,
  );
  return parts.join('');
}

export interface HistogramInput {
  title: string;
  /** [lo, hi) bucket edges in display units, increasing. */
  buckets: Array<[number, number]>;
  counts: number[];
  unit: string;
  /** Vertical markers, e.g. p50 / p99, in display units. */
  markers?: Array<{ label: string; value: number }>;
}

/** Bars over log-spaced buckets; the x axis is log scale, labelled at bucket edges. */
export function histogramChart(h: HistogramInput): string {
  const n = h.counts.length;
  if (n === 0 || h.counts.every((c) => c === 0)) return emptyChart(h.title, 'no per-sample data');
  const lo = h.buckets[0][0];
  const hi = h.buckets[n - 1][1];
  const llo = Math.log(Math.max(lo, 1e-12));
  const lhi = Math.log(Math.max(hi, lo * 1.0001, 1e-12));
  const x = (v: number) =>
    PAD.left + ((Math.log(Math.max(v, 1e-12)) - llo) / (lhi - llo || 1)) * (W - PAD.left - PAD.right);
  const maxC = Math.max(...h.counts);
  const ticks = niceTicks(0, maxC, 4);
  const top = ticks[ticks.length - 1] || maxC;
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const bars = h.counts
    .map((c, i) => {
      if (c === 0) return '';
      const x0 = x(h.buckets[i][0]);
      const x1 = x(h.buckets[i][1]);
      return `<rect x="${x0.toFixed(1)}" y="${y(c).toFixed(1)}" width="${Math.max(1, x1 - x0 - 1).toFixed(1)}" height="${(H - PAD.bottom - y(c)).toFixed(1)}" fill="${PALETTE[0]}"><title>${esc(`${fmtNum(h.buckets[i][0])}–${fmtNum(h.buckets[i][1])} ${h.unit}: ${c}`)}</title></rect>`;
    })
    .join('');
  // About five x labels at bucket edges.
  const every = Math.max(1, Math.round(n / 5));
  const xl: string[] = [];
  for (let i = 0; i <= n; i += every) {
    const v = i < n ? h.buckets[i][0] : hi;
    xl.push(
      `<text x="${x(v).toFixed(1)}" y="${H - PAD.bottom + 15}" text-anchor="middle" class="tick">${esc(fmtNum(v))}</text>`,
    );
  }
  const marks = (h.markers ?? [])
    .filter((m) => Number.isFinite(m.value) && m.value >= lo && m.value <= hi)
    .map((m, i) => {
      const mx = x(m.value).toFixed(1);
      return `<line x1="${mx}" x2="${mx}" y1="${PAD.top}" y2="${H - PAD.bottom}" class="marker"/><text x="${mx}" y="${PAD.top + 10 + i * 12}" class="mlabel" text-anchor="start" dx="3">${esc(m.label)}</text>`;
    })
    .join('');
  const axisX = `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 6}" text-anchor="middle" class="axis">${esc(h.unit)} (log scale)</text>`;
  return frame(h.title, yAxis(ticks, y, 'samples') + bars + marks + xl.join('') + axisX, `${h.title} histogram`);
}

export interface Bar {
  label: string;
  value: number | null;
  color?: string;
  /** Text after the bar (defaults to the value). */
  text?: string;
}

/** Horizontal bars, one row per item. */
export function barChart(title: string, bars: Bar[], unit: string): string {
  const shown = bars.filter((b) => b.value !== null && Number.isFinite(b.value));
  if (shown.length === 0) return emptyChart(title, 'no data');
  const rowH = 22;
  const height = Math.max(90, PAD.top + shown.length * rowH + 30);
  const labelW = 150;
  const x0 = labelW + 10;
  const maxV = Math.max(...shown.map((b) => b.value as number), 0);
  const ticks = niceTicks(0, maxV > 0 ? maxV : 1, 4);
  const top = ticks[ticks.length - 1] || 1;
  // Room after the longest bar for its value text (about 6.5 px a character at 11 px).
  const textRoom = Math.max(50, ...shown.map((b) => (b.text ?? fmtNum(b.value)).length * 6.5 + 10));
  const wOf = (v: number) => (Math.max(v, 0) / top) * Math.max(60, W - x0 - textRoom);
  const rows = shown
    .map((b, i) => {
      const y = PAD.top + i * rowH;
      const label = b.label.length > 24 ? b.label.slice(0, 23) + '…' : b.label;
      const color = b.color ?? PALETTE[i % PALETTE.length];
      return `<text x="${labelW}" y="${y + 15}" text-anchor="end" class="tick">${esc(label)}<title>${esc(b.label)}</title></text><rect x="${x0}" y="${y + 3}" width="${Math.max(1, wOf(b.value as number)).toFixed(1)}" height="${rowH - 7}" fill="${esc(color)}"/><text x="${(x0 + wOf(b.value as number) + 5).toFixed(1)}" y="${y + 15}" class="tick">${esc(b.text ?? fmtNum(b.value))}</text>`;
    })
    .join('');
  const axis = `<text x="${x0}" y="${height - 8}" class="axis">${esc(unit)}</text>`;
  return `<svg class="chart" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title><text x="${PAD.left}" y="17" class="ct">${esc(title)}</text>${rows}${axis}</svg>`;
}

export interface LineSeries {
  name: string;
  points: Array<[number, number]>;
  color?: string;
}

/** Lines over a shared linear x axis (time in s). */
export function lineChart(title: string, series: LineSeries[], xUnit: string, yUnit: string): string {
  const pts = series.flatMap((s) => s.points).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
  if (pts.length < 2) return emptyChart(title, 'no time series recorded');
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const xmin = Math.min(...xs);
  const xmax = Math.max(...xs);
  const yt = niceTicks(0, Math.max(...ys, 0) || 1, 4);
  const ytop = yt[yt.length - 1] || 1;
  const x = (v: number) => PAD.left + ((v - xmin) / (xmax - xmin || 1)) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / ytop) * (H - PAD.top - PAD.bottom);
  const xt = niceTicks(xmin, xmax, 6).filter((t) => t >= xmin && t <= xmax);
  const xl = xt
    .map(
      (t) =>
        `<text x="${x(t).toFixed(1)}" y="${H - PAD.bottom + 15}" text-anchor="middle" class="tick">${esc(fmtNum(t))}</text>`,
    )
    .join('');
  const lines = series
    .map((s, i) => {
      const p = s.points.filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
      if (p.length === 0) return '';
      const color = s.color ?? PALETTE[i % PALETTE.length];
      const d = p.map(([a, b], k) => `${k === 0 ? 'M' : 'L'}${x(a).toFixed(1)} ${y(b).toFixed(1)}`).join(' ');
      return `<path d="${d}" fill="none" stroke="${esc(color)}" stroke-width="1.8"><title>${esc(s.name)}</title></path>`;
    })
    .join('');
  const legend =
    series.length > 1
      ? series
          .map(
            (s, i) =>
              `<rect x="${W - PAD.right - 150}" y="${PAD.top + i * 14}" width="10" height="3" fill="${esc(s.color ?? PALETTE[i % PALETTE.length])}"/><text x="${W - PAD.right - 136}" y="${PAD.top + 4 + i * 14}" class="tick">${esc(s.name)}</text>`,
          )
          .join('')
      : '';
  const axisX = `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 6}" text-anchor="middle" class="axis">${esc(xUnit)}</text>`;
  return frame(title, yAxis(yt, y, yUnit) + lines + xl + axisX + legend, title);
}

/** Grouped vertical bars for percentiles when only summary statistics exist (no per-sample data). */
export function percentileBars(
  title: string,
  items: Array<{ label: string; value: number | null }>,
  unit: string,
): string {
  const shown = items.filter((b) => b.value !== null && Number.isFinite(b.value));
  if (shown.length === 0) return emptyChart(title, 'not measured in this run');
  const maxV = Math.max(...shown.map((b) => b.value as number), 0);
  const yt = niceTicks(0, maxV || 1, 4);
  const top = yt[yt.length - 1] || 1;
  const y = (v: number) => H - PAD.bottom - (Math.max(v, 0) / top) * (H - PAD.top - PAD.bottom);
  const slot = (W - PAD.left - PAD.right) / shown.length;
  const bars = shown
    .map((b, i) => {
      const bx = PAD.left + i * slot + slot * 0.15;
      const v = b.value as number;
      return `<rect x="${bx.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(H - PAD.bottom - y(v)).toFixed(1)}" fill="${PALETTE[0]}"><title>${esc(`${b.label}: ${fmtNum(v)} ${unit}`)}</title></rect><text x="${(bx + slot * 0.35).toFixed(1)}" y="${H - PAD.bottom + 15}" text-anchor="middle" class="tick">${esc(b.label)}</text><text x="${(bx + slot * 0.35).toFixed(1)}" y="${(y(v) - 4).toFixed(1)}" text-anchor="middle" class="tick">${esc(fmtNum(v))}</text>`;
    })
    .join('');
  return frame(title, yAxis(yt, y, unit) + bars, `${title} percentiles`);
}

export interface XyInput {
  title: string;
  series: LineSeries[];
  xUnit: string;
  yUnit: string;
  /** Horizontal reference lines (e.g. a latency bound), in y units. */
  limits?: Array<{ label: string; value: number }>;
}

/** Points joined in x order over linear axes from 0: a load curve (throughput vs latency) or a Pareto front; limits drawn as dashed lines. */
export function xyChart(c: XyInput): string {
  const ok = ([a, b]: [number, number]) => Number.isFinite(a) && Number.isFinite(b);
  const pts = c.series.flatMap((s) => s.points).filter(ok);
  if (pts.length === 0) return emptyChart(c.title, 'no points with these figures');
  const limits = (c.limits ?? []).filter((l) => Number.isFinite(l.value) && l.value > 0);
  const xt = niceTicks(0, Math.max(...pts.map((p) => p[0]), 0) || 1, 5);
  const yt = niceTicks(0, Math.max(...pts.map((p) => p[1]), ...limits.map((l) => l.value), 0) || 1, 4);
  const xtop = xt[xt.length - 1] || 1;
  const ytop = yt[yt.length - 1] || 1;
  const x = (v: number) => PAD.left + (v / xtop) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / ytop) * (H - PAD.top - PAD.bottom);
  const xl = xt
    .map(
      (t) =>
        `<text x="${x(t).toFixed(1)}" y="${H - PAD.bottom + 15}" text-anchor="middle" class="tick">${esc(fmtNum(t))}</text>`,
    )
    .join('');
  const lines = c.series
    .map((s, i) => {
      const p = s.points.filter(ok).sort((a, b) => a[0] - b[0]);
      if (p.length === 0) return '';
      const color = s.color ?? PALETTE[i % PALETTE.length];
      const d = p.map(([a, b], k) => `${k === 0 ? 'M' : 'L'}${x(a).toFixed(1)} ${y(b).toFixed(1)}`).join(' ');
      const dots = p
        .map(
          ([a, b]) =>
            `<circle cx="${x(a).toFixed(1)}" cy="${y(b).toFixed(1)}" r="3.5" fill="${esc(color)}"><title>${esc(`${s.name}: ${fmtNum(a)} ${c.xUnit}, ${fmtNum(b)} ${c.yUnit}`)}</title></circle>`,
        )
        .join('');
      return `<path d="${d}" fill="none" stroke="${esc(color)}" stroke-width="1.5"/>${dots}`;
    })
    .join('');
  const marks = limits
    .map((l) => {
      const ly = y(l.value).toFixed(1);
      return `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${ly}" y2="${ly}" class="marker"/><text x="${W - PAD.right}" y="${(Number(ly) - 3).toFixed(1)}" text-anchor="end" class="mlabel">${esc(l.label)}</text>`;
    })
    .join('');
  const legend =
    c.series.length > 1
      ? c.series
          .map(
            (s, i) =>
              `<rect x="${PAD.left + 8}" y="${PAD.top + 2 + i * 14}" width="10" height="3" fill="${esc(s.color ?? PALETTE[i % PALETTE.length])}"/><text x="${PAD.left + 22}" y="${PAD.top + 6 + i * 14}" class="tick">${esc(s.name)}</text>`,
          )
          .join('')
      : '';
  const axisX = `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 6}" text-anchor="middle" class="axis">${esc(c.xUnit)}</text>`;
  return frame(c.title, yAxis(yt, y, c.yUnit) + lines + marks + xl + axisX + legend, c.title);
}
