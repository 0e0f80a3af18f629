// The one place that turns errors into exit codes: by the library's stable
// error codes (lib/core/errors.ts), and reportError prints one clear line for
// each (never a stack trace unless LOADGEN_DEBUG is set).
import { ErrorCode, LoadgenError, UsageError, EndpointFailure } from '../core/errors.js';
import { redactText } from '../core/redact.js';
import { ExitCode } from './exit-codes.js';

export { UsageError, EndpointFailure };

const EXIT_CODES: Record<ErrorCode, ExitCode> = {
  [ErrorCode.Settings]: ExitCode.Usage,
  [ErrorCode.Config]: ExitCode.Usage,
  [ErrorCode.Usage]: ExitCode.Usage,
  [ErrorCode.Dataset]: ExitCode.Usage,
  [ErrorCode.Conversation]: ExitCode.Usage,
  [ErrorCode.AccuracyLog]: ExitCode.Usage,
  [ErrorCode.AccuracyInput]: ExitCode.Usage,
  [ErrorCode.Tokenizer]: ExitCode.Usage,
  [ErrorCode.LogRead]: ExitCode.Usage,
  [ErrorCode.Endpoint]: ExitCode.Endpoint,
  [ErrorCode.EndpointFailure]: ExitCode.Endpoint,
  [ErrorCode.Spawn]: ExitCode.Endpoint,
  [ErrorCode.FleetStart]: ExitCode.Endpoint,
  [ErrorCode.Aborted]: ExitCode.Internal,
  [ErrorCode.SimHttp]: ExitCode.Internal,
  [ErrorCode.ServerBusy]: ExitCode.ServerBusy,
};

/** The exit code and message an error maps to. */
export function classifyError(err: unknown): { code: ExitCode; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof LoadgenError) {
    const code = EXIT_CODES[err.code] ?? ExitCode.Internal;
    if (err.code === ErrorCode.Settings)
      return { code, message: `setting ${(err as LoadgenError & { field: string }).field}: ${message}` };
    return { code, message };
  }
  // createLlmSut checks option combinations with RangeError/TypeError (e.g. the generate API on vLLM).
  if (err instanceof RangeError) return { code: ExitCode.Usage, message };
  return { code: ExitCode.Internal, message: `internal error: ${message}` };
}

/** Prints `loadgen <command>: <message>` to stderr and returns the exit code. */
export function reportError(command: string, err: unknown, stderr: NodeJS.WritableStream = process.stderr): ExitCode {
  const { code, message } = classifyError(err);
  stderr.write(`loadgen ${command}: ${redactText(message)}\n`);
  if (process.env.LOADGEN_DEBUG && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  return code;
}
