// @x/loadgen/multiturn: multi-turn and agentic benchmarks. Conversation
// files, replay (a turn is a sample), live conversations (a conversation is
// a sample) with tool calls, and tool-call scoring. runBenchmark runs either
// style with its `conversations` option. API.md, section @x/loadgen/multiturn.

// ── Conversations ───────────────────────────────────────────────────────────
export { readConversations } from './multiturn/read.js';
export type { ReadConversationsOptions } from './multiturn/read.js';
export { fromShareGpt, fromOpenAiMessages, toConversation } from './multiturn/convert.js';
export type { ConversationShape } from './multiturn/convert.js';
export { validateConversation } from './multiturn/validate.js';
export type { RecordPlace } from './multiturn/validate.js';
export { ConversationError } from './multiturn/types.js';
export type {
  Conversation,
  Turn,
  ToolDefinition,
  ToolCallSpec,
  ToolResult,
  WireMessage,
  MultiturnMode,
  MultiturnReport,
  TurnFigures,
  ToolFigures,
  ConversationOutcome,
} from './multiturn/types.js';

// ── Replay: one sample per turn ─────────────────────────────────────────────
export { replayDataset } from './multiturn/replay.js';
export type { ReplayDataset, ReplayOptions, TurnRef } from './multiturn/replay.js';
export { replayReport } from './multiturn/report.js';

// ── Live: one sample per conversation ───────────────────────────────────────
export { createLiveSut } from './multiturn/live-sut.js';
export type { LiveSut, LiveSutOptions } from './multiturn/live-sut.js';

// ── Tool calls ──────────────────────────────────────────────────────────────
export { astMatch, countMatches, parseToolCall, valuesEqual } from './multiturn/tools.js';
export type { ToolHandler, ToolInvocation, ToolAnswerSources, RawToolCall, ParsedToolCall } from './multiturn/tools.js';
