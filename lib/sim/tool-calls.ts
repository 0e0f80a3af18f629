// The simulator's "function calling": a deterministic rule stands in for a
// model, so tests know which call each request gets. When a chat request
// offers `tools` and its last message is the user's, the response calls the
// first offered tool whose name appears in that message; each parameter of
// the tool's schema takes the value written as `param=value` in the message
// (converted to the schema's type), a required one without it gets an empty
// value of its type. After a tool answer (last message role 'tool') the
// response is text again, so an agent loop ends. tool_choice 'none' turns
// calls off.
import { SimHttpError } from './errors.js';
import type { SimFlavor } from './types.js';

export interface ToolCallPlan {
  id: string;
  name: string;
  /** The arguments' JSON text (cut in half by the 'malformed-tool-call' fault). */
  arguments: string;
  /** The argument text as streamed: one piece per generated token after the first (which carries the name). */
  pieces: string[];
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Characters of argument text per streamed token. */
const PIECE_CHARS = 8;

function splitPieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += PIECE_CHARS) out.push(text.slice(i, i + PIECE_CHARS));
  return out.length > 0 ? out : [''];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  return '';
}

function valueFor(type: unknown, raw: string | undefined): unknown {
  if (raw === undefined) {
    if (type === 'integer' || type === 'number') return 0;
    if (type === 'boolean') return false;
    if (type === 'array') return [];
    if (type === 'object') return {};
    return '';
  }
  if (type === 'integer' || type === 'number') {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (type === 'boolean') return raw === 'true';
  return raw;
}

/** The id each server gives a call (vLLM: chatcmpl-tool-<32 hex>; SGLang: call_<24 hex>), deterministic here. */
function callId(flavor: SimFlavor, seed: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  const hex = (h >>> 0).toString(16).padStart(8, '0');
  return flavor === 'vllm' ? `chatcmpl-tool-${hex.repeat(4)}` : `call_${hex.repeat(3)}`;
}

export function planToolCall(
  flavor: SimFlavor,
  tools: unknown,
  toolChoice: unknown,
  messages: unknown,
): ToolCallPlan | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) throw new SimHttpError(400, 'tools: Input should be a valid list', 'tools');
  if (tools.length === 0 || toolChoice === 'none' || !Array.isArray(messages) || messages.length === 0) return null;
  const last = messages[messages.length - 1];
  if (!isObj(last) || last.role !== 'user') return null;
  const text = textOf(last.content);
  for (const [i, t] of tools.entries()) {
    const fn = isObj(t) ? t.function : undefined;
    if (!isObj(fn) || typeof fn.name !== 'string')
      throw new SimHttpError(400, `tools[${i}].function.name: Field required`, 'tools');
    if (!text.includes(fn.name)) continue;
    const params = isObj(fn.parameters) ? fn.parameters : {};
    const props = isObj(params.properties) ? params.properties : {};
    const required = Array.isArray(params.required) ? params.required : [];
    const args: Obj = {};
    for (const [name, schema] of Object.entries(props)) {
      const m = new RegExp(`(?:^|\\s)${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=(\\S+)`).exec(text);
      const raw = m ? m[1]!.replace(/[,.;!?]+$/, '') : undefined;
      if (raw === undefined && !required.includes(name)) continue;
      args[name] = valueFor(isObj(schema) ? schema.type : undefined, raw);
    }
    const json = JSON.stringify(args);
    return { id: callId(flavor, `${fn.name}${text}`), name: fn.name, arguments: json, pieces: splitPieces(json) };
  }
  return null;
}

/** The 'malformed-tool-call' fault: the same call with its arguments cut in half. */
export function malformToolCall(plan: ToolCallPlan): ToolCallPlan {
  const cut = plan.arguments.slice(0, Math.max(1, Math.floor(plan.arguments.length / 2)));
  return { ...plan, arguments: cut, pieces: splitPieces(cut) };
}
