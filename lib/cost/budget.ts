// Budgets: a most output tokens, dollars or minutes for a run. A monitor
// checks them every 100 ms while the test runs (the output-token
// count comes from counters the adapter threads add to, so checking is
// cheap) and, at the first limit reached, ends the test through abortTest:
// the logs are written as for any abort, and the reason is kept.
import { UsageError } from '../core/errors.js';

export interface BudgetLimits {
  /** Output tokens generated in this run. */
  outputTokens?: number;
  /** Dollars, at the run's GPU price (needs a price). */
  dollars?: number;
  minutes?: number;
}

export type BudgetKind = 'outputTokens' | 'dollars' | 'minutes';

export interface BudgetReport {
  limits: BudgetLimits;
  used: { outputTokens: number; dollars: number | null; minutes: number };
  /** The limit that ended the run, or null. */
  stoppedBy: BudgetKind | null;
  reason: string | null;
}

export function checkBudgetLimits(b: BudgetLimits | undefined, hasPrice: boolean): BudgetLimits | null {
  if (!b) return null;
  const out: BudgetLimits = {};
  const check = (k: BudgetKind, flag: string, integer: boolean): void => {
    const v = b[k];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isSafeInteger(v))) {
      throw new UsageError(`${flag} must be ${integer ? 'an integer' : 'a number'} > 0, got ${String(v)}`);
    }
    out[k] = v;
  };
  check('outputTokens', '--budget-tokens', true);
  check('dollars', '--budget-cost', false);
  check('minutes', '--budget-minutes', false);
  if (out.dollars !== undefined && !hasPrice)
    throw new UsageError('--budget-cost needs --gpu-hour-price (the run has no price to count against it)');
  return Object.keys(out).length > 0 ? out : null;
}

export class BudgetMonitor {
  private stopped: { kind: BudgetKind; reason: string } | null = null;
  private last = { outputTokens: 0, dollars: null as number | null, minutes: 0 };

  constructor(
    private readonly limits: BudgetLimits,
    private readonly dollarsPerHour: number | null,
    private readonly counters: Int32Array,
    private readonly stop: (reason: string) => void,
  ) {}

  /** One check at `elapsedMs` into the test; ends it at the first limit reached (unless only recording the final figures). */
  check(elapsedMs: number, canStop = true): void {
    const outputTokens = Atomics.load(this.counters, 0);
    const minutes = elapsedMs / 60_000;
    const dollars = this.dollarsPerHour === null ? null : (this.dollarsPerHour * elapsedMs) / 3_600_000;
    this.last = { outputTokens, dollars, minutes };
    if (this.stopped || !canStop) return;
    const l = this.limits;
    let hit: { kind: BudgetKind; reason: string } | null = null;
    if (l.outputTokens !== undefined && outputTokens >= l.outputTokens)
      hit = {
        kind: 'outputTokens',
        reason: `budget: ${outputTokens} output tokens reached the limit of ${l.outputTokens}`,
      };
    else if (l.dollars !== undefined && dollars !== null && dollars >= l.dollars)
      hit = { kind: 'dollars', reason: `budget: $${dollars.toFixed(4)} reached the limit of $${l.dollars}` };
    else if (l.minutes !== undefined && minutes >= l.minutes)
      hit = { kind: 'minutes', reason: `budget: ${minutes.toFixed(2)} minutes reached the limit of ${l.minutes}` };
    if (hit) {
      this.stopped = hit;
      this.stop(hit.reason);
    }
  }

  report(): BudgetReport {
    return {
      limits: { ...this.limits },
      used: { ...this.last },
      stoppedBy: this.stopped?.kind ?? null,
      reason: this.stopped?.reason ?? null,
    };
  }
}
