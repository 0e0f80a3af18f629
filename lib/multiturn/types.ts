// Conversation datasets for multi-turn and agentic benchmarks: what a
// conversation is once read and checked, whatever file shape it came from.
import type { Percentiles } from '../sut/types.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

/** An OpenAI-style tool definition ({type: 'function', function: {name, parameters}}). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A function call: the arguments as an object (expected calls) or as the model sent them. */
export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

/** A recorded tool result, answered when the model calls `name` (in order, when a name repeats). */
export interface ToolResult {
  name: string;
  /** What the tool returned; a non-string is sent as JSON. */
  content: unknown;
}

/** One user turn and what was recorded around it. */
export interface Turn {
  /** The user's message. */
  user: string;
  /** The recorded assistant answer (replay puts it in later turns' history; live ignores it). */
  assistant?: string;
  /** Tool calls the model is expected to make in this turn (scored BFCL-style). */
  expectedToolCalls?: ToolCallSpec[];
  /** Results to answer this turn's tool calls with. */
  toolResults?: ToolResult[];
  /** Tools offered in this turn (overrides the conversation's). */
  tools?: ToolDefinition[];
  /** Live mode: pause before this turn is sent, after the previous one completed (ms). */
  thinkTimeMs?: number;
  /** Output cap for this turn. */
  maxTokens?: number;
}

export interface Conversation {
  id: string;
  system?: string;
  /** Tools offered in every turn. */
  tools?: ToolDefinition[];
  turns: Turn[];
  /** Where it was read from, for messages: file and line (JSONL, 1-based) or row (Parquet, 0-based). */
  source?: { file: string; line?: number; row?: number };
}

/** A message as sent to /v1/chat/completions (tool calls and tool answers included). */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

/** A conversation file problem, naming the file, the line or row, and the turn. */
export class ConversationError extends LoadgenError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly turn?: number,
  ) {
    super(ErrorCode.Conversation, message);
  }
}

export type MultiturnMode = 'replay' | 'live';

/** Figures of one turn position (turn 0, 1, ...) over all conversations. */
export interface TurnFigures {
  turn: number;
  /** Requests measured at this position (live: tool-call rounds included). */
  requests: number;
  failed: number;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  latencyMs: Percentiles;
  /** Prompt tokens as the server counted them (live), or null. */
  promptTokensMean: number | null;
}

export interface ConversationOutcome {
  id: string;
  ok: boolean;
  turnsCompleted: number;
  turns: number;
  /** Live: LoadGen's issue to the last token of the last turn (ms); replay: null. */
  latencyMs: number | null;
  error?: string;
  /** The turn that failed (0-based). */
  failedTurn?: number;
}

export interface ToolFigures {
  /** Requests that offered tools. */
  requestsWithTools: number;
  /** Of those, responses that called at least one tool. */
  responsesWithToolCalls: number;
  /** responsesWithToolCalls / requestsWithTools (null without tool requests). */
  toolCallRate: number | null;
  toolCalls: number;
  /** Calls whose arguments were not a JSON object. */
  malformed: number;
  /** Expected calls (from the dataset) and how many were matched exactly (BFCL-style AST match). */
  expected: number;
  matched: number;
  /** matched / expected (null without expected calls). */
  argumentAccuracy: number | null;
}

/** RunRecord.multiturn: what a multi-turn run adds to results.json and report.html. */
export interface MultiturnReport {
  mode: MultiturnMode;
  /** What one LoadGen sample is in this mode. */
  sample: 'turn' | 'conversation';
  conversations: { total: number; completed: number; failed: number };
  turns: { total: number; completed: number; failed: number };
  perTurn: TurnFigures[];
  /** Live: per-conversation latency (issue to last token); replay: null. */
  conversationLatencyMs: Percentiles | null;
  /** Live with tools; null in replay (its responses' content is not read). */
  tools: ToolFigures | null;
  /** Failed conversations first, at most 200 listed. */
  outcomes: ConversationOutcome[];
}
