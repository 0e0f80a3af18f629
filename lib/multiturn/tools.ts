// Tool use in live conversations: parsing the calls a model returns,
// answering them (the dataset's recorded results, a results file, or a
// user-supplied function), and scoring them against the expected calls
// BFCL-style: the function name and every argument must match, compared by
// value with type-aware equality (an integer matches the same float, nothing
// matches across types, object key order does not count).
import type { ToolCallSpec, ToolResult } from './types.js';

/** A call as the model sent it: arguments still the JSON text of the wire. */
export interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A parsed call: `args` is null when the arguments were not a JSON object (a malformed call). */
export interface ParsedToolCall {
  id: string;
  name: string;
  args: Record<string, unknown> | null;
  raw: string;
}

export function parseToolCall(c: RawToolCall): ParsedToolCall {
  let args: Record<string, unknown> | null = null;
  try {
    // An empty string is how some parsers send "no arguments".
    const v: unknown = JSON.parse(c.arguments.trim() === '' ? '{}' : c.arguments);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) args = v as Record<string, unknown>;
  } catch {
    args = null;
  }
  return { id: c.id, name: c.name, args, raw: c.arguments };
}

/** Type-aware deep equality: numbers by value (1 == 1.0), no coercion across types, objects by keys. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (typeof a !== typeof b) return false;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => valuesEqual(x, b[i]));
  }
  if (typeof a === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
    const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
    return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && valuesEqual(ao[k], bo[k]));
  }
  return a === b;
}

/** BFCL "simple" AST match: same function name and equal arguments (string comparison ignores case and surrounding spaces, as BFCL's checker does). */
export function astMatch(expected: ToolCallSpec, got: ParsedToolCall): boolean {
  if (got.args === null || expected.name !== got.name) return false;
  const norm = (v: unknown): unknown =>
    typeof v === 'string' ? v.trim().toLowerCase() : Array.isArray(v) ? v.map(norm) : v;
  const e = Object.fromEntries(Object.entries(expected.arguments).map(([k, v]) => [k, norm(v)]));
  const g = Object.fromEntries(Object.entries(got.args).map(([k, v]) => [k, norm(v)]));
  return valuesEqual(e, g);
}

/**
 * Expected calls matched by the calls made, each call used at most once
 * (order-free, as BFCL's parallel category scores).
 */
export function countMatches(expected: readonly ToolCallSpec[], got: readonly ParsedToolCall[]): number {
  const used = new Set<number>();
  let matched = 0;
  for (const e of expected) {
    const i = got.findIndex((g, j) => !used.has(j) && astMatch(e, g));
    if (i >= 0) {
      used.add(i);
      matched++;
    }
  }
  return matched;
}

/** What a user-supplied tool handler is told. */
export interface ToolInvocation {
  conversationId: string;
  /** 0-based turn. */
  turn: number;
  name: string;
  /** null when the model's arguments were malformed. */
  arguments: Record<string, unknown> | null;
  rawArguments: string;
}

/** A user-supplied tool: returns what the tool answers (a non-string is sent as JSON). */
export type ToolHandler = (call: ToolInvocation) => unknown;

export interface ToolAnswerSources {
  /** Results by tool name, for calls the dataset has no recorded result for. */
  results?: Record<string, unknown>;
  handler?: ToolHandler;
}

/**
 * Answers the calls of one turn. Order: the user's handler, then the turn's
 * recorded results (the i-th call of a name gets the i-th result of that
 * name, the last one repeating), then the results file, then an error text
 * the model can read (the conversation goes on either way).
 */
export class ToolAnswerer {
  private readonly used = new Map<string, number>();

  constructor(
    private readonly recorded: readonly ToolResult[],
    private readonly sources: ToolAnswerSources,
  ) {}

  async answer(call: ParsedToolCall, conversationId: string, turn: number): Promise<string> {
    if (call.args === null) return JSON.stringify({ error: 'the arguments were not valid JSON' });
    if (this.sources.handler) {
      const v = await this.sources.handler({
        conversationId,
        turn,
        name: call.name,
        arguments: call.args,
        rawArguments: call.raw,
      });
      return typeof v === 'string' ? v : JSON.stringify(v ?? null);
    }
    const mine = this.recorded.filter((r) => r.name === call.name);
    if (mine.length > 0) {
      const n = this.used.get(call.name) ?? 0;
      this.used.set(call.name, n + 1);
      const v = mine[Math.min(n, mine.length - 1)]!.content;
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
    const fromFile = this.sources.results?.[call.name];
    if (fromFile !== undefined) return typeof fromFile === 'string' ? fromFile : JSON.stringify(fromFile);
    return JSON.stringify({ error: `no recorded result for tool '${call.name}'` });
  }
}
