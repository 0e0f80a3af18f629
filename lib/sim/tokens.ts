// A deterministic fake tokenizer and "model": the same prompt always yields
// the same output ids, so tests can predict every byte a client receives.

/** BOS prepended to text prompts (token-id prompts are used verbatim, as in vLLM). */
export const BOS_TOKEN_ID = 1;
const VOCAB_BASE = 1000;
const VOCAB_SPAN = 30000;

/** FNV-1a over 32-bit ids: cheap, stable across runs and platforms. */
export function hashIds(ids: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const id of ids) {
    h = Math.imul(h ^ (id & 0xff), 0x01000193);
    h = Math.imul(h ^ ((id >>> 8) & 0xff), 0x01000193);
    h = Math.imul(h ^ ((id >>> 16) & 0xff), 0x01000193);
    h = Math.imul(h ^ (id >>> 24), 0x01000193);
  }
  return h >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Text -> ids: BOS then one id per whitespace-separated word. */
export function tokenizeText(text: string): number[] {
  const ids = [BOS_TOKEN_ID];
  for (const word of text.split(/\s+/)) {
    if (word.length > 0) ids.push(VOCAB_BASE + (hashString(word) % VOCAB_SPAN));
  }
  return ids;
}

export interface ChatMessageLike {
  role: string;
  content: string;
}

/** Chat messages -> ids through a fixed toy template (role markers count as words). */
export function tokenizeChat(messages: readonly ChatMessageLike[]): number[] {
  const text = messages.map((m) => `<|${m.role}|> ${m.content}`).join(' ') + ' <|assistant|>';
  return tokenizeText(text);
}

/**
 * The id generated at output position `pos` (0-based) for a prompt with hash
 * `promptHash`; `sample` separates the n choices of one prompt (0 = the
 * documented formula 1000 + ((hash + 7*pos) % 30000)).
 */
export function outputTokenId(promptHash: number, pos: number, sample: number): number {
  return VOCAB_BASE + ((promptHash + 7 * pos + 13 * sample) % VOCAB_SPAN);
}

/** Detokenised text of one generated id: EOS is a special token, so it has no text. */
export function tokenText(id: number, eosTokenId: number): string {
  return id === eosTokenId ? '' : ` t${id}`;
}

/** The raw token string, as logprobs show it (special tokens keep their name). */
export function tokenPiece(id: number, eosTokenId: number): string {
  return id === eosTokenId ? '</s>' : ` t${id}`;
}

/** A fixed fake logprob, so logprob fields have plausible numbers. */
export function tokenLogprob(id: number): number {
  return -((id % 97) + 1) / 1000;
}
