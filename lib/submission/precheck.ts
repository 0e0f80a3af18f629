// Our pre-check of a submission tree: the rules MLPerf's submission checker
// v6.1 applies (submission_checker/loader.py walks the tree; checks/*.py
// judge each scenario folder), restated so a submitter sees every problem
// with the file it concerns before running the real checker. The scenario
// set, the system description, measurements, compliance and, for endpoints
// results, the endpoints parser's fields.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { parse as parseYaml } from 'yaml';

import { requiredComplianceTests } from '../compliance/required-tests.js';
import { checkAccuracyDir, checkPerformanceLog, type PerfContext, type Problem } from './precheck-perf.js';
import { checkEndpointsScenario } from './precheck-endpoints.js';
import {
  CHECKER_BENCHMARKS,
  MEASUREMENT_FILES,
  MEASUREMENTS_FIELDS,
  PERFORMANCE_FILES,
  SYSTEM_MEANINGFUL_FIELDS,
  SYSTEM_REQUIRED_FIELDS,
  VALID_AVAILABILITIES,
  VALID_SYSTEM_TYPES,
} from './rules.js';

export type { Problem };

export interface PrecheckReport {
  problems: Problem[];
  /** Scenario folders checked, relative to the root. */
  checked: string[];
}

const DIVISIONS = ['closed', 'open', 'network'];

function dirs(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

function readJsonObject(path: string, rel: string, out: Problem[]): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    out.push({ file: rel, message: 'is not a JSON object' });
  } catch (err) {
    out.push({ file: rel, message: `is not valid JSON: ${(err as Error).message}` });
  }
  return null;
}

function empty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === false;
}

/** SystemCheck: the description exists, its required fields are there and meaningful, its status, type, submitter and division agree. */
function checkSystem(
  system: Record<string, unknown> | null,
  rel: string,
  submitter: string,
  division: string,
): Problem[] {
  if (!system) return [{ file: rel, message: 'system description missing' }];
  const out: Problem[] = [];
  const status = String(system.status ?? '').toLowerCase();
  if (!VALID_AVAILABILITIES.includes(status))
    out.push({ file: rel, message: `status '${status}' is not one of ${VALID_AVAILABILITIES.join(', ')}` });
  if (!VALID_SYSTEM_TYPES.includes(String(system.system_type ?? '')))
    out.push({
      file: rel,
      message: `system_type '${String(system.system_type ?? '')}' is not one of ${VALID_SYSTEM_TYPES.join(' | ')}`,
    });
  const network = String(system.is_network ?? '').toLowerCase() === 'true';
  if (division === 'closed' && network) out.push({ file: rel, message: 'is_network is true in the closed division' });
  const missing = SYSTEM_REQUIRED_FIELDS.filter((f) => !(f in system));
  if (missing.length > 0) out.push({ file: rel, message: `fields missing: ${missing.join(', ')}` });
  const blank = SYSTEM_MEANINGFUL_FIELDS.filter((f) => f in system && empty(system[f]));
  if (blank.length > 0)
    out.push({ file: rel, message: `fields that need a meaningful value are empty: ${blank.join(', ')}` });
  if (String(system.submitter ?? '').toLowerCase() !== submitter.toLowerCase())
    out.push({
      file: rel,
      message: `submitter '${String(system.submitter ?? '')}' differs from the folder '${submitter}'`,
    });
  if (String(system.division ?? '').toLowerCase() !== division.toLowerCase())
    out.push({
      file: rel,
      message: `division '${String(system.division ?? '')}' differs from the folder '${division}'`,
    });
  return out;
}

/** MeasurementsCheck: measurements.json and its fields, user.conf and README.md non-empty, the src folder. */
function checkMeasurements(dir: string, rel: string, srcDir: string, srcRel: string, endpoints: boolean): Problem[] {
  const out: Problem[] = [];
  const m = readJsonObject(join(dir, 'measurements.json'), `${rel}/measurements.json`, out);
  if (!m && !existsSync(join(dir, 'measurements.json')))
    out.push({ file: `${rel}/measurements.json`, message: 'missing' });
  if (!existsSync(srcDir)) out.push({ file: srcRel, message: 'the src folder does not exist' });
  for (const f of MEASUREMENT_FILES) {
    if (f === 'user.conf' && endpoints) continue;
    const p = join(dir, f);
    if (!existsSync(p)) out.push({ file: `${rel}/${f}`, message: 'missing' });
    else if (statSync(p).size === 0) out.push({ file: `${rel}/${f}`, message: 'is empty' });
  }
  if (m) {
    for (const f of MEASUREMENTS_FIELDS) {
      if (!(f in m)) out.push({ file: `${rel}/measurements.json`, message: `field ${f} is missing` });
      else if (empty(m[f])) out.push({ file: `${rel}/measurements.json`, message: `field ${f} is empty` });
    }
  }
  return out;
}

function lines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .map((l) => l.trim())
    : [];
}

/** ComplianceCheck (LoadGen results, closed division): each required test's files and verdicts. */
function checkCompliance(dir: string, c: PerfContext): Problem[] {
  if (c.division === 'open') return [];
  const out: Problem[] = [];
  for (const test of requiredComplianceTests(c.benchmark)) {
    const tdir = join(dir, test);
    const trel = `${c.rel}/${test}`;
    if (!existsSync(tdir)) {
      out.push({ file: trel, message: `compliance test ${test} missing` });
      continue;
    }
    const verifyAcc = join(tdir, 'verify_accuracy.txt');
    if (['TEST01', 'TEST06', 'TEST07', 'TEST08'].includes(test) && !existsSync(verifyAcc))
      out.push({ file: `${trel}/verify_accuracy.txt`, message: 'missing' });
    if (test === 'TEST01' || test === 'TEST04') {
      const verifyPerf = join(tdir, 'verify_performance.txt');
      if (!existsSync(verifyPerf)) out.push({ file: `${trel}/verify_performance.txt`, message: 'missing' });
      else if (!readFileSync(verifyPerf, 'utf8').includes('TEST PASS'))
        out.push({ file: `${trel}/verify_performance.txt`, message: 'does not say TEST PASS' });
      const runDir = join(tdir, 'performance', 'run_1');
      for (const f of PERFORMANCE_FILES)
        if (!existsSync(join(runDir, f))) out.push({ file: `${trel}/performance/run_1/${f}`, message: 'missing' });
      if (existsSync(join(runDir, 'mlperf_log_detail.txt')))
        out.push(
          ...checkPerformanceLog(join(runDir, 'mlperf_log_detail.txt'), {
            ...c,
            rel: `${trel}/performance/run_1/mlperf_log_detail.txt`,
            compliance: true,
          }),
        );
      if (test === 'TEST01' && existsSync(verifyAcc) && !lines(verifyAcc).includes('TEST PASS'))
        out.push({
          file: `${trel}/verify_accuracy.txt`,
          message: 'not TEST PASS (the checker then compares baseline_accuracy.txt and compliance_accuracy.txt)',
        });
    }
    if (test === 'TEST06' && existsSync(verifyAcc)) {
      const l = lines(verifyAcc);
      const first = l.includes('First token check pass: True') || l.includes('First token check pass: Skipped');
      const eos = l.includes('EOS check pass: True');
      const length = l.includes('Sample length check pass: True');
      if (!(first && eos && length))
        out.push({
          file: `${trel}/verify_accuracy.txt`,
          message: `TEST06 failed: first token ${first}, EOS ${eos}, sample length ${length}`,
        });
    }
    if (
      (test === 'TEST07' || test === 'TEST08') &&
      existsSync(verifyAcc) &&
      !readFileSync(verifyAcc, 'utf8').includes('TEST PASS')
    )
      out.push({ file: `${trel}/verify_accuracy.txt`, message: 'does not say TEST PASS' });
    if (test === 'TEST09') {
      const f = join(tdir, 'verify_output_len.txt');
      if (!existsSync(f)) out.push({ file: `${trel}/verify_output_len.txt`, message: 'missing' });
      else if (!readFileSync(f, 'utf8').includes('TEST PASS'))
        out.push({ file: `${trel}/verify_output_len.txt`, message: 'does not say TEST PASS' });
    }
  }
  return out;
}

/** The loader's scenario rule for the closed division: the required scenarios, and one of Interactive or Server when both are optional. */
function checkScenarioSet(
  benchmark: string,
  present: string[],
  systemType: string | undefined,
  rel: string,
): Problem[] {
  const rules = CHECKER_BENCHMARKS[benchmark];
  if (!rules || !systemType || !VALID_SYSTEM_TYPES.includes(systemType)) return [];
  const required = new Set<string>();
  if (systemType.includes('datacenter')) for (const s of rules.required.datacenter) required.add(s);
  if (systemType.includes('edge')) for (const s of rules.required.edge) required.add(s);
  const out: Problem[] = [];
  const have = present.map((s) => s.toLowerCase());
  const missing = [...required].filter((s) => !have.includes(s.toLowerCase()));
  const optional = systemType === 'edge' ? [] : rules.optional;
  if (
    optional.includes('Interactive') &&
    optional.includes('Server') &&
    !have.includes('interactive') &&
    !have.includes('server')
  )
    missing.push('(one of) Interactive or Server');
  if (missing.length > 0)
    out.push({ file: rel, message: `the closed division needs these scenarios too: ${missing.join(', ')}` });
  const known = new Set([...required, ...optional].map((s) => s.toLowerCase()));
  const unknown = present.filter((s) => !known.has(s.toLowerCase()));
  if (unknown.length > 0)
    out.push({ file: rel, message: `scenarios ${benchmark} does not have: ${unknown.join(', ')}` });
  return out;
}

/** Checks every scenario folder under root as the checker would; `submitter` limits it to one organisation. */
export function precheckSubmission(root: string, o: { submitter?: string } = {}): PrecheckReport {
  const problems: Problem[] = [];
  const checked: string[] = [];
  for (const division of dirs(root).filter((d) => DIVISIONS.includes(d))) {
    for (const submitter of dirs(join(root, division))) {
      if (o.submitter && submitter !== o.submitter) continue;
      const base = `${division}/${submitter}`;
      const srcDir = join(root, division, submitter, 'src');
      for (const system of dirs(join(root, division, submitter, 'results'))) {
        const sysRel = `${base}/systems/${system}.json`;
        const sysJson = readJsonObject(join(root, division, submitter, 'systems', `${system}.json`), sysRel, problems);
        problems.push(...checkSystem(sysJson, sysRel, submitter, division));
        const systemType = typeof sysJson?.system_type === 'string' ? sysJson.system_type : undefined;
        for (const benchmark of dirs(join(root, division, submitter, 'results', system))) {
          const benchRel = `${base}/results/${system}/${benchmark}`;
          const benchDir = join(root, benchRel);
          const scenarios = dirs(benchDir);
          if (division === 'closed') problems.push(...checkScenarioSet(benchmark, scenarios, systemType, benchRel));
          if (!CHECKER_BENCHMARKS[benchmark])
            problems.push({
              file: benchRel,
              message: `${benchmark} is not a benchmark this pre-check knows (v6.1 LLMs)`,
            });
          for (const scenario of scenarios) {
            const rel = `${benchRel}/${scenario}`;
            const dir = join(root, rel);
            checked.push(rel);
            const c: PerfContext = { benchmark, scenario, division, rel, systemType };
            const perfLog = join(dir, 'performance', 'run_1', 'mlperf_log_detail.txt');
            const accLog = join(dir, 'accuracy', 'mlperf_log_detail.txt');
            // The loader's rule: no LoadGen log in either place means an endpoints result.
            const endpoints = !existsSync(perfLog) && !existsSync(accLog);
            if (endpoints) {
              problems.push(
                ...checkEndpointsScenario(dir, c, readYaml(join(dir, 'config.yaml'), `${rel}/config.yaml`, problems)),
              );
            } else {
              for (const f of PERFORMANCE_FILES)
                if (!existsSync(join(dir, 'performance', 'run_1', f)))
                  problems.push({ file: `${rel}/performance/run_1/${f}`, message: 'missing' });
              if (existsSync(perfLog))
                problems.push(
                  ...checkPerformanceLog(perfLog, { ...c, rel: `${rel}/performance/run_1/mlperf_log_detail.txt` }),
                );
              problems.push(...checkAccuracyDir(join(dir, 'accuracy'), { ...c, rel: `${rel}/accuracy` }));
              problems.push(...checkCompliance(dir, c));
            }
            problems.push(...checkMeasurements(dir, rel, srcDir, `${base}/src`, endpoints));
          }
        }
      }
    }
  }
  if (checked.length === 0)
    problems.push({ file: '.', message: 'no results/<system>/<benchmark>/<scenario> folder found' });
  return { problems, checked };
}

function readYaml(path: string, rel: string, out: Problem[]): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    const v = parseYaml(readFileSync(path, 'utf8'), { intAsBigInt: true }) as unknown;
    if (v && typeof v === 'object') return v as Record<string, unknown>;
  } catch (err) {
    out.push({ file: rel, message: `is not valid YAML: ${(err as Error).message}` });
  }
  return null;
}
