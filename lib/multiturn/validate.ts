// Checks one conversation in the native shape ({id?, system?, tools?,
// turns: [{user, assistant?, expected_tool_calls?, tool_results?,
// think_time_ms?, max_tokens?}]}) and turns it into a Conversation. Keys may
// be snake_case or camelCase. Every error names the file, the line (or row)
// and the turn, so a bad record in a large file is found at once.
import {
  ConversationError,
  type Conversation,
  type ToolCallSpec,
  type ToolDefinition,
  type ToolResult,
  type Turn,
} from './types.js';

/** Where a record came from: JSONL lines are 1-based, Parquet rows 0-based. */
export interface RecordPlace {
  file: string;
  line?: number;
  row?: number;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads `snake` or its camelCase spelling. */
function field(o: Obj, snake: string): unknown {
  if (o[snake] !== undefined) return o[snake];
  return o[snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())];
}

function placeText(p: RecordPlace): string {
  if (p.line !== undefined) return `${p.file}: line ${p.line}`;
  if (p.row !== undefined) return `${p.file}: row ${p.row}`;
  return p.file;
}

/** An error that names where: file, line or row, turn. */
export function errorAt(p: RecordPlace, turn: number | undefined, message: string): ConversationError {
  const where = turn === undefined ? placeText(p) : `${placeText(p)}: turn ${turn}`;
  return new ConversationError(`${where}: ${message}`, p.file, p.line ?? p.row, turn);
}

/** Tool definitions: OpenAI's {type:'function', function:{name,...}} or a bare {name, parameters}. */
export function checkTools(v: unknown, p: RecordPlace, turn: number | undefined): ToolDefinition[] {
  if (!Array.isArray(v)) throw errorAt(p, turn, "'tools' must be a list of tool definitions");
  return v.map((t, i) => {
    const fn = isObj(t) && isObj(t.function) ? t.function : t;
    if (!isObj(fn) || typeof fn.name !== 'string' || fn.name === '') {
      throw errorAt(p, turn, `tools[${i}] must be {type: 'function', function: {name, parameters}}`);
    }
    if (fn.parameters !== undefined && !isObj(fn.parameters))
      throw errorAt(p, turn, `tools[${i}].parameters must be a JSON schema object`);
    const out: ToolDefinition = { type: 'function', function: { name: fn.name } };
    if (typeof fn.description === 'string') out.function.description = fn.description;
    if (fn.parameters !== undefined) out.function.parameters = fn.parameters as Obj;
    return out;
  });
}

/** Arguments given as an object, or as the JSON string the wire carries. */
function argumentsOf(v: unknown, p: RecordPlace, turn: number, where: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      if (isObj(parsed)) return parsed;
    } catch {
      // reported below
    }
    throw errorAt(
      p,
      turn,
      `${where}.arguments must be a JSON object (or its JSON text), got ${JSON.stringify(v).slice(0, 80)}`,
    );
  }
  if (!isObj(v)) throw errorAt(p, turn, `${where}.arguments must be an object`);
  return v;
}

function checkCalls(v: unknown, p: RecordPlace, turn: number): ToolCallSpec[] {
  if (!Array.isArray(v)) throw errorAt(p, turn, "'expected_tool_calls' must be a list of {name, arguments}");
  return v.map((c, i) => {
    const where = `expected_tool_calls[${i}]`;
    const fn = isObj(c) && isObj(c.function) ? c.function : c;
    if (!isObj(fn) || typeof fn.name !== 'string' || fn.name === '')
      throw errorAt(p, turn, `${where} needs a function name`);
    return { name: fn.name, arguments: argumentsOf(fn.arguments, p, turn, where) };
  });
}

function checkResults(v: unknown, p: RecordPlace, turn: number): ToolResult[] {
  if (!Array.isArray(v)) throw errorAt(p, turn, "'tool_results' must be a list of {name, content}");
  return v.map((r, i) => {
    if (!isObj(r) || typeof r.name !== 'string' || r.name === '')
      throw errorAt(p, turn, `tool_results[${i}] needs a tool name`);
    if (r.content === undefined) throw errorAt(p, turn, `tool_results[${i}] needs a content (what the tool returned)`);
    return { name: r.name, content: r.content };
  });
}

function optNumber(
  o: Obj,
  key: string,
  p: RecordPlace,
  turn: number,
  integer: boolean,
  min: number,
): number | undefined {
  const v = field(o, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw errorAt(
      p,
      turn,
      `'${key}' must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function checkTurn(t: unknown, p: RecordPlace, k: number): Turn {
  if (!isObj(t)) throw errorAt(p, k, 'a turn must be an object with a user message');
  const user = field(t, 'user');
  if (typeof user !== 'string' || user.trim() === '') throw errorAt(p, k, "'user' must be a non-empty string");
  const turn: Turn = { user };
  const assistant = field(t, 'assistant');
  if (assistant !== undefined && assistant !== null) {
    if (typeof assistant !== 'string') throw errorAt(p, k, "'assistant' must be a string");
    turn.assistant = assistant;
  }
  const calls = field(t, 'expected_tool_calls');
  if (calls !== undefined && calls !== null) turn.expectedToolCalls = checkCalls(calls, p, k);
  const results = field(t, 'tool_results');
  if (results !== undefined && results !== null) turn.toolResults = checkResults(results, p, k);
  const tools = field(t, 'tools');
  if (tools !== undefined && tools !== null) turn.tools = checkTools(tools, p, k);
  const think = optNumber(t, 'think_time_ms', p, k, false, 0);
  if (think !== undefined) turn.thinkTimeMs = think;
  const max = optNumber(t, 'max_tokens', p, k, true, 1);
  if (max !== undefined) turn.maxTokens = max;
  return turn;
}

/** A native-shape record → Conversation; `index` names it when it has no id. */
export function validateConversation(raw: unknown, p: RecordPlace, index: number): Conversation {
  if (!isObj(raw)) throw errorAt(p, undefined, 'a conversation must be a JSON object');
  const id = raw.id ?? raw.conversation_id ?? raw.conversationId;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number')
    throw errorAt(p, undefined, "'id' must be a string or a number");
  const turns = raw.turns;
  if (!Array.isArray(turns) || turns.length === 0)
    throw errorAt(p, undefined, "'turns' must be a non-empty list of turns");
  const conv: Conversation = {
    id: id === undefined ? `conversation-${index}` : String(id),
    turns: turns.map((t, k) => checkTurn(t, p, k)),
    source: { ...p },
  };
  const system = field(raw, 'system') ?? field(raw, 'system_prompt');
  if (system !== undefined && system !== null) {
    if (typeof system !== 'string') throw errorAt(p, undefined, "'system' must be a string");
    conv.system = system;
  }
  if (raw.tools !== undefined && raw.tools !== null) conv.tools = checkTools(raw.tools, p, undefined);
  return conv;
}

/** Conversation ids must be unique: results are reported by id. */
export function checkUniqueIds(conversations: readonly Conversation[]): void {
  const seen = new Map<string, Conversation>();
  for (const c of conversations) {
    const before = seen.get(c.id);
    if (before) {
      const p = c.source ?? { file: '<memory>' };
      const at = before.source?.line ?? before.source?.row;
      throw errorAt(
        p,
        undefined,
        `conversation id '${c.id}' is used twice (first${at !== undefined ? ` at ${before.source?.line !== undefined ? 'line' : 'row'} ${at}` : ''})`,
      );
    }
    seen.set(c.id, c);
  }
}
