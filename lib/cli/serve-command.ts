// `loadgen serve --config FILE`: starts the config file's `servers:` alone
// (same file as `loadgen run`), prints their URLs on stdout once they are
// healthy and warmed up, and keeps them until Ctrl-C or SIGTERM, when they
// are stopped cleanly. --dry-run prints the command lines (ssh and Slurm's
// salloc and srun included) without starting anything.
import { resolve } from 'node:path';

import type { Command } from 'commander';

import { readConfigFile } from './config-file.js';
import { reportError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { Fleet } from '../fleet/fleet.js';
import { planServers } from '../fleet/plan.js';
import { sallocArgv } from '../fleet/slurm.js';
import { sbatchArgv } from '../fleet/slurm-het.js';
import { commandLine } from '../fleet/ssh.js';

export interface ServeFlags {
  config?: string;
  outputDir?: string;
  dryRun?: boolean;
  quiet?: boolean;
}

export const DEFAULT_SERVE_DIR = 'loadgen-servers';

/** Runs `loadgen serve`; resolves with the exit code once the servers are stopped. */
export async function serveCommand(flags: ServeFlags): Promise<ExitCode> {
  const stderr = process.stderr;
  const say = (m: string): void => {
    if (!flags.quiet) stderr.write(`${m}\n`);
  };
  // While starting, Ctrl-C exits at once: the launcher's exit hook stops what was started.
  const early = (): void => {
    stderr.write('interrupted: stopping the servers\n');
    process.exit(ExitCode.Interrupted);
  };
  process.on('SIGINT', early);
  process.on('SIGTERM', early);
  try {
    if (flags.config === undefined)
      throw new UsageError('--config FILE is required (a YAML or JSON file with a servers: section)');
    const file = readConfigFile(flags.config);
    if (!file.servers) throw new UsageError(`config file ${flags.config}: no 'servers' section: nothing to start`);
    if (flags.dryRun) {
      // Slurm entries: the allocation first; their steps below run on placeholder nodes of job JOBID.
      const het = file.servers.filter((s) => s.slurm?.mode === 'sbatch-het');
      for (const spec of file.servers)
        if (spec.slurm && !het.includes(spec))
          process.stdout.write(
            `# ${spec.name}: allocation\n${commandLine(sallocArgv(`loadgen-${spec.name}`, spec.slurm))}\n`,
          );
      // sbatch-het entries: one job, its batch script runs the srun --het-group lines below.
      if (het.length > 0) {
        const comps = het.map((s) => ({ options: s.slurm!, servers: [] }));
        const argv = sbatchArgv(
          'loadgen',
          comps,
          'OUTDIR/servers/loadgen-het.sh',
          'OUTDIR/servers/loadgen-het.batch.log',
        );
        process.stdout.write(`# ${het.map((s) => s.name).join(', ')}: one heterogeneous job\n${commandLine(argv)}\n`);
      }
      for (const p of await planServers(file.servers))
        process.stdout.write(`# ${p.name} -> ${p.url}\n${p.commandLine}\n`);
      return ExitCode.Valid;
    }
    const outdir = resolve(flags.outputDir ?? file.outputDir ?? DEFAULT_SERVE_DIR);
    const fleet = await Fleet.start(file.servers, { outdir, log: say });
    process.off('SIGINT', early);
    process.off('SIGTERM', early);
    for (const e of fleet.endpoints()) process.stdout.write(`${e.url}\n`);
    say(`serving until Ctrl-C or SIGTERM; logs in ${resolve(outdir, 'servers')}`);
    const code = await new Promise<ExitCode>((done) => {
      const onSignal = (): void => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        clearInterval(timer);
        done(ExitCode.Valid);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      // Nothing left to serve when every server has exited.
      const timer = setInterval(() => {
        if (fleet.alive().length === 0) {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          clearInterval(timer);
          stderr.write('loadgen serve: every server has exited\n');
          done(ExitCode.Endpoint);
        }
      }, 500);
    });
    await fleet.stop();
    say('servers stopped');
    return code;
  } catch (err) {
    return reportError('serve', err, stderr);
  } finally {
    process.off('SIGINT', early);
    process.off('SIGTERM', early);
  }
}

export function registerServeCommand(
  program: Command,
  onExit: (code: ExitCode) => void = (c) => (process.exitCode = c),
): Command {
  return program
    .command('serve')
    .description("start the config file's servers (vLLM, SGLang, custom or simulated) and keep them until Ctrl-C")
    .option('-c, --config <file>', 'YAML or JSON file with a servers: section (the same file loadgen run takes)')
    .option(
      '--output-dir <dir>',
      `where servers/<name>.log go (default: the file's output-dir, else ${DEFAULT_SERVE_DIR})`,
    )
    .option('--dry-run', 'print each server command line (ssh included) and exit')
    .option('--quiet', 'no notes on stderr')
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped cleanly, 2 bad config, 3 a server failed to start or every server exited, 130 interrupted while starting.',
    )
    .action(async (flags: ServeFlags) => {
      onExit(await serveCommand(flags));
    });
}
