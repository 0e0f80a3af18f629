// Bridge benchmark: how fast the harness itself can go, with SUTs that do
// no work. Figures go in the README; run with `npm run bench:bridge`.
//   node bench/bridge/run.mjs [--duration-ms 10000] [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startTest, createNativeNullSut, completeSample, querySamplesCompleteIds } from '../../dist/index.js';

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const quick = args.includes('--quick');
const durationMs = arg('--duration-ms', quick ? 2000 : 10000);
const seeds = {
  qslRngSeed: 2085463073848966840n,
  sampleIndexRngSeed: 2747215439041700203n,
  scheduleRngSeed: 16159082839903944936n,
};
const qsl = {
  name: 'NullQSL',
  totalSampleCount: 1024,
  performanceSampleCount: 1024,
  loadSamplesToRam() {},
  unloadSamplesFromRam() {},
};
const log = () => ({ outdir: mkdtempSync(join(tmpdir(), 'lg-bench-')), enableTrace: false });
const opts = { auditConfig: null };

const inlineSut = {
  name: 'TsInlineNullSUT',
  issueQuery(samples) {
    for (let i = 0; i < samples.length; i++) completeSample(samples[i].id);
  },
  flushQueries() {},
};

function workerSut(n) {
  const workers = [];
  const rings = [];
  for (let w = 0; w < n; w++) {
    const ring = new SharedArrayBuffer(16);
    const slots = new SharedArrayBuffer(8 * (1 << 20));
    workers.push(new Worker(new URL('./worker-completer.mjs', import.meta.url), { workerData: { ring, slots } }));
    rings.push({ ctl: new Int32Array(ring), ids: new Float64Array(slots), head: 0 });
  }
  let next = 0;
  return {
    sut: {
      name: `TsWorkerNullSUT(${n})`,
      issueQuery(samples) {
        for (let i = 0; i < samples.length; i++) {
          const r = rings[next];
          next = (next + 1) % n;
          // Never overwrite ids the worker has not taken yet.
          while (r.head - Atomics.load(r.ctl, 1) >= r.ids.length) Atomics.notify(r.ctl, 0, 1);
          r.ids[r.head % r.ids.length] = samples[i].id;
          r.head = (r.head + 1) | 0;
          Atomics.store(r.ctl, 0, r.head);
          // A futex wake only when the worker said it is going to sleep.
          if (Atomics.load(r.ctl, 3) === 1) Atomics.notify(r.ctl, 0, 1);
        }
      },
      flushQueries() {},
    },
    async stop() {
      for (const r of rings) {
        Atomics.store(r.ctl, 2, 1);
        Atomics.notify(r.ctl, 0);
      }
      await Promise.all(workers.map((w) => new Promise((res) => w.once('exit', res))));
    },
  };
}

async function server(sut, qps) {
  const l = log();
  const r = await startTest(
    sut,
    qsl,
    {
      scenario: 'Server',
      serverTargetQps: qps,
      serverTargetLatencyNs: 10_000_000,
      minDurationMs: durationMs,
      minQueryCount: 100,
      ...seeds,
    },
    l,
    opts,
  );
  rmSync(l.outdir, { recursive: true, force: true });
  return r;
}

// Highest VALID Server QPS on a ladder (each step one full run).
async function serverLadder(label, sut, ladder) {
  let best = 0;
  for (const qps of ladder) {
    const r = await server(sut, qps);
    const p99 = r.latency.p99;
    console.log(
      `  ${label} ${qps} QPS: ${r.valid ? 'VALID  ' : 'INVALID'} completed ${r.completedSamplesPerSecond.toFixed(0)}/s p99 ${(p99 / 1e6).toFixed(3)} ms`,
    );
    if (r.valid) best = qps;
    else break;
  }
  return best;
}

async function singleStream(sut, label) {
  const l = log();
  const r = await startTest(
    sut,
    qsl,
    {
      scenario: 'SingleStream',
      minDurationMs: Math.min(durationMs, 5000),
      minQueryCount: 1000,
      singleStreamExpectedLatencyNs: 2000,
      ...seeds,
    },
    l,
    opts,
  );
  rmSync(l.outdir, { recursive: true, force: true });
  console.log(
    `  ${label}: ${r.qpsWithLoadgenOverhead.toFixed(0)} queries/s, mean latency ${r.latency.mean} ns, p50 ${r.latency.p50} ns (${r.counts.queries} queries)`,
  );
  return r;
}

async function offline(sut, label) {
  const l = log();
  const t0 = process.hrtime.bigint();
  const r = await startTest(
    sut,
    qsl,
    { scenario: 'Offline', minDurationMs: 0, minQueryCount: 1_000_000, offlineExpectedQps: 1, ...seeds },
    l,
    opts,
  );
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  rmSync(l.outdir, { recursive: true, force: true });
  console.log(
    `  ${label}: ${r.counts.samples} samples, reported ${r.samplesPerSecond.toExponential(3)} samples/s, whole test ${wall.toFixed(2)} s`,
  );
  return r;
}

const offlineTsSut = {
  name: 'TsBatchNullSUT',
  issueQuery(samples) {
    const ids = new Float64Array(samples.length);
    for (let i = 0; i < samples.length; i++) ids[i] = samples[i].id;
    querySamplesCompleteIds(ids);
  },
  flushQueries() {},
};

const fullLadder = [
  100_000, 200_000, 250_000, 300_000, 350_000, 400_000, 450_000, 500_000, 600_000, 700_000, 800_000, 1_000_000,
];
const from = arg('--from', 0);
const ladder = quick ? [100_000, 200_000, 300_000] : fullLadder.filter((q) => q >= from);
console.log(`bench/bridge: Server runs of ${durationMs} ms, 10 ms latency bound, p99 target percentile`);
const results = {};
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : '';
if (only === 'server') {
  results.native = await serverLadder('(c) C++ null SUT', createNativeNullSut(), ladder);
  results.inline = await serverLadder('(a) TS null SUT, main thread', inlineSut, ladder);
  const w2 = workerSut(2);
  results.workers = await serverLadder('(b) TS null SUT, 2 worker threads', w2.sut, ladder);
  await w2.stop();
  console.log(`Highest VALID Server QPS: (a) ${results.inline}  (b) ${results.workers}  (c) ${results.native}`);
  process.exit(0);
}
if (only === 'workers') {
  const w1 = workerSut(Number(arg('--workers', 2)));
  console.log('highest VALID', await serverLadder('(b) TS null SUT, workers', w1.sut, ladder));
  await w1.stop();
  process.exit(0);
}
results.native = await serverLadder('(c) C++ null SUT', createNativeNullSut(), ladder);
results.inline = await serverLadder('(a) TS null SUT, main thread', inlineSut, ladder);
const w = workerSut(2);
results.workers = await serverLadder('(b) TS null SUT, 2 worker threads', w.sut, ladder);
await w.stop();
console.log('SingleStream:');
await singleStream(inlineSut, '(a) TS null SUT');
await singleStream(createNativeNullSut(), '(c) C++ null SUT');
console.log('Offline, 1,000,000 samples in one query:');
await offline(offlineTsSut, '(a) TS null SUT');
await offline(createNativeNullSut(), '(c) C++ null SUT');
console.log(`\nHighest VALID Server QPS: (a) ${results.inline}  (b) ${results.workers}  (c) ${results.native}`);
