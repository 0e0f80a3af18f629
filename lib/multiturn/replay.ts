// Replay: every turn is one LoadGen sample whose prompt carries the recorded
// history (system prompt, earlier user messages, the recorded answers, tool
// calls and tool results). LoadGen schedules turns like any samples, so a
// run is deterministic and MLPerf-compatible; the server may still reuse
// its prefix cache when turns of one conversation arrive close together.
import type { ChatMessage, Dataset, Prompt } from '../dataset/types.js';
import type { Conversation, ToolCallSpec, WireMessage } from './types.js';
import { errorAt } from './validate.js';

/** Which conversation and turn a replay sample is. */
export interface TurnRef {
  conversation: number;
  turn: number;
}

export interface ReplayDataset extends Dataset {
  readonly conversations: readonly Conversation[];
  /** Sample index → conversation and turn. */
  readonly turns: readonly TurnRef[];
}

export interface ReplayOptions {
  name?: string;
  /** Output cap for turns without their own. */
  maxTokens?: number;
}

/** Recorded calls as the assistant message that made them, and the tool answers after it. */
function toolExchange(calls: readonly ToolCallSpec[], conv: Conversation, k: number): WireMessage[] {
  const turn = conv.turns[k]!;
  const ids = calls.map((_, j) => `call_${k}_${j}`);
  const out: WireMessage[] = [
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c, j) => ({
        id: ids[j]!,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    },
  ];
  const seen = new Map<string, number>();
  calls.forEach((c, j) => {
    const mine = (turn.toolResults ?? []).filter((r) => r.name === c.name);
    const n = seen.get(c.name) ?? 0;
    seen.set(c.name, n + 1);
    const r = mine[Math.min(n, mine.length - 1)];
    if (!r) return;
    out.push({
      role: 'tool',
      tool_call_id: ids[j]!,
      content: typeof r.content === 'string' ? r.content : JSON.stringify(r.content),
    });
  });
  return out;
}

/** The messages of turn `k`: the recorded history before it, then its user message. */
export function replayMessages(conv: Conversation, k: number): WireMessage[] {
  const msgs: WireMessage[] = [];
  if (conv.system !== undefined) msgs.push({ role: 'system', content: conv.system });
  for (let i = 0; i < k; i++) {
    const t = conv.turns[i]!;
    msgs.push({ role: 'user', content: t.user });
    if (t.expectedToolCalls && t.expectedToolCalls.length > 0) msgs.push(...toolExchange(t.expectedToolCalls, conv, i));
    if (t.assistant !== undefined) msgs.push({ role: 'assistant', content: t.assistant });
    else if (!t.expectedToolCalls?.length) {
      // Without the recorded answer the history would be a guess.
      throw errorAt(
        conv.source ?? { file: conv.id },
        i,
        'replay needs the recorded assistant answer of every turn before the last',
      );
    }
  }
  msgs.push({ role: 'user', content: conv.turns[k]!.user });
  return msgs;
}

/** Conversations → a Dataset of chat prompts, one a turn (for createLlmSut with api 'chat'). */
export function replayDataset(conversations: readonly Conversation[], options: ReplayOptions = {}): ReplayDataset {
  const turns: TurnRef[] = [];
  conversations.forEach((c, ci) => {
    for (let k = 0; k < c.turns.length; k++) turns.push({ conversation: ci, turn: k });
  });
  // Built up front: a conversation with a gap fails before the run, not in its middle.
  const prompts: Prompt[] = turns.map(({ conversation, turn }) => {
    const conv = conversations[conversation]!;
    const t = conv.turns[turn]!;
    const p: Prompt = { messages: replayMessages(conv, turn) as unknown as ChatMessage[] };
    const tools = t.tools ?? conv.tools;
    if (tools && tools.length > 0) p.tools = tools;
    const max = t.maxTokens ?? options.maxTokens;
    if (max !== undefined) p.maxTokens = max;
    return p;
  });
  return {
    name: options.name ?? 'conversations (replay)',
    size: prompts.length,
    conversations,
    turns,
    prompt: (index: number) => {
      const p = prompts[index];
      if (!p) throw new RangeError(`replay sample ${index} is out of range (0..${prompts.length - 1})`);
      return p;
    },
  };
}
