// llama3.1-8b, Server scenario, against a vLLM server, with the building
// blocks: loadSettings (official values) + createLlmSut + startTest.
//
//   npx tsx examples/vllm-server.ts http://gpu1:8000 cnn_eval.json   # a real server and the MLPerf dataset
//   npx tsx examples/vllm-server.ts                                  # the built-in simulator, synthetic prompts
//
// MIN_DURATION_MS=2000 shortens the run (the official minimum is 10 minutes).
import {
  createLlmSut,
  loadSettings,
  openDataset,
  startSimulator,
  startTest,
  syntheticDataset,
  type Dataset,
  type Simulator,
} from '@x/loadgen';

const [url, datasetFile] = process.argv.slice(2);
let sim: Simulator | undefined;
// No URL: a simulator that speaks vLLM's wire format stands in for the server.
if (!url)
  sim = await startSimulator({
    flavor: 'vllm',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    decodeStepNs: 4_000_000,
    precisePacing: false,
  });
const endpoint = url ?? sim!.url;

const dataset: Dataset = datasetFile
  ? await openDataset(datasetFile, { preset: 'llama3_1-8b' }) // tok_input prompts, 128 output tokens
  : syntheticDataset({ size: 256, inputLength: { min: 200, max: 800 }, outputLength: 64 });

const llm = await createLlmSut({
  endpoints: [endpoint],
  dataset,
  backend: 'vllm',
  api: 'completions', // token-id prompts, as the MLPerf reference sends them
  benchmark: 'llama3_1-8b', // reference sampling: temperature 0, top_k 1, seed 42, max 128 tokens
  recordTimings: true,
});

const settings = loadSettings({ model: 'llama3_1-8b', scenario: 'Server' }); // TTFT 2 s, TPOT 100 ms at p99
settings.serverTargetQps = Number(process.env.TARGET_QPS ?? (sim ? 50 : 10));
if (sim) settings.minDurationMs = 10_000;
if (process.env.MIN_DURATION_MS) settings.minDurationMs = Number(process.env.MIN_DURATION_MS);

try {
  const result = await startTest(llm.sut, llm.qsl, settings, { outdir: 'out-vllm-server' });
  const report = await llm.report();
  console.log(result.valid ? 'VALID' : 'INVALID', `${result.completedSamplesPerSecond?.toFixed(2)} samples/s`);
  console.log(
    `TTFT p99 ${(result.ttft!.p99 / 1e6).toFixed(1)} ms, TPOT p99 ${(result.tpot!.p99 / 1e6).toFixed(1)} ms, ${report.samples.failed} failed requests`,
  );
} finally {
  await llm.close();
  await sim?.close();
}
