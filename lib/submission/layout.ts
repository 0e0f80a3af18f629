// Lays out a submission tree the way MLPerf's submission checker v6.1 walks
// it (constants.py's *_PATH templates; submission_structure.md):
//
//   <division>/<org>/systems/<system>.json
//   <division>/<org>/src/
//   <division>/<org>/results/<system>/<benchmark>/<scenario>/
//     performance/run_1/mlperf_log_{summary,detail}.txt
//     accuracy/{mlperf_log_summary.txt, mlperf_log_detail.txt, mlperf_log_accuracy.json (truncated), accuracy.txt}
//     TEST0x/...            (compliance, copied as given)
//     user.conf  mlperf.conf  measurements.json  README.md
//
// or, in the endpoints result format, config.yaml, performance/result_summary.json
// and accuracy/accuracy_results.json in place of the LoadGen logs.
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import type { AccuracySummary } from '../accuracy/score.js';
import { UsageError } from '../core/errors.js';
import {
  ACCURACY_RESULTS_DIR,
  ACCURACY_RESULTS_FILE,
  ENDPOINTS_CONFIG_FILE,
  buildAccuracyResults,
} from '../results/endpoints-files.js';
import { runAccuracyScores, type ComplianceInput, type RunInput, type SubmissionInputs } from './inputs.js';
import { MEASUREMENTS_FIELDS, SYSTEM_MEANINGFUL_FIELDS, type Division } from './rules.js';
import { measurementsStub, mlperfConfText, scenarioReadme, systemSkeleton, userConfText } from './stubs.js';
import { accuracyTxt, fileSha256, hashLine, truncatedAccuracyLog } from './truncate.js';

export type SubmissionFormat = 'loadgen' | 'endpoints';

export interface BuildSubmissionOptions {
  org: string;
  system: string;
  division: Division;
  format?: SubmissionFormat;
  /** systems/<system>.json's system_type when given (datacenter, edge, ...). */
  systemType?: string;
  /** The folder the tree is written into (created; a scenario folder already there is refused). */
  out: string;
  inputs: SubmissionInputs;
  /** Scores for accuracy runs by their directory, when the caller scored them (else read from the run). */
  scores?: ReadonlyMap<string, AccuracySummary>;
  /** Name and version of the harness, for the stubs' comments. */
  tool: string;
}

export interface ScenarioTree {
  benchmark: string;
  scenario: string;
  dir: string;
}

export interface BuiltSubmission {
  root: string;
  scenarios: ScenarioTree[];
  /** Every file written, relative to root. */
  files: string[];
  /** What the submitter still has to fill in or provide, each naming its file. */
  todo: string[];
}

interface Group {
  benchmark: string;
  scenario: string;
  performance: RunInput[];
  accuracy: RunInput[];
}

function groupRuns(runs: readonly RunInput[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of runs) {
    const key = `${r.benchmark}/${r.checkerScenario}`;
    let g = groups.get(key);
    if (!g) {
      g = { benchmark: r.benchmark, scenario: r.checkerScenario, performance: [], accuracy: [] };
      groups.set(key, g);
    }
    if (r.kind !== 'accuracy') g.performance.push(r);
    if (r.kind !== 'performance') g.accuracy.push(r);
  }
  for (const g of groups.values()) {
    for (const [what, list] of [
      ['performance', g.performance],
      ['accuracy', g.accuracy],
    ] as const) {
      if (list.length > 1)
        throw new UsageError(
          `${g.benchmark} ${g.scenario}: ${list.length} ${what} runs given (${list.map((r) => r.dir).join(', ')}); a submission holds one`,
        );
    }
  }
  return [...groups.values()];
}

class Writer {
  readonly files: string[] = [];
  constructor(readonly root: string) {}
  write(path: string, text: string, encoding: BufferEncoding = 'utf8'): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, encoding);
    this.files.push(relative(this.root, path));
  }
  copy(from: string, to: string): void {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    this.files.push(relative(this.root, to));
  }
}

function settingsOf(run: RunInput | undefined): Record<string, unknown> {
  const s = run?.results?.settings as { requested?: Record<string, unknown> } | undefined;
  return s?.requested ?? {};
}

function commandOf(run: RunInput): string[] | null {
  const c = (run.results?.run as { command?: unknown } | undefined)?.command;
  return Array.isArray(c) ? (c as string[]) : null;
}

/** Copies an accuracy log truncated as the official tool does; returns the hash of the whole file. */
function truncateInto(w: Writer, from: string, to: string): string {
  const hex = fileSha256(from);
  w.write(to, truncatedAccuracyLog(from), 'latin1');
  return hex;
}

function layoutLoadgen(w: Writer, g: Group, dir: string, o: BuildSubmissionOptions, todo: string[]): void {
  const perf = g.performance[0];
  if (perf) {
    for (const f of ['mlperf_log_summary.txt', 'mlperf_log_detail.txt'])
      if (existsSync(join(perf.dir, f))) w.copy(join(perf.dir, f), join(dir, 'performance', 'run_1', f));
  }
  const acc = g.accuracy[0];
  if (acc) {
    const accDir = join(dir, 'accuracy');
    for (const f of ['mlperf_log_summary.txt', 'mlperf_log_detail.txt'])
      if (existsSync(join(acc.dir, f))) w.copy(join(acc.dir, f), join(accDir, f));
    const log = join(acc.dir, 'mlperf_log_accuracy.json');
    const scores = o.scores?.get(acc.dir) ?? runAccuracyScores(acc);
    if (!existsSync(log)) {
      todo.push(`${relative(w.root, accDir)}: the accuracy run ${acc.dir} has no mlperf_log_accuracy.json`);
    } else if (!scores) {
      // As the official tool does: no accuracy.txt, no truncation.
      w.copy(log, join(accDir, 'mlperf_log_accuracy.json'));
      todo.push(
        `${relative(w.root, join(accDir, 'accuracy.txt'))}: the accuracy run was not scored; score it (loadgen accuracy --log ${log} --dataset ... --tokenizer ... --output ${join(acc.dir, 'accuracy.json')}) or give --dataset and --tokenizer, then build again`,
      );
    } else {
      const hex = truncateInto(w, log, join(accDir, 'mlperf_log_accuracy.json'));
      w.write(join(accDir, 'accuracy.txt'), accuracyTxt(scores.metrics, hex, scores.datasets));
    }
  }
  const base = perf ?? acc;
  if (base) {
    w.write(join(dir, 'user.conf'), userConfText(base.model, base.scenario, settingsOf(base)));
    w.write(join(dir, 'mlperf.conf'), mlperfConfText(base.model, base.scenario, o.tool));
  }
}

function layoutEndpoints(w: Writer, g: Group, dir: string, o: BuildSubmissionOptions, todo: string[]): void {
  const perf = g.performance[0];
  if (perf) {
    const summary = join(perf.dir, 'result_summary.json');
    if (existsSync(summary)) w.copy(summary, join(dir, 'performance', 'result_summary.json'));
    else todo.push(`${relative(w.root, dir)}: ${perf.dir} has no result_summary.json`);
  }
  const configFrom = [perf, g.accuracy[0]].find((r) => r && existsSync(join(r.dir, ENDPOINTS_CONFIG_FILE)));
  if (configFrom) w.copy(join(configFrom.dir, ENDPOINTS_CONFIG_FILE), join(dir, ENDPOINTS_CONFIG_FILE));
  else
    todo.push(
      `${relative(w.root, join(dir, ENDPOINTS_CONFIG_FILE))}: the runs carry no config.yaml (written by loadgen run since this version): run again`,
    );
  const acc = g.accuracy[0];
  if (acc) {
    const to = join(dir, ACCURACY_RESULTS_DIR, ACCURACY_RESULTS_FILE);
    const written = join(acc.dir, ACCURACY_RESULTS_DIR, ACCURACY_RESULTS_FILE);
    const scores = o.scores?.get(acc.dir) ?? runAccuracyScores(acc);
    if (scores) w.write(to, `${JSON.stringify(buildAccuracyResults(scores, { name: datasetName(acc) }), null, 2)}\n`);
    else if (existsSync(written)) w.copy(written, to);
    else
      todo.push(
        `${relative(w.root, to)}: the accuracy run was not scored; give --dataset and --tokenizer (or run loadgen accuracy) and build again`,
      );
  }
}

function datasetName(run: RunInput): string {
  const d = (run.results?.benchmark as { dataset?: { name?: string } } | undefined)?.dataset;
  return d?.name ?? 'accuracy';
}

/** Copies one compliance test; its accuracy log is truncated with its hash as the official tool does for TEST01, TEST07 and TEST09. */
function layoutCompliance(w: Writer, c: ComplianceInput, dir: string, todo: string[]): void {
  const to = join(dir, c.test);
  const truncates = c.test === 'TEST01' || c.test === 'TEST07' || c.test === 'TEST09';
  const log = join(c.dir, 'accuracy', 'mlperf_log_accuracy.json');
  cpSync(c.dir, to, {
    recursive: true,
    filter: (src) => !(truncates && src === log),
  });
  for (const f of listFiles(to)) w.files.push(relative(w.root, f));
  if (!truncates || !existsSync(log)) return;
  const accTxt = join(to, 'accuracy', 'accuracy.txt');
  if (c.test === 'TEST01' && !existsSync(accTxt)) {
    w.copy(log, join(to, 'accuracy', 'mlperf_log_accuracy.json'));
    todo.push(`${relative(w.root, accTxt)}: TEST01's accuracy log has no accuracy.txt to carry its hash`);
    return;
  }
  const hex = truncateInto(w, log, join(to, 'accuracy', 'mlperf_log_accuracy.json'));
  if (c.test === 'TEST01') {
    writeFileSync(accTxt, readFileSync(accTxt, 'utf8') + hashLine(hex));
  } else {
    w.write(accTxt, `hash=${hex}\n`);
  }
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

/** Writes the submission tree; the pre-check (precheckSubmission) then judges it. */
export function buildSubmission(o: BuildSubmissionOptions): BuiltSubmission {
  const format = o.format ?? 'loadgen';
  for (const [flag, v] of [
    ['--org', o.org],
    ['--system', o.system],
  ] as const) {
    if (!v || /[/\\]/.test(v) || v === '.' || v === '..')
      throw new UsageError(`${flag}: expected a folder name, got '${v}'`);
  }
  if (o.inputs.runs.length === 0) throw new UsageError('no run directory given');
  const groups = groupRuns(o.inputs.runs);
  if (o.inputs.compliance.length > 0 && groups.length > 1)
    throw new UsageError(
      'compliance directories belong to one benchmark and scenario: build one benchmark and scenario per command when giving them',
    );
  const w = new Writer(o.out);
  const todo: string[] = [];
  const orgDir = join(o.out, o.division, o.org);
  const scenarios: ScenarioTree[] = [];
  for (const g of groups) {
    const dir = join(orgDir, 'results', o.system, g.benchmark, g.scenario);
    if (existsSync(dir)) throw new UsageError(`${dir} exists already: choose another --out or remove it`);
    scenarios.push({ benchmark: g.benchmark, scenario: g.scenario, dir });
  }
  for (const [i, g] of groups.entries()) {
    const dir = scenarios[i].dir;
    if (format === 'endpoints') layoutEndpoints(w, g, dir, o, todo);
    else layoutLoadgen(w, g, dir, o, todo);
    for (const c of o.inputs.compliance) layoutCompliance(w, c, dir, todo);
    const measurements = join(dir, 'measurements.json');
    w.write(measurements, `${JSON.stringify(measurementsStub(), null, 4)}\n`);
    todo.push(`${relative(o.out, measurements)}: fill in ${MEASUREMENTS_FIELDS.join(', ')}`);
    const commands = [
      ...g.performance.map((r) => ({ kind: 'performance', argv: commandOf(r) })),
      ...g.accuracy.filter((r) => r.kind === 'accuracy').map((r) => ({ kind: 'accuracy', argv: commandOf(r) })),
    ];
    const readme = join(dir, 'README.md');
    w.write(readme, scenarioReadme(g.benchmark, g.scenario, o.tool, commands));
    todo.push(`${relative(o.out, readme)}: describe how to reproduce the result`);
  }
  const systemJson = join(orgDir, 'systems', `${o.system}.json`);
  if (!existsSync(systemJson)) {
    const skeleton = systemSkeleton({ org: o.org, division: o.division, systemType: o.systemType });
    w.write(systemJson, `${JSON.stringify(skeleton, null, 4)}\n`);
    const empty = SYSTEM_MEANINGFUL_FIELDS.filter((f) => skeleton[f] === '');
    todo.push(`${relative(o.out, systemJson)}: fill in ${empty.join(', ')} (and the other empty fields)`);
  }
  const src = join(orgDir, 'src');
  if (!existsSync(src)) mkdirSync(src, { recursive: true });
  if (readdirSync(src).length === 0) todo.push(`${relative(o.out, src)}/: add the code of the submitted system`);
  return { root: o.out, scenarios, files: w.files, todo };
}
