// A small simulated server with a known ceiling, for the sweep tests.
import type { RunBenchmarkOptions } from '../../lib/index.js';

/**
 * 8 batch slots, 4 ms decode steps, 10 output tokens: a sample holds a slot
 * for about 40 ms, so the server completes at most 8 / 0.04 s = 200
 * samples/s (CEILING). Above it the queue grows for the whole run and TTFT
 * with it; with a TTFT bound of 150 ms, the highest VALID rate lies a little
 * below that ceiling.
 */
export const SMALL: Omit<RunBenchmarkOptions, 'outdir'> = {
  scenario: 'Server',
  simulator: { maxRunningSeqs: 8, decodeStepNs: 4_000_000, prefillNsPerToken: 10_000, outputLength: 10 },
  dataset: { synthetic: { size: 64, inputLength: 16, outputLength: 10 } },
  settings: { ttftLatencyNs: 150_000_000, tpotLatencyNs: 50_000_000 },
  workers: 1,
  metricsIntervalMs: 0,
  log: () => undefined,
};

/** The model's ceiling, samples/s. */
export const CEILING = 8 / (10 * 0.004);
