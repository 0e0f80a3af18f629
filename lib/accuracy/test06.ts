// The three checks of MLPerf's compliance TEST06 (compliance/TEST06/
// run_verification.py), over every entry of an accuracy log (no
// de-duplication, as there):
//   1. first token: the first-token ids (`token_data`) agree with the start of
//      the output (`data`), compared position by position over the shorter of
//      the two; skipped for Offline, which logs no first tokens;
//   2. EOS: the output ends with at most one EOS id (positions after the first
//      are looked at, as the reference's loop stops before index 0);
//   3. sample length: the number of output ids equals `token_count`.
// The report text has the lines of the reference's verify_accuracy.txt.

import type { AccuracyLogEntry } from './accuracy-log.js';

export interface Test06Failure {
  seqId: number;
  qslIdx: number;
  reason: string;
}

export interface Test06Check {
  /** False when the check does not apply (first-token check for Offline). */
  checked: boolean;
  pass: boolean;
  /** Entries that fail (the first 20; `failures` counts them all). */
  examples: Test06Failure[];
  failures: number;
}

export interface Test06Report {
  eosTokenId: number;
  firstToken: Test06Check;
  eos: Test06Check;
  sampleLength: Test06Check;
  pass: boolean;
  /** verify_accuracy.txt's lines. */
  text: string;
}

export interface Test06Options {
  /** EOS id of the tokenizer (the reference's default is 2). */
  eosTokenId?: number;
  /** 'Offline' skips the first-token check; by default it runs when any entry carries first tokens. */
  scenario?: string;
}

const MAX_EXAMPLES = 20;

function newCheck(checked: boolean): Test06Check {
  return { checked, pass: true, examples: [], failures: 0 };
}

function fail(c: Test06Check, e: AccuracyLogEntry, reason: string): void {
  c.pass = false;
  c.failures++;
  if (c.examples.length < MAX_EXAMPLES) c.examples.push({ seqId: e.seqId, qslIdx: e.qslIdx, reason });
}

/** Number of EOS ids at the end of `ids`, looking at positions 1.. only (as the reference does). */
export function trailingEosCount(ids: ArrayLike<number>, eos: number): number {
  let n = 0;
  for (let i = ids.length - 1; i > 0 && ids[i] === eos; i--) n++;
  return n;
}

/** Runs the three TEST06 checks over all entries. */
export function runTest06(entries: readonly AccuracyLogEntry[], options: Test06Options = {}): Test06Report {
  const eos = options.eosTokenId ?? 2;
  const wantFirst =
    options.scenario !== undefined ? options.scenario !== 'Offline' : entries.some((e) => e.firstTokens !== undefined);
  const firstToken = newCheck(wantFirst);
  const eosCheck = newCheck(true);
  const sampleLength = newCheck(true);

  for (const e of entries) {
    if (e.malformed) {
      // The reference's checks raise on undecodable bytes: each counts as failed.
      fail(eosCheck, e, e.malformed);
      if (wantFirst) fail(firstToken, e, e.malformed);
      fail(sampleLength, e, e.malformed);
      continue;
    }
    if (wantFirst) {
      if (e.firstTokens === undefined) {
        fail(firstToken, e, 'no token_data (first token) in the entry');
      } else {
        const n = Math.min(e.firstTokens.length, e.tokens.length);
        for (let i = 0; i < n; i++) {
          if (e.firstTokens[i] !== e.tokens[i]) {
            fail(
              firstToken,
              e,
              `first-token id ${e.firstTokens[i]} at position ${i} but the output has ${e.tokens[i]}`,
            );
            break;
          }
        }
      }
    }
    const trailing = trailingEosCount(e.tokens, eos);
    if (trailing >= 2) fail(eosCheck, e, `output ends with ${trailing} EOS ids (${eos})`);
    if (e.tokenCount === undefined) {
      fail(sampleLength, e, 'no token_count in the entry');
    } else if (e.tokenCount !== e.tokens.length) {
      fail(sampleLength, e, `token_count ${e.tokenCount} but ${e.tokens.length} output ids`);
    }
  }

  const pass = firstToken.pass && eosCheck.pass && sampleLength.pass;
  const py = (b: boolean): string => (b ? 'True' : 'False');
  const text =
    `First token check pass: ${wantFirst ? py(firstToken.pass) : 'Skipped'}\n` +
    `EOS check pass: ${py(eosCheck.pass)}\n` +
    `Sample length check pass: ${py(sampleLength.pass)}\n` +
    `TEST06 verification ${pass ? 'complete' : 'failed'}\n`;
  return { eosTokenId: eos, firstToken, eos: eosCheck, sampleLength, pass, text };
}
