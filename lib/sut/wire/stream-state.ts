// What one response stream has told us so far. Reused across requests.
import { TokenBuffer } from '../token-buffer.js';

export class StreamState {
  /** Generated token ids received (first token included). */
  readonly tokens = new TokenBuffer();
  /** The server's own count of generated tokens (usage / meta_info), -1 until known. */
  serverTokens = -1;
  /** Token count carried by the last decoded chunk. */
  chunkTokens = 0;
  /** A chunk with generated text was seen (the signal when no ids are sent). */
  sawText = false;
  finishReason: string | null = null;
  /** Error event inside the stream, or a malformed chunk. */
  error: string | null = null;
  /** SGLang: cumulative or delta output_ids, decided from the first chunks. */
  outputIdsMode: 'unknown' | 'cumulative' | 'delta' = 'unknown';
  /** SGLang cumulative output_ids: offset from the list's `[` of the `,` after the ids read so far, -1 unknown. */
  idsSep = -1;

  reset(): void {
    this.tokens.reset();
    this.serverTokens = -1;
    this.chunkTokens = 0;
    this.sawText = false;
    this.finishReason = null;
    this.error = null;
    this.outputIdsMode = 'unknown';
    this.idsSep = -1;
  }

  /** Generated tokens as the server counts them, else as received. */
  get tokenCount(): number {
    return this.serverTokens >= 0 ? this.serverTokens : this.tokens.length;
  }
}

/** Outcome of decoding one chunk. */
export const CHUNK_TOKENS = 1; // carried generated tokens (state.chunkTokens of them)
export const CHUNK_EMPTY = 0; // valid, but no generated token (role chunk, usage chunk, empty text)
export const CHUNK_ERROR = -1; // an error event: state.error holds the message
export const CHUNK_MALFORMED = -2; // not a chunk we understand: state.error says why
