// Plain undici client: what a straightforward Node client does.
// pool.request() (Pool with connections = concurrency), the body consumed as an
// async iterable, TextDecoder + split on blank lines + JSON.parse per SSE event;
// TTFT on the first event with choices, ITL per event (like vLLM's bench).
// Non-streaming: body.json().
//   node bench/client/undici-plain.mjs --url … --concurrency C --requests N --duration-s D [--stream|--no-stream]
import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { parseArgs, completionPayload, createWindow, startLoops } from './common.mjs';

const opts = parseArgs();
const u = new URL(opts.url);
const pool = new Pool(u.origin, {
  connections: opts.concurrency,
  pipelining: 1,
  keepAliveTimeout: 60e3,
  headersTimeout: 0,
  bodyTimeout: 0,
});
const w = createWindow(opts, 'undici-plain');
const { c } = w;
const prefix = `plain-${process.pid}-`;
let seq = 0;

async function one() {
  const id = prefix + seq++;
  const payload = completionPayload(opts.stream, opts.maxTokens);
  const st = performance.now();
  const { statusCode, body } = await pool.request({
    path: '/v1/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: JSON.stringify(payload),
  });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error('HTTP ' + statusCode);
  }
  if (!opts.stream) {
    const data = await body.json();
    const n = data.usage?.completion_tokens ?? 0;
    if ((data.choices?.[0]?.token_ids?.length ?? n) !== n) c.mismatches++;
    c.tokens += n;
    return;
  }
  const dec = new TextDecoder();
  let buf = '';
  let first = true;
  let last = st;
  const itl = [];
  // biome-ignore lint/correctness/noUnusedVariables: a real client builds the text; that work is measured.
  let text = '';
  let tokens = 0;
  let outTokens = 0;
  for await (const chunk of body) {
    buf += dec.decode(chunk, { stream: true });
    let from = 0;
    let i;
    while ((i = buf.indexOf('\n\n', from)) >= 0) {
      const msg = buf.slice(from, i).trim();
      from = i + 2;
      if (!msg || msg[0] === ':') continue;
      c.events++;
      const data = msg.startsWith('data: ') ? msg.slice(6) : msg;
      if (data === '[DONE]') continue;
      const obj = JSON.parse(data);
      if (obj.choices?.length) {
        const now = performance.now();
        if (first) {
          first = false;
          w.ttft(id, st, now);
        } else itl.push(now - last);
        last = now;
        const ch = obj.choices[0];
        text += ch.text ?? '';
        const k = ch.token_ids ? ch.token_ids.length : 1;
        tokens += k;
        c.tokens += k;
      } else if (obj.usage) {
        outTokens = obj.usage.completion_tokens;
      } else if (obj.error) {
        throw new Error('stream error');
      }
    }
    if (from) buf = buf.slice(from);
  }
  if (first) throw new Error('no chunk with choices');
  if (outTokens !== tokens) c.mismatches++;
}

async function worker() {
  while (w.mayIssue()) {
    try {
      await one();
      c.completed++;
    } catch (e) {
      c.errors++;
      if (c.errors <= 3) process.stderr.write(`undici-plain: ${e?.message ?? e}\n`);
    }
    w.maybeDone();
  }
}

startLoops(opts.concurrency, opts.rampS, () => worker());
