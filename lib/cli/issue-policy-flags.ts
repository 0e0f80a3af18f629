// The issue policies beyond MLPerf's, from `loadgen run` flags and config keys
// (--closed-loop, --burstiness, --ramp-from, --ramp-duration, --ramp-shape):
// each becomes an engine setting (lib/core/settings.ts), checked here with a
// one-line error naming the flag. Server only: the other scenarios have no
// arrival schedule to change.
import type { TestScenario, TestSettings } from '../core/settings.js';
import type { RunBenchmarkOptions } from '../run/run-benchmark.js';
import type { RunFlags } from './config-file.js';
import { parseDurationMs } from './duration.js';
import { UsageError } from './errors.js';

// Without --target-qps, a closed loop's generated queries are sized for this
// many completions per second per slot (a request of 100 ms or longer, as LLM
// requests are): enough for the test, without generating millions.
const CLOSED_LOOP_QPS_PER_SLOT = 10;

/** Adds the issue-policy settings the flags ask for to `settings` (the run's overrides). */
export function applyIssuePolicyFlags(
  f: RunFlags,
  scenario: TestScenario,
  settings: Partial<TestSettings>,
  options: Pick<RunBenchmarkOptions, 'targetQps'>,
): void {
  const given = ['closedLoop', 'burstiness', 'rampFrom', 'rampDuration', 'rampShape'].filter(
    (k) => f[k as keyof RunFlags] !== undefined,
  );
  if (given.length === 0) return;
  if (scenario !== 'Server') {
    const flag = `--${given[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new UsageError(
      `${flag} applies to the Server scenario only (it changes how queries arrive), not ${scenario}`,
    );
  }
  if (f.closedLoop !== undefined) {
    if (!Number.isSafeInteger(f.closedLoop) || f.closedLoop < 1)
      throw new UsageError(`--closed-loop must be an integer >= 1 (requests in flight), got ${String(f.closedLoop)}`);
    if (f.burstiness !== undefined || f.rampFrom !== undefined)
      throw new UsageError(
        '--closed-loop cannot be combined with --burstiness or --ramp-from (a closed loop has no arrival schedule)',
      );
    settings.closedLoopConcurrency = f.closedLoop;
    if (options.targetQps === undefined && settings.serverTargetQps === undefined)
      settings.serverTargetQps = f.closedLoop * CLOSED_LOOP_QPS_PER_SLOT;
  }
  if (f.burstiness !== undefined) {
    if (!(Number.isFinite(f.burstiness) && f.burstiness > 0))
      throw new UsageError(`--burstiness must be a number > 0 (1 = Poisson, as MLPerf), got ${String(f.burstiness)}`);
    settings.serverBurstiness = f.burstiness;
  }
  if (f.rampFrom !== undefined || f.rampDuration !== undefined || f.rampShape !== undefined) {
    if (f.rampFrom === undefined || f.rampDuration === undefined)
      throw new UsageError('a ramp-up needs both --ramp-from <qps> and --ramp-duration <duration>');
    if (!(Number.isFinite(f.rampFrom) && f.rampFrom > 0))
      throw new UsageError(`--ramp-from must be a rate > 0 QPS, got ${String(f.rampFrom)}`);
    const ms = parseDurationMs('--ramp-duration', f.rampDuration);
    if (ms < 1) throw new UsageError(`--ramp-duration must be at least 1 ms, got ${String(f.rampDuration)}`);
    const shape = f.rampShape ?? 'linear';
    if (shape !== 'linear' && shape !== 'exponential')
      throw new UsageError(`--ramp-shape must be linear or exponential, got ${JSON.stringify(shape)}`);
    settings.rampStartQps = f.rampFrom;
    settings.rampDurationMs = ms;
    settings.rampExponential = shape === 'exponential';
  }
}
