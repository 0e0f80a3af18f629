// Offline scenario against an SGLang server through its native /generate
// route (token ids in, output_ids back), with runBenchmark: one call from
// options to the logs, results.json, result_summary.json and report.html.
//
//   npx tsx examples/sglang-offline.ts http://gpu1:30000   # a real SGLang server
//   npx tsx examples/sglang-offline.ts                     # the built-in SGLang-flavoured simulator
//
// MIN_DURATION_MS=2000 shortens the run.
import { runBenchmark } from '@x/loadgen';

const url = process.argv[2];
const record = await runBenchmark({
  scenario: 'Offline',
  endpoints: url ? [url] : [], // none: runBenchmark starts a simulator (the sglang flavour, from the backend)
  backend: 'sglang',
  api: 'generate',
  dataset: { synthetic: { size: 512, inputLength: 256, outputLength: 32 } },
  targetQps: url ? 100 : 250, // Offline: the expected QPS sizes the single query
  settings: process.env.MIN_DURATION_MS ? { minDurationMs: Number(process.env.MIN_DURATION_MS) } : {},
  outdir: 'out-sglang-offline',
});

const r = record.result;
console.log(
  r.valid ? 'VALID' : 'INVALID',
  `${r.samplesPerSecond?.toFixed(1)} samples/s, ${r.tokensPerSecond?.toFixed(0)} tokens/s`,
);
console.log(`files in ${record.outdir}: results.json, result_summary.json, report.html and the MLPerf logs`);
