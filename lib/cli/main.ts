// The `loadgen` command (bundled by tsup into dist/cli.js, with a shebang).
// Placeholders (not implemented yet) exit with 2.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Command, CommanderError } from 'commander';

import { registerAccuracyCommand } from './accuracy-command.js';
import { registerComplianceCommand } from './compliance-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerReportCommand } from './report-command.js';
import { registerSimCommand } from './sim-command.js';
import { guardConsole } from '../core/redact.js';
import { ExitCode } from './exit-codes.js';
import { registerProbeCommand } from './probe-command.js';
import { registerRunCommand } from './run-command.js';
import { registerSubmissionCommand } from './submission-command.js';
import { registerSweepCommand } from './sweep-command.js';
import { packageVersion } from './version.js';

export { packageVersion };

export const NOT_IMPLEMENTED_EXIT_CODE = 2;

const PLACEHOLDERS: ReadonlyArray<readonly [string, string]> = [];

export function createProgram(): Command {
  const program = new Command();
  program
    .name('loadgen')
    .description('MLPerf Inference LoadGen for Node.js')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpCommand('help [command]', 'show help for a command')
    // Parse errors throw (see main) so they exit 2 like every usage error.
    .exitOverride();
  registerRunCommand(program);
  registerSweepCommand(program);
  registerProbeCommand(program);
  registerReportCommand(program);
  for (const [name, description] of PLACEHOLDERS) {
    program
      .command(name)
      .description(`${description} (not implemented yet)`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(`loadgen ${name}: not implemented yet: see README\n`);
        process.exitCode = NOT_IMPLEMENTED_EXIT_CODE;
      });
  }
  registerSimCommand(program);
  registerServeCommand(program);
  registerAccuracyCommand(program);
  registerComplianceCommand(program);
  registerSubmissionCommand(program);
  hintAfterErrors(program, 'loadgen');
  return program;
}

/** A bad flag or value: commander's one-line error, then a hint to the command's help (not the whole usage). */
function hintAfterErrors(cmd: Command, path: string): void {
  cmd.showHelpAfterError(`see ${path} --help`);
  for (const sub of cmd.commands) hintAfterErrors(sub, `${path} ${sub.name()}`);
}

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  // Nothing the CLI prints shows a secret (lib/core/redact.ts).
  guardConsole();
  try {
    await createProgram().parseAsync([...argv]);
  } catch (err) {
    // commander has printed its message; help and --version are not errors.
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : ExitCode.Usage;
      return;
    }
    throw err;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().catch((err: unknown) => {
    process.stderr.write(`loadgen: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
