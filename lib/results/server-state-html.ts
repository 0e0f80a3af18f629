// report.html's lines on the servers' state: a line per server (identity,
// uptime, load at the start, prefix cache at start and end) and the warm-up.
import type { PrefixCacheCounters } from '../metrics/server-state.js';
import { esc } from './html-text.js';
import type { ResultsJson } from './results-json.js';

function cache(c: PrefixCacheCounters | null): string {
  if (!c) return 'n/a';
  const parts: string[] = [];
  if (c.queries !== null) parts.push(`${c.queries} queried`);
  if (c.hits !== null) parts.push(`${c.hits} hit`);
  if (c.hitRate !== null) parts.push(`hit rate ${(c.hitRate * 100).toFixed(1)} %`);
  return parts.join(', ') || 'n/a';
}

function uptime(s: number | null): string {
  if (s === null) return 'uptime unknown';
  if (s < 120) return `up ${s.toFixed(0)} s`;
  if (s < 7200) return `up ${(s / 60).toFixed(0)} min`;
  return `up ${(s / 3600).toFixed(1)} h`;
}

/** The paragraphs under the endpoints table ('' when the run has neither section). */
export function serverStateLines(j: ResultsJson): string {
  const out: string[] = [];
  for (const e of j.serverState?.endpoints ?? []) {
    const id = e.identity;
    const who = [
      e.flavor ?? 'server',
      id.version,
      id.model ? `model ${id.model}` : null,
      id.maxModelLen !== null ? `max length ${id.maxModelLen}` : null,
    ]
      .filter(Boolean)
      .join(' ');
    const load = e.atStart
      ? e.atStart.busy
        ? `busy at the start: ${e.atStart.running ?? 0} running, ${e.atStart.waiting ?? 0} waiting of another client`
        : 'idle at the start'
      : `load at the start unknown (${e.metricsNote ?? 'no /metrics'})`;
    const pc =
      e.prefixCache.start || e.prefixCache.end
        ? `; prefix cache at the start: ${cache(e.prefixCache.start)}; at the end: ${cache(e.prefixCache.end)}`
        : '';
    out.push(`<p class="note">${esc(`${e.url}: ${who}, ${uptime(e.uptimeSeconds)}, ${load}${pc}`)}</p>`);
  }
  const w = j.warmup;
  if (w) {
    const ttft = w.ttftMs ? `, TTFT p50 ${w.ttftMs.p50.toFixed(1)} ms, p99 ${w.ttftMs.p99.toFixed(1)} ms` : '';
    out.push(
      `<p class="note">${esc(`Warm-up: ${w.requests} requests before the test (${w.failed} failed) in ${(w.durationMs / 1000).toFixed(2)} s${ttft}; not counted in any figure above.`)}</p>`,
    );
  }
  return out.join('\n');
}
