// The audit.config values of MLPerf's compliance tests (mlcommons/inference
// compliance/TEST0x/, restated as data, not copied), which of them a
// benchmark gets, and the keys only the verification reads (test07_*,
// test09_*). The engine reads an audit.config with model '*' as the official
// LoadGen does, so the text built here has the benchmark's own lines folded
// into '*' lines (what the TEST04 README asks a SUT to do by hand).
import { UsageError } from '../core/errors.js';
import { isComplianceTestName, requiredComplianceTests, type ComplianceTestName } from './required-tests.js';

/** The tests `loadgen compliance` runs (TEST08 is dlrm-v3's, outside an LLM harness). */
export type RunnableComplianceTest = Exclude<ComplianceTestName, 'TEST08'>;

export const RUNNABLE_COMPLIANCE_TESTS: readonly RunnableComplianceTest[] = [
  'TEST01',
  'TEST04',
  'TEST06',
  'TEST07',
  'TEST09',
];

/** The seed every official audit.config that samples the accuracy log uses. */
export const AUDIT_ACCURACY_LOG_SEED = '720381539243781796';

type Entries = ReadonlyArray<readonly [scenario: string, key: string, value: string]>;

const sampled = (target: number): Entries => [
  ['*', 'mode', '2'],
  ['*', 'accuracy_log_rng_seed', AUDIT_ACCURACY_LOG_SEED],
  ['*', 'accuracy_log_sampling_target', String(target)],
];

// TEST01: one folder per benchmark, differing only in the sampling target.
const TEST01_TARGETS: Readonly<Record<string, number>> = {
  '3d-unet': 64,
  bert: 4096,
  dlrm: 4096,
  'dlrm-v2': 4096,
  'gpt-j': 4096,
  pointpainting: 256,
  resnet50: 4096,
  retinanet: 256,
  rgat: 4096,
  rnnt: 4096,
  'stable-diffusion-xl': 128,
  'wan-2.2-t2v-a14b': 50,
  whisper: 4096,
  yolo: 64,
};

// Our benchmark keys (the built-in mlperf.conf's) whose TEST01 folder has another name.
const TEST01_FOLDER_OF: Readonly<Record<string, string>> = { gptj: 'gpt-j' };

const SAME_SAMPLE_SCENARIOS = ['SingleStream', 'MultiStream', 'Server', 'Offline'];

const TEST04_COMMON: Entries = SAME_SAMPLE_SCENARIOS.flatMap((s) => [
  [s, 'mode', '2'],
  [s, 'performance_issue_unique', '0'],
  [s, 'performance_issue_same', '1'],
  [s, 'performance_issue_same_index', '3'],
]) as Entries;

// TEST04's lines for one benchmark only.
const TEST04_BY_BENCHMARK: Readonly<Record<string, Entries>> = {
  'stable-diffusion-xl': [['Offline', 'min_query_count', '500']],
  'wan-2.2-t2v-a14b': [
    ['Offline', 'min_query_count', '20'],
    ['SingleStream', 'min_query_count', '20'],
  ],
};

const TEST06: Entries = [
  ...sampled(100),
  ['*', 'min_query_count', '100'],
  ['*', 'min_duration', '0'],
  ['*', 'sample_concatenate_permutation', '0'],
];

const everySample = (target: number, queries: number, unique: boolean): Entries => [
  ...sampled(target),
  ['*', 'min_query_count', String(queries)],
  ['*', 'min_duration', '0'],
  ...(unique ? ([['*', 'performance_issue_unique', '1']] as Entries) : []),
  ['*', 'sample_concatenate_permutation', '0'],
];

const TEST07_BY_BENCHMARK: Readonly<Record<string, Entries>> = {
  'gpt-oss-120b': [...everySample(990, 990, true), ['*', 'test07_accuracy_threshold', '60.698']],
};

const TEST09_BY_BENCHMARK: Readonly<Record<string, Entries>> = {
  'gpt-oss-120b': [
    ...everySample(10000, 6396, true),
    ['*', 'test09_min_output_tokens', '1150.38'],
    ['*', 'test09_max_output_tokens', '1406.02'],
  ],
  'e2e-rag-qna': [
    ...everySample(10000, 824, false),
    ['*', 'test09_min_output_tokens', '246.43'],
    ['*', 'test09_max_output_tokens', '301.19'],
  ],
};

/**
 * The names the submission checker may give a benchmark of ours (the
 * mlperf.conf key): llama3_1 is spelled llama3.1, resnet50 resnet, the
 * accuracy variants (-99, -99.9, -95) are separate entries there, and a
 * key's -interactive form is, since v6.1, the base model's Interactive
 * scenario.
 */
export function checkerModelNames(benchmark: string): string[] {
  const base = benchmark.replace(/^llama3_1/, 'llama3.1').replace(/^resnet50$/, 'resnet');
  const bases = base.endsWith('-interactive') ? [base, base.slice(0, -'-interactive'.length)] : [base];
  return bases.flatMap((b) => [b, `${b}-99`, `${b}-99.9`, `${b}-95`]);
}

/** The compliance tests the v6.1 checker requires for one of our benchmark keys (in test order). */
export function complianceTestsFor(benchmark: string): ComplianceTestName[] {
  const found = new Set<ComplianceTestName>();
  for (const name of checkerModelNames(benchmark)) for (const t of requiredComplianceTests(name)) found.add(t);
  return [...found].sort();
}

/** Parses a test name as given on the command line (test06, TEST06, 6...). */
export function parseComplianceTest(text: string): RunnableComplianceTest {
  const t = text.trim().toUpperCase();
  const name = /^\d+$/.test(t) ? `TEST${t.padStart(2, '0')}` : t;
  if (isComplianceTestName(name) && name !== 'TEST08') return name;
  if (name === 'TEST08')
    throw new UsageError(
      'TEST08 is the dlrm-v3 streaming test; loadgen compliance runs TEST01, TEST04, TEST06, TEST07 and TEST09',
    );
  throw new UsageError(
    `unknown compliance test ${JSON.stringify(text)}: expected one of ${RUNNABLE_COMPLIANCE_TESTS.join(', ')}`,
  );
}

export interface BuiltinAuditConfig {
  test: RunnableComplianceTest;
  /** The official folder it restates (compliance/TEST01/bert, compliance/TEST06...). */
  source: string;
  /** audit.config text with every line under model '*'. */
  text: string;
}

function render(test: RunnableComplianceTest, source: string, entries: Entries): BuiltinAuditConfig {
  const lines = [
    `# ${test} audit settings of MLPerf Inference (${source}), written by @x/loadgen.`,
    "# Lines of one benchmark are given under model '*': LoadGen reads this file with model '*'.",
    ...entries.map(([scenario, key, value]) => `*.${scenario}.${key} = ${value}`),
  ];
  return { test, source, text: `${lines.join('\n')}\n` };
}

/**
 * The built-in audit.config of `test` for `benchmark` (our mlperf.conf key),
 * or a UsageError saying what to give instead when there is none.
 */
export function builtinAuditConfig(test: RunnableComplianceTest, benchmark: string | undefined): BuiltinAuditConfig {
  const need = (what: string): never => {
    throw new UsageError(
      `${test}'s audit.config ${what}: give --benchmark (one the test has settings for) or --audit-config FILE`,
    );
  };
  switch (test) {
    case 'TEST04':
      return render(test, 'compliance/TEST04', [...TEST04_COMMON, ...(TEST04_BY_BENCHMARK[benchmark ?? ''] ?? [])]);
    case 'TEST06':
      return render(test, 'compliance/TEST06', TEST06);
    case 'TEST01': {
      if (benchmark === undefined) return need('depends on the benchmark');
      const folder = TEST01_FOLDER_OF[benchmark] ?? benchmark;
      const target = TEST01_TARGETS[folder];
      if (target === undefined) return need(`has no folder for ${benchmark}`);
      return render(test, `compliance/TEST01/${folder}`, sampled(target));
    }
    case 'TEST07':
    case 'TEST09': {
      if (benchmark === undefined) return need('depends on the benchmark');
      const table = test === 'TEST07' ? TEST07_BY_BENCHMARK : TEST09_BY_BENCHMARK;
      const folder = benchmark.replace(/-interactive$/, '');
      const entries = table[folder];
      if (!entries) return need(`has no folder for ${benchmark}`);
      return render(test, `compliance/${test}/${folder}`, entries);
    }
  }
}

/** The verification-only keys of an audit.config (test07_*, test09_*), as the scripts read them. */
export interface AuditThresholds {
  test07AccuracyThreshold?: number;
  test09MinOutputTokens?: number;
  test09MaxOutputTokens?: number;
}

/**
 * Reads the verification keys from audit.config text: any `a.b.name = value`
 * line whose last key part is the name (the scripts ignore the model and
 * scenario parts); text after '#' in a value is dropped.
 */
export function readAuditThresholds(text: string): AuditThresholds {
  const out: AuditThresholds = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const parts = line.slice(0, eq).trim().split('.');
    if (parts.length < 3) continue;
    const value = Number(
      line
        .slice(eq + 1)
        .split('#')[0]!
        .trim(),
    );
    if (!Number.isFinite(value)) continue;
    const name = parts[parts.length - 1];
    if (name === 'test07_accuracy_threshold') out.test07AccuracyThreshold = value;
    else if (name === 'test09_min_output_tokens') out.test09MinOutputTokens = value;
    else if (name === 'test09_max_output_tokens') out.test09MaxOutputTokens = value;
  }
  return out;
}
