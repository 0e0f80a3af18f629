// openDataset: read a JSON / JSONL / Parquet file into a compact, validated
// in-memory dataset. Every row is checked at open time; only the mapped columns
// are kept (token ids as one Int32Array per row).

import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DatasetError, type Dataset, type Prompt } from './types.js';
import {
  PROMPT_ROLES,
  makeRowConverter,
  noPromptError,
  resolveMapping,
  rowError,
  unknownColumnError,
  type FieldMapping,
  type ResolvedMapping,
  type Role,
  type StoredRow,
  type TextTemplate,
} from './mapping.js';
import { datasetPreset, type DatasetPreset } from './presets.js';
import { firstByte, type DatasetFormat, type RowSource } from './source.js';
import { jsonArraySource } from './json.js';
import { jsonLinesSource } from './jsonl.js';
import { parquetSource } from './parquet.js';

export interface OpenDatasetOptions {
  /** File format; default from the extension (.json, .jsonl/.ndjson, .parquet/.pq; .gz allowed for JSON/JSONL). */
  format?: DatasetFormat;
  /** Column per role; overrides the preset and auto-detection role by role. */
  mapping?: FieldMapping;
  /** An MLPerf preset name (see DATASET_PRESETS), e.g. `llama3_1-8b`. */
  preset?: string;
  /** Read only the first `limit` rows. */
  limit?: number;
  /** Output cap for rows without a per-row value (default: the preset's). */
  maxTokens?: number;
  /** Text prompt from a template with `{column}` placeholders (Python format_map style); overrides the text column. */
  textTemplate?: string;
  /** Dataset name; default the preset name, else the file name. */
  name?: string;
}

/** A dataset read from a file. */
export interface LoadedDataset extends Dataset {
  readonly path: string;
  readonly format: DatasetFormat;
  /** The column used for each role. */
  readonly columns: Readonly<ResolvedMapping>;
  /** When set, text prompts come from this template rather than `columns.text`. */
  readonly textTemplate?: Readonly<TextTemplate>;
  /** The columns the file has (Parquet: schema; JSON/JSONL: keys of the first row). */
  readonly availableColumns: readonly string[];
  readonly preset?: DatasetPreset;
  /** Output cap for rows without their own. */
  readonly defaultMaxTokens?: number;
  /** Decisions worth logging (format fallback, text template, …). */
  readonly notes: readonly string[];
}

class StoredDataset implements LoadedDataset {
  readonly size: number;

  constructor(
    readonly name: string,
    private readonly rows: readonly StoredRow[],
    readonly path: string,
    readonly format: DatasetFormat,
    readonly columns: Readonly<ResolvedMapping>,
    readonly textTemplate: Readonly<TextTemplate> | undefined,
    readonly availableColumns: readonly string[],
    readonly preset: DatasetPreset | undefined,
    readonly defaultMaxTokens: number | undefined,
    readonly notes: readonly string[],
  ) {
    this.size = rows.length;
  }

  prompt(index: number): Prompt {
    const r = this.rows[index];
    if (r === undefined || !Number.isInteger(index)) {
      throw new DatasetError(`${this.path}: sample index ${index} out of range 0..${this.size - 1}`, this.path, index);
    }
    const p: Prompt = {};
    if (r.tokenIds) p.tokenIds = r.tokenIds;
    if (r.text !== undefined) p.text = r.text;
    if (r.messages) p.messages = r.messages;
    const maxTokens = r.maxTokens ?? this.defaultMaxTokens;
    if (maxTokens !== undefined) p.maxTokens = maxTokens;
    if (r.reference !== undefined) p.reference = r.reference;
    return p;
  }
}

function formatFromPath(path: string): { format?: DatasetFormat; gzip: boolean } {
  let name = path.toLowerCase();
  const gzip = name.endsWith('.gz');
  if (gzip) name = name.slice(0, -3);
  if (name.endsWith('.json')) return { format: 'json', gzip };
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return { format: 'jsonl', gzip };
  if (name.endsWith('.parquet') || name.endsWith('.pq')) return { format: 'parquet', gzip };
  return { gzip };
}

function checkCount(what: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
    throw new DatasetError(`${what} must be a positive integer, got ${String(v)}`);
  }
}

/** `{name}` placeholders of a format_map template (not `{{` / `}}`). */
function placeholders(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)) if (m[1] !== undefined) out.push(m[1]);
  return out;
}

/**
 * Reads a dataset file. Rows are validated as they are read: a malformed row
 * throws a DatasetError naming the file and the row (0-based index for JSON
 * arrays and Parquet, which is the sample index) or line (1-based, JSONL).
 */
export async function openDataset(path: string, options: OpenDatasetOptions = {}): Promise<LoadedDataset> {
  checkCount('limit', options.limit);
  checkCount('maxTokens', options.maxTokens);
  const preset = options.preset !== undefined ? datasetPreset(options.preset) : undefined;

  try {
    const s = await stat(path);
    if (!s.isFile()) throw new DatasetError(`${path}: not a file`, path);
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new DatasetError(
      code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read: ${(e as Error).message}`,
      path,
    );
  }

  const detected = formatFromPath(path);
  const format = options.format ?? detected.format;
  if (!format) {
    throw new DatasetError(
      `${path}: cannot tell the format from the file name; pass format 'json', 'jsonl' or 'parquet'`,
      path,
    );
  }
  if (format !== 'json' && format !== 'jsonl' && format !== 'parquet') {
    throw new DatasetError(`${path}: unknown format '${String(format)}'; expected 'json', 'jsonl' or 'parquet'`, path);
  }
  const notes: string[] = [];
  let source: RowSource;
  if (format === 'parquet') {
    if (detected.gzip)
      throw new DatasetError(`${path}: gzipped Parquet is not supported (Parquet compresses its own pages)`, path);
    source = await parquetSource(path);
  } else if (format === 'jsonl') {
    source = jsonLinesSource(path, detected.gzip);
  } else {
    const c = await firstByte(path, detected.gzip);
    if (c === 0x7b /* { */) {
      notes.push('the .json file holds JSON lines (one object per line): read as JSONL');
      source = jsonLinesSource(path, detected.gzip);
    } else {
      source = jsonArraySource(path, detected.gzip);
    }
  }

  try {
    const explicit = options.mapping ?? {};
    let resolved: ResolvedMapping | undefined;
    let unverified: Role[] = [];
    let available: readonly string[] = [];
    let select: string[] | undefined;
    let convert: ReturnType<typeof makeRowConverter> | undefined;
    let usedTemplate: TextTemplate | undefined;

    const resolve = (columns: readonly string[], complete: boolean): void => {
      available = columns;
      const r = resolveMapping({
        file: path,
        columns,
        columnsComplete: complete,
        mapping: explicit,
        preset: preset?.mapping,
        presetName: preset?.name,
      });
      const m = r.mapping;
      unverified = r.unverified;
      // A preset's system prompt goes with its own user column only.
      if (preset?.mapping.user && m.user === undefined && explicit.system === undefined) delete m.system;

      let template: TextTemplate | undefined;
      if (options.textTemplate !== undefined) {
        template = { template: options.textTemplate };
        for (const name of placeholders(options.textTemplate)) {
          if (!columns.includes(name)) throw unknownColumnError(path, 'textTemplate', name, columns);
        }
        notes.push('text prompts: built from the textTemplate option');
      } else if (
        preset?.textTemplate?.column &&
        explicit.text === undefined &&
        columns.includes(preset.textTemplate.column)
      ) {
        template = preset.textTemplate;
        const key = template.key !== undefined ? `.${template.key}` : '';
        notes.push(`text prompts: the per-row template ${template.column}${key}, filled from the row`);
      } else if (preset?.textTemplate && m.text !== undefined) {
        notes.push(`text prompts: column '${m.text}' as is (no '${preset.textTemplate.column}' template column)`);
      }
      if (template && explicit.text === undefined) delete m.text;
      if (!PROMPT_ROLES.some((role) => m[role] !== undefined) && !template)
        throw noPromptError(path, columns, preset?.name);

      if (template?.column !== undefined && template.template === undefined) {
        select = undefined; // placeholders are only known per row: decode every column
      } else {
        const cols = new Set<string>(Object.values(m).filter((c): c is string => c !== undefined));
        if (template?.template !== undefined) for (const name of placeholders(template.template)) cols.add(name);
        select = [...cols].filter((c) => columns.includes(c));
      }
      resolved = m;
      usedTemplate = template;
      convert = makeRowConverter({ file: path, mapping: m, textTemplate: template });
    };

    if (source.columns) resolve(source.columns, true);

    const rows: StoredRow[] = [];
    const seen = new Set<string>();
    const union = new Set<string>();
    for await (const { value, at } of source.rows({ columns: select, limit: options.limit })) {
      const pos = { unit: source.unit, at };
      if (!convert) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          throw rowError(
            path,
            pos,
            `expected an object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
          );
        }
        resolve(Object.keys(value), false);
      }
      if (unverified.length) {
        const row = value as Record<string, unknown>;
        for (const k of Object.keys(row)) union.add(k);
        for (const role of unverified) if (row[resolved![role]!] !== undefined) seen.add(role);
      }
      rows.push(convert!(value, pos));
    }
    for (const role of unverified) {
      if (!seen.has(role)) throw unknownColumnError(path, role, resolved![role]!, [...union]);
    }
    if (rows.length === 0) throw new DatasetError(`${path}: the dataset has no rows`, path);

    return new StoredDataset(
      options.name ?? preset?.name ?? basename(path),
      rows,
      path,
      source.format,
      Object.freeze({ ...resolved! }),
      usedTemplate && Object.freeze({ ...usedTemplate }),
      Object.freeze([...available]),
      preset,
      options.maxTokens ?? preset?.maxTokens,
      Object.freeze(notes),
    );
  } finally {
    await source.close();
  }
}
