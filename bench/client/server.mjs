// Loopback vLLM-like server for the client benchmark: costs nearly nothing per
// request, so the CPU of the client is what gets measured. run.mjs starts it as
// its own child process (its CPU is never counted against a client).
//
//   node bench/client/server.mjs [--port 0] [--tokens 100|1000] [--paced-ms 10]
//        [--framing event|single] [--engine c|node] [--exit-on-stdin-end]
//   env: BENCH_TOKENS, BENCH_PACED_MS, BENCH_PORT, BENCH_FRAMING, BENCH_SERVER_ENGINE
//
// --engine c (default): the responses below are built here and served by
// server.c (compiled with the system's cc on first use, cached in the temp
// directory; this process only relays signals): ~10 µs of CPU per 100-token
// response written at once, nearly all of it the kernel's, and no
// garbage-collector pauses, where this file's own engine took 12-19 µs and
// paused for 2-4 ms every half second. The line printed on listening
// then carries the C process's pid and "engine":"c". Falls back to
// --engine node, with a note on stderr, when there is no C compiler.
// --engine node: raw node:net HTTP/1.1, keep-alive, no timeouts, 127.0.0.1 only.
// POST /v1/completions — the body's "stream" flag picks the response:
//   stream:true  → 200 text/event-stream, chunked; one `data: {…}\n\n` per token
//                  (vLLM completion chunk with "text":" x" and "token_ids":[id]),
//                  the last token's chunk has finish_reason "length", then a
//                  usage-only chunk (choices:[]), then `data: [DONE]\n\n`.
//   stream:false → 200 application/json, one completion with usage.
//   Everything is pre-built as Buffers at start-up.
// Pacing: without --paced-ms each response is one write of the pre-built
// bytes. With --paced-ms P the headers and the first event are written when
// the request has been read, then a single global P-ms tick writes the next
// event to every active stream (like a decode loop: each socket read on the
// client then carries about one event). The last token's event, the usage
// chunk and [DONE] go out together, as vLLM emits them. Non-streaming
// responses are never paced.
// Records: for each request carrying `x-request-id`, the server keeps
// [arrival ns, first-event ns] from process.hrtime.bigint() (arrival = the
// request has been read and parsed; first event = just before the write()
// that carries it, so a client can never see it earlier)
// (CLOCK_MONOTONIC, same clock as other processes' monotonic clocks):
//   GET /_records   → {"clock":"CLOCK_MONOTONIC_ns","records":{id:[arrival,firstWrite],…}}
//   (the C engine: [arrival, firstWrite, read], its arrival the kernel's
//   receive time of the request, SO_TIMESTAMPNS, and read as above)
//   DELETE /_records → clears them.   GET /_stats → counters, tick lag, server CPU.
//   GET /health → 200 (empty), GET /version, GET /v1/models (model "m") as vLLM answers them.
// On listening it prints one JSON line: {"listening":true,"port":…,"pid":…,…}.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  const src = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  process.stdout.write(
    src
      .slice(
        0,
        src.findIndex((l) => !l.startsWith('//')),
      )
      .join('\n') + '\n',
  );
  process.exit(0);
}
const opt = (name, env, def) => {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return process.env[env] ?? def;
};
const TOKENS = Number(opt('--tokens', 'BENCH_TOKENS', '100'));
const PACED_MS = Number(opt('--paced-ms', 'BENCH_PACED_MS', '0'));
const PORT = Number(opt('--port', 'BENCH_PORT', '0'));
const MAX_RECORDS = 2_000_000;
if (!(TOKENS >= 1 && TOKENS <= 100000)) throw new Error('bad --tokens');

// ---- pre-built responses -------------------------------------------------
const CREATED = 1700000000;
const PROMPT_TOKENS = 64;
const tokenId = (i) => 1000 + ((i * 7919) % 30000);
const usage = { prompt_tokens: PROMPT_TOKENS, total_tokens: PROMPT_TOKENS + TOKENS, completion_tokens: TOKENS };

function chunkJson(i) {
  const last = i === TOKENS - 1;
  return JSON.stringify({
    id: 'cmpl-bench',
    object: 'text_completion',
    created: CREATED,
    model: 'm',
    choices: [
      {
        index: 0,
        text: ' x',
        logprobs: null,
        finish_reason: last ? 'length' : null,
        stop_reason: null,
        token_ids: [tokenId(i)],
      },
    ],
  });
}
const usageJson = JSON.stringify({
  id: 'cmpl-bench',
  object: 'text_completion',
  created: CREATED,
  model: 'm',
  choices: [],
  usage,
});
const sse = (s) => `data: ${s}\n\n`;
// HTTP/1.1 chunked framing of one piece of body.
const frame = (s) => {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from(b.length.toString(16) + '\r\n'), b, Buffer.from('\r\n')]);
};
const CHUNK_END = Buffer.from('0\r\n\r\n');

const STREAM_HEAD = Buffer.from(
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n' +
    'transfer-encoding: chunked\r\nconnection: keep-alive\r\nserver: bench\r\n\r\n',
);
// Per-token framed events; the last one also carries usage, [DONE] and the chunked terminator.
const EVENTS = [];
for (let i = 0; i < TOKENS; i++) {
  if (i < TOKENS - 1) EVENTS.push(frame(sse(chunkJson(i))));
  else EVENTS.push(Buffer.concat([frame(sse(chunkJson(i)) + sse(usageJson) + sse('[DONE]')), CHUNK_END]));
}
// At once: headers + the whole body in one buffer. --framing event (default):
// one chunked frame per event, as uvicorn sends them; --framing single: the
// whole SSE body in one chunked frame (what a server that batches writes sends).
const FRAMING = opt('--framing', 'BENCH_FRAMING', 'event');
let allEvents = '';
for (let i = 0; i < TOKENS; i++) allEvents += sse(chunkJson(i));
allEvents += sse(usageJson) + sse('[DONE]');
const STREAM_ALL =
  FRAMING === 'single'
    ? Buffer.concat([STREAM_HEAD, frame(allEvents), CHUNK_END])
    : Buffer.concat([
        STREAM_HEAD,
        ...EVENTS.slice(0, -1),
        frame(sse(chunkJson(TOKENS - 1))),
        frame(sse(usageJson)),
        frame(sse('[DONE]')),
        CHUNK_END,
      ]);
const FIRST_PACED = Buffer.concat([STREAM_HEAD, EVENTS[0]]);

const ids = [];
for (let i = 0; i < TOKENS; i++) ids.push(tokenId(i));
const nonStreamBody = Buffer.from(
  JSON.stringify({
    id: 'cmpl-bench',
    object: 'text_completion',
    created: CREATED,
    model: 'm',
    choices: [
      {
        index: 0,
        text: ' x'.repeat(TOKENS),
        logprobs: null,
        finish_reason: 'length',
        stop_reason: null,
        token_ids: ids,
      },
    ],
    usage: { ...usage, prompt_tokens_details: null },
  }),
);
const NONSTREAM_ALL = Buffer.concat([
  Buffer.from(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: keep-alive\r\nserver: bench\r\n' +
      `content-length: ${nonStreamBody.length}\r\n\r\n`,
  ),
  nonStreamBody,
]);
const simple = (status, body, type = 'application/json') => {
  const b = Buffer.from(body);
  return Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\nconnection: keep-alive\r\ncontent-length: ${b.length}\r\n\r\n`,
    ),
    b,
  ]);
};

const VERSION_JSON = '{"version":"0.11.0"}';
const MODELS_JSON = JSON.stringify({
  object: 'list',
  data: [
    {
      id: 'm',
      object: 'model',
      created: CREATED,
      owned_by: 'vllm',
      root: 'm',
      parent: null,
      max_model_len: 131072,
      permission: [],
    },
  ],
});

// ---- the C engine ----------------------------------------------------------------
const ENGINE = opt('--engine', 'BENCH_SERVER_ENGINE', 'c');
if (ENGINE !== 'c' && ENGINE !== 'node') throw new Error('--engine takes c or node');
if (ENGINE === 'c') {
  const bin = buildCServer();
  if (bin) await runCServer(bin);
}

function buildCServer() {
  const src = new URL('./server.c', import.meta.url).pathname;
  const hash = createHash('sha1').update(readFileSync(src)).digest('hex').slice(0, 12);
  const bin = join(tmpdir(), `loadgen-bench-server-${hash}`);
  if (existsSync(bin)) return bin;
  const tmp = `${bin}.${process.pid}`;
  try {
    execFileSync(process.env.CC ?? 'cc', ['-O2', '-o', tmp, src], { stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(tmp, bin);
    return bin;
  } catch (e) {
    process.stderr.write(
      `bench server: could not compile server.c (${String(e.stderr ?? e.message)
        .trim()
        .slice(0, 300)}); using --engine node\n`,
    );
    return null;
  }
}

async function runCServer(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-server-'));
  const offsets = [0];
  for (const e of EVENTS) offsets.push(offsets[offsets.length - 1] + e.length);
  const files = {
    stream_all: STREAM_ALL,
    nonstream_all: NONSTREAM_ALL,
    first_paced: FIRST_PACED,
    events: Buffer.concat(EVENTS),
    'events.idx': offsets.join('\n') + '\n',
    health: simple('200 OK', ''),
    version: simple('200 OK', VERSION_JSON),
    models: simple('200 OK', MODELS_JSON),
    notfound: simple('404 Not Found', '{"error":"not found"}'),
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  const args = [
    '--prebuilt',
    dir,
    '--port',
    String(PORT),
    '--paced-ms',
    String(PACED_MS),
    '--tokens',
    String(TOKENS),
    '--exit-on-stdin-end',
  ];
  // stdin is our pipe to it: when this process goes, so does the C server.
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  // It has read the files once it prints its first line: they go then, so a
  // SIGKILL of this process leaves nothing behind.
  child.stdout.once('data', () => rmSync(dir, { recursive: true, force: true }));
  child.stdout.pipe(process.stdout);
  const stop = () => child.kill('SIGTERM');
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  setTimeout(() => process.exit(0), 3600e3).unref();
  if (argv.includes('--exit-on-stdin-end')) {
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
  }
  const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 0 : 1))));
  rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}

// ---- state -------------------------------------------------------------------
// The truth records, in flat typed arrays: a Map of [bigint, bigint] per
// request kept ~5 objects per request alive, so this server's scavenges
// (2-4 ms every ~0.5 s) and mark-compacts (up to 12 ms) landed in the very
// TTFT tails it is there to measure. Ids that are decimal numbers (the
// harness's) are kept as numbers; others (prefix + sequence) as strings.
const records = {
  size: 0,
  numIds: new Float64Array(1024),
  strIds: [], // index -> string id, or undefined where numIds holds it
  times: new BigInt64Array(2048), // [arrival, first write] per record
  add(rid, arrival, first) {
    const i = this.size;
    if (i === this.numIds.length) {
      const ids = new Float64Array(i * 2);
      ids.set(this.numIds);
      this.numIds = ids;
      const t = new BigInt64Array(i * 4);
      t.set(this.times);
      this.times = t;
    }
    if (NUMERIC_ID.test(rid)) this.numIds[i] = Number(rid);
    else this.strIds[i] = rid;
    this.times[2 * i] = arrival;
    this.times[2 * i + 1] = first;
    this.size = i + 1;
  },
  toJSON() {
    const out = {};
    for (let i = 0; i < this.size; i++)
      out[this.strIds[i] ?? String(this.numIds[i])] = [this.times[2 * i].toString(), this.times[2 * i + 1].toString()];
    return out;
  },
  clear() {
    this.size = 0;
    this.strIds = [];
  },
};
const NUMERIC_ID = /^[1-9][0-9]{0,14}$|^0$/;
const stats = {
  requests: 0,
  streams: 0,
  nonStream: 0,
  eventsWritten: 0,
  ticks: 0,
  tickLagMaxMs: 0,
  tickLagSumMs: 0,
  tickWorkSumMs: 0,
  tickWorkMaxMs: 0,
  maxActive: 0,
  socketErrors: 0,
  connections: 0,
};
const active = []; // paced streams: {sock, next}

// ---- request parsing -----------------------------------------------------------
const CRLFCRLF = Buffer.from('\r\n\r\n');
const STREAM_TRUE = /"stream"\s*:\s*true/;

function onConnection(sock) {
  stats.connections++;
  sock.setNoDelay(true);
  let buf = null; // unparsed bytes
  let busy = false; // a paced stream is being written on this socket
  sock.on('error', () => {
    stats.socketErrors++;
  });
  sock.on('data', (d) => {
    buf = buf ? Buffer.concat([buf, d]) : d;
    if (!busy) drain();
  });
  sock.resumeParsing = () => {
    busy = false;
    if (buf) drain();
  };

  function drain() {
    while (buf && !busy) {
      const he = buf.indexOf(CRLFCRLF);
      if (he < 0) return;
      const head = buf.toString('latin1', 0, he);
      const lower = head.toLowerCase();
      let len = 0;
      const cl = lower.indexOf('\r\ncontent-length:');
      if (cl >= 0) {
        const e = lower.indexOf('\r\n', cl + 2);
        len = parseInt(lower.slice(cl + 17, e < 0 ? lower.length : e), 10) || 0;
      }
      if (buf.length < he + 4 + len) return; // body not complete yet
      const body = len ? buf.toString('latin1', he + 4, he + 4 + len) : '';
      const rest = buf.length > he + 4 + len ? buf.subarray(he + 4 + len) : null;
      buf = rest;
      const sp1 = head.indexOf(' ');
      const sp2 = head.indexOf(' ', sp1 + 1);
      const method = head.slice(0, sp1);
      const path = head.slice(sp1 + 1, sp2);
      let rid = null;
      const ri = lower.indexOf('\r\nx-request-id:');
      if (ri >= 0) {
        let e = lower.indexOf('\r\n', ri + 2);
        if (e < 0) e = head.length;
        rid = head.slice(ri + 16, e).trim();
      }
      handle(method, path, body, rid);
    }
  }

  function handle(method, path, body, rid) {
    if (method === 'POST' && path.startsWith('/v1/completions')) {
      stats.requests++;
      const arrival = rid !== null ? process.hrtime.bigint() : 0n;
      if (!STREAM_TRUE.test(body)) {
        stats.nonStream++;
        if (rid !== null) record(rid, arrival);
        sock.write(NONSTREAM_ALL);
        return;
      }
      stats.streams++;
      if (PACED_MS > 0) {
        busy = true;
        if (rid !== null) record(rid, arrival);
        sock.write(FIRST_PACED);
        stats.eventsWritten++;
        if (TOKENS === 1) {
          busy = false;
          return;
        }
        active.push({ sock, next: 1 });
        if (active.length > stats.maxActive) stats.maxActive = active.length;
      } else {
        if (rid !== null) record(rid, arrival);
        sock.write(STREAM_ALL);
        stats.eventsWritten += TOKENS;
      }
      return;
    }
    if (path === '/_records' && method === 'GET') {
      sock.write(simple('200 OK', JSON.stringify({ clock: 'CLOCK_MONOTONIC_ns', records })));
    } else if (path === '/_records' && method === 'DELETE') {
      const n = records.size;
      records.clear();
      sock.write(simple('200 OK', JSON.stringify({ cleared: n })));
    } else if (path === '/_stats' && method === 'GET') {
      const cpu = process.cpuUsage();
      sock.write(
        simple(
          '200 OK',
          JSON.stringify({
            ...stats,
            tickLagMeanMs: stats.ticks ? stats.tickLagSumMs / stats.ticks : 0,
            tickWorkMeanMs: stats.ticks ? stats.tickWorkSumMs / stats.ticks : 0,
            active: active.length,
            cpuUserS: cpu.user / 1e6,
            cpuSysS: cpu.system / 1e6,
            tokens: TOKENS,
            pacedMs: PACED_MS,
            engine: 'node',
          }),
        ),
      );
    } else if (path === '/_stats' && method === 'DELETE') {
      for (const k of Object.keys(stats)) stats[k] = 0;
      sock.write(simple('200 OK', '{}'));
    } else if (path === '/health') {
      sock.write(simple('200 OK', ''));
    } else if (path === '/version') {
      sock.write(simple('200 OK', VERSION_JSON));
    } else if (path === '/v1/models') {
      sock.write(simple('200 OK', MODELS_JSON));
    } else {
      sock.write(simple('404 Not Found', '{"error":"not found"}'));
    }
  }
}

function record(rid, arrival) {
  if (records.size < MAX_RECORDS) records.add(rid, arrival, process.hrtime.bigint());
}

// ---- the global decode tick ------------------------------------------------------
if (PACED_MS > 0) {
  const t0 = performance.now();
  let k = 0;
  const tick = () => {
    k++;
    const due = t0 + k * PACED_MS;
    const lag = performance.now() - due;
    stats.ticks++;
    stats.tickLagSumMs += Math.max(0, lag);
    if (lag > stats.tickLagMaxMs) stats.tickLagMaxMs = lag;
    for (let i = 0; i < active.length; ) {
      const s = active[i];
      if (s.sock.destroyed) {
        active[i] = active[active.length - 1];
        active.pop();
        continue;
      }
      s.sock.write(EVENTS[s.next++]);
      stats.eventsWritten++;
      if (s.next >= TOKENS) {
        active[i] = active[active.length - 1];
        active.pop();
        s.sock.resumeParsing();
        continue;
      }
      i++;
    }
    // If we fell more than a tick behind, skip ahead rather than burst.
    const now = performance.now();
    stats.tickWorkSumMs += now - (due + lag); // the writes of one decode step
    if (now - (due + lag) > stats.tickWorkMaxMs) stats.tickWorkMaxMs = now - (due + lag);
    if (now > t0 + (k + 1) * PACED_MS) k = Math.floor((now - t0) / PACED_MS);
    setTimeout(tick, Math.max(0, t0 + (k + 1) * PACED_MS - now));
  };
  setTimeout(tick, PACED_MS);
}

const server = net.createServer({ noDelay: true }, onConnection);
server.listen({ host: '127.0.0.1', port: PORT, backlog: 4096 }, () => {
  const { port } = server.address();
  process.stdout.write(
    JSON.stringify({
      listening: true,
      port,
      pid: process.pid,
      tokens: TOKENS,
      pacedMs: PACED_MS,
      engine: 'node',
      framing: FRAMING,
      streamBytes: STREAM_ALL.length,
      nonStreamBytes: NONSTREAM_ALL.length,
    }) + '\n',
  );
});
const stop = () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 200).unref();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Bounded: the parent kills us, but never outlive it by more than an hour.
setTimeout(() => process.exit(0), 3600e3).unref();
// With --exit-on-stdin-end (run.mjs passes it, stdin a pipe): exit when the parent goes away.
if (argv.includes('--exit-on-stdin-end')) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
