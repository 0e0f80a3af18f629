// A small simulated server with a known ceiling, for the sweep tests.
import type { RunBenchmarkOptions } from '../../lib/index.js';

/**
 * 8 batch slots, 4 ms decode steps, 10 output tokens: a sample holds a slot
 * for about 40 ms, so the server completes at most 8 / 0.04 s = 200
 * samples/s (CEILING). Below it TTFT stays far under the 400 ms bound;
 * above it the queue grows for the whole run, by (rate - CEILING) × the run's
 * length, so a ~3.5 s probe misses the bound a few percent above the
 * ceiling. The edge is steep there (about 175 ms of TTFT per 5 % of rate),
 * so timer jitter on a busy machine does not move it much.
 */
export const SMALL: Omit<RunBenchmarkOptions, 'outdir'> = {
  scenario: 'Server',
  simulator: { maxRunningSeqs: 8, decodeStepNs: 4_000_000, prefillNsPerToken: 10_000, outputLength: 10 },
  dataset: { synthetic: { size: 64, inputLength: 16, outputLength: 10 } },
  settings: { ttftLatencyNs: 400_000_000, tpotLatencyNs: 50_000_000 },
  workers: 1,
  metricsIntervalMs: 0,
  log: () => undefined,
};

/** The model's ceiling, samples/s. */
export const CEILING = 8 / (10 * 0.004);
