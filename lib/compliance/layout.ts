// The files a compliance test leaves for the submission, in the names and
// places the official run_verification.py scripts use and the submission
// checker (checks/compliance_check.py) reads, under <dir>/TEST0x/:
//   TEST01: verify_accuracy.txt, verify_performance.txt,
//           accuracy/mlperf_log_accuracy.json, performance/run_1/{summary,detail}
//   TEST04: verify_performance.txt, performance/run_1/{summary,detail}
//   TEST06: verify_accuracy.txt, accuracy/mlperf_log_accuracy.json
//   TEST07: verify_accuracy.txt, accuracy/, performance/run_1/
//   TEST09: verify_output_len.txt, accuracy/, performance/run_1/
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { UsageError } from '../core/errors.js';
import type { RunnableComplianceTest } from './audit-configs.js';

export interface ComplianceTexts {
  verifyAccuracy?: string;
  verifyPerformance?: string;
  verifyOutputLen?: string;
}

const COPIES_ACCURACY_LOG: ReadonlySet<RunnableComplianceTest> = new Set(['TEST01', 'TEST06', 'TEST07', 'TEST09']);
const COPIES_PERFORMANCE_LOGS: ReadonlySet<RunnableComplianceTest> = new Set(['TEST01', 'TEST04', 'TEST07', 'TEST09']);

/**
 * Writes <dir>/<test>/ afresh from the audit run's directory and the
 * verification texts; returns the files written.
 */
export function writeComplianceLayout(
  dir: string,
  test: RunnableComplianceTest,
  auditRunDir: string,
  texts: ComplianceTexts,
): string[] {
  const out = join(dir, test);
  // A previous attempt's files must not be mistaken for this one's.
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files: string[] = [];
  const copy = (name: string, toDir: string): void => {
    const from = join(auditRunDir, name);
    if (!existsSync(from)) throw new UsageError(`the audit run left no ${name} in ${auditRunDir}`);
    mkdirSync(toDir, { recursive: true });
    const to = join(toDir, name);
    copyFileSync(from, to);
    files.push(to);
  };
  if (COPIES_ACCURACY_LOG.has(test)) copy('mlperf_log_accuracy.json', join(out, 'accuracy'));
  if (COPIES_PERFORMANCE_LOGS.has(test)) {
    copy('mlperf_log_summary.txt', join(out, 'performance', 'run_1'));
    copy('mlperf_log_detail.txt', join(out, 'performance', 'run_1'));
  }
  const write = (name: string, text: string | undefined): void => {
    if (text === undefined) return;
    const to = join(out, name);
    writeFileSync(to, text);
    files.push(to);
  };
  write('verify_accuracy.txt', texts.verifyAccuracy);
  write('verify_performance.txt', texts.verifyPerformance);
  write('verify_output_len.txt', texts.verifyOutputLen);
  return files;
}
