// A detail log as the submission checker reads it: the first message of each
// key (its LoadgenParser takes the first when a key repeats) and the
// messages flagged as errors.
import { readFileSync } from 'node:fs';

import { parseDetailText, type MlLogEntry } from '../report/read-logs.js';

export interface DetailView {
  path: string;
  has(key: string): boolean;
  /** The first value logged under `key` (undefined when absent). */
  value(key: string): unknown;
  /** The value as written: exact for 64-bit seeds. */
  text(key: string): string | undefined;
  num(key: string): number | undefined;
  errors: MlLogEntry[];
}

export function detailView(path: string, text: string = readFileSync(path, 'utf8')): DetailView {
  const log = parseDetailText(text, path);
  const first = new Map<string, MlLogEntry>();
  for (const e of log.entries) if (!first.has(e.key)) first.set(e.key, e);
  return {
    path,
    has: (k) => first.has(k),
    value: (k) => first.get(k)?.value,
    text: (k) => first.get(k)?.valueText,
    num: (k) => {
      const v = first.get(k)?.value;
      return typeof v === 'number' ? v : undefined;
    },
    errors: log.entries.filter((e) => e.isError),
  };
}
