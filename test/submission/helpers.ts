// Short runs against the simulator for the submission tests: a performance
// run and a scored accuracy run of llama3_1-8b with minimums lowered (the
// checker's 600 s and sample counts would take far too long), and a TEST06
// folder as `loadgen compliance` writes it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Dataset } from '../../lib/dataset/types.js';
import type { RunRecord } from '../../lib/results/run-record.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { tempDir, wordLevelTokenizer } from '../accuracy/helpers.js';
import { expectedIds } from '../sut/helpers.js';

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);

/** Prompts the simulator answers predictably, each with its exact output as the reference. */
export function referencedDataset(n: number): Dataset {
  const refs = range(0, n).map((i) =>
    expectedIds([1, 100 + i, 7], 8)
      .map((k) => `t${k}`)
      .join(' '),
  );
  return { name: 'refs', size: n, prompt: (i) => ({ tokenIds: [1, 100 + i, 7], maxTokens: 8, reference: refs[i]! }) };
}

/** The settings the tests lower: a 200 ms minimum and 40 samples in the Offline query. */
export const LOWERED = { minDurationMs: 200, minQueryCount: 40, offlineExpectedQps: 100 };

export interface Runs {
  dir: string;
  perf: RunRecord;
  acc: RunRecord;
  perfDir: string;
  accDir: string;
  complianceDir: string;
  tokenizer: string;
}

export async function shortRuns(): Promise<Runs> {
  const dir = tempDir();
  const tokenizer = wordLevelTokenizer(dir, range(1000, 31000), (k) => `t${k}`, { 2: '</s>' });
  const perfDir = join(dir, 'perf');
  const accDir = join(dir, 'acc');
  const quiet = (): void => {};
  const perf = await runBenchmark({
    scenario: 'Offline',
    benchmark: 'llama3_1-8b',
    dataset: referencedDataset(16),
    settings: LOWERED,
    workers: 0,
    outdir: perfDir,
    log: quiet,
  });
  const acc = await runBenchmark({
    scenario: 'Offline',
    benchmark: 'llama3_1-8b',
    mode: 'AccuracyOnly',
    dataset: referencedDataset(16),
    tokenizer,
    workers: 0,
    outdir: accDir,
    log: quiet,
  });
  const complianceDir = join(dir, 'compliance');
  mkdirSync(join(complianceDir, 'TEST06', 'accuracy'), { recursive: true });
  writeFileSync(
    join(complianceDir, 'TEST06', 'accuracy', 'mlperf_log_accuracy.json'),
    readFileSync(join(accDir, 'mlperf_log_accuracy.json')),
  );
  writeFileSync(
    join(complianceDir, 'TEST06', 'verify_accuracy.txt'),
    'First token check pass: Skipped\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n',
  );
  return { dir, perf, acc, perfDir, accDir, complianceDir, tokenizer };
}

/** Fills in what the submitter provides (system description, measurements, code), as a real submission would. */
export function fillSubmitterParts(orgDir: string, system: string, scenarioDir: string): void {
  const sysPath = join(orgDir, 'systems', `${system}.json`);
  const sys = JSON.parse(readFileSync(sysPath, 'utf8')) as Record<string, unknown>;
  for (const k of Object.keys(sys)) if (sys[k] === '') sys[k] = 'filled';
  Object.assign(sys, { status: 'available', system_type: 'datacenter', number_of_nodes: 1 });
  writeFileSync(sysPath, JSON.stringify(sys));
  const mPath = join(scenarioDir, 'measurements.json');
  const m = JSON.parse(readFileSync(mPath, 'utf8')) as Record<string, unknown>;
  for (const k of Object.keys(m)) m[k] = 'filled';
  writeFileSync(mPath, JSON.stringify(m));
  writeFileSync(join(orgDir, 'src', 'README.md'), 'code\n');
}
