// One base for every error the library throws on purpose. Each carries a
// stable `code` that callers branch on (the CLI maps codes to exit codes in
// lib/cli/errors.ts, and nowhere else); messages are for people and may change.

/** The stable codes, one per kind of failure a caller can act on. */
export const ErrorCode = {
  /** A TestSettings or LogSettings value the engine cannot run with. */
  Settings: 'LOADGEN_SETTINGS',
  /** An mlperf.conf / user.conf / audit.config that does not parse. */
  Config: 'LOADGEN_CONFIG',
  /** Bad input to a command or a run: flags, option combinations, config files. */
  Usage: 'LOADGEN_USAGE',
  /** A dataset file that cannot be read or mapped. */
  Dataset: 'LOADGEN_DATASET',
  /** A conversations file (multi-turn) that cannot be read. */
  Conversation: 'LOADGEN_CONVERSATION',
  /** An endpoint URL or option that is malformed. */
  Endpoint: 'LOADGEN_ENDPOINT',
  /** No endpoint could be used, or every request failed. */
  EndpointFailure: 'LOADGEN_ENDPOINT_FAILURE',
  /** The test was aborted (abortTest, Ctrl-C, SIGTERM); its logs were written. */
  Aborted: 'LOADGEN_ABORTED',
  /** MLPerf log files that cannot be read (loadgen report, readRunLogs). */
  LogRead: 'LOADGEN_LOG_READ',
  /** An accuracy log that cannot be read. */
  AccuracyLog: 'LOADGEN_ACCURACY_LOG',
  /** References, answers or options given to accuracy scoring that do not fit. */
  AccuracyInput: 'LOADGEN_ACCURACY_INPUT',
  /** A tokenizer that cannot be loaded. */
  Tokenizer: 'LOADGEN_TOKENIZER',
  /** A server process that could not be spawned. */
  Spawn: 'LOADGEN_SPAWN',
  /** A launched server that exited or never became healthy. */
  FleetStart: 'LOADGEN_FLEET_START',
  /** The simulator's own HTTP error answer (an invalid request to it). */
  SimHttp: 'LOADGEN_SIM_HTTP',
  /** An endpoint had requests running or waiting that were not the run's (another client): the run did not start. */
  ServerBusy: 'LOADGEN_SERVER_BUSY',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The base of every error the library throws on purpose. */
export class LoadgenError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Bad input from the user (flags, option combinations, config files): nothing was run. */
export class UsageError extends LoadgenError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Usage, message, options);
  }
}

/** No endpoint could be used, or every request failed. */
export class EndpointFailure extends LoadgenError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.EndpointFailure, message, options);
  }
}

/** An endpoint was busy with another client's requests before the run started (allowBusyServer runs anyway). */
export class ServerBusyError extends LoadgenError {
  constructor(
    message: string,
    readonly url: string,
    readonly running: number,
    readonly waiting: number,
  ) {
    super(ErrorCode.ServerBusy, message);
  }
}

/** True for an error of the library's with one of the given codes. */
export function hasCode(err: unknown, ...codes: ErrorCode[]): err is LoadgenError {
  return err instanceof LoadgenError && codes.includes(err.code);
}
