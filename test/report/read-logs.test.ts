// Reading run directories: logs of the official LoadGen (skipped when
// ../shared/official-logs is absent), our own logs checked against the
// TestResult of the same run, an interrupted (truncated) detail log, and
// malformed input.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { LogReadError, parseDetailText, parseSummaryText, readRunLogs } from '../../lib/report/read-logs.js';
import { readTraceLatencies } from '../../lib/report/read-trace.js';
import { loadgenPercentile, sortedCopy } from '../../lib/results/samples.js';
import { writeRunOutputs } from '../../lib/results/write-outputs.js';
import { cleanupTempDirs, HAVE_OFFICIAL_LOGS, makeTempDir, officialDir } from '../helpers.js';
import { customRecord } from '../results/helpers.js';

afterAll(() => cleanupTempDirs());

describe.skipIf(!HAVE_OFFICIAL_LOGS)('official LoadGen 6.0.17 logs', () => {
  test('Server, token latencies, VALID', () => {
    const { summary: s, detail, summaryLog } = readRunLogs(officialDir('Server_PerformanceOnly'));
    expect(s.origin).toBe('official');
    expect(s.loadgenVersion).toBe('6.0.17 @ NA');
    expect(s).toMatchObject({
      sutName: 'NullSUT',
      scenario: 'Server',
      mode: 'PerformanceOnly',
      valid: true,
      truncated: false,
      incomplete: false,
    });
    expect(s.criteria).toEqual({
      perfConstraintsMet: true,
      minDurationMet: true,
      minQueriesMet: true,
      earlyStoppingMet: true,
    });
    expect(s.metric).toEqual({ name: 'completed samples per second', value: 1033.26, unit: 'samples/s' });
    expect(s.completedSamplesPerSecond).toBe(1033.26);
    expect(s.scheduledSamplesPerSecond).toBe(1033.3);
    expect(s.tokensPerSecond).toBe(103376);
    expect(s.latency).toEqual({
      min: 873,
      max: 4320973,
      mean: 116393,
      p50: 76912,
      p90: 111253,
      p95: 134039,
      p97: 248337,
      p99: 1414779,
      p999: 3594297,
    });
    expect(s.ttft?.p99).toBe(1414348);
    expect(s.tpot).toEqual({ min: 0, max: 113, mean: 4, p50: 2, p90: 10, p95: 13, p97: 14, p99: 19, p999: 25 });
    expect(s.queries).toBe(2068);
    expect(s.samples).toBe(2068);
    expect(s.effective.targetQps).toBe(1000);
    expect(s.errors).toBe(0);
    expect(s.earlyStopping.ttftText).toBe(' * Run successful.');
    expect(detail!.entries.length).toBe(readFileSync(detail!.path, 'utf8').split('\n').filter(Boolean).length);
    // Seeds keep their exact text.
    expect(detail!.entries.find((e) => e.key === 'effective_schedule_rng_seed')!.valueText).toBe(
      '16159082839903944936',
    );
    expect(summaryLog!.result).toBe('VALID');
    expect(summaryLog!.fields['Completed samples per second']).toBe('1033.26');
  });

  test('Offline INVALID: criteria and the recommendation', () => {
    const { summary: s } = readRunLogs(officialDir('Offline_PerformanceOnly_INVALID_minduration'));
    expect(s.valid).toBe(false);
    expect(s.criteria).toMatchObject({
      minDurationMet: false,
      minQueriesMet: true,
      earlyStoppingMet: true,
      perfConstraintsMet: null,
    });
    expect(s.invalidReasons).toEqual([
      'Increase expected QPS so the loadgen pre-generates a larger (coalesced) query.',
    ]);
    expect(s.samplesPerSecond).toBe(2.33314e6);
    expect(s.tokensPerSecond).toBe(2.33314e8);
    expect(s.samples).toBe(1100);
    expect(s.ttft).toBeNull();
    expect(s.warnings).toBe(1);
  });

  test('SingleStream: the latency metric, QPS and early-stopping text', () => {
    const { summary: s } = readRunLogs(officialDir('SingleStream_PerformanceOnly'));
    expect(s.metric).toEqual({ name: 'latency at target percentile', value: 100, unit: 'ns' });
    expect(s.qps).toBe(1.17745e6);
    expect(s.earlyStopping.text.split('\n')).toEqual([
      ' * Processed at least 64 queries (1000).',
      ' * Would discard 77 highest latency queries.',
      ' * Early stopping 90.0th percentile estimate: 100',
      ' * Early stopping 99.0th percentile estimate: 2283',
    ]);
  });

  test('AccuracyOnly runs have no performance result but are complete', () => {
    for (const name of ['Server_AccuracyOnly', 'Offline_AccuracyOnly']) {
      const { summary: s } = readRunLogs(officialDir(name));
      expect(s).toMatchObject({ mode: 'AccuracyOnly', valid: null, criteria: null, incomplete: false, metric: null });
    }
  });

  test("the trace holds every sample latency: its percentiles are the summary's", async () => {
    const { summary: s } = readRunLogs(officialDir('SingleStream_PerformanceOnly'));
    const lat = sortedCopy(await readTraceLatencies(s.files.trace!));
    expect(lat.length).toBe(1000);
    for (const [k, p] of [
      ['p50', 0.5],
      ['p90', 0.9],
      ['p99', 0.99],
      ['p999', 0.999],
    ] as const)
      expect(loadgenPercentile(lat, p)).toBe(s.latency![k]);
  });

  test('an official detail log cut mid-line stays readable', () => {
    const dir = makeTempDir();
    const text = readFileSync(join(officialDir('Server_PerformanceOnly'), 'mlperf_log_detail.txt'), 'utf8');
    const cut = text.indexOf('"key": "result_50.00_percentile_latency_ns"');
    writeFileSync(join(dir, 'mlperf_log_detail.txt'), text.slice(0, cut + 20));
    const { summary: s, detail } = readRunLogs(dir);
    expect(detail!.truncated).toBe(true);
    expect(s).toMatchObject({ truncated: true, incomplete: true, scenario: 'Server', valid: true });
    expect(s.latency?.p50).toBeNaN();
  });
});

describe('our logs', () => {
  test('a Server run reads back as its TestResult; with results.json it is ours', async () => {
    const rec = await customRecord('Server');
    const r = rec.result;
    const { summary: s, results } = readRunLogs(rec.outdir);
    expect(s.origin).toBe('ours');
    expect(s.loadgenVersion).toMatch(/x-loadgen/);
    expect(s).toMatchObject({
      sutName: r.sutName,
      scenario: 'Server',
      mode: 'PerformanceOnly',
      valid: r.valid,
      truncated: false,
    });
    expect(s.criteria).toEqual(r.criteria);
    expect(s.invalidReasons).toEqual(r.invalidReasons);
    for (const k of ['min', 'max', 'mean', 'p50', 'p90', 'p95', 'p97', 'p99', 'p999'] as const)
      expect(s.latency![k]).toBe(r.latency![k]);
    // The detail log prints doubles with 6 significant digits.
    expect(s.completedSamplesPerSecond).toBeCloseTo(r.completedSamplesPerSecond!, 1);
    expect(s.queries).toBe(r.counts.queries);
    expect(s.samples).toBe(r.counts.samples);
    expect(s.errors).toBe(r.errors.count);
    expect(results).toBeNull();
    await writeRunOutputs(rec);
    const again = readRunLogs(rec.outdir);
    expect(again.results?.schema).toBe('@x/loadgen/results');
    expect(again.summary.files.results).toBe(join(rec.outdir, 'results.json'));
    // Our trace gives the same latencies as the summary.
    const lat = sortedCopy(await readTraceLatencies(s.files.trace!));
    expect(lat.length).toBe(r.counts.samples);
    expect(loadgenPercentile(lat, 0.99)).toBe(r.latency!.p99);
  });

  test('an interrupted run: the last detail line cut short, no summary', async () => {
    const rec = await customRecord('Offline');
    const text = readFileSync(join(rec.outdir, 'mlperf_log_detail.txt'), 'utf8');
    const dir = makeTempDir();
    const cut = text.lastIndexOf(':::MLLOG', text.indexOf('"key": "result_validity"'));
    writeFileSync(join(dir, 'mlperf_log_detail.txt'), text.slice(0, cut + 30));
    const { summary: s, detail } = readRunLogs(dir);
    expect(detail!.truncated).toBe(true);
    expect(s).toMatchObject({
      truncated: true,
      incomplete: true,
      valid: null,
      scenario: 'Offline',
      sutName: rec.result.sutName,
    });
    // A complete file keeps no truncation flag, with or without its final newline cut off after a full line.
    expect(parseDetailText(text, 'x').truncated).toBe(false);
    expect(parseDetailText(text.trimEnd(), 'x').truncated).toBe(false);
  });
});

describe('bad input', () => {
  test('missing directory, no logs, a malformed line, a foreign results.json', () => {
    expect(() => readRunLogs('/nonexistent/run')).toThrow(LogReadError);
    expect(() => readRunLogs('/nonexistent/run')).toThrow('no such directory');
    const empty = makeTempDir();
    expect(() => readRunLogs(empty)).toThrow(/no MLPerf logs/);
    const bad = makeTempDir();
    const good =
      ':::MLLOG {"key": "sut_name", "value": "S", "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "f", "line_no": 1, "pid": 1, "tid": 1}}';
    writeFileSync(join(bad, 'mlperf_log_detail.txt'), `${good}\nthis is not a log line\n${good}\n`);
    expect(() => readRunLogs(bad)).toThrow(/mlperf_log_detail\.txt:2: malformed detail log line/);
    const foreign = makeTempDir();
    writeFileSync(join(foreign, 'mlperf_log_detail.txt'), `${good}\n`);
    writeFileSync(join(foreign, 'results.json'), '{"schema": "something-else"}');
    expect(() => readRunLogs(foreign)).toThrow(/not a @x\/loadgen\/results file/);
  });

  test('summary parser: wrapped bullets and counts', () => {
    const s = parseSummaryText(
      [
        'Result is : INVALID',
        'Recommendations:',
        ' * The test exited early, before enough queries were issued.',
        '   See the detailed log for why this may have occurred.',
        '',
        '2 warnings encountered. See detailed log.',
        '',
        '3 ERRORS encountered. See detailed log.',
        '',
      ].join('\n'),
      'x',
    );
    expect(s.result).toBe('INVALID');
    expect(s.recommendations).toEqual([
      'The test exited early, before enough queries were issued. See the detailed log for why this may have occurred.',
    ]);
    expect(s.warnings).toBe(2);
    expect(s.errors).toBe(3);
  });
});

describe.skipIf(!HAVE_OFFICIAL_LOGS)('official logs copied to a run directory of ours', () => {
  test('a directory with only a summary file reads from the summary', () => {
    const dir = makeTempDir();
    mkdirSync(dir, { recursive: true });
    copyFileSync(
      join(officialDir('Server_PerformanceOnly'), 'mlperf_log_summary.txt'),
      join(dir, 'mlperf_log_summary.txt'),
    );
    const { summary: s } = readRunLogs(dir);
    expect(s).toMatchObject({
      scenario: 'Server',
      mode: 'PerformanceOnly',
      valid: true,
      completedSamplesPerSecond: 1033.26,
      tokensPerSecond: 103375.9,
      origin: 'unknown',
    });
    expect(s.criteria?.perfConstraintsMet).toBe(true);
  });
});
