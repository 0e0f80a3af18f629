// `loadgen submission --org ORG --system SYSTEM --division closed|open
// <run dirs...> --out DIR`: lays out the MLPerf submission tree from
// performance, accuracy and compliance runs (lib/submission/layout.ts), then
// runs our pre-check of the submission checker v6.1's rules over it and
// prints every problem with the file it concerns. `--check DIR` pre-checks a
// tree only (after the submitter filled in the system description, say).
// Exit codes: 0 the pre-check found nothing, 1 it found problems, 2 usage or
// input error.
import { resolve } from 'node:path';

import type { Command } from 'commander';

import { scoreAccuracy, summarizeAccuracy, type AccuracySummary } from '../accuracy/score.js';
import { UsageError } from '../core/errors.js';
import { readInputs, runAccuracyScores } from '../submission/inputs.js';
import type { BuiltSubmission, SubmissionFormat } from '../submission/layout.js';
import { precheckSubmission, type PrecheckReport } from '../submission/precheck.js';
import { VALID_DIVISIONS, VALID_SYSTEM_TYPES, type Division } from '../submission/rules.js';
import { redactText } from '../core/redact.js';
import { classifyError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { packageVersion } from './version.js';

export interface SubmissionFlags {
  org?: string;
  system?: string;
  division?: string;
  format?: string;
  systemType?: string;
  benchmark?: string;
  dataset?: string;
  tokenizer?: string;
  out?: string;
  check?: string;
  json?: boolean;
}

export interface SubmissionIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: SubmissionIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };

function formatPrecheck(report: PrecheckReport): string {
  const lines = [
    `Pre-check (the rules of MLPerf's submission checker v6.1) over ${report.checked.length} scenario folder(s): ${report.problems.length === 0 ? 'no problem found' : `${report.problems.length} problem(s)`}`,
  ];
  for (const p of report.problems) lines.push(`  ${p.file}: ${p.message}`);
  return `${lines.join('\n')}\n`;
}

async function scoreMissing(
  dirs: ReturnType<typeof readInputs>,
  f: SubmissionFlags,
): Promise<Map<string, AccuracySummary>> {
  const scores = new Map<string, AccuracySummary>();
  if (!f.dataset && !f.tokenizer) return scores;
  if (!f.dataset || !f.tokenizer)
    throw new UsageError('--dataset and --tokenizer go together (they score accuracy runs)');
  for (const run of dirs.runs) {
    if (run.kind === 'performance' || runAccuracyScores(run)) continue;
    // The same scoring as `loadgen accuracy`.
    const report = await scoreAccuracy({
      log: resolve(run.dir, 'mlperf_log_accuracy.json'),
      dataset: f.dataset,
      tokenizer: f.tokenizer,
      benchmark: run.benchmark,
      scenario: run.scenario,
    });
    scores.set(run.dir, summarizeAccuracy(report));
  }
  return scores;
}

/** Runs the command; returns the exit code. */
export async function runSubmission(
  dirs: readonly string[],
  f: SubmissionFlags,
  io: SubmissionIo = processIo,
): Promise<number> {
  try {
    if (f.check !== undefined) {
      const report = precheckSubmission(resolve(f.check), f.org ? { submitter: f.org } : {});
      io.stdout(f.json ? `${JSON.stringify(report, null, 2)}\n` : formatPrecheck(report));
      return report.problems.length === 0 ? ExitCode.Valid : ExitCode.Invalid;
    }
    const missing = (['org', 'system', 'out'] as const).filter((k) => !f[k]);
    if (missing.length > 0)
      throw new UsageError(
        `missing ${missing.map((k) => `--${k}`).join(', ')} (usage: loadgen submission --org ORG --system SYSTEM --division closed <run dirs...> --out DIR)`,
      );
    const division = (f.division ?? 'closed') as Division;
    if (!VALID_DIVISIONS.includes(division))
      throw new UsageError(`--division: expected closed or open, got '${f.division}'`);
    const format = (f.format ?? 'loadgen') as SubmissionFormat;
    if (format !== 'loadgen' && format !== 'endpoints')
      throw new UsageError(`--format: expected loadgen or endpoints, got '${f.format}'`);
    if (f.systemType !== undefined && !VALID_SYSTEM_TYPES.includes(f.systemType))
      throw new UsageError(`--system-type: expected one of ${VALID_SYSTEM_TYPES.join(' | ')}, got '${f.systemType}'`);
    if (dirs.length === 0) throw new UsageError('no run directory given (loadgen submission ... <run dirs...>)');
    const inputs = readInputs(dirs, f.benchmark);
    const scores = await scoreMissing(inputs, f);
    // Loaded here, not at start-up: the layout reads the settings table, which loads the native addon
    // (commands like `loadgen sim` must start without it).
    const { buildSubmission } = await import('../submission/layout.js');
    const built: BuiltSubmission = buildSubmission({
      org: f.org!,
      system: f.system!,
      division,
      format,
      systemType: f.systemType,
      out: resolve(f.out!),
      inputs,
      scores,
      tool: `@x/loadgen ${packageVersion()}`,
    });
    const report = precheckSubmission(built.root, { submitter: f.org });
    if (f.json) {
      io.stdout(
        `${JSON.stringify({ root: built.root, scenarios: built.scenarios, files: built.files, todo: built.todo, precheck: report }, null, 2)}\n`,
      );
    } else {
      const text = [
        `Wrote ${built.files.length} files under ${built.root}:`,
        ...built.scenarios.map((s) => `  ${s.benchmark} ${s.scenario}: ${s.dir}`),
        '',
        'Left for you to fill in (the harness does not know these):',
        ...built.todo.map((t) => `  ${t}`),
        '',
      ].join('\n');
      io.stdout(`${text}\n${formatPrecheck(report)}`);
    }
    return report.problems.length === 0 ? ExitCode.Valid : ExitCode.Invalid;
  } catch (err) {
    const { code, message } = classifyError(err);
    io.stderr(`loadgen submission: ${redactText(message)}\n`);
    return code;
  }
}

export function registerSubmissionCommand(program: Command): void {
  program
    .command('submission')
    .description(
      "lay out an MLPerf submission tree from run directories (performance, accuracy, compliance) and pre-check it against the submission checker v6.1's rules",
    )
    .argument('[dirs...]', 'run directories of loadgen run, and compliance directories (TEST0x/ or a folder of them)')
    .option('--org <name>', 'submitting organisation (the folder under closed/ or open/)')
    .option('--system <name>', 'system description id (results/<system>/, systems/<system>.json)')
    .option('--division <name>', 'closed | open', 'closed')
    .option(
      '--format <name>',
      'loadgen (MLPerf logs) | endpoints (config.yaml, result_summary.json, accuracy_results.json)',
      'loadgen',
    )
    .option('--system-type <type>', `systems/<system>.json's system_type: ${VALID_SYSTEM_TYPES.join(' | ')}`)
    .option('--benchmark <model>', 'model key of the runs (default: the one each run recorded), e.g. llama3_1-8b')
    .option('--dataset <file>', 'references for scoring accuracy runs that were not scored (with --tokenizer)')
    .option('--tokenizer <file>', "the model's tokenizer.json, for scoring accuracy runs (with --dataset)")
    .option('--out <dir>', 'where the submission tree is written')
    .option('--check <dir>', 'only pre-check an existing submission tree')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 the pre-check found no problem, 1 it found problems (each printed with its file), 2 usage or input error.\n\nExamples:\n  loadgen submission --org Acme --system 8xH100_vllm --system-type datacenter perf/ acc/ compliance/ --out submission\n  loadgen submission --check submission --org Acme',
    )
    .action(async (dirs: string[], flags: SubmissionFlags) => {
      process.exitCode = await runSubmission(dirs, flags);
    });
}
