// One truthful verdict (issue 23, item 2): a run in which samples failed is
// never a clean success: the result line, results.json's verdict,
// report.html's banner and the exit code say so, beside LoadGen's own
// VALID/INVALID; latency, TTFT and TPOT are over the samples that
// succeeded, n/a where none did (never a failed sample's int64 sentinel).
// The built-in simulator with fault rules (config file `simulator.faults`);
// short runs, bounded by runCli's time limit.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { buildCli, runCli, tempDir, writeText, type CliRun } from './helpers.js';

let cli: string;
let cleanup: () => void;
let dir: string;

beforeAll(async () => {
  ({ cli, cleanup } = await buildCli());
  dir = tempDir('lg-verdict-');
});
afterAll(() => cleanup?.());

function explain(r: CliRun): string {
  return `exit ${r.code} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

const json = (path: string): Record<string, any> => JSON.parse(readFileSync(path, 'utf8'));

/** The int64 sentinels LoadGen's statistics hold for samples without a first token (ns or ms). */
const SENTINEL = /922337\d{4}|-\d{13,}/;

describe('failed samples are never a clean success', () => {
  test('a server that resets every third stream: exit 6, INVALID with the count, LoadGen VALID beside it, figures over the samples that succeeded', async () => {
    const config = writeText(
      dir,
      'reset3.yaml',
      'simulator:\n  faults:\n    - kind: reset-during\n      afterTokens: 4\n      match: { every: 3, path: /v1/completions }\n',
    );
    const out = join(dir, 'reset3');
    // Long enough for LoadGen's early stopping to pass (its own verdict VALID), as in the issue.
    const r = await runCli(
      cli,
      [
        'run',
        '--config',
        config,
        '--scenario',
        'Server',
        '--target-qps',
        '50',
        '--set',
        'min_duration=6000',
        '--output-dir',
        out,
      ],
      dir,
      90_000,
    );
    expect(r.code, explain(r)).toBe(6);
    const m =
      /^Result: INVALID: (\d+) of (\d+) samples failed \(the MLPerf submission checker rejects logs with errors\); LoadGen's own verdict: (VALID|INVALID)\n/.exec(
        r.stdout,
      );
    expect(m, explain(r)).not.toBeNull();
    const failed = Number(m![1]);
    const total = Number(m![2]);
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(total);
    expect(r.stdout).toMatch(/TTFT p99: \d+\.\d+ ms {3}TPOT p99: \d+\.\d+ ms \(samples that succeeded\)/);
    expect(r.stdout).not.toMatch(SENTINEL);
    expect(r.stderr).toMatch(/loadgen run: \d+ of \d+ samples failed/);

    const j = json(join(out, 'results.json'));
    expect(j.verdict.overall).toBe('INVALID');
    expect(j.verdict.status).toBe(m![3]);
    expect(j.verdict.run).toMatchObject({ status: 'SAMPLES_FAILED', failedSamples: failed, samples: total });
    expect(j.verdict.run.message).toContain(`${failed} of ${total} samples failed`);
    expect(j.latencyMs.source).toBe('harness');
    for (const k of ['sample', 'ttft', 'tpot']) {
      expect(j.latencyMs[k].min, k).toBeGreaterThan(0);
      // The simulator answers in well under a second.
      expect(j.latencyMs[k].max, k).toBeLessThan(5000);
    }
    // The per-sample values are of the samples that succeeded.
    expect(j.samples.latencyNs).toHaveLength(total - failed);

    const summary = json(join(out, 'result_summary.json'));
    expect(summary.ttft.min).toBeGreaterThan(0);
    expect(summary.tpot.min).toBeGreaterThan(0);
    expect(summary.run_config.mlperf).toMatchObject({
      valid: false,
      status: 'INVALID',
      run_status: 'SAMPLES_FAILED',
      failed_samples: failed,
    });

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toMatch(
      /<section class="verdict INVALID" id="verdict"><div class="big">INVALID<\/div><div>LoadGen's own verdict: (VALID|INVALID)<\/div>/,
    );
    expect(html).toContain(`${failed} of ${total} samples failed`);
    expect(html).not.toMatch(SENTINEL);
  });

  test('every request answering 500: exit 3, the result line says all samples failed, every latency figure n/a', async () => {
    // The health check's test request succeeds; every request after it answers 500.
    const config = writeText(
      dir,
      'all500.yaml',
      'simulator:\n  faults:\n    - { kind: slow-headers, ms: 0, count: 1, match: { path: /v1/completions } }\n    - { kind: status, status: 500, match: { path: /v1/completions } }\n',
    );
    const out = join(dir, 'all500');
    const r = await runCli(
      cli,
      [
        'run',
        '--config',
        config,
        '--scenario',
        'Server',
        '--target-qps',
        '50',
        '--set',
        'min_duration=1000',
        '--retries',
        '0',
        '--timeout-total',
        '2s',
        '--output-dir',
        out,
      ],
      dir,
      60_000,
    );
    expect(r.code, explain(r)).toBe(3);
    expect(r.stdout).toMatch(
      /^Result: INVALID: all (\d+) samples failed \(the MLPerf submission checker rejects logs with errors\); LoadGen's own verdict: /,
    );
    expect(r.stdout).not.toMatch(/^Result: VALID/m);
    expect(r.stdout).toContain('TTFT p99: n/a   TPOT p99: n/a');
    expect(r.stdout).toContain('latency p50: n/a   p99: n/a');
    expect(r.stdout).not.toMatch(SENTINEL);
    expect(r.stderr).toMatch(/every request failed/);

    const j = json(join(out, 'results.json'));
    expect(j.verdict.overall).toBe('INVALID');
    expect(j.verdict.run.status).toBe('ALL_SAMPLES_FAILED');
    expect(j.latencyMs).toMatchObject({ sample: null, ttft: null, tpot: null });
    const summary = json(join(out, 'result_summary.json'));
    expect(summary.ttft).toEqual({});
    expect(summary.tpot).toEqual({});
    expect(summary.latency).toEqual({});
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(SENTINEL);
    expect(html).toContain('<div class="k">p99 TTFT</div><div class="v">n/a</div>');
    // The official-format summary keeps what the official engine computes.
    expect(readFileSync(join(out, 'mlperf_log_summary.txt'), 'utf8')).toMatch(/ERRORS encountered/);
  });
});
