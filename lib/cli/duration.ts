// Durations as flags and config keys take them: milliseconds, or a number
// with a unit.
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
    if (!m)
      throw new UsageError(
        `${flag} ${JSON.stringify(v)}: expected milliseconds or a duration such as 500ms, 30s, 5m, 1h`,
      );
    ms = Number(m[1]) * UNITS[(m[2] ?? 'ms').toLowerCase()];
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new UsageError(`${flag} must be a duration > 0 (milliseconds, or e.g. 30s, 5m), got ${String(v)}`);
  if (ms > 2 ** 31 - 1) throw new UsageError(`${flag} ${String(v)} is too long: at most 2147483647 ms (about 24 days)`);
  return Math.round(ms) || 1;
}
