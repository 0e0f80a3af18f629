// The exit codes of `loadgen run` and `loadgen probe`: scripts branch on
// them (e.g. lower the target QPS on INVALID, page someone on 3).
export const ExitCode = {
  /** The run finished and the result is VALID (or an accuracy run finished). */
  Valid: 0,
  /** The run finished and the result is INVALID. */
  Invalid: 1,
  /** Bad flags, config file, settings or dataset: nothing was run. */
  Usage: 2,
  /** No endpoint answered, or every request failed. */
  Endpoint: 3,
  /** A bug or an unexpected failure (the message says which). */
  Internal: 4,
  /** A budget (--budget-tokens, --budget-cost, --budget-minutes) ended the run; logs and results are written. */
  Budget: 5,
  /** Interrupted by Ctrl-C (128 + SIGINT); the logs written so far are kept. */
  Interrupted: 130,
  /** Stopped by SIGTERM (128 + 15; e.g. `docker stop`, a scheduler's time limit): the test ended with its logs and results written. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
