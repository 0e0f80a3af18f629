// Fault rules: validation (shared by options.faults, injectFaults and
// POST /_sim/faults) and the ordered book that picks the rule hitting a request.
import type { SimFaultKind, SimFaultRule } from './types.js';

const KINDS: ReadonlySet<string> = new Set<SimFaultKind>([
  'status',
  'reset-before',
  'reset-during',
  'stall',
  'malformed-chunk',
  'error-event',
  'slow-headers',
  'malformed-tool-call',
  'retract-first-token',
]);
const STATUSES: ReadonlySet<number> = new Set([400, 429, 500, 503]);
const RULE_KEYS: ReadonlySet<string> = new Set([
  'kind',
  'count',
  'match',
  'status',
  'retryAfterS',
  'afterTokens',
  'ms',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkInt(v: unknown, where: string, min: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new Error(`${where} must be an integer >= ${min}`);
}

/** Validates rules and returns normalised copies; throws an Error naming the bad field. */
export function validateFaultRules(rules: unknown): SimFaultRule[] {
  if (!Array.isArray(rules)) throw new Error('fault rules must be an array');
  return rules.map((rule, i) => {
    const at = `faults[${i}]`;
    if (!isObject(rule)) throw new Error(`${at} must be an object`);
    for (const key of Object.keys(rule)) {
      if (!RULE_KEYS.has(key)) throw new Error(`${at}.${key} is not a known field`);
    }
    const kind = rule.kind;
    if (typeof kind !== 'string' || !KINDS.has(kind)) {
      throw new Error(`${at}.kind must be one of ${[...KINDS].join(', ')} (got ${JSON.stringify(kind)})`);
    }
    const out: SimFaultRule = { kind: kind as SimFaultKind };
    if (rule.count !== undefined && rule.count !== null) {
      // JSON has no Infinity: null or absent means unlimited.
      if (rule.count !== Infinity) checkInt(rule.count, `${at}.count`, 1);
      out.count = rule.count as number;
    }
    if (rule.match !== undefined) {
      if (!isObject(rule.match)) throw new Error(`${at}.match must be an object`);
      const { path, every, ...rest } = rule.match;
      const extra = Object.keys(rest);
      if (extra.length > 0) throw new Error(`${at}.match.${extra[0]} is not a known field`);
      out.match = {};
      if (path !== undefined) {
        if (typeof path !== 'string' || !path.startsWith('/'))
          throw new Error(`${at}.match.path must be a path starting with '/'`);
        out.match.path = path;
      }
      if (every !== undefined) {
        checkInt(every, `${at}.match.every`, 1);
        out.match.every = every as number;
      }
    }
    if (kind === 'status') {
      if (typeof rule.status !== 'number' || !STATUSES.has(rule.status)) {
        throw new Error(`${at}.status must be one of 400, 429, 500, 503`);
      }
      out.status = rule.status as SimFaultRule['status'];
      if (rule.retryAfterS !== undefined) {
        checkInt(rule.retryAfterS, `${at}.retryAfterS`, 0);
        out.retryAfterS = rule.retryAfterS as number;
      }
    } else if (rule.status !== undefined || rule.retryAfterS !== undefined) {
      throw new Error(`${at}: status/retryAfterS apply only to kind 'status'`);
    }
    const usesTokens =
      kind === 'reset-during' || kind === 'stall' || kind === 'malformed-chunk' || kind === 'error-event';
    if (rule.afterTokens !== undefined) {
      if (!usesTokens) throw new Error(`${at}.afterTokens does not apply to kind '${kind}'`);
      checkInt(rule.afterTokens, `${at}.afterTokens`, 0);
      out.afterTokens = rule.afterTokens as number;
    } else if (usesTokens) {
      out.afterTokens = 0;
    }
    if (kind === 'slow-headers' && rule.ms === undefined)
      throw new Error(`${at}.ms is required for kind 'slow-headers'`);
    if (rule.ms !== undefined) {
      if (kind !== 'stall' && kind !== 'slow-headers') throw new Error(`${at}.ms does not apply to kind '${kind}'`);
      if (typeof rule.ms !== 'number' || !Number.isFinite(rule.ms) || rule.ms < 0)
        throw new Error(`${at}.ms must be a finite number >= 0`);
      out.ms = rule.ms;
    }
    return out;
  });
}

interface LiveRule {
  rule: SimFaultRule;
  remaining: number;
  /** Requests seen that matched the path (for match.every). */
  seen: number;
}

/** The active rules, in order. */
export class FaultBook {
  private rules: LiveRule[] = [];

  add(rules: readonly SimFaultRule[]): void {
    for (const rule of rules) this.rules.push({ rule, remaining: rule.count ?? Infinity, seen: 0 });
  }

  clear(): void {
    this.rules = [];
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * The rule that hits a request on `path`, or null. Every rule whose path
   * matches counts the request (so `every` means every Nth request on that
   * path), but only the first one that fires hits it.
   */
  pick(path: string): SimFaultRule | null {
    let hit: LiveRule | null = null;
    for (const live of this.rules) {
      const { match } = live.rule;
      if (match?.path !== undefined && match.path !== path) continue;
      live.seen++;
      if (hit !== null) continue;
      if (match?.every !== undefined && live.seen % match.every !== 0) continue;
      hit = live;
    }
    if (hit === null) return null;
    hit.remaining--;
    if (hit.remaining <= 0) this.rules.splice(this.rules.indexOf(hit), 1);
    return hit.rule;
  }
}
