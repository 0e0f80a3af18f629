// The SUT and QSL a journaled run hands to the engine. During the accuracy
// pass, samples already in the journal are completed at once from it, with
// the bytes, token count and first-token data the engine got the first time
// (so their accuracy-log entries are the same); only the others go to the
// servers. The QSL side tells when the accuracy pass is over (a submission
// run goes on with its performance pass, which is never taken from the
// journal nor written to it).
import { firstTokenComplete, querySamplesComplete, type QuerySampleResponse } from '../core/complete.js';
import type { QuerySample, QuerySampleLibrary, SystemUnderTest } from '../core/start-test.js';
import { FIRST_TOKEN_ABSENT, FIRST_TOKEN_DATA, type JournalRecord } from './journal-format.js';

export interface ResumeWrapOptions {
  /** Samples of the accuracy pass (accuracySampleCountOverride, else the QSL's total). */
  accuracySamples: number;
  /** Journaled samples (empty for a fresh run). */
  records: Map<number, JournalRecord>;
  /** The journal switch shared with the adapter's threads ([0] = 1 while journaling). */
  enabled: Int32Array;
}

export class ResumeWrapper {
  readonly sut: SystemUnderTest;
  readonly qsl: QuerySampleLibrary;
  /** Samples completed from the journal in this run. */
  restored = 0;
  /** Their output tokens (the summary of an accuracy pass has no token count). */
  restoredTokens = 0;
  private accuracyPass = true;
  private readonly unloaded: Uint8Array;
  private unloadedCount = 0;

  constructor(
    inner: { sut: SystemUnderTest; qsl: QuerySampleLibrary },
    private readonly o: ResumeWrapOptions,
  ) {
    this.unloaded = new Uint8Array(inner.qsl.totalSampleCount);
    this.sut = {
      name: inner.sut.name,
      issueQuery: (samples) => this.issue(inner.sut, samples),
      flushQueries: () => inner.sut.flushQueries(),
    };
    this.qsl = {
      name: inner.qsl.name,
      totalSampleCount: inner.qsl.totalSampleCount,
      performanceSampleCount: inner.qsl.performanceSampleCount,
      loadSamplesToRam: (indices) => inner.qsl.loadSamplesToRam(indices),
      unloadSamplesFromRam: (indices) => {
        this.noteUnload(indices);
        return inner.qsl.unloadSamplesFromRam(indices);
      },
    };
  }

  /** True until every accuracy sample has been issued, completed and unloaded. */
  get inAccuracyPass(): boolean {
    return this.accuracyPass;
  }

  // The accuracy pass loads, issues and unloads its sets one after the other,
  // waiting for every completion: once A distinct samples were unloaded it is over.
  private noteUnload(indices: number[]): void {
    if (!this.accuracyPass) return;
    for (const i of indices) {
      if (i < this.unloaded.length && this.unloaded[i] === 0) {
        this.unloaded[i] = 1;
        this.unloadedCount++;
      }
    }
    if (this.unloadedCount >= this.o.accuracySamples) {
      this.accuracyPass = false;
      Atomics.store(this.o.enabled, 0, 0);
    }
  }

  private issue(inner: SystemUnderTest, samples: QuerySample[]): void {
    const records = this.o.records;
    if (!this.accuracyPass || records.size === 0) {
      inner.issueQuery(samples);
      return;
    }
    let rest: QuerySample[] | null = null;
    let firsts: QuerySampleResponse[] | null = null;
    let dones: QuerySampleResponse[] | null = null;
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i];
      const r = records.get(s.index);
      if (r === undefined) {
        (rest ??= []).push(s);
        continue;
      }
      if (r.firstToken !== FIRST_TOKEN_ABSENT) {
        (firsts ??= []).push(
          r.firstToken === FIRST_TOKEN_DATA && r.data.length >= 4
            ? { id: s.id, data: r.data.subarray(0, 4) }
            : { id: s.id },
        );
      }
      (dones ??= []).push(
        r.data.length > 0 ? { id: s.id, data: r.data, nTokens: r.nTokens } : { id: s.id, nTokens: r.nTokens },
      );
      this.restoredTokens += r.nTokens;
    }
    // The servers' share first, so they start working at once.
    if (rest !== null) inner.issueQuery(rest.length === samples.length ? samples : rest);
    if (firsts !== null) firstTokenComplete(firsts);
    if (dones !== null) {
      querySamplesComplete(dones);
      this.restored += dones.length;
    }
  }
}
