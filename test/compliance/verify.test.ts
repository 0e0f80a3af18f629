// The verifications on hand-made logs: TEST01's accuracy and performance
// comparisons, TEST04's, TEST09's output length and TEST07's threshold; the
// texts carry the words the submission checker looks for.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  verifyTest01Accuracy,
  verifyTest07Score,
  verifyTest09OutputLength,
} from '../../lib/compliance/verify-accuracy.js';
import { verifyTest01Performance, verifyTest04Performance } from '../../lib/compliance/verify-performance.js';
import { hexInt32, tempDir } from '../accuracy/helpers.js';

function log(dir: string, name: string, entries: Array<[qsl: number, hex: string]>): string {
  const path = join(dir, name);
  const body = entries.map(([q, h], i) => `{ "seq_id" : ${i}, "qsl_idx" : ${q}, "data" : "${h}" }`).join(',\n');
  writeFileSync(path, `[\n${body}\n]\n`);
  return path;
}

function detail(values: Record<string, string | number>): { text: string; path: string } {
  const text = Object.entries(values)
    .map(
      ([k, v]) =>
        `:::MLLOG {"key": "${k}", "value": ${JSON.stringify(v)}, "time_ms": 0.0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}`,
    )
    .join('\n');
  return { text: `${text}\n`, path: 'mlperf_log_detail.txt' };
}

function summary(scenario: string, lines: string[], result = 'VALID'): { text: string; path: string } {
  const text = [
    '================================================',
    'MLPerf Results Summary',
    '================================================',
    'SUT name : test',
    `Scenario : ${scenario}`,
    'Mode     : PerformanceOnly',
    ...lines,
    `Result is : ${result}`,
    '',
  ].join('\n');
  return { text, path: 'mlperf_log_summary.txt' };
}

describe('TEST01 accuracy', () => {
  it("passes when every logged response starts like the accuracy run's; fails on a difference", async () => {
    const dir = tempDir();
    const acc = log(dir, 'acc.json', [
      [0, hexInt32([1000, 5])],
      [1, hexInt32([1001, 6])],
      [2, hexInt32([1002])],
    ]);
    const same = log(dir, 'same.json', [
      [2, hexInt32([1002, 99])],
      [0, hexInt32([1000])],
    ]);
    const ok = await verifyTest01Accuracy(acc, same, 'int32');
    expect(ok.pass).toBe(true);
    expect(ok.text.split('\n')).toContain('TEST PASS');

    const other = log(dir, 'other.json', [
      [0, hexInt32([1000])],
      [1, hexInt32([4242])],
    ]);
    const bad = await verifyTest01Accuracy(acc, other, 'int32');
    expect(bad.pass).toBe(false);
    expect(bad.reasons[0]).toMatch(/1 of 2 logged responses differ .*qsl_idx 1: audit 4242, accuracy run 1001/);
    expect(bad.text.split('\n')).toContain('TEST FAIL');
    // By bytes (the official default) the first byte of 4242 (0x92) differs from that of 1001 (0xE9) too.
    expect((await verifyTest01Accuracy(acc, other)).pass).toBe(false);
  });

  it('fails when no logged sample is in the accuracy run', async () => {
    const dir = tempDir();
    const acc = log(dir, 'acc.json', [[0, hexInt32([1])]]);
    const none = log(dir, 'none.json', []);
    const r = await verifyTest01Accuracy(acc, none);
    expect(r.reasons).toEqual(['no sample the audit run logged is in the accuracy run']);
  });
});

describe('TEST01 performance (detail logs)', () => {
  const run = (score: number, validity = 'VALID') =>
    detail({ effective_scenario: 'Offline', result_validity: validity, result_samples_per_second: score });

  it('passes within ±10% of the reference; fails outside, or when a run is not VALID', () => {
    const ok = verifyTest01Performance(run(100), run(91));
    expect(ok.pass).toBe(true);
    expect(ok.text).toContain('TEST PASS');
    const fast = verifyTest01Performance(run(100), run(111));
    expect(fast.pass).toBe(false);
    expect(fast.reasons[0]).toMatch(/audit score 111 is outside \[90, 110/);
    expect(fast.text).toContain('TEST FAIL');
    const invalid = verifyTest01Performance(run(100), run(100, 'INVALID'));
    expect(invalid.reasons).toContain("the audit run's result is not VALID");
  });

  it('SingleStream: early-stopping latency, ±20% when it is at most 200000 ns', () => {
    const ss = (ns: number) =>
      detail({ effective_scenario: 'SingleStream', result_validity: 'VALID', early_stopping_latency_ss: ns });
    expect(verifyTest01Performance(ss(150000), ss(175000)).pass).toBe(true);
    expect(verifyTest01Performance(ss(1500000), ss(1750000)).pass).toBe(false);
  });

  it('Server: the target latencies must agree', () => {
    const server = (lat: number) =>
      detail({
        effective_scenario: 'Server',
        result_validity: 'VALID',
        result_completed_samples_per_sec: 10,
        effective_target_latency_ns: lat,
      });
    expect(verifyTest01Performance(server(1000), server(2000)).reasons[0]).toMatch(/target latencies differ/);
  });
});

describe('TEST04 performance (summaries)', () => {
  it('the same-sample run may not be 10% faster; slower is fine', () => {
    const ref = summary('Offline', ['Samples per second: 100']);
    expect(verifyTest04Performance(ref, summary('Offline', ['Samples per second: 60'])).pass).toBe(true);
    expect(verifyTest04Performance(ref, summary('Offline', ['Samples per second: 109.9'])).pass).toBe(true);
    const fast = verifyTest04Performance(ref, summary('Offline', ['Samples per second: 111']));
    expect(fast.pass).toBe(false);
    expect(fast.reasons[0]).toMatch(/faster on a repeated sample/);
    expect(fast.text).toContain('TEST FAIL');
  });

  it('an INVALID run or a different scenario fails', () => {
    const ref = summary('Server', ['Completed samples per second    : 10']);
    const invalid = verifyTest04Performance(
      ref,
      summary('Server', ['Completed samples per second    : 10'], 'INVALID'),
    );
    expect(invalid.reasons).toContain("the audit run's result is INVALID");
    const other = verifyTest04Performance(ref, summary('Offline', ['Samples per second: 10']));
    expect(other.reasons.some((r) => /scenarios differ/.test(r))).toBe(true);
  });
});

describe('TEST09 output length and TEST07 threshold', () => {
  it('TEST09: the mean of int32 lengths within the bounds', async () => {
    const dir = tempDir();
    const path = log(dir, 'len.json', [
      [0, hexInt32([1, 2, 3, 4])],
      [1, hexInt32([1, 2])],
      [2, ''],
    ]);
    const ok = await verifyTest09OutputLength(path, 1.5, 2.5);
    expect(ok.mean).toBe(2);
    expect(ok.pass).toBe(true);
    expect(ok.text).toContain('TEST PASS');
    const low = await verifyTest09OutputLength(path, 2.5, 3);
    expect(low.reasons).toEqual(['mean output length 2.00 tokens is below 2.5']);
    expect(low.text).toContain('TEST FAIL');
  });

  it('TEST07: the score against the threshold, in the official pattern', () => {
    const ok = verifyTest07Score('exact_match', 62.15, 60.698, 'scores');
    expect(ok.pass).toBe(true);
    expect(ok.text).toMatch(/'exact_match': 62\.15/);
    expect(ok.text).toContain('TEST PASS');
    const low = verifyTest07Score('exact_match', 50, 60.698, '');
    expect(low.reasons).toEqual(['exact_match 50 is below the threshold 60.698']);
    expect(verifyTest07Score('exact_match', undefined, 1, '').pass).toBe(false);
  });
});
