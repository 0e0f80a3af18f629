// Multi-turn and agentic benchmarks: conversation datasets, replay (a turn
// is a sample) and live (a conversation is a sample) execution, tool use.
export { ConversationError } from './types.js';
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
} from './types.js';
export { validateConversation } from './validate.js';
export type { RecordPlace } from './validate.js';
export { fromShareGpt, fromOpenAiMessages, toConversation, shapeOf } from './convert.js';
export type { ConversationShape } from './convert.js';
export { readConversations } from './read.js';
export type { ReadConversationsOptions } from './read.js';
export { replayDataset, replayMessages } from './replay.js';
export type { ReplayDataset, ReplayOptions, TurnRef } from './replay.js';
export { createLiveSut } from './live-sut.js';
export type { LiveSut, LiveSutOptions } from './live-sut.js';
export { astMatch, countMatches, parseToolCall, valuesEqual, ToolAnswerer } from './tools.js';
export type { ToolHandler, ToolInvocation, ToolAnswerSources, RawToolCall, ParsedToolCall } from './tools.js';
export { buildMultiturnReport, replayReport } from './report.js';
