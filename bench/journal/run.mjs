// What the sample journal costs on the adapter's hot path, measured in one
// run: (1) the writer alone, ns per journaled sample (append + the per-turn
// write), and (2) whole Offline tests against the simulator, the same
// samples completed with the journal off and on, alternated, on the thread
// that does the HTTP work (workers: 0), reporting samples/s and the ratio.
//
//   npm run build:ts && node bench/journal/run.mjs [--samples 20000] [--rounds 3] [--tokens 128]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createLlmSut, startSimulator, startTest } from '../../dist/index.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SAMPLES = arg('samples', 20000);
const ROUNDS = arg('rounds', 3);
const TOKENS = arg('tokens', 128);

// The writer is not exported from the package: bundle it from the sources on the fly.
const { build } = await import('esbuild');
const tmp = mkdtempSync(join(tmpdir(), 'lg-journal-bench-'));
await build({
  entryPoints: [new URL('../../lib/resume/journal-writer.ts', import.meta.url).pathname],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: join(tmp, 'w.mjs'),
  logLevel: 'silent',
});
const { JournalWriter } = await import(join(tmp, 'w.mjs'));

function target(dir) {
  const flag = new SharedArrayBuffer(4);
  new Int32Array(flag)[0] = 1;
  return { dir, tag: `${Date.now().toString(36)}-${process.pid}`, enabled: flag };
}

// (1) The writer alone: N appends of TOKENS ids, flushed once per "turn" of 64 records.
async function writerOnly() {
  const dir = mkdtempSync(join(tmp, 'w-'));
  const w = new JournalWriter(target(dir));
  const ids = new Int32Array(TOKENS).map((_, i) => 1000 + i);
  const n = 200_000;
  // Warm-up: JIT and the buffer's growth to its working size happen once per run, not per sample.
  for (let i = 0; i < 20_000; i++) {
    w.append(i, TOKENS, ids, TOKENS, 1, 0, 1e6, 5e6);
    if ((i & 63) === 63) w.flush();
  }
  w.flush();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    w.append(i, TOKENS, ids, TOKENS, 1, 0, 1e6, 5e6);
    if ((i & 63) === 63) w.flush();
  }
  w.flush();
  const ns = Number(process.hrtime.bigint() - t0) / n;
  w.close(); // its fsync is not on the hot path (end of run)
  return ns;
}

// (2) One Offline test of SAMPLES samples against a zero-delay simulator, journal on or off.
async function offline(sim, journal) {
  const dataset = {
    name: 'bench',
    size: SAMPLES,
    prompt: (i) => ({ tokenIds: [1, 2, 3, i & 0xffff], maxTokens: TOKENS }),
  };
  const dir = mkdtempSync(join(tmp, 'run-'));
  const llm = await createLlmSut({
    endpoints: [sim.url],
    dataset,
    backend: 'vllm',
    workers: 0,
    journal: journal ? target(join(dir, 'journal')) : null,
  });
  try {
    const t0 = process.hrtime.bigint();
    const r = await startTest(
      llm.sut,
      llm.qsl,
      {
        scenario: 'Offline',
        mode: 'PerformanceOnly',
        offlineExpectedQps: SAMPLES,
        minDurationMs: 0,
        minQueryCount: SAMPLES,
        performanceSampleCountOverride: SAMPLES,
      },
      { outdir: dir },
      { handleSigint: false },
    );
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    return {
      samplesPerSecond: r.samplesPerSecond,
      wallSamplesPerSecond: r.counts.samples / s,
      samples: r.counts.samples,
    };
  } finally {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const nsPerRecord = await writerOnly();
console.log(
  `writer alone: ${nsPerRecord.toFixed(0)} ns per journaled sample (${TOKENS} ids, append + write, 64 records per write)`,
);

// One chunk per stream carries every token: the streams are cheap, so the adapter's per-sample work dominates.
const sim = await startSimulator({
  flavor: 'vllm',
  model: 'bench',
  maxRunningSeqs: 4096,
  decodeStepNs: 0,
  precisePacing: false,
  record: false,
  tokensPerChunk: TOKENS,
});
try {
  await offline(sim, false); // warm-up
  const off = [];
  const on = [];
  for (let r = 0; r < ROUNDS; r++) {
    off.push(await offline(sim, false));
    on.push(await offline(sim, true));
  }
  const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
  for (const [name, xs] of [
    ['journal off', off],
    ['journal on ', on],
  ]) {
    console.log(
      `${name}: ${xs.map((x) => x.samplesPerSecond.toFixed(0)).join(', ')} samples/s (LoadGen); mean ${mean(xs, 'samplesPerSecond').toFixed(0)}`,
    );
  }
  const ratio = mean(on, 'samplesPerSecond') / mean(off, 'samplesPerSecond');
  console.log(
    `ratio on/off: ${ratio.toFixed(3)} (Offline, ${SAMPLES} samples × ${TOKENS} tokens, ${ROUNDS} alternating rounds, adapter on the main thread)`,
  );
  // The part of each sample's time the journal takes, from the writer's own cost: the figure noise cannot hide.
  const perSampleNs = 1e9 / mean(off, 'samplesPerSecond');
  console.log(
    `journal share of a sample's time: ${((100 * nsPerRecord) / perSampleNs).toFixed(2)}% (${nsPerRecord.toFixed(0)} ns of ${(perSampleNs / 1000).toFixed(0)} µs)`,
  );
} finally {
  await sim.close();
  rmSync(tmp, { recursive: true, force: true });
}
