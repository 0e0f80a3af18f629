// An accuracy run: every sample once, the generated token ids in
// mlperf_log_accuracy.json, next to the references of the dataset.
//
//   npx tsx examples/accuracy-run.ts http://gpu1:8000 cnn_eval.json llama3_1-8b
//   npx tsx examples/accuracy-run.ts      # the simulator and a small JSONL dataset written here
import { readFileSync, writeFileSync } from 'node:fs';

import { openDataset, runBenchmark } from '@x/loadgen';

const [url, file, benchmark] = process.argv.slice(2);
let path = file;
if (!path) {
  // A tiny dataset: token-id prompts with a reference answer each.
  path = 'accuracy-example.jsonl';
  const rows = Array.from({ length: 32 }, (_, i) =>
    JSON.stringify({ input_tokens: [1, 100 + i, 7], ground_truth: `answer ${i}`, max_tokens: 8 }),
  );
  writeFileSync(path, rows.join('\n') + '\n');
}

const record = await runBenchmark({
  scenario: 'Offline',
  mode: 'AccuracyOnly',
  benchmark,
  endpoints: url ? [url] : [],
  dataset: { path },
  outdir: 'out-accuracy',
});

// Each entry: the QSL index and the output token ids as int32 little-endian hex.
const entries = JSON.parse(readFileSync(record.result.logs.accuracy, 'utf8')) as { qsl_idx: number; data: string }[];
const dataset = await openDataset(path, benchmark ? { preset: benchmark } : {});
for (const e of entries.slice(0, 3)) {
  const bytes = Buffer.from(e.data, 'hex');
  const ids = Array.from({ length: bytes.length / 4 }, (_, k) => bytes.readInt32LE(4 * k));
  console.log(
    `sample ${e.qsl_idx}: ${ids.length} tokens [${ids.slice(0, 8).join(', ')}] reference ${JSON.stringify(dataset.prompt(e.qsl_idx).reference)}`,
  );
}
console.log(
  `${entries.length} of ${dataset.size} samples in ${record.result.logs.accuracy}; score them with the benchmark's evaluation script`,
);
