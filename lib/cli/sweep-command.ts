// `loadgen sweep`: every `loadgen run` flag (the same parsing: planRun), plus
// the sweep's own: the Server capacity search over target QPS (or, with
// --concurrency-sweep, over the concurrency), or a plain list of points
// (--rates, --concurrencies). runSweep (lib/run/sweep.ts) does the work;
// here: flags → options, progress on stderr, the capacity on stdout, and an
// exit code.
import type { Command } from 'commander';

import type { SweepJson } from '../results/sweep-json.js';
import type { RunSweepOptions } from '../run/sweep.js';
import { mergeFlags, readConfigFile, type RunFlags } from './config-file.js';
import { parseDurationMs } from './duration.js';
import { reportError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { planRun, registerRunSecrets } from './run-command.js';
import { addRunFlags } from './run-flags.js';

export interface SweepFlags extends RunFlags {
  rates?: string;
  concurrencies?: string;
  concurrencySweep?: boolean;
  precision?: string;
  probeDuration?: string;
  confirm?: boolean;
  start?: string;
  maxProbes?: string;
  probeQueries?: string;
}

/** `1,2,4.5` → numbers > 0 (integers for concurrencies). */
export function parseList(flag: string, text: string, integer: boolean): number[] {
  const out = text.split(',').map((t) => t.trim());
  return out.map((t) => {
    const n = Number(t);
    if (t === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n)))
      throw new UsageError(
        `${flag} ${JSON.stringify(text)}: expected a comma-separated list of ${integer ? 'integers' : 'numbers'} > 0`,
      );
    return n;
  });
}

/** --precision: `0.05` or `5%`. */
export function parsePrecision(text: string): number {
  const t = text.trim();
  const n = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t);
  if (t === '' || !Number.isFinite(n) || n <= 0 || n >= 1)
    throw new UsageError(
      `--precision ${JSON.stringify(text)}: expected a fraction in (0, 1) or a percentage, e.g. 0.05 or 5%`,
    );
  return n;
}

/** Checks the merged flags and turns them into runSweep options (no I/O). */
export function planSweep(
  f: SweepFlags,
  argv: readonly string[] = [],
): { options: RunSweepOptions; json: boolean; quiet: boolean } {
  if (f.rates !== undefined && f.concurrencies !== undefined)
    throw new UsageError('--rates and --concurrencies exclude each other');
  if (f.concurrencySweep && f.rates !== undefined)
    throw new UsageError('--concurrency-sweep searches over the concurrency; --rates lists target QPS');
  if (f.trace !== undefined || f.dryRun)
    throw new UsageError('loadgen sweep does not replay traces (a trace has its own rate): use loadgen run --trace');
  const dimension = f.concurrencies !== undefined || f.concurrencySweep ? 'concurrency' : 'qps';
  // A concurrency sweep runs each point as a closed loop of its users: --closed-loop is where the search starts.
  const closedStart = dimension === 'concurrency' ? f.closedLoop : undefined;
  const plan = planRun(dimension === 'concurrency' ? { ...f, closedLoop: undefined } : f, argv);
  const options: RunSweepOptions = { ...plan.options, dimension };
  if (f.rates !== undefined) options.points = parseList('--rates', f.rates, false);
  if (f.concurrencies !== undefined) options.points = parseList('--concurrencies', f.concurrencies, true);
  if (f.precision !== undefined) options.precision = parsePrecision(f.precision);
  if (f.probeDuration !== undefined) options.probeDurationMs = parseDurationMs('--probe-duration', f.probeDuration);
  if (f.confirm) options.confirm = true;
  if (f.start !== undefined) {
    const n = Number(f.start);
    if (!(Number.isFinite(n) && n > 0) || (dimension === 'concurrency' && !Number.isSafeInteger(n)))
      throw new UsageError(`--start must be a ${dimension === 'qps' ? 'rate' : 'concurrency'} > 0, got ${f.start}`);
    options.start = n;
  }
  if (f.maxProbes !== undefined) {
    const n = Number(f.maxProbes);
    if (!(Number.isSafeInteger(n) && n > 0))
      throw new UsageError(`--max-probes must be an integer > 0, got ${f.maxProbes}`);
    options.maxProbes = n;
  }
  if (f.probeQueries !== undefined) {
    const n = Number(f.probeQueries);
    if (!(Number.isSafeInteger(n) && n > 0))
      throw new UsageError(`--probe-queries must be an integer > 0, got ${f.probeQueries}`);
    options.probeMinQueries = n;
  }
  if (closedStart !== undefined && options.points === undefined && f.start === undefined) {
    if (!(Number.isSafeInteger(closedStart) && closedStart >= 1))
      throw new UsageError(`--closed-loop must be an integer >= 1 (users), got ${String(closedStart)}`);
    options.start = closedStart;
  }
  return { options, json: plan.json, quiet: plan.quiet };
}

/** The human summary of a sweep (stdout without --json). */
export function formatSweep(s: SweepJson, files: string[]): string {
  const unit = s.dimension === 'qps' ? 'QPS' : 'concurrency';
  const lines: string[] = [];
  const c = s.capacity;
  if (s.kind === 'list')
    lines.push(`Sweep: ${s.points.length} points, ${s.points.filter((p) => p.withinBounds).length} VALID`);
  else if (!c || c.value === null)
    lines.push(
      `Capacity: none found (every probe INVALID${c?.lowerInvalid != null ? `, down to ${c.lowerInvalid} ${unit}` : ''})`,
    );
  else
    lines.push(
      `Capacity: ${c.value} ${unit} (${c.lowerInvalid !== null ? `INVALID at ${c.lowerInvalid}, precision ${(c.precision * 100).toFixed(1)} %${c.reached ? '' : ', not reached'}` : 'no INVALID rate found above it'}; ${c.probes} probes)${c.confirmed === null ? '' : `; confirmation run ${c.confirmed ? 'VALID' : 'INVALID'}`}`,
    );
  for (const p of s.points) {
    const f = (v: number | null | undefined, d = 1) => (v === null || v === undefined ? 'n/a' : v.toFixed(d));
    lines.push(
      `  ${p.kind.padEnd(11)} ${p.kind === 'calibration' ? 'users' : unit} ${String(p.value).padEnd(8)} ${(p.sustained === false && p.verdict === 'VALID' ? 'GROWING' : p.verdict).padEnd(8)} qps ${f(p.qps, 2)}  tokens/s ${f(p.tokensPerSecond)}  TTFT p99 ${f(p.ttftMs?.p99)} ms  TPOT p99 ${f(p.tpotMs?.p99, 2)} ms  latency p99 ${f(p.latencyMs?.p99)} ms${p.resumed ? '  (resumed)' : ''}`,
    );
  }
  if (s.stopped) lines.push('  stopped early (interrupted); run the same command again to continue');
  lines.push(`  output: ${s.outdir}`);
  for (const f of files) lines.push(`    ${f}`);
  return lines.join('\n') + '\n';
}

/** 0 when a capacity was found (and confirmed, with --confirm) or the list ran; 1 when none was; 130 when interrupted. */
export function sweepExitCode(s: SweepJson): ExitCode {
  if (s.stopped) return ExitCode.Interrupted;
  if (s.kind === 'list') return ExitCode.Valid;
  const c = s.capacity;
  if (!c || c.value === null || c.confirmed === false) return ExitCode.Invalid;
  return ExitCode.Valid;
}

export async function sweepCommand(cliFlags: SweepFlags, argv: readonly string[]): Promise<ExitCode> {
  const stderr = process.stderr;
  let quiet = cliFlags.quiet === true;
  const stop = new AbortController();
  let presses = 0;
  // Ctrl-C: the test in progress ends with its logs (startTest's own handler) and the sweep stops after it.
  const onSigint = (): void => {
    presses++;
    stop.abort();
    if (presses === 1) {
      stderr.write(
        'interrupted: ending the point in progress, then writing sweep.json (Ctrl-C again to quit at once)\n',
      );
      return;
    }
    process.exit(ExitCode.Interrupted);
  };
  process.on('SIGINT', onSigint);
  // SIGTERM (docker stop, a scheduler's limit): the test in progress ends with its logs, and the sweep with it.
  let terminated = false;
  const onSigterm = (): void => {
    terminated = true;
    stop.abort();
    stderr.write('terminated: ending the point in progress, then writing sweep.json\n');
    void import('../core/start-test.js').then((m) => m.abortTest('SIGTERM'));
  };
  process.on('SIGTERM', onSigterm);
  try {
    const flags = (
      cliFlags.config !== undefined ? mergeFlags(readConfigFile(cliFlags.config), cliFlags) : cliFlags
    ) as SweepFlags;
    registerRunSecrets(flags);
    const plan = planSweep(flags, argv);
    quiet = plan.quiet;
    const { runSweep } = await import('../run/sweep.js');
    const runPoint = flags.servers
      ? async (o: Parameters<NonNullable<RunSweepOptions['runPoint']>>[0]) =>
          (await import('../run/run-fleet.js')).runWithFleet(flags.servers!, o)
      : undefined;
    const { sweep, files } = await runSweep({
      ...plan.options,
      log: (m) => {
        if (!quiet) stderr.write(`${m}\n`);
      },
      signal: stop.signal,
      ...(runPoint ? { runPoint } : {}),
    });
    if (plan.json) process.stdout.write(`${JSON.stringify(sweep, null, 2)}\n`);
    else if (!quiet) process.stdout.write(formatSweep(sweep, files));
    return terminated ? ExitCode.Terminated : sweepExitCode(sweep);
  } catch (err) {
    return reportError('sweep', err, stderr);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}

export function registerSweepCommand(
  program: Command,
  onExit: (code: ExitCode) => void = (c) => (process.exitCode = c),
): Command {
  const cmd = program
    .command('sweep')
    .description(
      'capacity search (the highest target QPS or concurrency whose run is VALID) or a list of load points; sweep.json and sweep.html',
    );
  return addRunFlags(cmd)
    .option('--rates <list>', 'a plain list of target QPS, e.g. 1,2,4,8 (no search)')
    .option('--concurrencies <list>', 'a plain list of closed-loop users, e.g. 8,16,32 (no search)')
    .option(
      '--concurrency-sweep',
      'search over closed-loop users (each sends its next request when its last one ends; not MLPerf) instead of the target QPS',
    )
    .option('--probe-queries <n>', 'least queries a probe issues (default 662: what p99 early stopping needs)')
    .option('--precision <fraction>', 'relative precision of the search, e.g. 0.05 or 5% (default 5%)')
    .option('--probe-duration <duration>', 'min_duration of each probe run, in ms or e.g. 10s (default 10s)')
    .option(
      '--start <value>',
      'first rate (or users) of the search (default --target-qps / --closed-loop; else half the rate a closed loop of --concurrency or 256 users reaches, or 1 user)',
    )
    .option('--max-probes <n>', 'most probe runs (default 40)')
    .option('--confirm', 'after the search, one run at the capacity with the full settings')
    .addHelpText(
      'after',
      `
Each point runs into <output-dir>/points/qps-<rate>/ (or concurrency-<n>/) with its MLPerf logs and results.json; run the same command again to continue an interrupted sweep (points already done are read back).

Exit codes: 0 capacity found (or the list ran), 1 no VALID point found or the confirmation run INVALID, 2 usage or input error, 3 endpoint failure, 4 internal error, 130 interrupted, 143 terminated.

Examples:
  loadgen sweep --scenario Server --output-dir sweep-out
  loadgen sweep --scenario Server --endpoint http://gpu1:8000 --benchmark llama3_1-8b --dataset cnn_eval.json --start 4 --probe-duration 60s --confirm
  loadgen sweep --scenario Server --rates 1,2,4,8 --output-dir curve`,
    )
    .action(async (flags: SweepFlags, c: Command) => {
      const at = process.argv.indexOf('sweep');
      onExit(await sweepCommand(flags, at >= 0 ? process.argv.slice(at) : c.args));
    });
}
