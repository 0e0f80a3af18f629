// Trace replay from `loadgen run` flags and config keys (--trace,
// --trace-speed, --max-model-len, --dry-run), and the dry run itself: the
// trace's plan and lint printed, nothing started.
import { formatTracePlan } from '../dataset/trace-plan.js';
import type { RunBenchmarkOptions } from '../run/run-benchmark.js';
import { prepareTrace } from '../run/run-trace.js';
import { resolveOptions as resolveSimulatorOptions } from '../sim/options.js';
import type { RunFlags } from './config-file.js';
import { UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';

/** Adds the trace the flags name to `options` (checked by runBenchmark against the rest). */
export function applyTraceFlags(f: RunFlags, options: RunBenchmarkOptions): void {
  if (f.trace === undefined) {
    for (const [key, flag] of [
      ['traceSpeed', '--trace-speed'],
      ['maxModelLen', '--max-model-len'],
      ['dryRun', '--dry-run'],
    ] as const)
      if (f[key] !== undefined && f[key] !== false) throw new UsageError(`${flag} needs --trace <file>`);
    return;
  }
  if (f.traceSpeed !== undefined && !(Number.isFinite(f.traceSpeed) && f.traceSpeed > 0))
    throw new UsageError(`--trace-speed must be a number > 0 (2 = twice as fast), got ${String(f.traceSpeed)}`);
  if (f.maxModelLen !== undefined && !(Number.isSafeInteger(f.maxModelLen) && f.maxModelLen >= 1))
    throw new UsageError(`--max-model-len must be an integer >= 1, got ${String(f.maxModelLen)}`);
  for (const [key, flag] of [
    ['targetQps', '--target-qps'],
    ['closedLoop', '--closed-loop'],
    ['burstiness', '--burstiness'],
    ['rampFrom', '--ramp-from'],
  ] as const)
    if (f[key] !== undefined)
      throw new UsageError(
        `--trace sends each request at the trace's time: it cannot be combined with ${flag} (use --trace-speed to scale the rate)`,
      );
  if (options.dataset !== undefined)
    throw new UsageError('--trace and --dataset/--synthetic exclude each other (the trace is the dataset)');
  if (options.scenario !== 'Server')
    throw new UsageError(
      `--trace replays requests at the trace's times: it needs --scenario Server, not ${options.scenario}`,
    );
  options.trace = {
    path: f.trace,
    ...(f.traceSpeed !== undefined ? { speed: f.traceSpeed } : {}),
    ...(f.maxModelLen !== undefined ? { maxModelLen: f.maxModelLen } : {}),
  };
}

/** `--dry-run`: the plan and lint on stdout (JSON with --json); 0, or throws for an unreadable trace. */
export async function dryRunTrace(options: RunBenchmarkOptions, json: boolean): Promise<ExitCode> {
  const spec = options.trace;
  if (!spec) throw new UsageError('--dry-run needs --trace <file>');
  const simulated = (options.endpoints ?? []).length === 0;
  const prepared = await prepareTrace(
    spec,
    simulated ? resolveSimulatorOptions(options.simulator).maxModelLen : undefined,
  );
  if (json) process.stdout.write(`${JSON.stringify(prepared.plan, null, 2)}\n`);
  else {
    process.stdout.write(formatTracePlan(prepared.plan));
    if (spec.maxModelLen === undefined && !simulated)
      process.stdout.write("  note: no --max-model-len, so lengths were not checked against the model's context\n");
  }
  return ExitCode.Valid;
}
