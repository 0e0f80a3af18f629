// The request adapter's timeouts and retries from `loadgen run` flags and
// config keys (--timeout-first-byte, --timeout-idle, --timeout-total,
// --retries), each checked with a one-line error naming the flag.
import type { RunBenchmarkOptions } from '../run/run-benchmark.js';
import type { RunFlags } from './config-file.js';
import { UsageError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * A duration in ms: a number of milliseconds (`30000`), or a number with a
 * unit, `ms`, `s`, `m` (or `min`) or `h` (`500ms`, `30s`, `5m`, `1.5h`).
 * Must be > 0 and at most 2^31 - 1 ms (about 24.8 days: the longest timer Node keeps).
 */
export function parseDurationMs(flag: string, v: string | number): number {
  let ms: number;
  if (typeof v === 'number') ms = v;
  else {
    const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|min|h)?\s*$/i.exec(v);
    if (!m) throw new UsageError(`${flag} ${JSON.stringify(v)}: expected milliseconds or a duration such as 500ms, 30s, 5m, 1h`);
    ms = Number(m[1]) * UNITS[(m[2] ?? 'ms').toLowerCase()];
  }
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`${flag} must be a duration > 0 (milliseconds, or e.g. 30s, 5m), got ${String(v)}`);
  if (ms > 2 ** 31 - 1) throw new UsageError(`${flag} ${String(v)} is too long: at most 2147483647 ms (about 24 days)`);
  return Math.round(ms) || 1;
}

/** Sets options.timeouts and options.retry from the flags that were given. */
export function applyRequestFlags(f: RunFlags, options: RunBenchmarkOptions): void {
  const timeouts: NonNullable<RunBenchmarkOptions['timeouts']> = {};
  if (f.timeoutFirstByte !== undefined) timeouts.firstByteMs = parseDurationMs('--timeout-first-byte', f.timeoutFirstByte);
  if (f.timeoutIdle !== undefined) timeouts.idleMs = parseDurationMs('--timeout-idle', f.timeoutIdle);
  if (f.timeoutTotal !== undefined) timeouts.totalMs = parseDurationMs('--timeout-total', f.timeoutTotal);
  if (Object.keys(timeouts).length > 0) options.timeouts = timeouts;
  if (f.retries !== undefined) {
    const n = typeof f.retries === 'string' && /^\s*\d+\s*$/.test(f.retries) ? Number(f.retries) : f.retries;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 100) throw new UsageError(`--retries must be an integer from 0 to 100 (retries per sample before its first token), got ${String(f.retries)}`);
    options.retry = { maxRetries: n };
  }
}
