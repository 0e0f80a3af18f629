// run-state.json: written into the output directory when a run starts,
// refreshed with its progress while it goes, and finalised at the end. A run
// killed on the spot leaves 'running' with a process id that no longer
// exists: readers call it 'interrupted', so whatever the run produced (the
// partial MLPerf logs, the journal) is marked incomplete rather than taken
// for a finished run.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { redactText, scrubText } from '../core/redact.js';

export const RUN_STATE_FILE = 'run-state.json';
export const RUN_STATE_SCHEMA = '@x/loadgen/run-state';

export type RunStateName = 'running' | 'complete' | 'aborted' | 'stopped-by-budget' | 'incomplete' | 'interrupted';

export interface RunState {
  schema: typeof RUN_STATE_SCHEMA;
  state: RunStateName;
  pid: number;
  mode: string;
  scenario: string;
  startedAt: string;
  updatedAt: string;
  /** Accuracy and submission runs keep a journal and can be continued with --resume. */
  resumable: boolean;
  progress: { issued: number; completed: number; elapsedMs: number } | null;
  /** Why the run ended early, or what is missing. */
  note: string | null;
}

/** Writes run-state.json atomically (a reader never sees half of it). */
export function writeRunState(dir: string, s: RunState): void {
  const path = join(dir, RUN_STATE_FILE);
  const tmp = `${path}.tmp-${process.pid}`;
  // The note can quote an error: through the redaction rule.
  writeFileSync(
    tmp,
    scrubText(JSON.stringify({ ...s, note: s.note === null ? null : redactText(s.note) }, null, 2)) + '\n',
  );
  renameSync(tmp, path);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The directory's run state, 'running' turned into 'interrupted' when its process is gone; null when absent or unreadable. */
export function readRunState(dir: string): RunState | null {
  let s: RunState;
  try {
    s = JSON.parse(readFileSync(join(dir, RUN_STATE_FILE), 'utf8')) as RunState;
  } catch {
    return null;
  }
  if (s?.schema !== RUN_STATE_SCHEMA) return null;
  if (s.state === 'running' && s.pid !== process.pid && !alive(s.pid)) return { ...s, state: 'interrupted' };
  return s;
}

/** True when the directory's run did not finish (killed: 'interrupted') or left accuracy samples undone ('incomplete'). */
export function runLeftIncomplete(dir: string): boolean {
  const s = readRunState(dir);
  return s !== null && (s.state === 'interrupted' || s.state === 'incomplete');
}
