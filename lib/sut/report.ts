// Merges the drivers' snapshots (one per thread) into the adapter's report.
import { TIMING_FIELDS, type DriverSnapshot } from './driver-stats.js';
import { LogHistogram, bump, percentiles } from './stats.js';
import type {
  Backend,
  Capabilities,
  EndpointReport,
  IdMismatch,
  SampleTiming,
  SutReport,
  WireApiName,
} from './types.js';

export interface ReportContext {
  backend: Backend;
  api: WireApiName;
  capabilities: Capabilities;
  workers: number;
  busyPollIdleMs: number | null;
  urls: string[];
  warnings: string[];
  timesOpened: number[];
}

function concat(parts: Float64Array[]): Float64Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function addKinds(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) bump(into, k, v);
}

export function mergeSnapshots(snaps: DriverSnapshot[], ctx: ReportContext): SutReport {
  const MS = 1e-6;
  const errorKinds: Record<string, number> = {};
  const gaps = new LogHistogram();
  let issued = 0;
  let peakInFlight = 0;
  let completed = 0;
  let failed = 0;
  let retried = 0;
  let chunks = 0;
  let multi = 0;
  let chunkTokens = 0;
  let noIds = 0;
  let mismatched = 0;
  const firstMismatches: IdMismatch[] = [];
  for (const s of snaps) {
    mismatched += s.idMismatch.samples;
    firstMismatches.push(...s.idMismatch.first);
    issued += s.issued;
    peakInFlight += s.peakInFlight ?? 0;
    completed += s.completed;
    failed += s.failed;
    retried += s.retried;
    chunks += s.chunks;
    multi += s.multiTokenChunks;
    chunkTokens += s.chunkTokens;
    noIds += s.noIdSamples;
    addKinds(errorKinds, s.errorKinds);
    gaps.merge(s.gaps);
  }
  const endpoints: EndpointReport[] = ctx.urls.map((url, k) => {
    const eps = snaps.map((s) => s.endpoints[k]);
    const kinds: Record<string, number> = {};
    for (const e of eps) addKinds(kinds, e.errorKinds);
    return {
      url,
      requests: eps.reduce((a, e) => a + e.requests, 0),
      completed: eps.reduce((a, e) => a + e.completed, 0),
      errors: eps.reduce((a, e) => a + e.errors, 0),
      retries: eps.reduce((a, e) => a + e.retries, 0),
      outputTokens: eps.reduce((a, e) => a + e.outputTokens, 0),
      ttftMs: percentiles(concat(eps.map((e) => e.ttftNs)), MS),
      tpotMs: percentiles(concat(eps.map((e) => e.tpotNs)), MS),
      latencyMs: percentiles(concat(eps.map((e) => e.latencyNs)), MS),
      breakerOpened: ctx.timesOpened[k] ?? 0,
      errorKinds: kinds,
    };
  });
  const warnings = [...ctx.warnings];
  if (noIds > 0 && ctx.capabilities.tokenSource !== 'none') {
    warnings.push(
      `${noIds} samples were completed without token ids (the server sent none for them): their accuracy-log entries are empty`,
    );
  }
  if (mismatched > 0) warnings.push(idMismatchWarning(mismatched, ctx.capabilities.tokenSource));
  firstMismatches.sort((a, b) => a.id - b.id);
  const report: SutReport = {
    backend: ctx.backend,
    api: ctx.api,
    capabilities: ctx.capabilities,
    workers: ctx.workers,
    busyPollIdleMs: ctx.busyPollIdleMs,
    samples: { issued, completed, failed, retried },
    peakInFlight,
    errorKinds,
    endpoints,
    chunks: {
      total: chunks,
      multiToken: multi,
      multiTokenFraction: chunks > 0 ? multi / chunks : 0,
      tokensPerChunk: chunks > 0 ? chunkTokens / chunks : 0,
    },
    interChunkGapMs: gaps.summary(MS),
    issueDelayMs: percentiles(concat(snaps.map((s) => s.issueDelayNs)), MS),
    headersMs: percentiles(concat(snaps.map((s) => s.headersNs)), MS),
    warnings,
    idMismatch: { samples: mismatched, first: firstMismatches },
    eventLoopDelayMs: snaps.map((s) => s.eventLoopDelayMs),
  };
  if (snaps.some((s) => s.timings)) {
    const timings: SampleTiming[] = [];
    const F = TIMING_FIELDS.length;
    for (const s of snaps) {
      const t = s.timings;
      if (!t) continue;
      const errs = new Map<number, string>();
      for (const line of s.timingErrors ?? []) {
        const at = line.indexOf(': ');
        errs.set(Number(line.slice(0, at)), line.slice(at + 2));
      }
      for (let i = 0; i + F <= t.length; i += F) {
        const row: SampleTiming = {
          id: t[i],
          index: t[i + 1],
          endpoint: t[i + 2],
          attempts: t[i + 3],
          scheduledNs: t[i + 4],
          issuedNs: t[i + 5],
          sentNs: t[i + 6],
          headersNs: t[i + 7],
          firstTokenNs: t[i + 8],
          endNs: t[i + 9],
          chunks: t[i + 10],
          multiTokenChunks: t[i + 11],
          tokens: t[i + 12],
          maxGapNs: t[i + 13],
          ok: t[i + 14] === 1,
          dispatchedNs: t[i + 15],
        };
        if (!row.ok) row.error = errs.get(row.id);
        timings.push(row);
      }
    }
    timings.sort((a, b) => a.id - b.id);
    report.timings = timings;
  }
  return report;
}

/** The warning for `n` samples whose ids disagree with the server's count, naming the likely cause. */
export function idMismatchWarning(n: number, source: Capabilities['tokenSource']): string {
  const what = `${n} samples were completed without token ids because the ids received disagree with usage.completion_tokens`;
  const where = 'their accuracy-log entries are empty (results.json errors.idMismatch names them)';
  if (source === 'logprobs')
    return (
      `${what}: the ids came from logprobs, and a vLLM without return_token_ids (before 0.10.2) running a reasoning or tool parser ` +
      `skips the chunks whose text the parser withholds, their logprobs with them; ${where}. A server with return_token_ids (vLLM 0.10.2 or later) sends every id`
    );
  return `${what}; ${where}`;
}
