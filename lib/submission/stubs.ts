// The files of a submission that the logs do not hold: user.conf and
// mlperf.conf (from the run's settings and the official table it started
// from), measurements.json and README.md beside them, and the system
// description. What a harness cannot know (the hardware, the software stack,
// how the weights were made) is left empty and listed for the submitter;
// nothing here is guessed.
import { loadSettings } from '../core/load-settings.js';
import type { TestScenario, TestSettings } from '../core/settings.js';
import { MEASUREMENTS_FIELDS, SYSTEM_REQUIRED_FIELDS } from './rules.js';

type ConfUnit = 'plain' | 'ms' | 'bool';

// The settings a run commonly changes, by their mlperf.conf key and unit.
const CONF_FIELDS: ReadonlyArray<readonly [keyof TestSettings, string, ConfUnit, TestScenario?]> = [
  ['serverTargetQps', 'target_qps', 'plain', 'Server'],
  ['offlineExpectedQps', 'target_qps', 'plain', 'Offline'],
  ['serverTargetLatencyNs', 'target_latency', 'ms', 'Server'],
  ['minDurationMs', 'min_duration', 'plain'],
  ['maxDurationMs', 'max_duration', 'plain'],
  ['minQueryCount', 'min_query_count', 'plain'],
  ['maxQueryCount', 'max_query_count', 'plain'],
  ['performanceSampleCountOverride', 'performance_sample_count_override', 'plain'],
  ['accuracySampleCountOverride', 'accuracy_sample_count_override', 'plain'],
  ['sampleConcatenatePermutation', 'sample_concatenate_permutation', 'bool'],
  ['useTokenLatencies', 'use_token_latencies', 'bool'],
  ['ttftLatencyNs', 'ttft_latency', 'ms'],
  ['tpotLatencyNs', 'tpot_latency', 'ms'],
  ['qslRngSeed', 'qsl_rng_seed', 'plain'],
  ['sampleIndexRngSeed', 'sample_index_rng_seed', 'plain'],
  ['scheduleRngSeed', 'schedule_rng_seed', 'plain'],
];

function confValue(v: unknown, unit: ConfUnit): string {
  if (unit === 'bool') return v === true || v === 1 || v === '1' ? '1' : '0';
  if (unit === 'ms' && typeof v === 'number') return String(v / 1e6);
  return String(v);
}

function officialSettings(model: string, scenario: string): TestSettings | null {
  try {
    return loadSettings({ model, scenario: scenario as TestScenario });
  } catch {
    return null;
  }
}

function confLines(
  model: string,
  scenario: string,
  settings: Record<string, unknown>,
  keep: (field: string, value: unknown) => boolean,
): string[] {
  const out: string[] = [];
  for (const [field, key, unit, only] of CONF_FIELDS) {
    if (only && only !== scenario) continue;
    const v = settings[field];
    if (v === undefined || !keep(field, v)) continue;
    out.push(`${model}.${scenario}.${key} = ${confValue(v, unit)}`);
  }
  return out;
}

/**
 * user.conf: every listed setting whose value differs from the official
 * table's for this model and scenario (the checker needs the file, non-empty).
 */
export function userConfText(model: string, scenario: string, settings: Record<string, unknown>): string {
  const official = officialSettings(model, scenario) as Record<string, unknown> | null;
  const lines = confLines(
    model,
    scenario,
    settings,
    (field, v) => official === null || String(official[field]) !== String(v),
  );
  const head = `# user.conf of this ${scenario} run of ${model}: the settings it changed from mlperf.conf\n`;
  return head + (lines.length > 0 ? `${lines.join('\n')}\n` : '# (none: every setting is the official value)\n');
}

/** mlperf.conf: the official values this run started from (our built-in copy of MLPerf's table). */
export function mlperfConfText(model: string, scenario: string, tool: string): string {
  const official = officialSettings(model, scenario) as Record<string, unknown> | null;
  const head = `# The official settings for ${model} ${scenario} as ${tool}'s built-in copy of MLPerf's mlperf.conf holds them\n`;
  if (!official) return `${head}# (${model} is not in the built-in table)\n`;
  return `${head}${confLines(model, scenario, official, () => true).join('\n')}\n`;
}

/** measurements.json with the checker's required fields, empty for the submitter to fill. */
export function measurementsStub(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of MEASUREMENTS_FIELDS) out[f] = '';
  return out;
}

/** README.md of a scenario folder: the command that produced the logs, and what the submitter adds. */
export function scenarioReadme(
  benchmark: string,
  scenario: string,
  tool: string,
  commands: Array<{ kind: string; argv: string[] | null }>,
): string {
  const lines = [`# ${benchmark} ${scenario}`, '', `The logs in this folder were produced by ${tool}:`, ''];
  for (const c of commands) {
    lines.push(
      `${c.kind} run:`,
      '',
      '```',
      c.argv ? ['loadgen', ...c.argv].join(' ') : '(the command was not recorded)',
      '```',
      '',
    );
  }
  lines.push(
    '<!-- TODO (submitter): how to reproduce this result: the model, the serving stack and its flags. -->',
    '',
  );
  return lines.join('\n');
}

/**
 * systems/<system>.json: every field the checker requires, with what the
 * command line says (division, submitter) and the rest empty.
 */
export function systemSkeleton(o: { org: string; division: string; systemType?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of SYSTEM_REQUIRED_FIELDS) out[f] = '';
  out.division = o.division;
  out.submitter = o.org;
  if (o.systemType) out.system_type = o.systemType;
  return out;
}
