// `loadgen run`'s flags as commander parses them, in process: the run
// command registered on a fresh program, its action replaced by one that
// keeps the flags.
import { Command } from 'commander';

import type { RunFlags } from '../../lib/cli/config-file.js';
import { registerRunCommand } from '../../lib/cli/run-command.js';

export async function parseRunFlags(args: string[]): Promise<RunFlags> {
  const program = new Command().exitOverride();
  registerRunCommand(program);
  const cmd = program.commands.find((c) => c.name() === 'run')!;
  cmd.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  let flags: RunFlags | undefined;
  cmd.action((f: RunFlags) => {
    flags = f;
  });
  await program.parseAsync(['node', 'loadgen', 'run', ...args]);
  return flags!;
}
