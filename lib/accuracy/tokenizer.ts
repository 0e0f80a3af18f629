// Detokenising with a model's Hugging Face tokenizer.json through
// @huggingface/tokenizers (pure JavaScript, no network: the file is read from
// disk). tokenizer_config.json beside it, when present, supplies
// `clean_up_tokenization_spaces` and the EOS token, as transformers'
// AutoTokenizer would: MLPerf's scripts call
// tokenizer.batch_decode(ids, skip_special_tokens=True), which applies the
// clean-up (" ." -> ".", " n't" -> "n't", ...) when the config asks for it
// (Llama 3.1's does).

import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { Tokenizer } from '@huggingface/tokenizers';
import { ErrorCode, LoadgenError } from '../core/errors.js';

/** A problem loading a tokenizer or decoding with it. */
export class TokenizerError extends LoadgenError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(ErrorCode.Tokenizer, message);
  }
}

export interface LoadTokenizerOptions {
  /** tokenizer_config.json (default: the one beside tokenizer.json, if any). `null`: none. */
  configPath?: string | null;
  /** Override the config's `clean_up_tokenization_spaces` (default: the config's value, else false). */
  cleanUpTokenizationSpaces?: boolean;
}

export interface DecodeOptions {
  /** Drop special tokens (BOS, EOS, ...) from the text (MLPerf: true; gpt-oss: false). */
  skipSpecialTokens?: boolean;
}

export interface Detokenizer {
  /** The tokenizer.json read. */
  readonly path: string;
  /** The tokenizer_config.json read, if any. */
  readonly configPath?: string;
  readonly cleanUpTokenizationSpaces: boolean;
  /** Ids of the EOS token(s) named by the config (empty when unknown). */
  readonly eosTokenIds: readonly number[];
  /** Number of ids the vocabulary knows (added tokens included). */
  readonly vocabSize: number;
  decode(ids: ArrayLike<number>, options?: DecodeOptions): string;
  /** The id of a token string, if the vocabulary has it. */
  tokenToId(token: string): number | undefined;
}

async function readJson(path: string, what: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TokenizerError(
      code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read: ${(err as Error).message}`,
      path,
    );
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
    return v as Record<string, unknown>;
  } catch (err) {
    throw new TokenizerError(`${path}: not a valid ${what} (${(err as Error).message})`, path);
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function tokenContent(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string')
    return (v as { content: string }).content;
  return undefined;
}

/**
 * Loads a tokenizer from a tokenizer.json file (or a directory holding one).
 * Nothing is downloaded.
 */
export async function loadTokenizer(path: string, options: LoadTokenizerOptions = {}): Promise<Detokenizer> {
  let file = path;
  try {
    if ((await stat(path)).isDirectory()) file = join(path, 'tokenizer.json');
  } catch {
    throw new TokenizerError(`${path}: no such file`, path);
  }
  const json = await readJson(file, 'tokenizer.json');
  if (!json.model || typeof json.model !== 'object') {
    throw new TokenizerError(`${file}: not a Hugging Face tokenizer.json (no "model" section)`, file);
  }

  let configPath: string | undefined;
  if (options.configPath !== null) {
    const candidate = options.configPath ?? join(dirname(file), 'tokenizer_config.json');
    if (options.configPath !== undefined || (await isFile(candidate))) configPath = candidate;
  }
  const config = configPath ? await readJson(configPath, 'tokenizer_config.json') : {};
  const cleanUp =
    options.cleanUpTokenizationSpaces ??
    (typeof config.clean_up_tokenization_spaces === 'boolean' ? config.clean_up_tokenization_spaces : false);

  let tok: Tokenizer;
  try {
    tok = new Tokenizer(json, { ...config, clean_up_tokenization_spaces: cleanUp });
  } catch (err) {
    throw new TokenizerError(`${file}: cannot build the tokenizer: ${(err as Error).message}`, file);
  }

  const eos = tokenContent(config.eos_token);
  const eosId = eos !== undefined ? tok.token_to_id(eos) : undefined;
  const vocabSize = tok.get_vocab(true).size;

  const decode = (ids: ArrayLike<number>, o: DecodeOptions = {}): string => {
    const list = Array.from(ids);
    for (const id of list) {
      if (!Number.isInteger(id) || id < 0) throw new TokenizerError(`token id ${id} is not a valid id`, file);
    }
    try {
      return tok.decode(list, {
        skip_special_tokens: o.skipSpecialTokens ?? true,
        clean_up_tokenization_spaces: cleanUp,
      });
    } catch (err) {
      throw new TokenizerError(
        `${file}: cannot decode [${list.slice(0, 8).join(', ')}${list.length > 8 ? ', ...' : ''}]: ${(err as Error).message}`,
        file,
      );
    }
  };

  return {
    path: file,
    ...(configPath ? { configPath } : {}),
    cleanUpTokenizationSpaces: cleanUp,
    eosTokenIds: eosId !== undefined ? [eosId] : [],
    vocabSize,
    decode,
    tokenToId: (t: string) => tok.token_to_id(t),
  };
}
