// Small tokenizers and logs written by the tests themselves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'lg-acc-'));
  dirs.push(d);
  return d;
}

/**
 * A WordLevel tokenizer.json: id i -> word(i) for the given ids, whitespace
 * pre-tokenizer, no decoder (ids decode to words joined by spaces), and the
 * given special tokens. Returns the file's path.
 */
export function wordLevelTokenizer(
  dir: string,
  ids: Iterable<number>,
  word: (id: number) => string,
  special: Record<number, string> = {},
  config?: Record<string, unknown>,
): string {
  const vocab: Record<string, number> = {};
  for (const id of ids) vocab[word(id)] = id;
  const added = Object.entries(special).map(([id, content]) => {
    vocab[content] = Number(id);
    return {
      id: Number(id),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    };
  });
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: Object.keys(vocab)[0] },
  };
  const path = join(dir, 'tokenizer.json');
  writeFileSync(path, JSON.stringify(json));
  if (config) writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  return path;
}

export function hexInt32(ids: readonly number[]): string {
  const b = Buffer.alloc(ids.length * 4);
  ids.forEach((v, i) => {
    b.writeInt32LE(v, i * 4);
  });
  return b.toString('hex').toUpperCase();
}

export interface LogLine {
  seq: number;
  qsl: number;
  ids: readonly number[];
  first?: readonly number[];
  count?: number;
}

/** An accuracy log in LoadGen's layout. */
export function writeLog(path: string, entries: readonly LogLine[], options: { close?: boolean } = {}): string {
  const lines = entries.map((e) => {
    let s = `{ "seq_id" : ${e.seq}, "qsl_idx" : ${e.qsl}, "data" : "${hexInt32(e.ids)}"`;
    if (e.first) s += `, "token_data" : "${hexInt32(e.first)}"`;
    s += `, "token_count" : ${e.count ?? e.ids.length} }`;
    return s;
  });
  writeFileSync(path, `[\n${lines.join(',\n')}${options.close === false ? ',\n' : '\n]\n'}`);
  return path;
}
