// One LoadGen run over several GPU nodes: one endpoint per node (or
// replica), traffic to the least loaded healthy one in proportion to its
// weight, a cap on requests in flight per node.
//
//   npx tsx examples/multi-node.ts http://gpu1:8000 http://gpu2:8000 http://gpu3:8000
//   npx tsx examples/multi-node.ts          # three local simulators stand in for the nodes
//
// MIN_DURATION_MS=2000 shortens the run.
import { runBenchmark, startSimulator, type Simulator } from '@x/loadgen';

let urls = process.argv.slice(2);
const sims: Simulator[] = [];
if (urls.length === 0) {
  // Three "nodes"; the third is half as fast, so it gets half the weight.
  for (const step of [4, 4, 8])
    sims.push(await startSimulator({ decodeStepNs: step * 1e6, precisePacing: false, model: 'llama-3.1-8b' }));
  urls = sims.map((s) => s.url);
}

try {
  const record = await runBenchmark({
    scenario: 'Server',
    endpoints: urls.map((url, i) => ({ url, weight: sims.length && i === 2 ? 0.5 : 1, maxInFlight: 256 })),
    targetQps: 60,
    dataset: { synthetic: { size: 1024, inputLength: 128, outputLength: 32 } },
    settings: process.env.MIN_DURATION_MS
      ? { minDurationMs: Number(process.env.MIN_DURATION_MS) }
      : sims.length
        ? { minDurationMs: 10_000 }
        : {},
    outdir: 'out-multi-node',
  });
  console.log(
    record.result.valid ? 'VALID' : 'INVALID',
    `${record.result.completedSamplesPerSecond?.toFixed(1)} samples/s`,
  );
  for (const e of record.sut!.endpoints) {
    console.log(`${e.url}: ${e.completed} requests, TTFT p99 ${e.ttftMs.p99.toFixed(1)} ms, ${e.errors} errors`);
  }
} finally {
  await Promise.all(sims.map((s) => s.close()));
}
