// The optional sections results.json carries from a RunRecord: tokens,
// goodput, cost, budgets, the servers' metrics, the GPUs' energy and the journal/resume state.
// Each appears only when the record has it (a custom harness's record
// without them gives the same results.json as before).
import type { RunRecord } from './run-record.js';

export interface CostSections {
  tokens?: RunRecord['tokens'];
  goodput?: RunRecord['goodput'];
  cost?: RunRecord['cost'];
  budget?: RunRecord['budget'];
  serverMetrics?: RunRecord['serverMetrics'];
  energy?: RunRecord['energy'];
  resume?: RunRecord['resume'];
}

const KEYS = ['tokens', 'goodput', 'cost', 'budget', 'serverMetrics', 'energy', 'resume'] as const;

export function costSections(record: RunRecord): CostSections {
  const out: CostSections = {};
  // Plain-data copies: the record may be reused by the caller.
  for (const k of KEYS)
    if (record[k] !== undefined)
      (out as Record<string, unknown>)[k] = record[k] === null ? null : structuredClone(record[k]);
  return out;
}
