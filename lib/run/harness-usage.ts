// What the harness measures of its own process over the test: CPU time
// (process.cpuUsage, every thread) against the cores it has, and the main
// thread's event-loop delay. Two readings and a timer; nothing per request.
import { availableParallelism } from 'node:os';

import type { HarnessUsage } from '../results/run-record.js';
import { LoopDelayMonitor } from '../sut/loop-delay.js';

export class UsageMeter {
  private readonly cpu0 = process.cpuUsage();
  private readonly t0 = process.hrtime.bigint();
  private readonly loop = new LoopDelayMonitor();
  private result: HarnessUsage | null = null;

  /** Ends the measurement (once; later calls return the same figures). */
  stop(): HarnessUsage {
    if (this.result) return this.result;
    const cpu = process.cpuUsage(this.cpu0);
    const wall = Number(process.hrtime.bigint() - this.t0) / 1e9;
    this.loop.stop();
    this.result = {
      wallSeconds: wall,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      cores: availableParallelism(),
      mainEventLoopDelayMs: this.loop.summary(),
    };
    return this.result;
  }
}
