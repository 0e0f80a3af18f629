// report.html's measurement parts: the banner's line (`measurement:
// trustworthy` or `harness-limited` with the reasons) and the Harness
// section, the figures the verdict was decided from (docs/measurement.md).
import { esc, fmtMs, fmtPct, table } from './html-text.js';
import { MEASUREMENT_LIMITS, type Spread } from './measurement.js';
import type { ResultsJson } from './results-json.js';

/** The banner's line; empty without an adapter report. */
export function measurementBanner(j: ResultsJson): string {
  const h = j.harness;
  if (!h?.verdict) return '';
  if (h.verdict === 'trustworthy') return `<div class="measure" id="measurement">measurement: trustworthy</div>`;
  return `<div class="measure" id="measurement">measurement: <b>harness-limited</b><ul>${h.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul></div>`;
}

function row(name: string, s: Spread | null): string[] {
  return s ? [name, String(s.count), fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)] : [name, '0', '—', '—', '—'];
}

/** The Harness section: the verdict, the per-sample intervals, loop delays and CPU. */
export function harnessSection(j: ResultsJson): string {
  const h = j.harness;
  if (!h?.measurement) return '<p class="note">No adapter report: the measurement was not judged.</p>';
  const m = h.measurement;
  const L = MEASUREMENT_LIMITS;
  const head = `<p><b>measurement: ${esc(h.verdict)}</b>${h.reasons.length ? '' : ' (no check exceeded its limit)'}</p>${
    h.reasons.length ? `<ul>${h.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''
  }`;
  const intervals = table(
    ['harness interval (first attempts)', 'samples', 'p50', 'p99', 'max'],
    [
      row('schedule → issue (engine)', m.issueLagMs),
      row('issue → dispatch (worker queue, in-flight slots)', m.issueToDispatchMs),
      row('dispatch → write (connection pool)', m.dispatchToWriteMs),
      row('schedule → write (total)', m.beforeWriteMs),
    ],
  );
  const checks: string[][] = [
    [
      "harness's p99 share of the reference",
      m.reference
        ? `${fmtMs(m.harnessP99Ms)} of ${fmtMs(m.reference.ms)} (${m.reference.kind}) = ${fmtPct(m.harnessShare)}`
        : '— (no reference)',
      `≤ ${fmtPct(L.share)}`,
    ],
    [
      'median schedule → write, first → last third',
      m.beforeWriteThirdsMs ? `${fmtMs(m.beforeWriteThirdsMs.first)} → ${fmtMs(m.beforeWriteThirdsMs.last)}` : '—',
      `growth ≤ max(${L.growthMs} ms, ${fmtPct(L.growthShare)} of the reference)`,
    ],
    [
      'event-loop delay p99 (max): main thread',
      m.eventLoopDelayMs.main ? `${fmtMs(m.eventLoopDelayMs.main.p99)} (${fmtMs(m.eventLoopDelayMs.main.max)})` : '—',
      `≤ ${L.loopDelayP99Ms} ms`,
    ],
    ...m.eventLoopDelayMs.workers.map((w, k) => [
      `event-loop delay p99 (max): ${h.workers === 0 ? 'the adapter on the main thread' : `adapter worker ${k + 1}`}`,
      `${fmtMs(w.p99)} (${fmtMs(w.max)})`,
      `≤ ${L.loopDelayP99Ms} ms`,
    ]),
    [
      'process CPU over the test',
      m.cpu
        ? `${m.cpu.seconds.toFixed(1)} CPU-s in ${m.cpu.wallSeconds.toFixed(1)} s on ${m.cpu.cores} cores = ${fmtPct(m.cpu.share)}`
        : '—',
      `≤ ${fmtPct(L.cpuShare)}`,
    ],
  ];
  const unchecked = h.unchecked.length ? `<p class="note">Not checked: ${esc(h.unchecked.join('; '))}.</p>` : '';
  return `${head}${intervals}${table(['check', 'measured', 'limit'], checks)}${unchecked}<p class="note">The rule: docs/measurement.md. The harness's own time is what passes between a sample's scheduled time and the write of its request, plus what a response's read can wait for the thread's event loop.</p>`;
}
