// The `loadgen run` flags of resumability and accounting (--resume, GPU
// pricing, budgets, --metrics-interval, --gpu-metrics, --allow-busy-server, --warmup) turned into runBenchmark options,
// with a clear usage error for each bad value.
import { resolve } from 'node:path';

import { parseNumberList } from '../cost/pricing.js';
import type { RunBenchmarkOptions } from '../run/run-benchmark.js';
import type { RunFlags } from './config-file.js';
import { UsageError } from './errors.js';

function numbers(flag: string, v: string | number | number[] | undefined): number | number[] | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? parseNumberList(flag, v) : v;
}

export function applyExtrasFlags(f: RunFlags, options: RunBenchmarkOptions): void {
  if (f.resume !== undefined) {
    if (f.outputDir !== undefined && resolve(f.outputDir) !== resolve(f.resume)) {
      throw new UsageError(
        `--resume ${f.resume} continues the run in that directory: drop --output-dir ${f.outputDir} (or give the same one)`,
      );
    }
    options.outdir = f.resume;
    options.resume = true;
  }
  const price = numbers('--gpu-hour-price', f.gpuHourPrice);
  const gpus = numbers('--gpus-per-endpoint', f.gpusPerEndpoint);
  if (gpus !== undefined && price === undefined)
    throw new UsageError('--gpus-per-endpoint needs --gpu-hour-price (the GPU count only prices the run)');
  if (price !== undefined)
    options.pricing = { gpuHourPrice: price, ...(gpus !== undefined ? { gpusPerEndpoint: gpus } : {}) };
  const budget: NonNullable<RunBenchmarkOptions['budget']> = {};
  if (f.budgetTokens !== undefined) budget.outputTokens = f.budgetTokens;
  if (f.budgetCost !== undefined) budget.dollars = f.budgetCost;
  if (f.budgetMinutes !== undefined) budget.minutes = f.budgetMinutes;
  if (Object.keys(budget).length > 0) options.budget = budget;
  if (f.metricsInterval !== undefined) {
    if (!(Number.isFinite(f.metricsInterval) && f.metricsInterval >= 0))
      throw new UsageError(
        `--metrics-interval must be a number of seconds >= 0 (0 = no scraping), got ${String(f.metricsInterval)}`,
      );
    options.metricsIntervalMs = Math.round(f.metricsInterval * 1000);
  }
  if (f.gpuMetrics?.length) options.gpuMetrics = [...f.gpuMetrics];
  if (f.allowBusyServer !== undefined) options.allowBusyServer = f.allowBusyServer;
  if (f.warmup !== undefined) {
    if (!(Number.isSafeInteger(f.warmup) && f.warmup >= 0))
      throw new UsageError(`--warmup must be an integer >= 0, got ${String(f.warmup)}`);
    options.warmup = f.warmup;
  }
}
