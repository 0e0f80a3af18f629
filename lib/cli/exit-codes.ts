// The exit codes of `loadgen run` and `loadgen probe`: scripts branch on
// them (e.g. lower the target QPS on INVALID, page someone on 3).
export const ExitCode = {
  /** The run finished, the result is VALID (or an accuracy run finished) and no sample failed. */
  Valid: 0,
  /** The run finished and LoadGen's result is INVALID (no sample failed: see Failed). */
  Invalid: 1,
  /** Bad flags, config file, settings or dataset: nothing was run. */
  Usage: 2,
  /** No endpoint answered, or every request failed. */
  Endpoint: 3,
  /** A bug or an unexpected failure (the message says which). */
  Internal: 4,
  /** A budget (--budget-tokens, --budget-cost, --budget-minutes) ended the run; logs and results are written. */
  Budget: 5,
  /**
   * The run finished, but samples failed (errors, timeouts, resets, error
   * events) or LoadGen logged errors: the MLPerf submission checker rejects
   * such logs, whatever LoadGen's own VALID/INVALID (the result line and
   * results.json's verdict.run say how many). Every sample failing is 3.
   */
  Failed: 6,
  /** An endpoint was busy with requests that were not the run's (another client?): nothing was run; --allow-busy-server runs anyway. */
  ServerBusy: 7,
  /**
   * --strict only: the run finished VALID or INVALID, but the harness's
   * verdict on its own measurement is harness-limited (docs/measurement.md):
   * its figures say more about the client than about the servers.
   */
  HarnessLimited: 8,
  /** Interrupted by Ctrl-C (128 + SIGINT); the logs written so far are kept. */
  Interrupted: 130,
  /** Stopped by SIGTERM (128 + 15; e.g. `docker stop`, a scheduler's time limit): the test ended with its logs and results written. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
