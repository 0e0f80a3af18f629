// Event-loop delay of one thread, from perf_hooks.monitorEventLoopDelay: a
// libuv timer every LOOP_DELAY_RESOLUTION_MS whose lateness is recorded in
// a native histogram (nothing per request). Each thread doing the adapter's
// HTTP work keeps one (its snapshot carries the summary); runBenchmark keeps
// one for the main thread over the test.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

import type { Percentiles } from './types.js';

/** The monitor's timer period, ms: the figures are the delay beyond it. */
export const LOOP_DELAY_RESOLUTION_MS = 10;

/** A started monitor of the calling thread's event loop. */
export class LoopDelayMonitor {
  private readonly h: IntervalHistogram;
  private on = true;

  constructor() {
    this.h = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    this.h.enable();
  }

  stop(): void {
    if (!this.on) return;
    this.on = false;
    this.h.disable();
  }

  /**
   * ms by which the timer fired late (its period taken off, at least 0):
   * how long a read or a queued sample could wait for the thread.
   */
  summary(): Percentiles {
    const h = this.h;
    const n = h.count;
    const ms = (ns: number): number => (n > 0 ? Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) : NaN);
    return {
      count: n,
      mean: ms(h.mean),
      min: ms(h.min),
      max: ms(h.max),
      p50: ms(h.percentile(50)),
      p90: ms(h.percentile(90)),
      p95: ms(h.percentile(95)),
      p99: ms(h.percentile(99)),
      p999: ms(h.percentile(99.9)),
    };
  }
}
