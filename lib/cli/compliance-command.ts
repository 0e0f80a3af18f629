// `loadgen compliance <TEST0x>`: every `loadgen run` flag (parsed by
// planRun), plus the test's own; runCompliance (lib/run/run-compliance.ts)
// does the runs and the verification. PASS or FAIL with the reasons on
// stdout; exit 0 on PASS, 1 on FAIL, 2 on a usage error.
import type { Command } from 'commander';

import { TOKEN_DTYPES, type TokenDtype } from '../accuracy/accuracy-log.js';
import { parseComplianceTest, type RunnableComplianceTest } from '../compliance/audit-configs.js';
import { TEST01_DTYPES, type Test01Dtype } from '../compliance/verify-accuracy.js';
import type { ComplianceOutcome, RunComplianceOptions } from '../run/run-compliance.js';
import { mergeFlags, readConfigFile, type RunFlags } from './config-file.js';
import { reportError, UsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { createProgressPrinter } from './progress.js';
import { planRun, registerRunSecrets } from './run-command.js';
import { addRunFlags } from './run-flags.js';

export const DEFAULT_COMPLIANCE_DIR = 'loadgen-compliance';

export interface ComplianceFlags extends RunFlags {
  auditConfig?: string;
  referenceRun?: string;
  accuracyRun?: string;
  dtype?: string;
  eosTokenId?: string;
  accuracyThreshold?: string;
  scoreMetric?: string;
  minOutputTokens?: string;
  maxOutputTokens?: string;
}

function num(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${flag} ${JSON.stringify(v)}: expected a number`);
  return n;
}

/** Checks the flags and turns them into runCompliance options (no I/O). */
export function planCompliance(
  testName: string,
  f: ComplianceFlags,
  argv: readonly string[] = [],
): { options: RunComplianceOptions; json: boolean; quiet: boolean } {
  const test: RunnableComplianceTest = parseComplianceTest(testName);
  if (f.mode !== undefined)
    throw new UsageError('--mode is set by the test (its audit.config, and the reference runs it makes)');
  const plan = planRun({ ...f, outputDir: f.outputDir ?? DEFAULT_COMPLIANCE_DIR }, argv);
  const options: RunComplianceOptions = { test, run: plan.options };
  if (f.auditConfig !== undefined) options.auditConfig = f.auditConfig;
  if (f.referenceRun !== undefined) {
    if (test !== 'TEST01' && test !== 'TEST04') throw new UsageError('--reference-run applies to TEST01 and TEST04');
    options.referenceRun = f.referenceRun;
  }
  if (f.accuracyRun !== undefined) {
    if (test !== 'TEST01') throw new UsageError('--accuracy-run applies to TEST01');
    options.accuracyRun = f.accuracyRun;
  }
  if (f.dtype !== undefined) {
    if (test === 'TEST01') {
      if (!(TEST01_DTYPES as readonly string[]).includes(f.dtype))
        throw new UsageError(`--dtype ${JSON.stringify(f.dtype)}: TEST01 compares as ${TEST01_DTYPES.join(', ')}`);
      options.test01Dtype = f.dtype as Test01Dtype;
    } else if (test === 'TEST06') {
      if (!(TOKEN_DTYPES as readonly string[]).includes(f.dtype))
        throw new UsageError(`--dtype ${JSON.stringify(f.dtype)}: TEST06 decodes ids as ${TOKEN_DTYPES.join(', ')}`);
      options.tokenDtype = f.dtype as TokenDtype;
    } else throw new UsageError('--dtype applies to TEST01 and TEST06');
  }
  const eos = num('--eos-token-id', f.eosTokenId);
  if (eos !== undefined) {
    if (test !== 'TEST06') throw new UsageError('--eos-token-id applies to TEST06');
    if (!Number.isSafeInteger(eos)) throw new UsageError(`--eos-token-id must be an integer, got ${f.eosTokenId}`);
    options.eosTokenId = eos;
  }
  const threshold = num('--accuracy-threshold', f.accuracyThreshold);
  if (threshold !== undefined || f.scoreMetric !== undefined) {
    if (test !== 'TEST07') throw new UsageError('--accuracy-threshold and --score-metric apply to TEST07');
    if (threshold !== undefined) options.accuracyThreshold = threshold;
    if (f.scoreMetric !== undefined) options.scoreMetric = f.scoreMetric;
  }
  const minOut = num('--min-output-tokens', f.minOutputTokens);
  const maxOut = num('--max-output-tokens', f.maxOutputTokens);
  if (minOut !== undefined || maxOut !== undefined) {
    if (test !== 'TEST09') throw new UsageError('--min-output-tokens and --max-output-tokens apply to TEST09');
    if (minOut !== undefined) options.minOutputTokens = minOut;
    if (maxOut !== undefined) options.maxOutputTokens = maxOut;
  }
  if (plan.options.tokenizer !== undefined) {
    if (test !== 'TEST07') throw new UsageError('--tokenizer applies to TEST07 (its outputs are scored)');
    options.tokenizer = plan.options.tokenizer;
  }
  return { options, json: f.json === true, quiet: f.quiet === true };
}

/** The verdict as printed: PASS or FAIL, the reasons, the files. */
export function formatCompliance(o: ComplianceOutcome): string {
  const lines = [`${o.test}: ${o.pass ? 'PASS' : 'FAIL'}`];
  for (const r of o.reasons) lines.push(`  reason: ${r}`);
  lines.push(`  audit.config: ${o.auditConfigSource}`);
  lines.push(`  audit run: ${o.runs.audit}`);
  if (o.runs.performance) lines.push(`  reference performance run: ${o.runs.performance}`);
  if (o.runs.accuracy) lines.push(`  accuracy run: ${o.runs.accuracy}`);
  lines.push(`  for the submission: ${o.dir}`);
  for (const f of o.files) lines.push(`    ${f}`);
  return `${lines.join('\n')}\n`;
}

/** Runs `loadgen compliance` with parsed flags; resolves with the exit code. */
export async function complianceCommand(
  testName: string,
  cliFlags: ComplianceFlags,
  argv: readonly string[],
): Promise<ExitCode> {
  const stderr = process.stderr;
  const progress = createProgressPrinter(stderr);
  try {
    const flags: ComplianceFlags =
      cliFlags.config !== undefined ? { ...mergeFlags(readConfigFile(cliFlags.config), cliFlags) } : cliFlags;
    registerRunSecrets(flags);
    const plan = planCompliance(testName, flags, argv);
    const quiet = plan.quiet;
    const say = (m: string): void => {
      if (quiet) return;
      progress.done();
      stderr.write(`${m}\n`);
    };
    const { runCompliance } = await import('../run/run-compliance.js');
    const outcome = await runCompliance({
      ...plan.options,
      run: {
        ...plan.options.run,
        log: say,
        onProgress: quiet ? undefined : (p) => progress.update(p),
      },
      log: say,
    });
    progress.done();
    if (plan.json) {
      const { records: _records, ...rest } = outcome;
      process.stdout.write(`${JSON.stringify(rest, null, 2)}\n`);
    } else process.stdout.write(formatCompliance(outcome));
    if (outcome.pass) return ExitCode.Valid;
    // Ctrl-C ended a run (startTest wrote its logs): say so, not FAIL.
    const interrupted = Object.values(outcome.records).some(
      (r) => r?.result.aborted === true && r.result.abortReason === 'SIGINT',
    );
    return interrupted ? ExitCode.Interrupted : ExitCode.Invalid;
  } catch (err) {
    progress.done();
    return reportError('compliance', err, stderr);
  }
}

export function registerComplianceCommand(
  program: Command,
  onExit: (code: ExitCode) => void = (c) => (process.exitCode = c),
): Command {
  const cmd = program
    .command('compliance')
    .argument('<test>', 'TEST01 | TEST04 | TEST06 | TEST07 | TEST09')
    .description(
      "run an MLPerf compliance test: the audit run with the test's audit.config, the reference runs it needs, the verification, and the files the submission checker reads",
    );
  return addRunFlags(cmd)
    .option('--audit-config <file>', 'an audit.config instead of the built-in one of the test and --benchmark')
    .option(
      '--reference-run <dir>',
      'TEST01/TEST04: a prior performance run (loadgen run directory) instead of running one',
    )
    .option('--accuracy-run <dir>', 'TEST01: a prior accuracy run (loadgen run directory) instead of running one')
    .option(
      '--dtype <type>',
      'TEST01: compare responses as byte (default) | int32 | int64 | float32; TEST06: decode ids as int32 (default) | int64 | int16 | float32',
    )
    .option('--eos-token-id <id>', "TEST06: the EOS id (default: the benchmark's, else 2)")
    .option(
      '--accuracy-threshold <x>',
      "TEST07: the score to reach (default: the audit.config's test07_accuracy_threshold)",
    )
    .option('--score-metric <name>', "TEST07: the metric compared (default exact_match, else the benchmark's first)")
    .option('--min-output-tokens <n>', "TEST09: lowest mean output length (default: the audit.config's)")
    .option('--max-output-tokens <n>', "TEST09: highest mean output length (default: the audit.config's)")
    .addHelpText(
      'after',
      `
The submission files go to <output-dir>/TEST0x/ (default ${DEFAULT_COMPLIANCE_DIR}/); the runs to <output-dir>/runs/.
TEST01 and TEST04 make a reference performance run first (TEST01 also an accuracy run) unless --reference-run / --accuracy-run name prior ones.

Exit codes: 0 PASS, 1 FAIL, 2 usage or input error, 3 endpoint failure, 4 internal error, 130 interrupted (Ctrl-C).

Examples:
  loadgen compliance TEST06 --scenario Server --benchmark llama3_1-8b --endpoint http://gpu1:8000 --dataset cnn_eval.json --target-qps 20
  loadgen compliance TEST04 --scenario Offline --reference-run results/performance/run_1
  loadgen compliance TEST09 --scenario Offline --benchmark gpt-oss-120b --endpoint http://gpu1:8000 --dataset perf_eval_ref.parquet`,
    )
    .action(async (test: string, flags: ComplianceFlags, c: Command) => {
      const at = process.argv.indexOf('compliance');
      onExit(await complianceCommand(test, flags, at >= 0 ? process.argv.slice(at) : c.args));
    });
}
