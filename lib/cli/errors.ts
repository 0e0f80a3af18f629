// CLI errors: each carries its exit code, and reportError prints one clear
// line for it (never a stack trace unless LOADGEN_DEBUG is set).
import { SettingsError } from '../core/settings.js';
import { DatasetError } from '../dataset/types.js';
import { EndpointError } from '../sut/endpoint-url.js';
import { ExitCode } from './exit-codes.js';

/** Bad input from the user (flags, config file, settings, dataset): exit 2. */
export class UsageError extends Error {
  readonly exitCode = ExitCode.Usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** No endpoint could be used: exit 3. */
export class EndpointFailure extends Error {
  readonly exitCode = ExitCode.Endpoint;
  constructor(message: string) {
    super(message);
    this.name = 'EndpointFailure';
  }
}

/** The exit code and message an error maps to. */
export function classifyError(err: unknown): { code: ExitCode; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) return { code: ExitCode.Usage, message };
  if (err instanceof EndpointFailure) return { code: ExitCode.Endpoint, message };
  // The library's own input errors are the user's input here.
  if (err instanceof SettingsError) return { code: ExitCode.Usage, message: `setting ${err.field}: ${message}` };
  // ConfigError by name: importing load-settings would load the native addon
  // into every command (`loadgen sim` runs without it).
  if ((err instanceof Error && err.name === 'ConfigError') || err instanceof DatasetError) return { code: ExitCode.Usage, message };
  if (err instanceof EndpointError) return { code: ExitCode.Endpoint, message };
  // createLlmSut checks option combinations with RangeError/TypeError (e.g. the generate API on vLLM).
  if (err instanceof RangeError) return { code: ExitCode.Usage, message };
  return { code: ExitCode.Internal, message: `internal error: ${message}` };
}

/** Prints `loadgen <command>: <message>` to stderr and returns the exit code. */
export function reportError(command: string, err: unknown, stderr: NodeJS.WritableStream = process.stderr): ExitCode {
  const { code, message } = classifyError(err);
  stderr.write(`loadgen ${command}: ${message}\n`);
  if (process.env.LOADGEN_DEBUG && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  return code;
}
