// Client benchmark: how much client CPU a request and an SSE event cost, for
// vLLM-style clients against a loopback server that costs nearly nothing.
//
//   node bench/client/run.mjs [--quick] [--only aiohttp,undici-tuned,…]
//        [--duration-s 8] [--warmup-s 2] [--python /usr/bin/python3]
//        [--nonstream-tokens 1000] [--concurrency 64,512] [--no-ttft-error]
//        [--paced-only]            only the paced configurations
//        [--harness-node-flags "F"] flags for the harness's node process
//                                  (e.g. "--single-threaded-gc")
//        [--framing event|single]   at-once SSE body: one chunked frame per
//                                   event (default, as uvicorn) or one frame
//
// For each configuration of the matrix
//   (non-stream | stream 100 tokens | stream 1000 tokens) × concurrency (64, 512)
//   × (at once | paced: one event per stream every 10 ms)
// (non-streaming responses are one write whatever the pacing, so only "at once")
// it starts a fresh server.mjs child, runs each client as its own child process
// (closed loop at the concurrency, warm-up then a measured window, bounded by
// count and time), and takes the client's own CPU (user+sys) over the window.
// Prints a markdown table and ratios to the aiohttp (vLLM-style) client of the
// same run, and writes bench/client/results/<timestamp>.json.
// For paced runs it also compares each client's TTFT with the server's truth
// (measureTtftError below), using the x-request-id keyed /_records.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, rmSync, existsSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { cpuTimes, stealPct } from './common.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

// ─── measureTtftError ───────────────────────────────────────────────────────
// TTFT error of a client (or the harness) against the server's truth.
//   clientRecords: [[id, issueNs, firstTokenNs], …] or [[id, ttftNs], …]
//                  (or {records: …} as written by --ttft-out), CLOCK_MONOTONIC ns
//   serverRecords: {id: [arrivalNs, firstEventWrittenNs, readNs?], …} (GET
//                  /_records `.records`; values strings or numbers),
//                  CLOCK_MONOTONIC ns
// error = client TTFT − server TTFT, where server TTFT = first event written −
// request arrival. The C engine's arrival is the kernel's receive time of the
// request (the Node engine's, and the C engine's without it, is when the
// server read it): a request waiting in the server's socket while the server
// writes a tick's events is the server's time, which `serverRead` (arrival →
// read) shows apart. With absolute client times it also splits the error into
// the send side (request issued → arrival) and the receive side (first event
// written → client saw it); all clocks are CLOCK_MONOTONIC, shared by
// processes on Linux. Returns milliseconds: {n, unmatched, error:{p50,p99,mean,
// max,min}, send:{…}|null, recv:{…}|null, serverTtft:{…}, serverRead:{…}|null,
// windows:[{fromS, n, p50, p99}]|null}. With `windowS` and absolute client
// times, `windows` holds the error's percentiles per consecutive window of
// that many seconds of issue time (whole windows only): a one-off stall
// weighs more in a short window than in a long run, and this shows both.
// The lead wires it to the harness: run harness.mjs with --ttft-out at 10 %,
// 50 % and 90 % of its measured capacity and call this on its records.
export function measureTtftError(clientRecords, serverRecords, { windowS = null } = {}) {
  const cr = Array.isArray(clientRecords) ? clientRecords : (clientRecords?.records ?? []);
  const sr = serverRecords?.records && !Array.isArray(serverRecords.records) ? serverRecords.records : serverRecords;
  const err = [];
  const send = [];
  const recv = [];
  const srvTtft = [];
  const srvRead = [];
  const issued = []; // issue time of err[i], ns (absolute records only)
  let unmatched = 0;
  for (const r of cr) {
    const s = sr[r[0]];
    if (!s) {
      unmatched++;
      continue;
    }
    const arrival = Number(s[0]);
    const firstWrite = Number(s[1]);
    const serverTtft = firstWrite - arrival;
    srvTtft.push(serverTtft / 1e6);
    if (s.length >= 3) srvRead.push((Number(s[2]) - arrival) / 1e6);
    if (r.length >= 3) {
      const issue = Number(r[1]);
      const first = Number(r[2]);
      err.push((first - issue - serverTtft) / 1e6);
      issued.push(issue);
      send.push((arrival - issue) / 1e6);
      recv.push((first - firstWrite) / 1e6);
    } else {
      err.push((Number(r[1]) - serverTtft) / 1e6);
    }
  }
  const stats = (v) => {
    if (v.length === 0) return null;
    const s = Float64Array.from(v).sort();
    const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
    let sum = 0;
    for (const x of s) sum += x;
    return { p50: q(0.5), p99: q(0.99), mean: sum / s.length, min: s[0], max: s[s.length - 1] };
  };
  let windows = null;
  if (windowS > 0 && issued.length === err.length && err.length > 0) {
    const widthNs = windowS * 1e9;
    let t0 = Infinity;
    let t1 = -Infinity;
    for (const t of issued) {
      if (t < t0) t0 = t;
      if (t > t1) t1 = t;
    }
    const whole = Math.floor((t1 - t0) / widthNs);
    const per = Array.from({ length: whole }, () => []);
    for (let i = 0; i < err.length; i++) {
      const k = Math.floor((issued[i] - t0) / widthNs);
      if (k < whole) per[k].push(err[i]);
    }
    windows = per.map((v, k) => {
      const st = stats(v);
      return { fromS: k * windowS, n: v.length, p50: st?.p50 ?? null, p99: st?.p99 ?? null };
    });
  }
  return {
    n: err.length,
    unmatched,
    windows,
    error: stats(err),
    send: send.length ? stats(send) : null,
    recv: recv.length ? stats(recv) : null,
    serverTtft: stats(srvTtft),
    serverRead: stats(srvRead),
  };
}

// ─── options ────────────────────────────────────────────────────────────────
function parseRunArgs(argv) {
  const o = {
    quick: false,
    only: null,
    durationS: null,
    warmupS: null,
    python: null,
    nonstreamTokens: 1000,
    ttftError: true,
    concurrency: null,
    framing: 'event',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--only') o.only = argv[++i].split(',').map((s) => s.trim());
    else if (a === '--duration-s') o.durationS = Number(argv[++i]);
    else if (a === '--warmup-s') o.warmupS = Number(argv[++i]);
    else if (a === '--python') o.python = argv[++i];
    else if (a === '--nonstream-tokens') o.nonstreamTokens = Number(argv[++i]);
    else if (a === '--concurrency') o.concurrency = argv[++i].split(',').map(Number);
    else if (a === '--no-ttft-error') o.ttftError = false;
    else if (a === '--framing') o.framing = argv[++i];
    else if (a === '--paced-only') o.pacedOnly = true;
    else if (a === '--harness-node-flags') o.harnessNodeFlags = argv[++i].split(/\s+/).filter(Boolean);
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        readFileSync(fileURLToPath(import.meta.url), 'utf8')
          .split('\n')
          .slice(0, 20)
          .join('\n') + '\n',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  o.durationS ??= o.quick ? 2 : 8;
  o.warmupS ??= o.quick ? 0.5 : 2;
  return o;
}

// ─── python / aiohttp discovery ─────────────────────────────────────────────
function pythonHasAiohttp(py) {
  const r = spawnSync(py, ['-c', 'import aiohttp, sys; print(aiohttp.__version__, sys.version.split()[0])'], {
    encoding: 'utf8',
    timeout: 20000,
  });
  return r.status === 0 ? r.stdout.trim() : null;
}

function findPython(explicit) {
  // Debian's python3-aiohttp lives in /usr/lib/python3/dist-packages, seen by
  // /usr/bin/python3 (a pyenv `python3` earlier on PATH does not see it).
  const candidates = explicit ? [explicit] : ['/usr/bin/python3', 'python3'];
  for (const py of candidates) {
    const v = pythonHasAiohttp(py);
    if (v) return { py, version: v };
  }
  if (explicit) return { py: null, why: `${explicit} cannot import aiohttp` };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
  if (!isRoot || !hasApt) {
    return { py: null, why: `aiohttp missing and ${!isRoot ? 'not root' : 'no apt-get'}: install python3-aiohttp` };
  }
  process.stdout.write(
    'aiohttp is missing: running `apt-get update && apt-get install -y python3-aiohttp` (Debian mirrors)\n',
  );
  const r = spawnSync(
    'sh',
    ['-c', 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3-aiohttp'],
    {
      stdio: 'inherit',
      timeout: 600e3,
    },
  );
  if (r.status !== 0) return { py: null, why: `apt-get install python3-aiohttp failed (status ${r.status})` };
  const v = pythonHasAiohttp('/usr/bin/python3');
  return v ? { py: '/usr/bin/python3', version: v } : { py: null, why: 'python3-aiohttp installed but not importable' };
}

// ─── child processes ────────────────────────────────────────────────────────
function readJsonLine(child, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what}: timed out after ${timeoutMs} ms; stderr: ${err.slice(-500)}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        try {
          resolve(JSON.parse(out.slice(0, nl)));
        } catch {
          reject(new Error(`${what}: bad JSON line ${out.slice(0, 200)}`));
        }
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
      if (err.length > 20000) err = err.slice(-10000);
    });
    child.on('exit', (code, sig) => {
      clearTimeout(t);
      if (!out.includes('\n'))
        reject(new Error(`${what}: exited (${code ?? sig}) without a result; stderr: ${err.slice(-800)}`));
    });
    child.getStderr = () => err;
  });
}

async function startServer(tokens, pacedMs, framing) {
  const child = spawn(
    process.execPath,
    [
      join(HERE, 'server.mjs'),
      '--tokens',
      String(tokens),
      '--paced-ms',
      String(pacedMs),
      '--framing',
      framing,
      '--exit-on-stdin-end',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const hello = await readJsonLine(child, 15000, 'server');
  const base = `http://127.0.0.1:${hello.port}`;
  return {
    child,
    base,
    hello,
    async get(path, method = 'GET') {
      const r = await fetch(base + path, { method });
      return r.json();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((res) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            res();
          }, 2000);
          child.on('exit', () => {
            clearTimeout(t);
            res();
          });
        });
      }
    },
  };
}

async function runClient(client, url, cfg, opts, ttftFile) {
  const args = [
    ...client.args,
    '--url',
    url,
    '--concurrency',
    String(cfg.concurrency),
    '--requests',
    String(cfg.requests),
    '--duration-s',
    String(cfg.durationS),
    '--warmup-s',
    String(opts.warmupS),
    cfg.stream ? '--stream' : '--no-stream',
    '--max-tokens',
    String(cfg.tokens),
  ];
  if (ttftFile) args.push('--ttft-out', ttftFile);
  if (cfg.rampS) args.push('--ramp-s', String(cfg.rampS));
  const child = spawn(client.cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: join(HERE, '..', '..') });
  // Paced: the harness's LoadGen tests each ramp up and end when their last
  // stream does (one stream length after the window at most, twice over).
  const streamS = cfg.pacedMs ? (cfg.tokens * cfg.pacedMs) / 1e3 : 0;
  const limitMs = (opts.warmupS + cfg.durationS + 30 + 3 * streamS) * 1e3;
  try {
    const res = await readJsonLine(child, limitMs, client.name);
    // The client exits by itself right after its line; make sure.
    await new Promise((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        r();
      }, 5000);
      child.on('exit', () => {
        clearTimeout(t);
        r();
      });
    });
    return res;
  } catch (e) {
    if (child.exitCode === null) child.kill('SIGKILL');
    return { error: String(e.message ?? e), client: client.name };
  }
}

// ─── matrix ─────────────────────────────────────────────────────────────────
function matrix(o) {
  const conc = o.concurrency ?? [64, 512];
  const modes = [
    { mode: 'non-stream', stream: false, tokens: o.nonstreamTokens, pacings: [0] },
    { mode: 'stream-100', stream: true, tokens: 100, pacings: [0, 10] },
    { mode: 'stream-1000', stream: true, tokens: 1000, pacings: [0, 10] },
  ];
  const out = [];
  if (o.quick) {
    // ≤ 60 s in all: three configurations.
    out.push({ mode: 'non-stream', stream: false, tokens: o.nonstreamTokens, concurrency: 64, pacedMs: 0 });
    out.push({ mode: 'stream-1000', stream: true, tokens: 1000, concurrency: 64, pacedMs: 0 });
    out.push({ mode: 'stream-100', stream: true, tokens: 100, concurrency: 512, pacedMs: 10 });
  } else {
    for (const m of modes)
      for (const p of m.pacings)
        for (const c of conc)
          out.push({ mode: m.mode, stream: m.stream, tokens: m.tokens, concurrency: c, pacedMs: p });
  }
  if (o.pacedOnly) out.splice(0, out.length, ...out.filter((c) => c.pacedMs > 0));
  for (const cfg of out) {
    // A paced 1000-token request lasts 10 s: give the window at least one wave of completions.
    const streamS = (cfg.tokens * cfg.pacedMs) / 1e3;
    cfg.durationS = !o.quick && cfg.pacedMs ? Math.max(o.durationS, streamS + 2 - o.warmupS) : o.durationS;
    cfg.requests = 1_000_000;
    // Paced: spread the loops' starts over one stream length (at most the
    // warm-up), else every stream starts and ends on the same server tick.
    cfg.rampS = cfg.pacedMs ? Math.min(streamS, o.warmupS) : 0;
  }
  return out;
}

function clientsFor(o, py) {
  const node = process.execPath;
  const all = [
    { name: 'aiohttp-vllm', cmd: py.py, args: [join(HERE, 'aiohttp_client.py')], skip: py.py ? null : py.why },
    { name: 'undici-plain', cmd: node, args: [join(HERE, 'undici-plain.mjs')] },
    { name: 'undici-tuned', cmd: node, args: [join(HERE, 'undici-tuned.mjs')] },
    { name: 'harness', cmd: node, args: [...(o.harnessNodeFlags ?? []), join(HERE, 'harness.mjs')] },
  ];
  if (!o.only) return all;
  return all.filter((c) => o.only.some((n) => c.name === n || c.name.startsWith(n)));
}

// ─── derived figures and printing ───────────────────────────────────────────
function derive(r) {
  if (!r || r.skipped || r.error) return r;
  const d = { ...r };
  d.req_s = r.requests / r.wall_s;
  d.events_s = r.events / r.wall_s;
  d.us_cpu_per_event = r.events ? (r.cpu_s / r.events) * 1e6 : null;
  d.us_cpu_per_req = r.requests ? (r.cpu_s / r.requests) * 1e6 : null;
  d.cpu_pct = (100 * r.cpu_s) / r.wall_s;
  d.req_per_cpu_s = r.cpu_s ? r.requests / r.cpu_s : null;
  d.events_per_cpu_s = r.cpu_s ? r.events / r.cpu_s : null;
  return d;
}

const f = (x, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
const fk = (x) => (x === null || x === undefined ? '–' : x >= 1e4 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));

function printTable(rows) {
  const lines = [];
  lines.push(
    '| client | mode | conc | pacing | req/s | events/s | µs CPU/event | µs CPU/req | client CPU % | req/CPU-s | events/CPU-s | mean TTFT ms | TTFT err p50/p99 ms | errors | host steal % |',
  );
  lines.push('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const r = row.result;
    const pacing = row.cfg.pacedMs ? `${row.cfg.pacedMs} ms` : 'at once';
    const head = `| ${row.client} | ${row.cfg.mode} | ${row.cfg.concurrency} | ${pacing} |`;
    if (!r || r.skipped || r.error) {
      lines.push(
        `${head} ${r?.skipped ? 'skipped: ' + r.skipped : 'error: ' + String(r?.error).slice(0, 80)} ||||||||||`,
      );
      continue;
    }
    const te = row.ttftError?.error;
    lines.push(
      `${head} ${f(r.req_s, 0)} | ${fk(r.events_s)} | ${f(r.us_cpu_per_event, 2)} | ${f(r.us_cpu_per_req, 1)} | ${f(r.cpu_pct, 0)} | ${fk(
        r.req_per_cpu_s,
      )} | ${fk(r.events_per_cpu_s)} | ${row.cfg.stream ? f(r.ttft_ms?.mean, 1) : '–'} | ${te ? `${f(te.p50, 2)} / ${f(te.p99, 2)}` : '–'} | ${r.errors + (r.token_mismatches || 0)} | ${f(row.stealPct, 1)} |`,
    );
  }
  return lines.join('\n');
}

function printRatios(rows) {
  const lines = [
    '| mode | conc | pacing | client | CPU per unit vs aiohttp | throughput/CPU-s ×aiohttp |',
    '|---|---:|---|---|---:|---:|',
  ];
  const key = (c) => `${c.mode}/${c.concurrency}/${c.pacedMs}`;
  const base = new Map();
  for (const row of rows) if (row.client === 'aiohttp-vllm' && row.result?.cpu_s) base.set(key(row.cfg), row.result);
  for (const row of rows) {
    if (row.client === 'aiohttp-vllm' || !row.result?.cpu_s) continue;
    const b = base.get(key(row.cfg));
    if (!b) continue;
    const unit = row.cfg.stream ? 'us_cpu_per_event' : 'us_cpu_per_req';
    const ratio = row.result[unit] / b[unit];
    lines.push(
      `| ${row.cfg.mode} | ${row.cfg.concurrency} | ${row.cfg.pacedMs ? row.cfg.pacedMs + ' ms' : 'at once'} | ${row.client} | ${f(
        ratio,
        3,
      )} (${row.cfg.stream ? 'per event' : 'per req'}) | ×${f(1 / ratio, 1)} |`,
    );
  }
  return lines.join('\n');
}

// ─── main ───────────────────────────────────────────────────────────────────
async function main() {
  const o = parseRunArgs(process.argv.slice(2));
  const t0 = Date.now();
  const wantPy = !o.only || o.only.some((n) => 'aiohttp-vllm'.startsWith(n));
  const py = wantPy ? findPython(o.python) : { py: null, why: 'not selected' };
  if (wantPy && !py.py) process.stdout.write(`skipping the Python (aiohttp) row: ${py.why}\n`);
  const clients = clientsFor(o, py);
  const cfgs = matrix(o);
  const tmp = mkdtempSync(join(tmpdir(), 'client-bench-'));
  const rows = [];
  const machine = {
    cpu: cpus()[0]?.model,
    ncpu: cpus().length,
    node: process.version,
    python: py.version ?? null,
    loadavgStart: loadavg(),
  };
  process.stdout.write(
    `client bench: ${cfgs.length} configurations × ${clients.length} clients, warm-up ${o.warmupS} s, window ${o.durationS} s ` +
      `(${machine.ncpu}× ${machine.cpu}, load ${machine.loadavgStart.map((x) => x.toFixed(2)).join(' ')})\n`,
  );
  let harnessSkipped = null;
  try {
    for (const cfg of cfgs) {
      for (const client of clients) {
        const row = { client: client.name, cfg };
        if (client.skip) {
          row.result = { skipped: client.skip };
          rows.push(row);
          continue;
        }
        if (client.name === 'harness' && harnessSkipped) {
          row.result = { skipped: harnessSkipped };
          rows.push(row);
          continue;
        }
        const srv = await startServer(cfg.tokens, cfg.pacedMs, o.framing);
        const host0 = cpuTimes();
        try {
          const ttftFile =
            o.ttftError && cfg.stream && cfg.pacedMs ? join(tmp, `${client.name}-${rows.length}.json`) : null;
          const res = await runClient(client, srv.base, cfg, o, ttftFile);
          row.result = derive(res);
          row.stealPct = stealPct(host0, cpuTimes());
          if (res?.skipped && client.name === 'harness') harnessSkipped = res.skipped;
          row.server = await srv.get('/_stats').catch((e) => ({ error: String(e) }));
          if (ttftFile && existsSync(ttftFile)) {
            const server = await srv.get('/_records');
            row.ttftError = measureTtftError(JSON.parse(readFileSync(ttftFile, 'utf8')), server);
          }
        } finally {
          await srv.stop();
        }
        rows.push(row);
        const r = row.result;
        process.stdout.write(
          `  ${cfg.mode.padEnd(11)} c=${String(cfg.concurrency).padEnd(3)} ${cfg.pacedMs ? 'paced' : 'once '} ${client.name.padEnd(13)} ` +
            (r?.skipped
              ? `skipped: ${r.skipped}`
              : r?.error
                ? `ERROR ${r.error.slice(0, 200)}`
                : `${f(r.req_s, 0)} req/s ${fk(r.events_s)} ev/s ${f(r.us_cpu_per_event, 2)} µs/ev ${f(r.us_cpu_per_req, 1)} µs/req cpu ${f(r.cpu_pct, 0)}%` +
                  (row.ttftError?.error
                    ? ` ttft-err p50 ${f(row.ttftError.error.p50, 2)} p99 ${f(row.ttftError.error.p99, 2)} ms` +
                      (row.ttftError.serverRead
                        ? ` (server arrival→read p99 ${f(row.ttftError.serverRead.p99, 2)})`
                        : '')
                    : '') +
                  ` steal ${f(row.stealPct, 1)}%`) +
            '\n',
        );
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  machine.loadavgEnd = loadavg();
  const table = printTable(rows);
  const ratios = printRatios(rows);
  process.stdout.write(
    '\n' +
      table +
      '\n\nRatios to the aiohttp (vLLM-style) client in this run (CPU per event for streams, per request otherwise):\n\n' +
      ratios +
      '\n',
  );
  const dir = join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify({ options: o, machine, elapsedS: (Date.now() - t0) / 1e3, rows, table, ratios }, null, 1),
  );
  process.stdout.write(`\nwrote ${file} (${((Date.now() - t0) / 1e3).toFixed(0)} s)\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(String(e?.stack ?? e) + '\n');
    process.exit(1);
  });
}
