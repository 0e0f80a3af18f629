// A minimal custom SUT: answers every sample 2 ms after it arrives.
// Run: npx tsx examples/custom-sut.ts   (or compile with tsc)
import { startTest, querySamplesComplete, type QuerySample } from '@x/loadgen';

const qsl = {
  name: 'MyQSL',
  totalSampleCount: 1024,
  performanceSampleCount: 256,
  loadSamplesToRam: async (_indices: number[]) => {},
  unloadSamplesFromRam: async (_indices: number[]) => {},
};
const sut = {
  name: 'MySUT',
  issueQuery(samples: QuerySample[]) {
    setTimeout(() => querySamplesComplete(samples.map((s) => ({ id: s.id }))), 2);
  },
  flushQueries() {},
};
const result = await startTest(
  sut,
  qsl,
  { scenario: 'Server', serverTargetQps: 500, minDurationMs: 10_000 },
  { outdir: 'out' },
);
console.log(result.valid ? 'VALID' : 'INVALID', result.completedSamplesPerSecond, result.latency?.p99);
