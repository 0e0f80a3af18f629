// Shared pieces of the Node clients of the client benchmark (bench/client/).
//
// Every client is a child process started by run.mjs with the same argv:
//   --url http://127.0.0.1:PORT   server origin (the path is always /v1/completions)
//   --concurrency C               closed loop: C requests in flight at all times
//   --requests N                  at most N requests issued in total (warm-up included)
//   --duration-s D                measured window length, after the warm-up
//   --warmup-s W                  warm-up, not measured (default 1)
//   --stream | --no-stream
//   --max-tokens T                sent as max_tokens (the server decides the length)
//   --ttft-out FILE               optional: per-request TTFT records of the window
//   --ramp-s R                    start the C request loops evenly spread over R s
//                                 (default 0: all at once, as vLLM's bench does);
//                                 run.mjs uses it for paced runs so that streams do
//                                 not all start and end on the same tick
// and prints exactly one JSON line on stdout (see resultLine()).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export function parseArgs(argv = process.argv.slice(2)) {
  const o = {
    url: 'http://127.0.0.1:8000',
    concurrency: 64,
    requests: 1_000_000,
    durationS: 5,
    warmupS: 1,
    stream: true,
    maxTokens: 100,
    ttftOut: null,
    rampS: 0,
    extra: {},
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--url') o.url = v();
    else if (a === '--concurrency') o.concurrency = Number(v());
    else if (a === '--requests') o.requests = Number(v());
    else if (a === '--duration-s') o.durationS = Number(v());
    else if (a === '--warmup-s') o.warmupS = Number(v());
    else if (a === '--stream') o.stream = true;
    else if (a === '--no-stream') o.stream = false;
    else if (a === '--max-tokens') o.maxTokens = Number(v());
    else if (a === '--ttft-out') o.ttftOut = v();
    else if (a === '--ramp-s') o.rampS = Number(v());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'usage: --url http://127.0.0.1:PORT --concurrency C --requests N --duration-s D [--warmup-s W]\n' +
          '       [--stream|--no-stream] [--max-tokens T] [--ttft-out FILE] [--ramp-s R]\n' +
          'prints one JSON result line (see bench/client/common.mjs, harness.mjs)\n',
      );
      process.exit(0);
    } else if (a.startsWith('--')) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) o.extra[a.slice(2)] = argv[++i];
      else o.extra[a.slice(2)] = true;
    }
  }
  if (!(o.concurrency >= 1 && o.requests >= 1 && o.durationS > 0 && o.warmupS >= 0)) {
    throw new Error('bad arguments: ' + JSON.stringify(o));
  }
  return o;
}

// A ~256-character text prompt, as vLLM's random dataset would send text.
export const PROMPT =
  'The quick brown fox jumps over the lazy dog while the benchmark client measures how much CPU it spends ' +
  'per server-sent event. Repeat the story in more detail, adding characters, places and a moral at the end, ' +
  'then summarise it in one line.';

// The JSON body vLLM's `vllm bench serve` sends to /v1/completions (PROTOCOLS §1.10).
export function completionPayload(stream, maxTokens) {
  const p = {
    model: 'm',
    prompt: PROMPT,
    repetition_penalty: 1.0,
    max_tokens: maxTokens,
    logprobs: null,
    ignore_eos: true,
    stream,
  };
  if (stream) p.stream_options = { include_usage: true };
  return p;
}

// performance.now() and process.hrtime.bigint() both read CLOCK_MONOTONIC on
// Linux (uv_hrtime), so a fixed offset turns one into the other. The server's
// /_records use hrtime ns, Python's perf_counter() is CLOCK_MONOTONIC too.
const HR0 = process.hrtime.bigint();
const PERF0 = performance.now();
export const perfToMonoNs = (ms) => Number(HR0) + Math.round((ms - PERF0) * 1e6);

function pct(sorted, q) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summarise(values) {
  if (values.length === 0) return { n: 0, mean: null, p50: null, p99: null, max: null };
  const s = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i];
  return { n: s.length, mean: sum / s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] };
}

// Measurement window bookkeeping shared by the Node clients. The client
// increments `c.completed`, `c.events`, `c.tokens`, `c.errors` as work
// happens, calls `w.ttft(id, issueMs, firstMs)` on each first token and asks
// `w.mayIssue()` before issuing a request. Window = [warm-up end, +duration]
// or until N requests are done, whichever is first. At the window's end the
// result line is printed and the process exits without draining (the server
// tolerates the resets).
export function createWindow(opts, client, onEnd) {
  const c = { issued: 0, completed: 0, events: 0, tokens: 0, errors: 0, mismatches: 0 };
  let inWindow = false;
  let start = null;
  const ttfts = [];
  const records = opts.ttftOut ? [] : null;
  let ended = false;

  const snap = () => ({ t: performance.now(), cpu: process.cpuUsage(), ...c });

  function begin() {
    if (ended || inWindow) return;
    start = snap();
    inWindow = true;
  }
  function end(reason) {
    if (ended) return;
    ended = true;
    if (!inWindow) begin();
    const stop = snap();
    inWindow = false;
    const wallS = (stop.t - start.t) / 1e3;
    const userS = (stop.cpu.user - start.cpu.user) / 1e6;
    const sysS = (stop.cpu.system - start.cpu.system) / 1e6;
    const ttftMs = summarise(ttfts);
    if (records) writeFileSync(opts.ttftOut, JSON.stringify({ clock: 'CLOCK_MONOTONIC_ns', records }));
    const line = resultLine({
      client,
      stream: opts.stream,
      concurrency: opts.concurrency,
      end_reason: reason,
      wall_s: wallS,
      cpu_user_s: userS,
      cpu_sys_s: sysS,
      cpu_s: userS + sysS,
      requests: stop.completed - start.completed,
      events: stop.events - start.events,
      tokens: stop.tokens - start.tokens,
      errors: stop.errors - start.errors,
      token_mismatches: c.mismatches,
      issued_total: c.issued,
      completed_total: c.completed,
      ttft_ms: ttftMs,
    });
    onEnd?.();
    process.stdout.write(line + '\n', () => process.exit(0));
  }

  const warmTimer = setTimeout(begin, opts.warmupS * 1e3);
  const endTimer = setTimeout(() => end('duration'), (opts.warmupS + opts.durationS) * 1e3);
  // Hard bound in case the loop stalls: the parent also kills us.
  const hardTimer = setTimeout(() => end('hard-timeout'), (opts.warmupS + opts.durationS) * 1e3 + 30e3);
  hardTimer.unref();

  return {
    c,
    mayIssue() {
      if (ended || c.issued >= opts.requests) return false;
      c.issued++;
      return true;
    },
    ttft(id, issueMs, firstMs) {
      if (!inWindow) return;
      ttfts.push(firstMs - issueMs);
      if (records) records.push([id, perfToMonoNs(issueMs), perfToMonoNs(firstMs)]);
    },
    // Called by the client after each completion: ends the window early
    // once every allowed request has completed.
    maybeDone() {
      if (!ended && c.issued >= opts.requests && c.completed + c.errors >= c.issued) {
        clearTimeout(warmTimer);
        clearTimeout(endTimer);
        end('request-count');
      }
    },
    get ended() {
      return ended;
    },
  };
}

// Start n loops evenly over rampS seconds (all at once when rampS is 0).
export function startLoops(n, rampS, startOne) {
  if (!(rampS > 0)) {
    for (let i = 0; i < n; i++) startOne(i);
    return;
  }
  for (let i = 0; i < n; i++) setTimeout(() => startOne(i), (i * rampS * 1e3) / n);
}

// The JSON result line: one line, these fields (harness.mjs must print the same).
export function resultLine(r) {
  return JSON.stringify(r);
}

// Host steal time (Linux /proc/stat): CPU time the hypervisor gave to other
// guests while this VM wanted it. On a shared VM it arrives as stalls of
// several ms, which land in every client's latency tail whatever it does,
// so the benches report it next to their tails. null where unavailable.
export function cpuTimes() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { steal: f[7], total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** Steal as a % of all CPU time between two cpuTimes() snapshots. */
export function stealPct(a, b) {
  if (a === null || b === null || b.total <= a.total) return null;
  return ((b.steal - a.steal) / (b.total - a.total)) * 100;
}
