// Plain-text views of a run summary and of an aggregated result, for the terminal.
import type { LatencyStats } from '../core/result.js';
import type { AggregatedResults, MergedLatency } from './aggregate.js';
import type { RunSummary } from './read-logs.js';

const DASH = '-';

function n(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (Math.abs(v) >= 1e7) return v.toExponential(4);
  return v.toFixed(digits);
}

/** The unit that shows a row of ns values best: ns below 10 µs, µs below 10 ms, else ms. */
function unitFor(maxNs: number): [string, number] {
  if (!(maxNs >= 1e4)) return ['ns', 1];
  if (maxNs < 1e7) return ['µs', 1e3];
  return ['ms', 1e6];
}

function duration(ns: number): string {
  const [u, d] = unitFor(ns);
  return `${n(ns / d, u === 'ns' ? 0 : 3)} ${u}`;
}

const yes = (b: boolean | null | undefined) => (b === null || b === undefined ? 'n/a' : b ? 'yes' : 'NO');

function latencyRows(rows: Array<[string, LatencyStats | null]>): string[] {
  const present = rows.filter((r): r is [string, LatencyStats] => r[1] !== null);
  if (present.length === 0) return [];
  const head = ['', 'unit', 'min', 'p50', 'p90', 'p95', 'p97', 'p99', 'p99.9', 'max', 'mean'];
  const body = present.map(([name, s]) => {
    const [u, d] = unitFor(s.max);
    return [
      name,
      u,
      ...[s.min, s.p50, s.p90, s.p95, s.p97, s.p99, s.p999, s.max, s.mean].map((v) => n(v / d, u === 'ns' ? 0 : 3)),
    ];
  });
  return columns([head, ...body]).map((l) => `  ${l}`);
}

/** Left-aligned first column, right-aligned numbers. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

function statusOf(s: RunSummary): string {
  if (s.truncated) return 'INCOMPLETE (the detail log ends mid-line: the run was interrupted)';
  if (s.valid === null)
    return s.incomplete ? 'INCOMPLETE (no results in the logs)' : `no performance result (${s.mode ?? 'unknown mode'})`;
  return s.valid ? 'VALID' : 'INVALID';
}

export function formatRunSummary(s: RunSummary): string {
  const lines: string[] = [];
  lines.push(s.dir);
  lines.push(
    `  LoadGen   ${s.loadgenVersion ?? 'unknown'} (${s.origin})${s.testDatetime ? `, test ${s.testDatetime}` : ''}`,
  );
  lines.push(`  SUT       ${s.sutName ?? '?'}   scenario ${s.scenario ?? '?'}   mode ${s.mode ?? '?'}`);
  lines.push(`  Result    ${statusOf(s)}`);
  if (s.criteria) {
    lines.push(
      `            performance constraints: ${yes(s.criteria.perfConstraintsMet)}, min duration: ${yes(s.criteria.minDurationMet)}, min queries: ${yes(s.criteria.minQueriesMet)}, early stopping: ${yes(s.criteria.earlyStoppingMet)}`,
    );
  }
  for (const r of s.invalidReasons) lines.push(`            * ${r}`);
  if (s.criteria && s.criteria.earlyStoppingMet === false) {
    for (const t of [s.earlyStopping.text, s.earlyStopping.ttftText, s.earlyStopping.tpotText]) {
      if (t.trim()) lines.push(...t.split('\n').map((x) => `            ${x.trim()}`));
    }
  }
  if (s.metric)
    lines.push(
      `  Metric    ${s.metric.name}: ${s.metric.unit === 'ns' ? duration(s.metric.value) : `${n(s.metric.value)} ${s.metric.unit}`}`,
    );
  if (s.qps !== null || s.samplesPerSecond !== null || s.tokensPerSecond !== null) {
    lines.push(`  Rates     QPS ${n(s.qps)}   samples/s ${n(s.samplesPerSecond)}   tokens/s ${n(s.tokensPerSecond)}`);
  }
  lines.push(
    ...latencyRows([
      ['latency', s.latency],
      ['query latency', s.queryLatency],
      ['TTFT', s.ttft],
      ['TPOT', s.tpot],
    ]),
  );
  lines.push(
    `  Counts    queries ${s.queries ?? DASH}   samples ${s.samples ?? DASH}   errors ${s.errors}   warnings ${s.warnings}`,
  );
  for (const m of s.errorMessages.slice(0, 5)) lines.push(`            ${m}`);
  return lines.join('\n') + '\n';
}

function mergedRow(name: string, m: MergedLatency | null): string[] | null {
  if (!m) return null;
  // Merged figures are ms; shown in the unit that suits them.
  const [u, d] = unitFor(m.max * 1e6);
  const show = (v: number | null) => (v === null ? DASH : n((v * 1e6) / d, u === 'ns' ? 0 : 3));
  return [
    `${name} (${m.method === 'exact' ? `exact, ${m.count} samples` : 'percentiles: upper bounds'})`,
    u,
    ...[m.min, m.p50, m.p90, m.p95, m.p97, m.p99, m.p999, m.max, m.mean].map(show),
  ];
}

export function formatAggregate(a: AggregatedResults): string {
  const lines: string[] = [];
  lines.push(
    `Aggregated ${a.runs.length} runs (${a.scenario ?? '?'}): ${a.valid ? 'VALID (every run valid)' : 'NOT VALID'}`,
  );
  const runRows = [['run', 'status', 'QPS', 'samples/s', 'tokens/s', 'p99 lat ms', 'p99 TTFT ms']];
  for (const r of a.runs)
    runRows.push([
      r.dir,
      r.status,
      n(r.qps),
      n(r.samplesPerSecond),
      n(r.tokensPerSecond),
      n(r.latencyMs.p99, 3),
      n(r.ttftMs.p99, 3),
    ]);
  lines.push(...columns(runRows).map((l) => `  ${l}`));
  const t = a.throughput;
  lines.push(`  Total     QPS ${n(t.qps)}   samples/s ${n(t.samplesPerSecond)}   tokens/s ${n(t.tokensPerSecond)}`);
  lines.push(
    `  Counts    queries ${a.counts.queries ?? DASH}   samples ${a.counts.samples ?? DASH}   errors ${a.counts.errors}`,
  );
  if (a.energy)
    lines.push(
      `  Energy    ${n(a.energy.energyJ)} J over ${a.energy.outputTokens} output tokens: ${n(a.energy.joulesPerOutputToken, 4)} J/token (${a.energy.runs} of ${a.runs.length} runs with GPU telemetry)`,
    );
  const rows = [
    mergedRow('latency', a.latencyMs.latency),
    mergedRow('TTFT', a.latencyMs.ttft),
    mergedRow('TPOT', a.latencyMs.tpot),
  ].filter((r): r is string[] => r !== null);
  if (rows.length > 0)
    lines.push(
      ...columns([['', 'unit', 'min', 'p50', 'p90', 'p95', 'p97', 'p99', 'p99.9', 'max', 'mean'], ...rows]).map(
        (l) => `  ${l}`,
      ),
    );
  for (const note of a.notes) lines.push(`  note: ${note}`);
  return lines.join('\n') + '\n';
}
