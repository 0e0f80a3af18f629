// Plug-in slot for the LoadGen harness in the client benchmark (run.mjs runs it
// like every other client, as its own child process). Until the package exports
// `createLlmSut`, it prints {"skipped":"harness not built yet"} and exits 0.
//
// ─── Contract the harness must meet (the lead fills in runHarness) ───────────
// argv (same as the baseline clients, see common.mjs):
//   --url http://127.0.0.1:PORT  the loopback server; POST /v1/completions
//   --concurrency C              at most C requests in flight (the SUT's limit)
//   --requests N                 at most N requests issued, warm-up included
//   --duration-s D               measured window, after --warmup-s W (default 1)
//   --stream | --no-stream       streaming (SSE) or one JSON body
//   --max-tokens T               sent as max_tokens (the server decides the length)
//   --ttft-out FILE              optional, see below
//   --ramp-s R                   start the C in-flight slots spread evenly over R s
//                                (run.mjs passes min(stream length, warm-up) for paced runs;
//                                every LoadGen test of the harness ramps, the measured one too)
//   extra flags the harness may accept (run.mjs passes them only if asked):
//   --scenario offline|server    LoadGen scenario (default offline = capacity)
//   --target-qps Q               Server scenario rate (TTFT error at 10/50/90 %)
//   --workers N, --busy-poll IDLE_MS   createLlmSut's workers and busyPoll
// Requests: vLLM /v1/completions payload (common.mjs completionPayload or the
//   SUT's own), each with a unique `x-request-id` header: the server keys its
//   truth records by it.
// stdout: exactly ONE JSON line, the fields of common.mjs createWindow():
//   client ("harness"), stream, concurrency, end_reason, wall_s,
//   cpu_user_s, cpu_sys_s, cpu_s   process.cpuUsage() deltas over the measured
//                                  window only: the whole process, so the
//                                  LoadGen engine threads and worker threads count,
//   requests, events, tokens, errors   completed in the window; events = SSE
//                                  events received incl. usage chunk and [DONE],
//   token_mismatches, issued_total, completed_total,
//   ttft_ms {n, mean, p50, p99, max}   as the harness reports TTFT (ms)
//   or {"skipped": "<reason>"}.
// --ttft-out FILE: {"clock":"CLOCK_MONOTONIC_ns","records":[[id, issueNs, firstTokenNs], …]}
//   for requests whose first token arrived in the window; issueNs = the time the
//   harness counts TTFT from (LoadGen's issue time), firstTokenNs = the time it
//   records the first token; both CLOCK_MONOTONIC ns (process.hrtime.bigint(),
//   or perfToMonoNs(performance.now()) from common.mjs). [id, ttftNs] is also
//   accepted when only durations are known. run.mjs measureTtftError() compares
//   them with the server's GET /_records.
// The process may exit at the window's end without draining; run.mjs kills it
// after W + D + 30 s.
// ────────────────────────────────────────────────────────────────────────────
import { parseArgs } from './common.mjs';

// The engine's clock: steady_clock is CLOCK_MONOTONIC, as is libuv's hrtime on Linux.
const engineNowNs = () => Number(process.hrtime.bigint());

const opts = parseArgs();

let mod = null;
let why = null;
try {
  mod = await import('../../dist/index.js');
} catch (e) {
  why = `dist/index.js failed to load: ${e?.message ?? e}`;
}
if (!mod || typeof mod.createLlmSut !== 'function') {
  process.stdout.write(JSON.stringify({ skipped: why ?? 'harness not built yet', client: 'harness' }) + '\n');
  process.exit(0);
}

// The harness: the LoadGen engine (Offline = a closed loop at --concurrency,
// through the per-endpoint in-flight cap; Server = Poisson arrivals at
// --target-qps) driving createLlmSut with its worker threads. A short
// warm-up test first (connections, JIT), then the measured test; the CPU of
// the whole process (engine threads and worker threads included) is taken
// around the measured test only.
async function runHarness(lib, o) {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const scenario = String(o.extra.scenario ?? 'offline').toLowerCase() === 'server' ? 'Server' : 'Offline';
  const workers =
    o.extra.workers !== undefined
      ? Number(o.extra.workers)
      : process.env.LOADGEN_BENCH_WORKERS
        ? Number(process.env.LOADGEN_BENCH_WORKERS)
        : undefined;
  const size = 4096;
  const dataset = {
    name: 'bench',
    size,
    prompt: (i) => ({ tokenIds: [1, 2, 3, 4, 5, 6, 7, (i % 1000) + 8], maxTokens: o.maxTokens }),
  };
  const llm = await lib.createLlmSut({
    endpoints: [o.url],
    dataset,
    backend: 'vllm',
    model: String(o.extra.model ?? 'm'),
    capabilities: { tokenSource: 'token_ids' },
    stream: o.stream,
    workers,
    maxInFlightPerEndpoint: o.concurrency,
    recordTimings: Boolean(o.ttftOut),
    busyPoll: o.extra['busy-poll'] !== undefined ? { idleMs: Number(o.extra['busy-poll']) } : undefined,
    sampling: { ignoreEos: true },
  });
  const outdir = mkdtempSync(join(tmpdir(), 'lg-bench-'));
  // --ramp-s (paced runs): like the other clients, open the in-flight slots
  // over R s instead of all at once, so equal-length streams do not stay in
  // lock-step (all ending, and all new first tokens arriving, in one burst).
  // Offline issues every sample in one query: the first `concurrency` go out
  // spread over the ramp through the adapter's issueQuery, the rest at its end.
  const ramped = {
    name: llm.sut.name,
    issueQuery(samples) {
      const head = samples.slice(0, o.concurrency);
      const rest = samples.slice(o.concurrency);
      const slices = 50;
      const per = Math.ceil(head.length / slices);
      for (let k = 0; k * per < head.length; k++)
        setTimeout(() => llm.sut.issueQuery(head.slice(k * per, (k + 1) * per)), (k * o.rampS * 1e3) / slices);
      if (rest.length > 0) setTimeout(() => llm.sut.issueQuery(rest), o.rampS * 1e3);
    },
    flushQueries: () => undefined,
  };
  const sut = scenario === 'Offline' && o.rampS > 0 ? ramped : llm.sut;
  const run = (n, extra = {}) =>
    lib.startTest(
      sut,
      llm.qsl,
      scenario === 'Offline'
        ? { scenario, mode: 'PerformanceOnly', offlineExpectedQps: 1, minDurationMs: 0, minQueryCount: n, ...extra }
        : {
            scenario,
            mode: 'PerformanceOnly',
            serverTargetQps: Number(o.extra['target-qps'] ?? 100),
            minDurationMs: 0,
            minQueryCount: n,
            ttftLatencyNs: 1e12,
            tpotLatencyNs: 1e12,
            serverTargetLatencyNs: 1e12,
            ...extra,
          },
      { outdir },
      { auditConfig: null, handleSigint: false },
    );
  // Warm-up (connections, JIT, request bodies): tests of doubling size until
  // the warm-up time is spent; the last one sizes the measured test, so the
  // window is about --duration-s long and not skewed by start-up costs.
  const t0 = performance.now();
  const serverQps = Number(o.extra['target-qps'] ?? 100);
  // Offline: one wave first (a paced 1000-token stream lasts 10 s), then doubling.
  let warmN = Math.min(o.requests, scenario === 'Server' ? Math.max(16, Math.round(serverQps * 0.25)) : o.concurrency);
  let rate = 0;
  for (;;) {
    const w0 = performance.now();
    await run(warmN);
    rate = warmN / Math.max((performance.now() - w0) / 1e3, 1e-3);
    if ((performance.now() - t0) / 1e3 >= o.warmupS || warmN >= o.requests) break;
    warmN = Math.min(o.requests, warmN * 2);
  }
  if (scenario === 'Server') rate = Number(o.extra['target-qps'] ?? 100);
  let before;
  let after;
  let cpu;
  let wallS;
  // Sample ids restart with every test: the measured test's timings are told
  // apart from the warm-up's by time, not by position or id.
  let measuredFromNs;
  let measuredToNs = Infinity;
  if (sut === ramped) {
    // The window opens when the ramp is over and closes after --duration-s
    // with the test still at full concurrency (it is sized to outlast the
    // window), so ramp-up and ramp-down stay out of the CPU figures. The
    // test then ends by itself; TTFTs are those of the requests sent in the
    // window (their timings exist once they complete).
    // The warm-up's rate includes its ramp and its tail; at full concurrency
    // a slot completes one request per mean request latency.
    const latS = ((await llm.report()).endpoints[0]?.latencyMs?.mean ?? 0) / 1e3;
    const steady = latS > 0 ? o.concurrency / latS : rate;
    const n = Math.min(o.requests, Math.round(Math.max(rate, steady) * (o.rampS + o.durationS) * 1.2) + o.concurrency);
    let settled = false;
    const test = run(n).finally(() => (settled = true));
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    await sleep(o.rampS * 1e3);
    before = await llm.report();
    measuredFromNs = engineNowNs();
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    while (!settled && performance.now() - w0 < o.durationS * 1e3) await sleep(20);
    wallS = (performance.now() - w0) / 1e3;
    cpu = process.cpuUsage(cpu0);
    measuredToNs = engineNowNs();
    after = await llm.report();
    await test;
    if (o.ttftOut) after.timings = (await llm.report()).timings;
  } else {
    before = await llm.report();
    const n = Math.max(scenario === 'Server' ? 1 : o.concurrency, Math.min(o.requests, Math.round(rate * o.durationS)));
    measuredFromNs = engineNowNs();
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    await run(n);
    wallS = (performance.now() - w0) / 1e3;
    cpu = process.cpuUsage(cpu0);
    after = await llm.report();
  }
  await llm.close();
  rmSync(outdir, { recursive: true, force: true });
  const completed = after.samples.completed - before.samples.completed;
  const chunks = after.chunks.total - before.chunks.total;
  const tokens = after.endpoints[0].outputTokens - before.endpoints[0].outputTokens;
  // Events received: token chunks, plus the usage chunk and [DONE] of each stream.
  const events = o.stream ? chunks + 2 * completed : 0;
  let ttft = { n: 0, mean: null, p50: null, p99: null, max: null };
  let phases = null;
  if (after.timings) {
    const fresh = after.timings.filter(
      (t) =>
        t.ok &&
        Number.isFinite(t.firstTokenNs) &&
        (sut === ramped
          ? t.sentNs >= measuredFromNs && t.firstTokenNs <= measuredToNs
          : t.scheduledNs >= measuredFromNs),
    );
    // Server: LoadGen's TTFT, from the scheduled issue time (every query is
    // sent at once, so the truth starts there too). Offline at capacity:
    // queries wait for an in-flight slot by design, which is not a
    // measurement error, so the clock starts when the sample gets its slot
    // and is handed to undici, as the other clients' starts at their request
    // call (undici's own wait before the write counts).
    const from = scenario === 'Server' ? 'scheduledNs' : 'dispatchedNs';
    const ms = fresh.map((t) => (t.firstTokenNs - t[from]) / 1e6).sort((a, b) => a - b);
    const at = (q) => ms[Math.min(ms.length - 1, Math.max(0, Math.ceil(q * ms.length) - 1))];
    if (ms.length)
      ttft = {
        n: ms.length,
        mean: ms.reduce((a, b) => a + b, 0) / ms.length,
        p50: at(0.5),
        p99: at(0.99),
        max: ms[ms.length - 1],
      };
    // Where the time before the request reaches the wire goes: engine
    // schedule -> engine issue (issue thread wake-up), engine issue ->
    // request written (hand-over to JS, the worker ring, undici).
    const pq = (arr) => {
      const v = Float64Array.from(arr).sort();
      const at = (q) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))] / 1e6;
      return v.length ? { p50: at(0.5), p99: at(0.99), max: v[v.length - 1] / 1e6 } : null;
    };
    phases = {
      scheduledToIssuedMs: pq(fresh.map((t) => t.issuedNs - t.scheduledNs).filter(Number.isFinite)),
      issuedToSentMs: pq(fresh.map((t) => t.sentNs - t.issuedNs).filter(Number.isFinite)),
      // The same, split where the worker hands the request to undici.
      issuedToDispatchedMs: pq(fresh.map((t) => t.dispatchedNs - t.issuedNs).filter(Number.isFinite)),
      dispatchedToSentMs: pq(fresh.map((t) => t.sentNs - t.dispatchedNs).filter(Number.isFinite)),
    };
    if (process.env.LOADGEN_BENCH_DUMP)
      writeFileSync(
        process.env.LOADGEN_BENCH_DUMP,
        JSON.stringify(fresh.map((t) => [t.scheduledNs, t.issuedNs, t.sentNs, t.firstTokenNs])),
      );
    if (o.ttftOut)
      writeFileSync(
        o.ttftOut,
        JSON.stringify({
          clock: 'CLOCK_MONOTONIC_ns',
          records: fresh.map((t) => [String(t.id), t[from], t.firstTokenNs]),
        }),
      );
  }
  return {
    client: 'harness',
    stream: o.stream,
    concurrency: o.concurrency,
    end_reason: 'request-count',
    wall_s: wallS,
    cpu_user_s: cpu.user / 1e6,
    cpu_sys_s: cpu.system / 1e6,
    cpu_s: (cpu.user + cpu.system) / 1e6,
    requests: completed,
    events,
    tokens,
    errors: after.samples.failed - before.samples.failed,
    token_mismatches: 0,
    issued_total: after.samples.issued,
    completed_total: after.samples.completed,
    ttft_ms: ttft,
    phases,
    workers: after.workers,
    multi_token_chunk_fraction: after.chunks.multiTokenFraction,
  };
}

const result = await runHarness(mod, opts);
process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
