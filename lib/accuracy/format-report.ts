// An accuracy report for people (formatAccuracyReport) and in compact form
// for results.json and report.html (summarizeAccuracy).
import type { AccuracyReport, DatasetCounts, MetricVerdict } from './score-types.js';

/** A human-readable summary: scores, verdicts, checks, notes. */
export function formatAccuracyReport(r: AccuracyReport): string {
  const lines: string[] = [];
  lines.push(
    `Accuracy: ${r.benchmark} (${r.log.uniqueSamples} samples scored, ${r.log.entries} log entries${r.log.duplicates ? `, ${r.log.duplicates} duplicates` : ''})`,
  );
  lines.push('');
  lines.push('Results');
  lines.push(`  ${JSON.stringify(r.metrics).replace(/"/g, "'").replace(/,'/g, ", '").replace(/':/g, "': ")}`);
  lines.push('');
  const w = Math.max(...r.verdicts.map((v) => v.metric.length), 6);
  for (const v of r.verdicts) {
    const val = v.value === undefined ? '-' : String(v.value);
    const bound = v.target > 0 ? `>= ${formatLimit(v.target)}` : '';
    const upper = v.upperLimit !== undefined ? `${bound ? ', ' : ''}<= ${formatLimit(v.upperLimit)}` : '';
    const how = v.target > 0 ? ` (${v.reference} x ${v.fraction})` : '';
    lines.push(
      `  ${v.metric.padEnd(w)}  ${val.padStart(12)}  ${v.status.padEnd(7)}  target ${bound}${upper}${how}${v.note ? `  [${v.note}]` : ''}`,
    );
  }
  if (r.datasets && Object.keys(r.datasets).length > 0) {
    lines.push('');
    const names = Object.keys(r.datasets).sort();
    const nw = Math.max(7, ...names.map((n) => n.length));
    const cols = ['samples', 'passed', 'failed', 'timed out', 'empty', 'unscored'];
    lines.push(`  ${'dataset'.padEnd(nw)}  ${cols.map((c) => c.padStart(9)).join(' ')}`);
    for (const n of names) {
      const c = r.datasets[n]!;
      const v = [c.samples, c.passed, c.failed, c.timedOut, c.empty, c.unscored];
      lines.push(`  ${n.padEnd(nw)}  ${v.map((x) => String(x).padStart(9)).join(' ')}`);
    }
  }
  lines.push('');
  lines.push(
    `Verdict: ${r.pass === true ? 'PASS' : r.pass === false ? 'FAIL' : 'NO VERDICT (no target could be judged)'}`,
  );
  const unknown = r.verdicts.filter((v) => v.status === 'UNKNOWN').map((v) => v.metric);
  if (unknown.length > 0 && r.pass !== null) lines.push(`  not judged: ${unknown.join(', ')}`);
  lines.push('');
  lines.push(`Log checks (TEST06 rules, EOS id ${r.checks.eosTokenId}):`);
  for (const l of r.checks.text.trimEnd().split('\n')) lines.push(`  ${l}`);
  for (const [name, c] of [
    ['first token', r.checks.firstToken],
    ['EOS', r.checks.eos],
    ['sample length', r.checks.sampleLength],
  ] as const) {
    if (c.failures > 0) {
      lines.push(
        `  ${name}: ${c.failures} entries fail, e.g. ${c.examples
          .slice(0, 3)
          .map((f) => `seq_id ${f.seqId} (qsl_idx ${f.qslIdx}): ${f.reason}`)
          .join('; ')}`,
      );
    }
  }
  if (r.notes.length > 0) {
    lines.push('');
    lines.push('Notes:');
    for (const n of r.notes) lines.push(`  - ${n}`);
  }
  return lines.join('\n') + '\n';
}

/** A target or a limit as the report prints it. */
export function formatLimit(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toFixed(6)));
}

/** The compact form of a report for results.json / report.html (no per-sample data). */
export interface AccuracySummary {
  benchmark: string;
  pass: boolean | null;
  samples: number;
  metrics: Record<string, number>;
  verdicts: Array<Pick<MetricVerdict, 'metric' | 'value' | 'target' | 'upperLimit' | 'status'>>;
  checksPass: boolean;
  notes: string[];
  /** Per source dataset: samples, passed, failed, timedOut, empty, unscored (deepseek-r1, gpt-oss-120b; mixtral's MBXP languages). */
  datasets?: Record<string, DatasetCounts>;
}

export function summarizeAccuracy(r: AccuracyReport): AccuracySummary {
  return {
    benchmark: r.benchmark,
    pass: r.pass,
    samples: r.log.uniqueSamples,
    metrics: { ...r.metrics },
    verdicts: r.verdicts.map((v) => ({
      metric: v.metric,
      ...(v.value !== undefined ? { value: v.value } : {}),
      target: v.target,
      ...(v.upperLimit !== undefined ? { upperLimit: v.upperLimit } : {}),
      status: v.status,
    })),
    checksPass: r.checks.pass,
    notes: [...r.notes],
    ...(r.datasets ? { datasets: structuredClone(r.datasets) } : {}),
  };
}
