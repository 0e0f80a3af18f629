// Trace replay: a Mooncake-format trace (timestamp in ms, input_length,
// output_length, hash_ids of 512-token blocks) sent at its own times, with
// the prefix sharing its hash ids describe. Not an MLPerf scenario.
//
//   npx tsx examples/trace-replay.ts http://gpu1:8000 mooncake_trace.jsonl 32768
//   npx tsx examples/trace-replay.ts      # the simulator (512-token cache blocks) and a small trace written here
import { writeFileSync } from 'node:fs';

import { planTrace, readTrace, runBenchmark } from '@x/loadgen';

const [url, file, context] = process.argv.slice(2);
let path = file;
if (!path) {
  // 40 requests at 20 per second; every other one starts with the same two-block system prompt.
  path = 'trace-example.jsonl';
  const rows = Array.from({ length: 40 }, (_, i) => {
    const ids = i % 2 === 0 ? [1, 2, 100 + i] : [200 + i];
    return JSON.stringify({
      timestamp: 50 * i,
      input_length: 512 * (ids.length - 1) + 200,
      output_length: 8,
      hash_ids: ids,
    });
  });
  writeFileSync(path, rows.join('\n') + '\n');
}

// What will be sent, before anything is: `loadgen run --trace FILE --dry-run` prints the same.
const plan = planTrace(await readTrace(path), context ? { maxModelLen: Number(context) } : {});
console.log(
  `plan: ${plan.requests} requests over ${(plan.spanMs / 1000).toFixed(2)} s, ${plan.prefix.reusableTokens} of ${plan.tokens.input} prompt tokens reusable from a prefix cache`,
);
for (const w of plan.lint) console.log(`warning: ${w.message}`);

const record = await runBenchmark({
  scenario: 'Server',
  endpoints: url ? [url] : [],
  trace: { path },
  simulator: { prefixCache: true, prefixCacheBlockTokens: 512 },
  outdir: 'out-trace',
});

const t = record.trace!;
console.log(
  `replayed ${t.requests} requests: issue time - trace time p99 ${t.issueErrorMs?.p99.toFixed(3)} ms, max ${t.issueErrorMs?.max.toFixed(3)} ms`,
);
const cache = record.serverState?.endpoints[0]?.prefixCache?.end;
if (cache) console.log(`server prefix cache: ${cache.hits} hits of ${cache.queries} queried tokens`);
