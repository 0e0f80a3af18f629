// `loadgen report <dir...> [--aggregate] [--output FILE] [--json]`: prints the
// summary of each run directory (ours or the official LoadGen's), or with
// --aggregate merges them into aggregated_results.json. A problem with the
// input (no such directory, no logs, a malformed log) is a one-line message
// and exit code 2, never a stack trace.
import { resolve } from 'node:path';

import type { Command } from 'commander';

import { toJsonText } from '../results/json-text.js';
import { writeFileAtomic } from '../results/write-outputs.js';
import { aggregateRuns, loadAggregateInputs } from '../report/aggregate.js';
import { formatAggregate, formatRunSummary } from '../report/format.js';
import { LogReadError, readRunLogs } from '../report/read-logs.js';

export const REPORT_INPUT_ERROR_EXIT_CODE = 2;
export const AGGREGATE_FILE = 'aggregated_results.json';

export interface ReportOptions {
  aggregate?: boolean;
  output?: string;
  json?: boolean;
}

export interface ReportIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: ReportIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };

/** Writes a JSON result file; a failure names the file the user asked for, not the temporary one. */
async function writeJson(path: string, value: unknown): Promise<void> {
  try {
    await writeFileAtomic(path, toJsonText(value));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot write ${path}: ${code === 'ENOENT' ? 'no such directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`,
    );
  }
}

/** Runs the command; returns the exit code (0 done, 2 bad input). */
export async function runReport(
  dirs: readonly string[],
  options: ReportOptions,
  io: ReportIo = processIo,
): Promise<number> {
  try {
    if (dirs.length === 0) throw new LogReadError('no run directory given (loadgen report <dir...>)');
    if (options.aggregate) {
      const result = aggregateRuns(await loadAggregateInputs(dirs));
      const out = resolve(options.output ?? AGGREGATE_FILE);
      await writeJson(out, result);
      if (options.json) io.stdout(toJsonText(result));
      else io.stdout(`${formatAggregate(result)}Wrote ${out}\n`);
      return 0;
    }
    const runs = dirs.map((d) => readRunLogs(d).summary);
    if (options.output) await writeJson(resolve(options.output), runs.length === 1 ? runs[0] : runs);
    if (options.json) io.stdout(toJsonText(runs.length === 1 ? runs[0] : runs));
    else io.stdout(runs.map(formatRunSummary).join('\n'));
    return 0;
  } catch (err) {
    // Input problems and I/O errors alike: one line, no stack.
    const msg = err instanceof Error ? err.message : String(err);
    io.stderr(`loadgen report: ${msg}\n`);
    return REPORT_INPUT_ERROR_EXIT_CODE;
  }
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      "summarize the MLPerf logs of run directories (ours or the official LoadGen's); --aggregate merges several nodes' runs",
    )
    .argument('[dir...]', 'run directories holding mlperf_log_detail.txt / mlperf_log_summary.txt')
    .option(
      '--aggregate',
      `merge the runs into one result (summed throughput, merged latencies, validity of each), written to ${AGGREGATE_FILE}`,
    )
    .option('--output <file>', `where to write the JSON (default with --aggregate: ./${AGGREGATE_FILE})`)
    .option('--json', 'print JSON instead of text')
    .action(async (dirs: string[], options: ReportOptions) => {
      process.exitCode = await runReport(dirs, options);
    });
}
