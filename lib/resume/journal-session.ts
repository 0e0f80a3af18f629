// One run's journal, from the checks before anything starts to the clean-up
// at the end: accuracy and submission runs journal their accuracy pass into
// DIR/journal (journal.json: the configuration; seg-*.bin: the samples);
// `--resume DIR` continues such a run. Performance runs cannot be resumed
// (MLPerf: a run's latencies come from one continuous test).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { UsageError } from '../core/errors.js';
import { redactArgv, scrubText } from '../core/redact.js';
import type { TestMode } from '../core/settings.js';
import type { QuerySampleLibrary, SystemUnderTest } from '../core/start-test.js';
import type { JournalRecord } from './journal-format.js';
import { readJournal } from './journal-reader.js';
import type { JournalTarget } from './journal-writer.js';
import { ResumeWrapper } from './resume-sut.js';
import { configDifferences, configHash, type RunConfig } from './run-config.js';
import { readRunState } from './run-state.js';

export const JOURNAL_DIR = 'journal';
export const JOURNAL_HEADER = 'journal.json';
export const JOURNAL_SCHEMA = '@x/loadgen/journal';

interface JournalHeader {
  schema: typeof JOURNAL_SCHEMA;
  version: 1;
  configHash: string;
  config: RunConfig;
  createdAt: string;
  command: string[] | null;
}

/** What results.json says about the journal and the resume. */
export interface ResumeInfo {
  /** This run continued an earlier one (--resume). */
  resumed: boolean;
  /** Samples completed from the journal (not sent to any server). */
  restoredSamples: number;
  /** Samples of the accuracy pass. */
  accuracySamples: number;
  /** Samples of the accuracy pass in the journal at the end (restored + done in this run). */
  journaledSamples: number;
  /** Every accuracy sample is done (the journal was then removed unless the run was aborted). */
  complete: boolean;
  /** The journal directory while it is kept (the run can be resumed), else null. */
  journal: string | null;
  configHash: string;
  /** Bytes of torn records dropped from segment ends (a crash in mid-write). */
  tornBytes: number;
}

export function isJournaledMode(mode: TestMode): boolean {
  return mode === 'AccuracyOnly' || mode === 'SubmissionRun';
}

export class JournalSession {
  readonly dir: string;
  readonly target: JournalTarget;
  private readonly enabled: Int32Array;
  private records = new Map<number, JournalRecord>();
  private tornBytes = 0;
  private hash = '';
  private wrapper: ResumeWrapper | null = null;

  private constructor(
    readonly outdir: string,
    readonly resume: boolean,
    readonly accuracySamples: number,
  ) {
    this.dir = join(outdir, JOURNAL_DIR);
    const flag = new SharedArrayBuffer(4);
    this.enabled = new Int32Array(flag);
    this.enabled[0] = 1;
    this.target = { dir: this.dir, tag: `${Date.now().toString(36).padStart(9, '0')}-${process.pid}`, enabled: flag };
  }

  /**
   * Checks, before any server is touched, that the run may go ahead: a
   * resume needs a journaled mode and a journal; a fresh journaled run must
   * not bury an interrupted run's journal. Null when the mode keeps none.
   */
  static prepare(o: {
    outdir: string;
    resume: boolean;
    mode: TestMode;
    accuracySamples: number;
  }): JournalSession | null {
    const dir = join(o.outdir, JOURNAL_DIR);
    const hasJournal = existsSync(join(dir, JOURNAL_HEADER));
    if (o.resume && !isJournaledMode(o.mode)) {
      throw new UsageError(
        `--resume: ${o.mode} runs cannot be resumed: MLPerf requires a performance run's latencies to come from one continuous test. Run it again from the start (what the interrupted run wrote stays in ${o.outdir}, marked incomplete in run-state.json)`,
      );
    }
    if (o.resume && !hasJournal) {
      const state = readRunState(o.outdir);
      if (state?.state === 'complete' && isJournaledMode(state.mode as TestMode)) {
        throw new UsageError(
          `--resume ${o.outdir}: the ${state.mode} run there is complete (its journal was removed): nothing to resume`,
        );
      }
      const was = state ? `; run-state.json: a ${state.mode} run, ${state.state}` : '';
      const perf =
        state && !isJournaledMode(state.mode as TestMode)
          ? '; performance runs keep no journal and cannot be resumed: run it again'
          : '';
      throw new UsageError(
        `--resume ${o.outdir}: no journal there (${join(dir, JOURNAL_HEADER)} is missing${was})${perf}`,
      );
    }
    if (!isJournaledMode(o.mode)) return null;
    if (!o.resume && hasJournal) {
      const n = readJournal(dir).records.size;
      throw new UsageError(
        `${o.outdir} holds the journal of an unfinished run (${n} samples done): continue it with --resume ${o.outdir} and the same flags, or delete ${dir} (or pick another --output-dir) to start over`,
      );
    }
    return new JournalSession(o.outdir, o.resume, o.accuracySamples);
  }

  /** Compares this run's configuration with the journal's (resume), or starts the journal (fresh run). */
  begin(config: RunConfig, command: string[] | null): void {
    this.hash = configHash(config);
    const headerPath = join(this.dir, JOURNAL_HEADER);
    if (this.resume) {
      let header: JournalHeader;
      try {
        header = JSON.parse(readFileSync(headerPath, 'utf8')) as JournalHeader;
      } catch (err) {
        throw new UsageError(`--resume: ${headerPath} is unreadable: ${(err as Error).message}`);
      }
      if (header.schema !== JOURNAL_SCHEMA) throw new UsageError(`--resume: ${headerPath} is not a @x/loadgen journal`);
      if (header.configHash !== this.hash) {
        const diffs = configDifferences(header.config, config);
        const cmd = header.command ? `; the first run was: ${header.command.join(' ')}` : '';
        throw new UsageError(
          `--resume: this run's configuration differs from the journal's (${diffs.slice(0, 6).join('; ') || 'configuration hash differs'})${cmd}`,
        );
      }
      const j = readJournal(this.dir);
      this.records = j.records;
      this.tornBytes = j.tornBytes;
      return;
    }
    mkdirSync(this.dir, { recursive: true });
    const header: JournalHeader = {
      schema: JOURNAL_SCHEMA,
      version: 1,
      configHash: this.hash,
      config,
      createdAt: new Date().toISOString(),
      command: command ? redactArgv(command) : null,
    };
    writeFileSync(headerPath, scrubText(JSON.stringify(header, null, 2)) + '\n');
  }

  get restorable(): number {
    return this.records.size;
  }

  /** The SUT and QSL to hand to the engine. */
  wrap(inner: { sut: SystemUnderTest; qsl: QuerySampleLibrary }): { sut: SystemUnderTest; qsl: QuerySampleLibrary } {
    this.wrapper = new ResumeWrapper(inner, {
      accuracySamples: this.accuracySamples,
      records: this.records,
      enabled: this.enabled,
    });
    return this.wrapper;
  }

  /**
   * After the run (the adapter closed, so every segment is written): counts
   * what the journal holds and removes it once the run is complete; keeps it
   * when samples are missing or the run was aborted.
   */
  /** Output tokens of the samples completed from the journal in this run. */
  get restoredTokens(): number {
    return this.wrapper?.restoredTokens ?? 0;
  }

  finish(aborted: boolean): ResumeInfo {
    Atomics.store(this.enabled, 0, 0);
    const j = readJournal(this.dir);
    let done = 0;
    for (let i = 0; i < this.accuracySamples; i++) if (j.records.has(i)) done++;
    const complete = done >= this.accuracySamples;
    const keep = !complete || aborted;
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
    return {
      resumed: this.resume,
      restoredSamples: this.wrapper?.restored ?? 0,
      accuracySamples: this.accuracySamples,
      journaledSamples: done,
      complete,
      journal: keep ? this.dir : null,
      configHash: this.hash,
      tornBytes: this.tornBytes + j.tornBytes,
    };
  }
}
