// Detokenising through @huggingface/tokenizers against Hugging Face's Rust
// `tokenizers` (0.23.2): a byte-level BPE tokenizer trained by that library on
// a small corpus, and the texts it decodes 40 id sequences to (special tokens
// skipped or kept; transformers' clean_up_tokenization applied for the
// cleaned column), stored as fixtures.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { TokenizerError, loadTokenizer } from '../../lib/accuracy/tokenizer.js';
import { tempDir } from './helpers.js';

const DIR = join(import.meta.dirname, '../fixtures/accuracy/tokenizer');

describe('loadTokenizer', () => {
  it('decodes exactly as the Rust tokenizers library does', async () => {
    const exp = JSON.parse(readFileSync(join(DIR, 'expected-decodes.json'), 'utf8')) as {
      vocabSize: number;
      cases: Array<{ ids: number[]; skip: string; keep: string; skipCleaned: string }>;
    };
    const cleaned = await loadTokenizer(join(DIR, 'tokenizer.json'));
    const raw = await loadTokenizer(DIR, { cleanUpTokenizationSpaces: false });
    expect(cleaned.cleanUpTokenizationSpaces).toBe(true); // from tokenizer_config.json
    expect(cleaned.configPath).toBe(join(DIR, 'tokenizer_config.json'));
    expect(cleaned.eosTokenIds).toEqual([1]);
    expect(cleaned.vocabSize).toBe(exp.vocabSize);
    expect(exp.cases).toHaveLength(40);
    for (const c of exp.cases) {
      expect(cleaned.decode(c.ids)).toBe(c.skipCleaned);
      expect(raw.decode(Int32Array.from(c.ids))).toBe(c.skip);
      expect(raw.decode(c.ids, { skipSpecialTokens: false })).toBe(c.keep);
    }
  });

  it('works without a tokenizer_config.json (no clean-up) and reports bad files', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tokenizer.json'), readFileSync(join(DIR, 'tokenizer.json')));
    const t = await loadTokenizer(dir);
    expect(t.cleanUpTokenizationSpaces).toBe(false);
    expect(t.configPath).toBeUndefined();
    expect(t.eosTokenIds).toEqual([]);
    writeFileSync(join(dir, 'bad.json'), '{"nope": 1}');
    await expect(loadTokenizer(join(dir, 'bad.json'))).rejects.toThrow(/no "model" section/);
    writeFileSync(join(dir, 'broken.json'), '{');
    await expect(loadTokenizer(join(dir, 'broken.json'))).rejects.toThrow(TokenizerError);
    await expect(loadTokenizer(join(dir, 'missing.json'))).rejects.toThrow(/no such file/);
    expect(() => t.decode([-1])).toThrow(/not a valid id/);
  });
});
