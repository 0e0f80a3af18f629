// The simulator's prefix cache, after vLLM's automatic prefix caching and
// SGLang's radix cache: prompts are cut into fixed blocks of tokens, each
// block named by a hash chained over every block before it, so a block is
// found only when the whole prefix up to it was seen. A request's cached
// tokens are the full blocks of its prompt found this way; the engine skips
// their prefill. Blocks are kept in LRU order up to a bound, like KV memory.
import { hashIds } from './tokens.js';

export class PrefixCache {
  private readonly blocks = new Map<number, true>();
  queries = 0;
  hits = 0;

  constructor(
    /** Tokens per block (vLLM's default block size is 16). */
    private readonly blockTokens: number,
    /** Most blocks kept. */
    private readonly maxBlocks: number,
  ) {}

  /** Cached tokens of `ids` (full blocks of a known prefix), then remembers its blocks. */
  lookupAndInsert(ids: readonly number[]): number {
    const B = this.blockTokens;
    const full = Math.floor(ids.length / B);
    let prev = 0;
    let cached = 0;
    let missed = false;
    for (let b = 0; b < full; b++) {
      const h = hashIds([prev, ...ids.slice(b * B, (b + 1) * B)]);
      if (!missed && this.blocks.has(h)) {
        cached += B;
        // Re-insert: most recently used last.
        this.blocks.delete(h);
      } else {
        missed = true;
      }
      this.blocks.set(h, true);
      prev = h;
    }
    while (this.blocks.size > this.maxBlocks) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
    // As vLLM counts: prompt tokens queried, and those found cached.
    this.queries += ids.length;
    this.hits += cached;
    return cached;
  }
}
