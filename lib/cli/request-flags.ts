// The request adapter's timeouts and retries from `loadgen run` flags and
// config keys (--timeout-first-byte, --timeout-idle, --timeout-total,
// --retries), each checked with a one-line error naming the flag.
import type { RunBenchmarkOptions } from '../run/run-benchmark.js';
import type { RunFlags } from './config-file.js';
import { parseDurationMs } from './duration.js';
import { UsageError } from './errors.js';

/** Sets options.timeouts and options.retry from the flags that were given. */
export function applyRequestFlags(f: RunFlags, options: RunBenchmarkOptions): void {
  const timeouts: NonNullable<RunBenchmarkOptions['timeouts']> = {};
  if (f.timeoutFirstByte !== undefined)
    timeouts.firstByteMs = parseDurationMs('--timeout-first-byte', f.timeoutFirstByte);
  if (f.timeoutIdle !== undefined) timeouts.idleMs = parseDurationMs('--timeout-idle', f.timeoutIdle);
  if (f.timeoutTotal !== undefined) timeouts.totalMs = parseDurationMs('--timeout-total', f.timeoutTotal);
  if (Object.keys(timeouts).length > 0) options.timeouts = timeouts;
  if (f.retries !== undefined) {
    const n = typeof f.retries === 'string' && /^\s*\d+\s*$/.test(f.retries) ? Number(f.retries) : f.retries;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 100)
      throw new UsageError(
        `--retries must be an integer from 0 to 100 (retries per sample before its first token), got ${String(f.retries)}`,
      );
    options.retry = { maxRetries: n };
  }
}
