// report.html's energy section: the GPUs' energy over the test window,
// joules per output token beside the cost per token, and each GPU's power,
// utilisation and memory over the window. When telemetry was asked for but
// gave nothing, the section says why instead of vanishing.
import { card, esc, fmtInt, fmtNum, fmtPct, table } from './html-text.js';
import type { GpuEnergy } from '../metrics/energy.js';
import type { ResultsJson } from './results-json.js';
import { lineChart, PALETTE } from './svg-charts.js';

const usd = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '—' : `$${v.toFixed(4)}`;

/** Significant digits for the small per-token figures (0.08002, not 0.08). */
function sig(v: number | null | undefined, n = 4): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '—' : String(Number(v.toPrecision(n)));
}

function joules(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return Math.abs(v) >= 10_000 ? `${fmtNum(v / 1000)} kJ` : `${fmtNum(v)} J`;
}

export function energySection(j: ResultsJson): string {
  const e = j.energy;
  if (!e) return '';
  if (e.energyJ === null) {
    const rows = e.sources.map((s) => [s.url, fmtInt(s.scrapes), fmtInt(s.failures), s.error ?? '—']);
    return `<h2>Energy</h2><p class="note">${esc(e.missing ?? 'no GPU energy figure')}</p>${rows.length ? table(['GPU telemetry', 'scrapes', 'failed', 'why'], rows) : ''}`;
  }
  const cards = [
    card('energy (test window)', joules(e.energyJ)),
    card('J / output token', sig(e.joulesPerOutputToken)),
    card('J / output token above idle', sig(e.joulesPerOutputTokenAboveIdle)),
    card('idle power (before the test)', e.idlePowerW === null ? '—' : `${fmtNum(e.idlePowerW)} W`),
    card('output tokens/s per W', sig(e.outputTokensPerSecondPerWatt)),
    card('mean power', `${fmtNum(e.meanPowerW)} W`),
    card('peak power', `${fmtNum(e.peakPowerW)} W`),
    card('GPUs', `${fmtInt(e.gpus.length)} (${e.method ?? '—'})`),
  ];
  // Energy and money per token side by side: the two ways a run is paid for.
  const side = table(
    ['output tokens', 'J / output token', 'kWh / M output tokens', '$ / M output tokens'],
    [
      [
        fmtInt(e.outputTokens),
        sig(e.joulesPerOutputToken),
        e.joulesPerOutputToken === null ? '—' : sig((e.joulesPerOutputToken * 1e6) / 3.6e6),
        j.cost ? usd(j.cost.perMillionOutputTokens) : 'no --gpu-hour-price',
      ],
    ],
  );
  const truth = e.simulator
    ? `<p class="note">Simulator: its GPUs' exact energy over the same window is ${esc(joules(e.simulator.trueJoules))} (${esc(sig(e.simulator.trueJoulesPerOutputToken))} J/token); the measurement is ${esc(sig(e.simulator.errorPct, 2))} % off.</p>`
    : '';
  const gpuRows = e.gpus.map((g) => [
    g.host ? `${g.host} ${g.gpu ?? ''}` : (g.gpu ?? '—'),
    g.uuid ?? '—',
    g.model ?? '—',
    g.method ?? '—',
    joules(g.energyJ),
    fmtNum(g.idlePowerW),
    fmtNum(g.meanPowerW),
    fmtNum(g.peakPowerW),
    g.meanUtilPct === null ? '—' : fmtPct(g.meanUtilPct / 100),
    fmtInt(g.peakMemUsedMiB),
    fmtInt(g.counterResets),
  ]);
  const charts: string[] = [];
  const line = (title: string, unit: string, pick: (p: GpuEnergy['points'][number]) => number | null) => {
    const series = e.gpus
      .map((g, i) => ({
        name: `GPU ${g.gpu ?? i}${e.sources.length > 1 ? ` (${g.host ?? g.source})` : ''}`,
        points: g.points
          .map((p): [number, number | null] => [p.tMs / 1000, pick(p)])
          .filter((p): p is [number, number] => p[1] !== null),
        color: PALETTE[i % PALETTE.length],
      }))
      .filter((s) => s.points.length > 0)
      .slice(0, 16);
    if (series.length) charts.push(lineChart(title, series, 'time (s)', unit));
  };
  line('GPU power', 'W', (p) => p.powerW);
  line('GPU utilisation', '%', (p) => p.utilPct);
  line('GPU memory used', 'MiB', (p) => p.memUsedMiB);
  const failing = e.sources.filter((s) => s.error);
  const failNote = failing.length
    ? `<p class="note">Missing: ${esc(failing.map((s) => `${s.url} ${s.error}`).join('; '))}.</p>`
    : '';
  const note = `From each GPU's telemetry (${e.sources.map((s) => s.url).join(', ')}), scraped every ${fmtNum(e.intervalMs / 1000)} s and once before and after the test, over the test window (first issue to last completion, ${fmtNum(e.window.seconds)} s). Energy from each GPU's energy counter where it has one, else its power integrated; idle power in the window counts. See docs/energy.md.`;
  return `<h2>Energy</h2><div class="cards">${cards.join('')}</div>${side}${truth}${table(
    [
      'GPU',
      'UUID',
      'model',
      'method',
      'energy',
      'idle W',
      'mean W',
      'peak W',
      'mean util',
      'peak mem MiB',
      'counter resets',
    ],
    gpuRows,
  )}<div class="charts">${charts.join('')}</div>${failNote}<p class="note">${esc(note)}</p>`;
}
