// `loadgen submission` end to end against the simulator: a performance run,
// a scored accuracy run and a TEST06 folder become the tree MLPerf's checker
// v6.1 walks, with accuracy.txt, the truncated accuracy log and its hash,
// the stubs; and the pre-check names exactly the limits the short runs
// lowered (the 600 s minimum, Offline's samples per query, the accuracy
// dataset's size) plus what the submitter has not filled in yet.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { runSubmission } from '../../lib/cli/submission-command.js';
import { runBenchmark } from '../../lib/run/run-benchmark.js';
import { readInputs } from '../../lib/submission/inputs.js';
import { buildSubmission } from '../../lib/submission/layout.js';
import { precheckSubmission } from '../../lib/submission/precheck.js';
import { fillSubmitterParts, referencedDataset, shortRuns, type Runs } from './helpers.js';

let runs: Runs;

beforeAll(async () => {
  runs = await shortRuns();
}, 120_000);

const SCEN = 'closed/Acme/results/sim1/llama3.1-8b/Offline';

function build(out: string, format: 'loadgen' | 'endpoints' = 'loadgen') {
  return buildSubmission({
    org: 'Acme',
    system: 'sim1',
    division: 'closed',
    format,
    out,
    inputs: readInputs([runs.perfDir, runs.accDir, runs.complianceDir]),
    tool: '@x/loadgen test',
  });
}

describe('loadgen submission (LoadGen format)', () => {
  it('lays out the tree the checker reads, with accuracy.txt, the truncated log and its hash', () => {
    const out = join(runs.dir, 'tree');
    const built = build(out);
    expect(built.scenarios.map((s) => `${s.benchmark} ${s.scenario}`)).toEqual(['llama3.1-8b Offline']);
    const scen = join(out, SCEN);
    for (const f of [
      'performance/run_1/mlperf_log_summary.txt',
      'performance/run_1/mlperf_log_detail.txt',
      'accuracy/mlperf_log_summary.txt',
      'accuracy/mlperf_log_detail.txt',
      'accuracy/mlperf_log_accuracy.json',
      'accuracy/accuracy.txt',
      'TEST06/verify_accuracy.txt',
      'TEST06/accuracy/mlperf_log_accuracy.json',
      'user.conf',
      'mlperf.conf',
      'measurements.json',
      'README.md',
    ])
      expect(existsSync(join(scen, f)), f).toBe(true);
    expect(existsSync(join(out, 'closed/Acme/systems/sim1.json'))).toBe(true);
    expect(existsSync(join(out, 'closed/Acme/src'))).toBe(true);

    // The hash is of the whole log; the copy is cut to 4096 + 4096 characters.
    const original = readFileSync(join(runs.accDir, 'mlperf_log_accuracy.json'));
    const sha = createHash('sha256').update(original).digest('hex');
    const txt = readFileSync(join(scen, 'accuracy/accuracy.txt'), 'utf8');
    expect(txt).toContain(`\nhash=${sha}\n`);
    expect(txt).toMatch(
      /^\{'rouge1': 100, 'rouge2': 100, 'rougeL': 100, 'rougeLsum': 100, 'gen_len': \d+, 'gen_num': 16/m,
    );
    const cut = readFileSync(join(scen, 'accuracy/mlperf_log_accuracy.json'), 'latin1');
    const text = original.toString('latin1');
    if (original.length >= 4096) {
      expect(cut).toBe(`${text.slice(0, 4096)}\n\n...\n\n${text.slice(-4096)}`);
      expect(statSync(join(scen, 'accuracy/mlperf_log_accuracy.json')).size).toBeLessThanOrEqual(10 * 1024);
    } else {
      expect(cut).toBe(text);
    }
    // user.conf names the lowered settings; the system skeleton names the division and submitter only.
    const userConf = readFileSync(join(scen, 'user.conf'), 'utf8');
    expect(userConf).toContain('llama3_1-8b.Offline.min_duration = 200');
    expect(userConf).toContain('llama3_1-8b.Offline.min_query_count = 40');
    const sys = JSON.parse(readFileSync(join(out, 'closed/Acme/systems/sim1.json'), 'utf8')) as Record<string, string>;
    expect(sys.division).toBe('closed');
    expect(sys.submitter).toBe('Acme');
    expect(sys.accelerator_model_name).toBe('');
    expect(
      built.todo.some((t) => t.startsWith('closed/Acme/systems/sim1.json: fill in system_type, status, system_name')),
    ).toBe(true);
  });

  it('the pre-check names exactly the lowered limits once the submitter parts are filled in', () => {
    const out = join(runs.dir, 'tree-filled');
    build(out);
    const before = precheckSubmission(out).problems;
    expect(before.some((p) => p.file === 'closed/Acme/systems/sim1.json' && /status ''/.test(p.message))).toBe(true);
    expect(
      before.some((p) => p.file === `${SCEN}/measurements.json` && /input_data_types is empty/.test(p.message)),
    ).toBe(true);
    fillSubmitterParts(join(out, 'closed/Acme'), 'sim1', join(out, SCEN));
    const problems = precheckSubmission(out).problems.map((p) => `${p.file}: ${p.message}`);
    expect(problems).toEqual([
      'closed/Acme/results/sim1/llama3.1-8b: the closed division needs these scenarios too: (one of) Interactive or Server',
      `${SCEN}/performance/run_1/mlperf_log_detail.txt: Offline samples per query is 40; the closed division needs >= 13368`,
      `${SCEN}/performance/run_1/mlperf_log_detail.txt: min_duration is 200 ms; the checker needs >= 600000 ms (600 s)`,
      expect.stringMatching(new RegExp(`^${SCEN}/accuracy/accuracy.txt: gen_len \\d+ is below the target 7350879.6`)),
      `${SCEN}/accuracy/mlperf_log_detail.txt: the accuracy run covers 16 samples; the dataset has 13368`,
    ]);
  });

  it('names a changed seed and a failing TEST06 with their files', () => {
    const out = join(runs.dir, 'tree-broken');
    build(out);
    const scen = join(out, SCEN);
    const detail = join(scen, 'performance/run_1/mlperf_log_detail.txt');
    writeFileSync(
      detail,
      readFileSync(detail, 'utf8').replace(/("key": "effective_schedule_rng_seed", "value": )\d+/, '$1123'),
    );
    writeFileSync(join(scen, 'TEST06/verify_accuracy.txt'), 'First token check pass: True\nEOS check pass: False\n');
    const problems = precheckSubmission(out).problems.map((p) => `${p.file}: ${p.message}`);
    expect(problems).toContain(
      `${SCEN}/performance/run_1/mlperf_log_detail.txt: schedule_rng_seed is 123; the checker expects 16159082839903944936`,
    );
    expect(problems).toContain(
      `${SCEN}/TEST06/verify_accuracy.txt: TEST06 failed: first token true, EOS false, sample length false`,
    );
  });

  it('the command prints the tree, the to-do list and every problem; exit 1, and 2 for bad flags', async () => {
    const out = join(runs.dir, 'tree-cli');
    const stdout: string[] = [];
    const stderr: string[] = [];
    const io = { stdout: (t: string) => stdout.push(t), stderr: (t: string) => stderr.push(t) };
    const code = await runSubmission(
      [runs.perfDir, runs.accDir, runs.complianceDir],
      { org: 'Acme', system: 'sim1', out },
      io,
    );
    expect(code).toBe(1);
    const text = stdout.join('');
    expect(text).toContain('llama3.1-8b Offline');
    expect(text).toContain('Left for you to fill in');
    expect(text).toContain(`${SCEN}/performance/run_1/mlperf_log_detail.txt: min_duration is 200 ms`);
    // Building into the same tree again would overwrite results: refused.
    expect(await runSubmission([runs.perfDir], { org: 'Acme', system: 'sim1', out }, io)).toBe(2);
    expect(stderr.join('')).toMatch(/exists already/);
    expect(await runSubmission([runs.perfDir], { org: 'Acme', system: 'sim1', out, division: 'network' }, io)).toBe(2);
    expect(await runSubmission([runs.perfDir], { system: 'sim1', out }, io)).toBe(2);
    stdout.length = 0;
    expect(await runSubmission([], { check: out }, io)).toBe(1);
    expect(stdout.join('')).toMatch(/over 1 scenario folder\(s\): \d+ problem\(s\)/);
  });
});

describe('scoring an unscored accuracy run', () => {
  it('--dataset and --tokenizer score it as loadgen accuracy does, for accuracy.txt', async () => {
    const accDir = join(runs.dir, 'acc-unscored');
    await runBenchmark({
      scenario: 'Offline',
      benchmark: 'llama3_1-8b',
      mode: 'AccuracyOnly',
      dataset: referencedDataset(16),
      workers: 0,
      outdir: accDir,
      log: () => {},
    });
    expect(existsSync(join(accDir, 'accuracy.json'))).toBe(false);
    const data = join(runs.dir, 'refs.json');
    const ds = referencedDataset(16);
    writeFileSync(data, JSON.stringify(Array.from({ length: 16 }, (_, i) => ({ output: ds.prompt(i).reference }))));
    const io = { stdout: () => {}, stderr: () => {} };
    const unscored = join(runs.dir, 'tree-unscored');
    expect(await runSubmission([runs.perfDir, accDir], { org: 'Acme', system: 'sim1', out: unscored }, io)).toBe(1);
    expect(existsSync(join(unscored, SCEN, 'accuracy/accuracy.txt'))).toBe(false);
    const out = join(runs.dir, 'tree-scored');
    const flags = { org: 'Acme', system: 'sim1', out, dataset: data, tokenizer: runs.tokenizer };
    expect(await runSubmission([runs.perfDir, accDir], flags, io)).toBe(1);
    expect(readFileSync(join(out, SCEN, 'accuracy/accuracy.txt'), 'utf8')).toMatch(/^\{'rouge1': 100, /m);
  });
});

describe('the endpoints result format', () => {
  it('every run wrote config.yaml; the scored one accuracy/accuracy_results.json', () => {
    const config = parseYaml(readFileSync(join(runs.perfDir, 'config.yaml'), 'utf8'), { intAsBigInt: true }) as {
      type: string;
      settings: { runtime: Record<string, unknown>; load_pattern: Record<string, unknown> };
      endpoint_config: { api_key: unknown };
    };
    expect(config.type).toBe('offline');
    expect(config.settings.runtime.min_duration_ms).toBe(200n);
    expect(config.settings.runtime.scheduler_random_seed).toBe(16159082839903944936n);
    expect(config.settings.runtime.dataloader_random_seed).toBe(2747215439041700203n);
    expect(config.settings.load_pattern.type).toBe('max_throughput');
    expect(config.endpoint_config.api_key).toBeNull();
    expect(existsSync(join(runs.perfDir, 'accuracy', 'accuracy_results.json'))).toBe(false);
    const acc = JSON.parse(readFileSync(join(runs.accDir, 'accuracy', 'accuracy_results.json'), 'utf8')) as {
      accuracy_scores: Array<{ score: Record<string, number>; total_samples: number; dataset_type: string }>;
    };
    expect(acc.accuracy_scores[0].score.rouge1).toBe(100);
    expect(acc.accuracy_scores[0].total_samples).toBe(16);
    expect(acc.accuracy_scores[0].dataset_type).toBe('accuracy');
  });

  it('--format endpoints lays out config.yaml, result_summary.json and accuracy_results.json, and pre-checks them', () => {
    const out = join(runs.dir, 'tree-endpoints');
    build(out, 'endpoints');
    const scen = join(out, SCEN);
    for (const f of ['config.yaml', 'performance/result_summary.json', 'accuracy/accuracy_results.json', 'README.md'])
      expect(existsSync(join(scen, f)), f).toBe(true);
    expect(existsSync(join(scen, 'performance/run_1'))).toBe(false);
    fillSubmitterParts(join(out, 'closed/Acme'), 'sim1', scen);
    const problems = precheckSubmission(out).problems.map((p) => `${p.file}: ${p.message}`);
    expect(problems).toEqual([
      'closed/Acme/results/sim1/llama3.1-8b: the closed division needs these scenarios too: (one of) Interactive or Server',
      `${SCEN}/config.yaml: settings.runtime.min_duration_ms is 200; the checker needs >= 600000`,
      `${SCEN}/accuracy/accuracy_results.json: the accuracy scores cover 16 samples; the dataset has 13368`,
    ]);
  });
});
