// Converters from the conversation shapes found in the wild into the native
// one: ShareGPT ({conversations: [{from, value}]}) and OpenAI chat message
// lists ({messages: [{role, content, tool_calls?}], tools?}). toConversation
// picks the shape from the record's keys.
import type { Conversation, ToolCallSpec, Turn } from './types.js';
import { checkTools, errorAt, validateConversation, type RecordPlace } from './validate.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Message text: a string, or the text parts of a content list. */
function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v.map((part) => (isObj(part) && typeof part.text === 'string' ? part.text : '')).join('');
  }
  return null;
}

function idOf(raw: Obj, index: number): string {
  const id = raw.id ?? raw.conversation_id ?? raw.conversationId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : `conversation-${index}`;
}

const SHAREGPT_ROLES: Record<string, 'system' | 'user' | 'assistant'> = {
  system: 'system',
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  chatgpt: 'assistant',
  bing: 'assistant',
  bard: 'assistant',
  model: 'assistant',
};

/** ShareGPT: {id?, conversations: [{from: human|gpt|system, value}]}. Each human message starts a turn. */
export function fromShareGpt(raw: unknown, p: RecordPlace, index: number): Conversation {
  if (!isObj(raw) || !Array.isArray(raw.conversations))
    throw errorAt(p, undefined, "a ShareGPT record needs a 'conversations' list");
  const conv: Conversation = { id: idOf(raw, index), turns: [], source: { ...p } };
  raw.conversations.forEach((m, i) => {
    if (!isObj(m) || typeof m.from !== 'string' || typeof m.value !== 'string') {
      throw errorAt(p, conv.turns.length || undefined, `conversations[${i}] must be {from, value} with string values`);
    }
    const role = SHAREGPT_ROLES[m.from.toLowerCase()];
    if (!role)
      throw errorAt(
        p,
        conv.turns.length,
        `conversations[${i}].from '${m.from}' is not a known role (human, gpt, system)`,
      );
    if (role === 'system') {
      if (conv.turns.length > 0)
        throw errorAt(p, conv.turns.length, `conversations[${i}]: a system message after the first turn`);
      conv.system = conv.system === undefined ? m.value : `${conv.system}\n${m.value}`;
    } else if (role === 'user') {
      conv.turns.push({ user: m.value });
    } else {
      const last = conv.turns[conv.turns.length - 1];
      // An answer before any question (some dumps start with the bot's greeting) has no turn to go with.
      if (!last) return;
      last.assistant = last.assistant === undefined ? m.value : `${last.assistant}\n${m.value}`;
    }
  });
  if (conv.turns.length === 0) throw errorAt(p, undefined, 'the conversation has no human message');
  return conv;
}

function parseArguments(v: unknown, p: RecordPlace, turn: number, where: string): Obj {
  if (isObj(v)) return v;
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v === '' ? '{}' : v);
      if (isObj(parsed)) return parsed;
    } catch {
      // reported below
    }
  }
  throw errorAt(p, turn, `${where}: arguments must be a JSON object`);
}

/**
 * OpenAI message list: {id?, messages: [...], tools?}. A user message starts
 * a turn; assistant tool_calls become the turn's expected calls, tool
 * messages its recorded results (named through tool_call_id), and the last
 * assistant text its recorded answer.
 */
export function fromOpenAiMessages(raw: unknown, p: RecordPlace, index: number): Conversation {
  const messages = Array.isArray(raw) ? raw : isObj(raw) ? raw.messages : undefined;
  if (!Array.isArray(messages)) throw errorAt(p, undefined, "an OpenAI chat record needs a 'messages' list");
  const conv: Conversation = {
    id: isObj(raw) ? idOf(raw, index) : `conversation-${index}`,
    turns: [],
    source: { ...p },
  };
  if (isObj(raw) && raw.tools !== undefined && raw.tools !== null) conv.tools = checkTools(raw.tools, p, undefined);
  const callNames = new Map<string, string>();
  messages.forEach((m, i) => {
    const k = conv.turns.length - 1;
    if (!isObj(m) || typeof m.role !== 'string')
      throw errorAt(p, k >= 0 ? k : undefined, `messages[${i}] must be an object with a role`);
    const text = textOf(m.content);
    const turn: Turn | undefined = conv.turns[k];
    switch (m.role) {
      case 'system':
      case 'developer':
        if (turn) throw errorAt(p, k, `messages[${i}]: a system message after the first turn`);
        conv.system = conv.system === undefined ? (text ?? '') : `${conv.system}\n${text ?? ''}`;
        return;
      case 'user':
        if (text === null || text.trim() === '')
          throw errorAt(p, k + 1, `messages[${i}]: a user message needs text content`);
        conv.turns.push({ user: text });
        return;
      case 'assistant': {
        if (!turn) return; // an opening greeting: no turn to attach it to
        if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
          const calls: ToolCallSpec[] = m.tool_calls.map((c, j) => {
            const fn = isObj(c) ? c.function : undefined;
            if (!isObj(fn) || typeof fn.name !== 'string')
              throw errorAt(p, k, `messages[${i}].tool_calls[${j}] needs function.name`);
            if (isObj(c) && typeof c.id === 'string') callNames.set(c.id, fn.name);
            return { name: fn.name, arguments: parseArguments(fn.arguments, p, k, `messages[${i}].tool_calls[${j}]`) };
          });
          turn.expectedToolCalls = [...(turn.expectedToolCalls ?? []), ...calls];
        }
        if (text !== null && text !== '') turn.assistant = text;
        return;
      }
      case 'tool':
      case 'function': {
        if (!turn) throw errorAt(p, undefined, `messages[${i}]: a tool answer before any user message`);
        const name =
          (typeof m.tool_call_id === 'string' ? callNames.get(m.tool_call_id) : undefined) ??
          (typeof m.name === 'string' ? m.name : undefined);
        if (!name)
          throw errorAt(p, k, `messages[${i}]: cannot tell which tool this answers (no matching tool_call_id or name)`);
        let content: unknown = text ?? '';
        try {
          content = JSON.parse(text ?? '');
        } catch {
          // plain text results stay text
        }
        turn.toolResults = [...(turn.toolResults ?? []), { name, content }];
        return;
      }
      default:
        throw errorAt(
          p,
          k >= 0 ? k : undefined,
          `messages[${i}].role '${m.role}' is not one of system, user, assistant, tool`,
        );
    }
  });
  if (conv.turns.length === 0) throw errorAt(p, undefined, 'the conversation has no user message');
  return conv;
}

export type ConversationShape = 'native' | 'sharegpt' | 'openai';

/** The record's shape, from its keys: turns → native, conversations → ShareGPT, messages (or a list) → OpenAI. */
export function shapeOf(raw: unknown): ConversationShape | null {
  if (Array.isArray(raw)) return 'openai';
  if (!isObj(raw)) return null;
  if (raw.turns !== undefined) return 'native';
  if (raw.conversations !== undefined) return 'sharegpt';
  if (raw.messages !== undefined) return 'openai';
  return null;
}

/** Any supported record → Conversation (checked). */
export function toConversation(raw: unknown, p: RecordPlace, index: number, shape?: ConversationShape): Conversation {
  const s = shape ?? shapeOf(raw);
  if (s === 'native') return validateConversation(raw, p, index);
  // Converted records go through the same checks as native ones.
  const conv =
    s === 'sharegpt' ? fromShareGpt(raw, p, index) : s === 'openai' ? fromOpenAiMessages(raw, p, index) : null;
  if (!conv)
    throw errorAt(
      p,
      undefined,
      "not a conversation: expected 'turns' (native), 'conversations' (ShareGPT) or 'messages' (OpenAI chat)",
    );
  return validateConversation({ ...conv, turns: conv.turns }, p, index);
}
