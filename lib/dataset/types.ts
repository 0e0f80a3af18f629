// What the SUT adapters need from a dataset: one prompt per sample index.
// Loaders (JSON, JSONL, Parquet, synthetic) all produce this shape.
import { ErrorCode, LoadgenError } from '../core/errors.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content: string;
}

/** One sample's request input. At least one of tokenIds, text or messages is set. */
export interface Prompt {
  /** Token-id prompt (used verbatim: no BOS is added by the server). */
  tokenIds?: Int32Array | readonly number[];
  /** Raw text prompt. */
  text?: string;
  /** Chat messages (for the chat API); built from `text` as one user message when absent. */
  messages?: readonly ChatMessage[];
  /** Output cap for this sample; the run's maxTokens when absent. */
  maxTokens?: number;
  /** Least output tokens for this sample (vLLM min_tokens, SGLang min_new_tokens); the run's when absent. */
  minTokens?: number;
  /** Generate past EOS for this sample; the run's setting when absent. */
  ignoreEos?: boolean;
  /** Reference output (accuracy scoring), when the dataset has one. */
  reference?: string | readonly number[];
  /** Chat API: tool definitions offered with this prompt (OpenAI `tools`), e.g. replayed conversations. */
  tools?: readonly unknown[];
}

/** A dataset: maps a sample index (0 .. size-1) to its prompt. */
export interface Dataset {
  readonly name: string;
  readonly size: number;
  /** The prompt of sample `index`; throws DatasetError for a malformed row. */
  prompt(index: number): Prompt;
}

/** A dataset problem, naming the file and row (or line) that is wrong. */
export class DatasetError extends LoadgenError {
  constructor(
    message: string,
    readonly file?: string,
    readonly row?: number,
  ) {
    super(ErrorCode.Dataset, message);
  }
}
