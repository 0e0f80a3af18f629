// What a trace will send, worked out before anything is sent: requests, the
// rate over time, token totals and the prefix sharing its hash ids imply
// (`loadgen run --trace FILE --dry-run`), and a lint of what is legal in the
// format but likely wrong: rows out of order, equal timestamps, prompts plus
// outputs over the model's context, hash ids that do not cover input_length.
import { traceSchedule, type TraceFile } from './trace.js';

export type TraceLintKind =
  | 'unsorted'
  | 'duplicate-timestamps'
  | 'over-context'
  | 'hash-ids-mismatch'
  | 'seconds-not-ms';

export interface TraceLintWarning {
  kind: TraceLintKind;
  /** Rows concerned. */
  count: number;
  /** Up to 5 of their line numbers. */
  lines: number[];
  message: string;
}

export interface TracePlanOptions {
  /** Replay speed (2 = twice as fast); default 1. */
  speed?: number;
  /** The model's context (prompt + output tokens); the over-context lint is skipped without it. */
  maxModelLen?: number;
  /** Rate windows shown (default 10). */
  windows?: number;
}

export interface TracePlan {
  path: string;
  format: TraceFile['format'];
  requests: number;
  speed: number;
  /** First to last request as replayed, ms. */
  spanMs: number;
  /** (requests - 1) / span: the rate the summary reports; null for a span of 0. */
  meanRate: number | null;
  /** Requests sent in each equal window of the span. */
  rate: { startMs: number; endMs: number; requests: number; perSecond: number }[];
  tokens: {
    input: number;
    output: number;
    inputMean: number;
    inputMax: number;
    outputMean: number;
    outputMax: number;
  };
  /** From the hash ids, with an unbounded cache of full blocks (the simulator's, with blocks of blockTokens). */
  prefix: {
    blockTokens: number;
    rowsWithHashIds: number;
    /** Distinct hash ids. */
    uniqueBlocks: number;
    /** Hash ids over all rows. */
    blockRefs: number;
    /** Prompt tokens a prefix cache can serve: full blocks whose whole prefix an earlier row sent. */
    reusableTokens: number;
    /** reusableTokens / input tokens. */
    reusableShare: number;
    /** Rows that reuse at least one block. */
    rowsReusing: number;
  };
  lint: TraceLintWarning[];
}

class Finding {
  count = 0;
  lines: number[] = [];
  add(line: number): void {
    this.count++;
    if (this.lines.length < 5) this.lines.push(line);
  }
}

const where = (f: Finding): string =>
  `line${f.count > 1 ? 's' : ''} ${f.lines.join(', ')}${f.count > 5 ? ', ...' : ''}`;

/** The lint alone (also part of the plan). */
export function lintTrace(trace: TraceFile, options: Pick<TracePlanOptions, 'maxModelLen'> = {}): TraceLintWarning[] {
  const out: TraceLintWarning[] = [];
  const rows = trace.rows;
  if (!trace.sortedInFile) {
    // The rows a reader of the file meets too early: those whose time is below an earlier line's.
    const f = new Finding();
    const byLine = [...rows].sort((a, b) => a.line - b.line);
    let max = Number.NEGATIVE_INFINITY;
    for (const r of byLine) {
      if (r.timestampMs < max) f.add(r.line);
      max = Math.max(max, r.timestampMs);
    }
    out.push({
      kind: 'unsorted',
      count: f.count,
      lines: f.lines,
      message: `${f.count} row${f.count > 1 ? 's are' : ' is'} earlier than a row above (${where(f)}): replayed in timestamp order`,
    });
  }
  const dup = new Finding();
  for (let i = 1; i < rows.length; i++) if (rows[i].timestampMs === rows[i - 1].timestampMs) dup.add(rows[i].line);
  if (dup.count)
    out.push({
      kind: 'duplicate-timestamps',
      count: dup.count,
      lines: dup.lines,
      message: `${dup.count} row${dup.count > 1 ? 's have' : ' has'} the timestamp of the row before (${where(dup)}): sent at the same time`,
    });
  // Timestamps are ms; a trace written in seconds replays 1000 times too fast,
  // and nothing else would show it before the server is flooded.
  const span = rows.length > 1 ? rows[rows.length - 1].timestampMs - rows[0].timestampMs : 0;
  if (rows.length >= 10 && span > 0 && ((rows.length - 1) * 1000) / span > 1000)
    out.push({
      kind: 'seconds-not-ms',
      count: rows.length,
      lines: [],
      message: `${rows.length} requests within ${span} ms (${Math.round(((rows.length - 1) * 1000) / span)} per second): timestamps are read as ms; if the trace's are seconds, this replays it 1000 times too fast`,
    });
  const C = options.maxModelLen;
  if (C !== undefined) {
    const over = new Finding();
    for (const r of rows) if (r.inputLength + r.outputLength > C) over.add(r.line);
    if (over.count)
      out.push({
        kind: 'over-context',
        count: over.count,
        lines: over.lines,
        message: `${over.count} row${over.count > 1 ? 's ask' : ' asks'} for more than the model's ${C}-token context (input + output; ${where(over)}): the server will refuse or cut them`,
      });
  }
  const B = trace.blockTokens;
  const mismatch = new Finding();
  for (const r of rows)
    if (r.hashIds !== null && r.hashIds.length !== Math.ceil(r.inputLength / B)) mismatch.add(r.line);
  if (mismatch.count)
    out.push({
      kind: 'hash-ids-mismatch',
      count: mismatch.count,
      lines: mismatch.lines,
      message: `${mismatch.count} row${mismatch.count > 1 ? 's have' : ' has'} a number of hash_ids other than ceil(input_length / ${B}) (${where(mismatch)}): extra ids are ignored, blocks without one are the row's own`,
    });
  return out;
}

/** The whole plan of a replay. */
export function planTrace(trace: TraceFile, options: TracePlanOptions = {}): TracePlan {
  const speed = options.speed ?? 1;
  const schedule = traceSchedule(trace, speed);
  const rows = trace.rows;
  const n = rows.length;
  const spanMs = n ? schedule[n - 1] / 1e6 : 0;

  const windows = Math.max(1, Math.min(options.windows ?? 10, n));
  const rate: TracePlan['rate'] = [];
  const width = spanMs > 0 ? spanMs / windows : 0;
  if (width > 0) {
    const counts = new Array<number>(windows).fill(0);
    for (const t of schedule) counts[Math.min(windows - 1, Math.floor(t / 1e6 / width))]++;
    for (let k = 0; k < windows; k++)
      rate.push({
        startMs: k * width,
        endMs: (k + 1) * width,
        requests: counts[k],
        perSecond: (counts[k] * 1000) / width,
      });
  } else rate.push({ startMs: 0, endMs: 0, requests: n, perSecond: Number.POSITIVE_INFINITY });

  let input = 0;
  let output = 0;
  let inputMax = 0;
  let outputMax = 0;
  for (const r of rows) {
    input += r.inputLength;
    output += r.outputLength;
    inputMax = Math.max(inputMax, r.inputLength);
    outputMax = Math.max(outputMax, r.outputLength);
  }

  // Full blocks named by their chain of ids: a block is reusable when the
  // same chain was sent before, as a prefix cache keyed on content finds it.
  const B = trace.blockTokens;
  const nodes = new Map<string, number>();
  const unique = new Set<number>();
  let blockRefs = 0;
  let reusable = 0;
  let rowsReusing = 0;
  let rowsWithIds = 0;
  for (const r of rows) {
    if (!r.hashIds) continue;
    rowsWithIds++;
    blockRefs += r.hashIds.length;
    for (const id of r.hashIds) unique.add(id);
    const full = Math.min(r.hashIds.length, Math.floor(r.inputLength / B));
    let parent = 0;
    let hit = true;
    let rowHits = 0;
    for (let j = 0; j < full; j++) {
      const key = `${parent}:${r.hashIds[j]}`;
      let node = nodes.get(key);
      if (node === undefined) {
        hit = false;
        node = nodes.size + 1;
        nodes.set(key, node);
      } else if (hit) rowHits += B;
      parent = node;
    }
    reusable += rowHits;
    if (rowHits > 0) rowsReusing++;
  }

  return {
    path: trace.path,
    format: trace.format,
    requests: n,
    speed,
    spanMs,
    meanRate: spanMs > 0 ? ((n - 1) * 1000) / spanMs : null,
    rate,
    tokens: {
      input,
      output,
      inputMean: n ? input / n : 0,
      inputMax,
      outputMean: n ? output / n : 0,
      outputMax,
    },
    prefix: {
      blockTokens: B,
      rowsWithHashIds: rowsWithIds,
      uniqueBlocks: unique.size,
      blockRefs,
      reusableTokens: reusable,
      reusableShare: input > 0 ? reusable / input : 0,
      rowsReusing,
    },
    lint: lintTrace(trace, options),
  };
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : 'all at once');

/** The plan as the lines `--dry-run` prints. */
export function formatTracePlan(p: TracePlan): string {
  const lines = [
    `trace: ${p.path} (${p.format}): ${p.requests} requests over ${(p.spanMs / 1000).toFixed(3)} s${p.speed !== 1 ? ` at speed ${p.speed}` : ''}, mean ${p.meanRate === null ? 'n/a' : `${p.meanRate.toFixed(2)} requests/s`}`,
    '  rate over time:',
    ...p.rate.map(
      (w) =>
        `    ${(w.startMs / 1000).toFixed(1).padStart(8)} s - ${(w.endMs / 1000).toFixed(1).padStart(8)} s  ${String(w.requests).padStart(7)} requests  ${f1(w.perSecond)}/s`,
    ),
    `  tokens: input ${p.tokens.input} (mean ${p.tokens.inputMean.toFixed(0)}, max ${p.tokens.inputMax}), output ${p.tokens.output} (mean ${p.tokens.outputMean.toFixed(0)}, max ${p.tokens.outputMax}; enforced with min and max tokens)`,
    p.prefix.rowsWithHashIds === 0
      ? '  prefix sharing: none (no hash_ids: every prompt is its own)'
      : `  prefix sharing: ${p.prefix.uniqueBlocks} distinct blocks of ${p.prefix.blockTokens} tokens in ${p.prefix.blockRefs} references; ${p.prefix.reusableTokens} input tokens (${(p.prefix.reusableShare * 100).toFixed(1)}%) in full blocks an earlier request sent, over ${p.prefix.rowsReusing} requests`,
  ];
  if (p.lint.length === 0) lines.push('  lint: no problems found');
  for (const w of p.lint) lines.push(`  warning: ${w.message}`);
  return `${lines.join('\n')}\n`;
}
