// `loadgen accuracy`: scores an mlperf_log_accuracy.json against a dataset's
// references with the model's tokenizer, prints the scores and the verdict,
// and writes accuracy.json. Exit codes: 0 every judged metric passes (or no
// target is known), 1 a metric fails, 2 usage or input error.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import type { Command } from 'commander';

import { AccuracyLogError, TOKEN_DTYPES, type TokenDtype } from '../accuracy/accuracy-log.js';
import {
  AccuracyInputError,
  accuracyBenchmarks,
  formatAccuracyReport,
  scoreAccuracy,
  type AccuracyReport,
  type ScoreAccuracyOptions,
} from '../accuracy/score.js';
import { englishPunkt, loadPunktParameters } from '../accuracy/sentence-split.js';
import { TokenizerError } from '../accuracy/tokenizer.js';
import { DatasetError } from '../dataset/types.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from './exit-codes.js';

/** The same numbers as `loadgen run`'s ExitCode: Valid, Invalid, Usage. */
export const ACCURACY_EXIT = { pass: ExitCode.Valid, fail: ExitCode.Invalid, usage: ExitCode.Usage } as const;

/** The flags of `loadgen accuracy` (commander's camel-cased names). */
export interface AccuracyFlags {
  log?: string;
  dataset?: string;
  tokenizer?: string;
  benchmark?: string;
  dtype?: string;
  referenceColumn?: string;
  categoryColumn?: string;
  tokenizerConfig?: string;
  cleanUpTokenizationSpaces?: string;
  eosTokenId?: string;
  scenario?: string;
  output?: string;
  keepSamples?: boolean;
  json?: boolean;
  punkt?: string;
  nltkUnicodeQuotes?: boolean;
  allowUnsandboxed?: boolean;
  codeWorkers?: string;
  codeTimeout?: string;
  codeMemory?: string;
}

function positiveInt(flag: string, v: string): number {
  if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`${flag}: expected a positive integer, got '${v}'`);
  return Number(v);
}

export interface AccuracyIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

async function flagsToOptions(f: AccuracyFlags, io?: AccuracyIo): Promise<ScoreAccuracyOptions> {
  const missing = (['log', 'dataset', 'tokenizer'] as const).filter((k) => !f[k]);
  if (missing.length > 0) {
    throw new UsageError(
      `missing ${missing.map((k) => `--${k}`).join(', ')} (usage: loadgen accuracy --log mlperf_log_accuracy.json --dataset <file> --tokenizer tokenizer.json [--benchmark llama3_1-8b])`,
    );
  }
  const o: ScoreAccuracyOptions = { log: f.log!, dataset: f.dataset!, tokenizer: f.tokenizer! };
  if (f.benchmark !== undefined) o.benchmark = f.benchmark;
  if (f.dtype !== undefined) {
    if (!TOKEN_DTYPES.includes(f.dtype as TokenDtype))
      throw new UsageError(`--dtype: expected one of ${TOKEN_DTYPES.join(', ')}, got '${f.dtype}'`);
    o.dtype = f.dtype as TokenDtype;
  }
  if (f.referenceColumn !== undefined) o.referenceColumn = f.referenceColumn;
  if (f.categoryColumn !== undefined) o.categoryColumn = f.categoryColumn;
  if (f.tokenizerConfig !== undefined) o.tokenizerConfig = f.tokenizerConfig === 'none' ? null : f.tokenizerConfig;
  if (f.cleanUpTokenizationSpaces !== undefined) {
    const v = f.cleanUpTokenizationSpaces.toLowerCase();
    if (v !== 'true' && v !== 'false')
      throw new UsageError(
        `--clean-up-tokenization-spaces: expected true or false, got '${f.cleanUpTokenizationSpaces}'`,
      );
    o.cleanUpTokenizationSpaces = v === 'true';
  }
  if (f.eosTokenId !== undefined) {
    if (!/^\d+$/.test(f.eosTokenId))
      throw new UsageError(`--eos-token-id: expected a non-negative integer, got '${f.eosTokenId}'`);
    o.eosTokenId = Number(f.eosTokenId);
  }
  if (f.scenario !== undefined) o.scenario = f.scenario;
  if (f.keepSamples) o.keepSamples = true;
  const code: NonNullable<ScoreAccuracyOptions['codeExecution']> = {};
  if (f.allowUnsandboxed) code.allowUnsandboxed = true;
  if (f.codeWorkers !== undefined) code.workers = positiveInt('--code-workers', f.codeWorkers);
  if (f.codeTimeout !== undefined) code.testTimeoutSec = positiveInt('--code-timeout', f.codeTimeout);
  if (f.codeMemory !== undefined) code.memoryBytes = positiveInt('--code-memory', f.codeMemory) * 1024 * 1024;
  if (io) {
    let last = -1;
    code.onProgress = (done, total) => {
      const pct = Math.floor((100 * done) / total);
      if (pct !== last && (pct % 10 === 0 || done === total)) {
        last = pct;
        io.stderr.write(`code execution: ${done}/${total} programs run\n`);
      }
    };
  }
  o.codeExecution = code;
  if (f.punkt !== undefined) {
    try {
      o.punkt = await loadPunktParameters(f.punkt, { unicodeQuotes: f.nltkUnicodeQuotes === true });
    } catch (err) {
      throw new UsageError(`--punkt: ${(err as Error).message}`);
    }
  } else if (f.nltkUnicodeQuotes) {
    o.punkt = { ...englishPunkt(), unicodeQuotes: true };
  }
  return o;
}

/** Exit code for a report: 1 when a metric fails, else 0. */
export function accuracyExitCode(r: AccuracyReport): number {
  return r.pass === false ? ACCURACY_EXIT.fail : ACCURACY_EXIT.pass;
}

/** Runs the command; returns the exit code (never throws for input problems). */
export async function runAccuracyCommand(
  flags: AccuracyFlags,
  io: AccuracyIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let report: AccuracyReport;
  try {
    report = await scoreAccuracy(await flagsToOptions(flags, io));
  } catch (err) {
    if (
      err instanceof UsageError ||
      err instanceof AccuracyInputError ||
      err instanceof AccuracyLogError ||
      err instanceof TokenizerError ||
      err instanceof DatasetError
    ) {
      io.stderr.write(`loadgen accuracy: ${err.message}\n`);
      return ACCURACY_EXIT.usage;
    }
    const msg = err instanceof Error ? err.message : String(err);
    io.stderr.write(`loadgen accuracy: ${msg}\n`);
    return ACCURACY_EXIT.usage;
  }
  const out = resolve(flags.output ?? 'accuracy.json');
  try {
    await writeFile(out, JSON.stringify(report, null, 2) + '\n');
  } catch (err) {
    io.stderr.write(`loadgen accuracy: cannot write ${out}: ${(err as Error).message}\n`);
    return ACCURACY_EXIT.usage;
  }
  if (flags.json) io.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else io.stdout.write(formatAccuracyReport(report) + `\nWrote ${out}\n`);
  return accuracyExitCode(report);
}

export function registerAccuracyCommand(program: Command): void {
  program
    .command('accuracy')
    .description(
      'score an accuracy log (mlperf_log_accuracy.json) against the dataset references: ROUGE, exact match, ... with PASS/FAIL per metric',
    )
    .option('--log <path>', 'mlperf_log_accuracy.json of an AccuracyOnly (or TEST06) run')
    .option('--dataset <path>', 'dataset with the references (JSON, JSONL, Parquet; e.g. cnn_eval.json)')
    .option(
      '--tokenizer <path>',
      "the model's tokenizer.json (or its directory); tokenizer_config.json beside it is read too",
    )
    .option(
      '--benchmark <name>',
      `benchmark whose scoring and targets apply: ${accuracyBenchmarks().join(', ')}`,
      'llama3_1-8b',
    )
    .option('--dtype <type>', `token id type in the log: ${TOKEN_DTYPES.join(', ')} (default: the benchmark's, int32)`)
    .option('--reference-column <name>', "dataset column with the references (default: the benchmark's)")
    .option(
      '--category-column <name>',
      "dataset column naming each row's source dataset (mixtral, deepseek-r1, gpt-oss)",
    )
    .option('--tokenizer-config <path>', "tokenizer_config.json (default: beside tokenizer.json; 'none' for none)")
    .option(
      '--clean-up-tokenization-spaces <bool>',
      "override the config's clean_up_tokenization_spaces (true | false)",
    )
    .option('--eos-token-id <n>', "EOS id for the TEST06 EOS check (default: the benchmark's)")
    .option('--scenario <name>', "scenario of the run ('Offline' skips the first-token check)")
    .option('--output <path>', 'where to write the report', 'accuracy.json')
    .option(
      '--punkt <dir>',
      "NLTK's punkt_tab language directory (nltk_data/tokenizers/punkt_tab/english): NLTK's exact sentence splits for ROUGE-Lsum",
    )
    .option(
      '--nltk-unicode-quotes',
      'sentence splitting with NLTK 3.9+ quote rules (default: NLTK 3.8.1, as MLPerf pins)',
    )
    .option(
      '--allow-unsandboxed',
      'run generated programs (LiveCodeBench) with resource limits only where no network namespace can be made',
    )
    .option('--code-workers <n>', 'generated programs run at once (default: the CPU count)')
    .option(
      '--code-timeout <s>',
      'time limit per test of a generated program, seconds (default 60 as the reference; MBXP 20 as mxeval)',
    )
    .option('--code-memory <MiB>', 'memory (address space) limit of a generated program, MiB (default 1024)')
    .option('--keep-samples', 'write every decoded output and its per-sample scores into the report')
    .option('--json', 'print the report as JSON instead of text')
    .action(async (flags: AccuracyFlags) => {
      process.exitCode = await runAccuracyCommand(flags);
    });
}
