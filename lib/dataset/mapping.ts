// Field mapping: which column of a dataset row plays which role in a Prompt,
// and the conversion of one raw row into a compact, validated sample.

import { DatasetError, type ChatMessage } from './types.js';

/** The roles a column can play. */
export const ROLES = ['tokenIds', 'text', 'messages', 'system', 'user', 'reference', 'maxTokens'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that can carry the prompt itself; every row needs each mapped one. */
export const PROMPT_ROLES: readonly Role[] = ['tokenIds', 'text', 'messages'];

/**
 * Names the column for each role. A string must name an existing column (else a
 * DatasetError lists the available ones); `null` turns the role off (no
 * auto-detection); an absent key falls back to the preset, then to auto-detection.
 */
export interface FieldMapping {
  /** Token-id prompt column (int list), e.g. `tok_input`. */
  tokenIds?: string | null;
  /** Text prompt column, e.g. `text_input`. */
  text?: string | null;
  /** Chat messages column (list of `{role, content}`, or a JSON string of one). */
  messages?: string | null;
  /** System prompt column: prepended as a system message. */
  system?: string | null;
  /** User message column used with `system` to build messages (default: the text column). */
  user?: string | null;
  /** Reference output column (string or int list), for accuracy scoring. */
  reference?: string | null;
  /** Per-row output cap column (positive integer). */
  maxTokens?: string | null;
}

/** Like FieldMapping, but each role may list candidate columns: the first present one is used. */
export type CandidateMapping = { readonly [R in Role]?: string | readonly string[] | null };

/** The column actually used for each role. */
export type ResolvedMapping = { [R in Role]?: string };

/** Columns tried, in order, when neither the mapping nor a preset names a role. */
export const AUTO_COLUMNS: { readonly [R in Role]: readonly string[] } = {
  tokenIds: ['input_tokens', 'tok_input', 'input_ids', 'prompt_token_ids'],
  text: ['text_input', 'prompt', 'input', 'question', 'user_prompt', 'input_text', 'problem', 'query'],
  messages: ['messages'],
  system: [],
  user: [],
  reference: ['output', 'ground_truth', 'ref_output', 'highlights'],
  maxTokens: ['max_tokens', 'max_output_tokens'],
};

/** A text prompt built from a template: Python `str.format_map` style `{column}` placeholders. */
export interface TextTemplate {
  /** A fixed template, e.g. `"Summarize:\n{article}"`. */
  template?: string;
  /**
   * A column holding the template per row: a string, or an object whose `key`
   * entry is the string (llama3.1-8b `instruction: {"llama": "...{input}..."}`).
   */
  column?: string;
  key?: string;
}

export interface ResolveInput {
  file: string;
  /** Columns known before reading rows (Parquet schema; JSON: keys of the first row). */
  columns: readonly string[];
  /** False when later rows may add columns (JSON/JSONL): optional roles are checked after reading. */
  columnsComplete: boolean;
  mapping?: FieldMapping;
  preset?: CandidateMapping;
  presetName?: string;
}

export interface Resolution {
  mapping: ResolvedMapping;
  /** Explicitly mapped optional columns not seen yet: must appear in some row. */
  unverified: Role[];
}

function listColumns(columns: readonly string[]): string {
  return columns.length ? columns.map((c) => `'${c}'`).join(', ') : '(none)';
}

export function unknownColumnError(
  file: string,
  role: string,
  column: string,
  columns: readonly string[],
): DatasetError {
  return new DatasetError(
    `${file}: mapping.${role} names column '${column}', which the dataset does not have; available columns: ${listColumns(columns)}`,
    file,
  );
}

/** Picks the column for each role: explicit mapping, then preset candidates, then auto-detection. */
export function resolveMapping(input: ResolveInput): Resolution {
  const { file, columns, columnsComplete, mapping = {}, preset = {} } = input;
  const have = new Set(columns);
  const out: ResolvedMapping = {};
  const unverified: Role[] = [];

  for (const key of Object.keys(mapping)) {
    if (!(ROLES as readonly string[]).includes(key)) {
      throw new DatasetError(`${file}: unknown mapping field '${key}'; known fields: ${ROLES.join(', ')}`, file);
    }
  }
  // Auto-detection of prompt roles stays off once the mapping or the preset names any.
  // (`null` only turns its own role off.)
  const namesPrompt = PROMPT_ROLES.some(
    (r) => typeof mapping[r] === 'string' || (preset[r] !== undefined && preset[r] !== null),
  );

  for (const role of ROLES) {
    const explicit = mapping[role];
    if (explicit === null) continue;
    if (explicit !== undefined) {
      if (typeof explicit !== 'string' || explicit === '') {
        throw new DatasetError(`${file}: mapping.${role} must be a column name, got ${JSON.stringify(explicit)}`, file);
      }
      if (!have.has(explicit)) {
        const optional = !PROMPT_ROLES.includes(role);
        if (columnsComplete || !optional) throw unknownColumnError(file, role, explicit, columns);
        unverified.push(role);
      }
      out[role] = explicit;
      continue;
    }
    const fromPreset = preset[role];
    if (fromPreset === null) continue;
    if (fromPreset !== undefined) {
      const candidates = typeof fromPreset === 'string' ? [fromPreset] : fromPreset;
      const found = candidates.find((c) => have.has(c));
      if (found !== undefined) out[role] = found;
      continue;
    }
    if (namesPrompt && PROMPT_ROLES.includes(role)) continue;
    const found = AUTO_COLUMNS[role].find((c) => have.has(c));
    if (found !== undefined) out[role] = found;
  }
  return { mapping: out, unverified };
}

/** The error when no prompt column could be found. */
export function noPromptError(file: string, columns: readonly string[], presetName?: string): DatasetError {
  const looked = presetName
    ? `the preset '${presetName}' columns`
    : `tokenIds [${AUTO_COLUMNS.tokenIds.join(', ')}], text [${AUTO_COLUMNS.text.join(', ')}], messages [${AUTO_COLUMNS.messages.join(', ')}]`;
  return new DatasetError(
    `${file}: no prompt column found (looked for ${looked}); set mapping.tokenIds, mapping.text or mapping.messages; available columns: ${listColumns(columns)}`,
    file,
  );
}

/** One row after validation, in compact form. */
export interface StoredRow {
  tokenIds?: Int32Array;
  text?: string;
  messages?: ChatMessage[];
  reference?: string | number[];
  maxTokens?: number;
}

/** Where a row sits in its file, for error messages. */
export interface RowPosition {
  /** 'row': 0-based element index (JSON array, Parquet); 'line': 1-based line number (JSONL). */
  unit: 'row' | 'line';
  at: number;
}

export function rowError(file: string, pos: RowPosition, message: string): DatasetError {
  return new DatasetError(`${file}: ${pos.unit} ${pos.at}: ${message}`, file, pos.at);
}

const INT32_MAX = 0x7fffffff;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)})`;
  if (typeof v === 'object') return ArrayBuffer.isView(v) ? v.constructor.name : 'an object';
  return `${typeof v} ${String(v)}`;
}

function isListLike(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

/** Converts an int list (array, typed array, bigint elements) to Int32Array, or returns an error message. */
export function toTokenIds(v: unknown): Int32Array | string {
  if (!isListLike(v)) return `expected a list of token ids, got ${describe(v)}`;
  if (v instanceof Int32Array) {
    for (let i = 0; i < v.length; i++) {
      if (v[i]! < 0) return `token id at position ${i} is ${v[i]}, expected a non-negative integer`;
    }
    return v.length ? v.slice() : 'empty token list';
  }
  const n = v.length;
  if (n === 0) return 'empty token list';
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = (v as ArrayLike<unknown>)[i];
    let num: number;
    if (typeof x === 'number') {
      num = x;
    } else if (typeof x === 'bigint') {
      if (x < 0n || x > BigInt(INT32_MAX))
        return `token id at position ${i} is ${x}, expected a non-negative 32-bit integer`;
      num = Number(x);
    } else {
      return `token id at position ${i} is ${describe(x)}, expected a non-negative integer`;
    }
    if (!Number.isInteger(num) || num < 0 || num > INT32_MAX) {
      return `token id at position ${i} is ${num}, expected a non-negative 32-bit integer`;
    }
    out[i] = num;
  }
  return out;
}

function toMessages(v: unknown): ChatMessage[] | string {
  let value = v;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return `expected a list of messages (or its JSON), got ${describe(v)}`;
    }
  }
  if (!Array.isArray(value)) return `expected a list of {role, content} messages, got ${describe(value)}`;
  if (value.length === 0) return 'empty message list';
  const out: ChatMessage[] = [];
  for (let i = 0; i < value.length; i++) {
    const m = value[i] as { role?: unknown; content?: unknown } | null;
    if (!m || typeof m !== 'object') return `message ${i} is ${describe(m)}, expected {role, content}`;
    if (typeof m.role !== 'string' || m.role === '') return `message ${i} has no string 'role'`;
    if (typeof m.content !== 'string') return `message ${i} has ${describe(m.content)} as 'content', expected a string`;
    out.push({ role: m.role, content: m.content });
  }
  return out;
}

function toPositiveInt(v: unknown): number | string {
  const num = typeof v === 'bigint' ? Number(v) : v;
  if (typeof num !== 'number' || !Number.isSafeInteger(num) || num < 1) {
    return `expected a positive integer, got ${describe(v)}`;
  }
  return num;
}

/** Python `str.format_map` subset: `{name}` from the row, `{{`/`}}` for braces. */
export function formatTemplate(template: string, row: Record<string, unknown>): string | { missing: string } {
  let missing: string | undefined;
  const text = template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, name: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const v = row[name!];
    if (v === undefined || v === null) {
      missing ??= name!;
      return '';
    }
    return typeof v === 'string' ? v : String(v);
  });
  return missing === undefined ? text : { missing };
}

export interface ConverterOptions {
  file: string;
  mapping: ResolvedMapping;
  textTemplate?: TextTemplate;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** Builds the function that validates one raw row and stores what the mapping uses. */
export function makeRowConverter(opts: ConverterOptions): (raw: unknown, pos: RowPosition) => StoredRow {
  const { file, mapping, textTemplate } = opts;
  const m = mapping;
  return (raw, pos) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw rowError(file, pos, `expected an object, got ${describe(raw)}`);
    }
    const row = raw as Record<string, unknown>;
    const fail = (role: Role, column: string, message: string): never => {
      throw rowError(file, pos, `column '${column}' (${role}): ${message}`);
    };
    const out: StoredRow = {};

    if (m.tokenIds !== undefined) {
      const v = row[m.tokenIds];
      if (!present(v)) fail('tokenIds', m.tokenIds, 'missing prompt field');
      const ids = toTokenIds(v);
      if (typeof ids === 'string') fail('tokenIds', m.tokenIds, ids);
      out.tokenIds = ids as Int32Array;
    }

    let text: string | undefined;
    if (textTemplate) {
      let template = textTemplate.template;
      if (textTemplate.column !== undefined) {
        const t = row[textTemplate.column];
        const fromKey =
          textTemplate.key !== undefined && t && typeof t === 'object'
            ? (t as Record<string, unknown>)[textTemplate.key]
            : t;
        if (typeof fromKey !== 'string') {
          fail(
            'text',
            textTemplate.column,
            `expected a template string${textTemplate.key ? ` at key '${textTemplate.key}'` : ''}, got ${describe(fromKey)}`,
          );
        }
        template = fromKey as string;
      }
      const r = formatTemplate(template ?? '', row);
      if (typeof r !== 'string')
        fail('text', textTemplate.column ?? 'template', `template placeholder {${r.missing}} has no value in this row`);
      text = r as string;
    } else if (m.text !== undefined) {
      const v = row[m.text];
      if (!present(v)) fail('text', m.text, 'missing prompt field');
      if (typeof v !== 'string') fail('text', m.text, `expected a string, got ${describe(v)}`);
      text = v as string;
    }
    if (text !== undefined) {
      if (text === '' && out.tokenIds === undefined && m.messages === undefined) {
        fail('text', m.text ?? 'template', 'empty text prompt');
      }
      out.text = text;
    }

    let messages: ChatMessage[] | undefined;
    if (m.messages !== undefined) {
      const v = row[m.messages];
      if (!present(v)) fail('messages', m.messages, 'missing prompt field');
      const msgs = toMessages(v);
      if (typeof msgs === 'string') fail('messages', m.messages, msgs);
      messages = msgs as ChatMessage[];
    }
    let system: string | undefined;
    if (m.system !== undefined) {
      const v = row[m.system];
      if (present(v)) {
        if (typeof v !== 'string') fail('system', m.system, `expected a string, got ${describe(v)}`);
        if (v !== '') system = v as string;
      }
    }
    let user: string | undefined;
    if (m.user !== undefined) {
      const v = row[m.user];
      if (!present(v)) fail('user', m.user, 'missing user message');
      if (typeof v !== 'string') fail('user', m.user, `expected a string, got ${describe(v)}`);
      user = v as string;
    }
    if (messages) {
      if (system !== undefined && messages[0]?.role !== 'system') messages.unshift({ role: 'system', content: system });
      out.messages = messages;
    } else if (m.system !== undefined || m.user !== undefined) {
      const content = user ?? out.text;
      if (content !== undefined) {
        out.messages =
          system !== undefined
            ? [
                { role: 'system', content: system },
                { role: 'user', content },
              ]
            : [{ role: 'user', content }];
      }
    }

    if (m.reference !== undefined) {
      const v = row[m.reference];
      if (typeof v === 'string') out.reference = v;
      else if (typeof v === 'number' || typeof v === 'bigint') out.reference = String(v);
      else if (isListLike(v)) {
        const ids = toTokenIds(v);
        if (typeof ids === 'string') fail('reference', m.reference, ids);
        out.reference = Array.from(ids as Int32Array);
      } else if (present(v)) fail('reference', m.reference, `expected a string or a token list, got ${describe(v)}`);
    }

    if (m.maxTokens !== undefined) {
      const v = row[m.maxTokens];
      if (present(v)) {
        const n = toPositiveInt(v);
        if (typeof n === 'string') fail('maxTokens', m.maxTokens, n);
        out.maxTokens = n as number;
      }
    }

    if (out.tokenIds === undefined && out.text === undefined && out.messages === undefined) {
      throw rowError(file, pos, 'missing prompt field: no token ids, text or messages');
    }
    return out;
  };
}
