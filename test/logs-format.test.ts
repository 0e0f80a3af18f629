// The four log files, read back and checked against the official LoadGen
// 6.0.17 format line by line: summary line labels, detail MLLOG lines and
// their keys, accuracy JSON layout, trace JSON. The shape checks at the end
// run without the official logs.
import { readFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import type { TestSettings } from '../lib/index.js';
import {
  cleanupTempDirs,
  HAVE_OFFICIAL_LOGS,
  inlineSut,
  keysWithPrefix,
  logPaths,
  MLPERF_SEEDS,
  nullQsl,
  officialDir,
  readAccuracy,
  readDetail,
  readSummary,
  readTrace,
  runTest,
  settingsFromRequested,
  summaryLabel,
  tokenSut,
  type DetailEntry,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

// ---------------------------------------------------------------------------
// Format helpers

const DETAIL_KEYS = ['key', 'value', 'time_ms', 'namespace', 'event_type', 'metadata'];
const METADATA_KEYS = ['is_error', 'is_warning', 'file', 'line_no', 'pid', 'tid'];

/** Every detail line is ':::MLLOG ' + JSON with the official fields, in the official order. */
function checkDetailLines(path: string): DetailEntry[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const entries = readDetail(path); // throws on a line that is not ':::MLLOG ' + JSON
  expect(entries.length).toBeGreaterThan(0);
  expect(text.split('\n').filter((l) => l.length > 0).length).toBe(entries.length);
  for (const e of entries) {
    const obj = JSON.parse(e.raw.slice(':::MLLOG '.length)) as Record<string, unknown>;
    expect(Object.keys(obj), e.raw).toEqual(DETAIL_KEYS);
    expect(Object.keys(obj.metadata as object), e.raw).toEqual(METADATA_KEYS);
    expect(typeof e.key).toBe('string');
    expect(typeof e.time_ms).toBe('number');
    expect(e.namespace).toBe('mlperf::logging');
    expect(e.event_type).toBe('POINT_IN_TIME');
    expect(typeof e.metadata.is_error).toBe('boolean');
    expect(typeof e.metadata.is_warning).toBe('boolean');
    expect(typeof e.metadata.file).toBe('string');
    expect(Number.isInteger(e.metadata.line_no)).toBe(true);
    expect(Number.isInteger(e.metadata.pid)).toBe(true);
    expect(Number.isInteger(e.metadata.tid)).toBe(true);
  }
  return entries;
}

/** Accuracy JSON: '[', one entry a line ('},' but the last), ']'. Returns each entry line with numbers and hex blanked. */
function accuracyLineShapes(path: string): { shapes: Set<string>; lines: string[] } {
  const text = readFileSync(path, 'utf8');
  JSON.parse(text);
  expect(text.startsWith('[\n')).toBe(true);
  expect(text.endsWith('\n]\n')).toBe(true);
  const lines = text.split('\n').slice(1, -2);
  const shapes = new Set<string>();
  lines.forEach((l, i) => {
    expect(l.endsWith(i === lines.length - 1 ? ' }' : ' },'), `line ${i + 1}: ${l}`).toBe(true);
    shapes.add(
      l
        .replace(/,$/, '')
        .replace(/"[0-9A-F]*"/g, '"H"')
        .replace(/\d+/g, 'N'),
    );
  });
  return { shapes, lines };
}

/** Detail keys in order, without the official logger's own allocation warnings (an artefact of its TLS buffers). */
function keySequence(entries: DetailEntry[]): string[] {
  return entries
    .filter((e) => !(e.key === 'warning_generic_message' && String(e.value).startsWith('Logging allocation detected')))
    .map((e) => e.key);
}

function firstDifference(a: string[], b: string[]): string {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i])
      return `first difference at ${i}: ours ${JSON.stringify(a[i])}, official ${JSON.stringify(b[i])}`;
  }
  return 'no difference';
}

// ---------------------------------------------------------------------------
// Our runs with the settings of each official log (QSL 1024/1024; token runs
// answer 100 tokens a sample, like the official null SUT).

interface Pair {
  name: string;
  settings: Partial<TestSettings>;
  official: { summary: string[]; detail: DetailEntry[]; paths: ReturnType<typeof logPaths> };
  ours: { summary: string[]; detail: DetailEntry[]; paths: ReturnType<typeof logPaths>; trace: string | null };
}

const pairs = new Map<string, Promise<Pair>>();

function pair(name: string): Promise<Pair> {
  let p = pairs.get(name);
  if (!p) {
    p = (async () => {
      const paths = logPaths(officialDir(name));
      const detail = readDetail(paths.detail);
      const summary = readSummary(paths.summary);
      const settings = settingsFromRequested(detail);
      // Offline logs no requested_server_ttft/tpot_latency, but the summary's
      // Test Parameters show the values the official run was given.
      for (const [label, field] of [
        ['ttft_latency (ns)', 'ttftLatencyNs'],
        ['tpot_latency (ns)', 'tpotLatencyNs'],
      ] as const) {
        const line = summary.find((l) => l.startsWith(`${label}: `));
        if (line && settings[field] === undefined) settings[field] = Number(line.slice(label.length + 2));
      }
      const sut = settings.useTokenLatencies ? tokenSut({ nTokens: 100 }) : inlineSut();
      const { result, outdir } = await runTest(sut, nullQsl(1024, 1024), settings, {
        enableTrace: name.startsWith('SingleStream'),
      });
      const ourPaths = logPaths(outdir);
      return {
        name,
        settings,
        official: { summary, detail, paths },
        ours: {
          summary: readSummary(result.logs.summary),
          detail: readDetail(result.logs.detail),
          paths: ourPaths,
          trace: result.logs.trace,
        },
      };
    })();
    pairs.set(name, p);
  }
  return p;
}

const PERFORMANCE_LOGS = [
  'Server_PerformanceOnly',
  'SingleStream_PerformanceOnly',
  'Offline_PerformanceOnly',
  'Offline_PerformanceOnly_INVALID_minduration',
];
const ACCURACY_LOGS = ['Server_AccuracyOnly', 'Offline_AccuracyOnly'];
const ALL_LOGS = [...PERFORMANCE_LOGS, ...ACCURACY_LOGS];

describe.skipIf(!HAVE_OFFICIAL_LOGS)('format equals the official LoadGen 6.0.17', () => {
  it('runs with the settings of the official logs (the settings match them)', async () => {
    const p = await pair('Server_PerformanceOnly');
    // The README's description of this log, as a check on the parsing of requested_*.
    expect(p.settings).toMatchObject({
      scenario: 'Server',
      mode: 'PerformanceOnly',
      serverTargetQps: 1000,
      minDurationMs: 2000,
      useTokenLatencies: true,
      ttftLatencyNs: 2000000000,
      tpotLatencyNs: 200000000,
      ...MLPERF_SEEDS,
    });
  });

  describe('summary: the sequence of line labels', () => {
    it.each(PERFORMANCE_LOGS)('%s', async (name) => {
      const p = await pair(name);
      const ours = p.ours.summary.map(summaryLabel);
      const theirs = p.official.summary.map(summaryLabel);
      expect(ours, `${firstDifference(ours, theirs)}\n--- ours:\n${p.ours.summary.join('\n')}`).toEqual(theirs);
    });

    it.each(ACCURACY_LOGS)('%s (only the warning/error tail)', async (name) => {
      const p = await pair(name);
      expect(p.official.summary.map(summaryLabel)).toEqual(['', '<warnings>', '', '<errors>']);
      expect(p.ours.summary.map(summaryLabel)).toEqual(['', '<warnings>', '', '<errors>']);
    });

    it('Test Parameters Used: the same parameter lines with the same values (seeds, counts, bounds)', async () => {
      for (const name of PERFORMANCE_LOGS) {
        const p = await pair(name);
        const params = (lines: string[]) => {
          const start = lines.indexOf('Test Parameters Used');
          const out: string[] = [];
          for (let i = start + 2; i < lines.length && lines[i] !== ''; i++) out.push(lines[i]);
          return out;
        };
        expect(params(p.ours.summary), name).toEqual(params(p.official.summary));
      }
    });
  });

  describe('detail: MLLOG lines and keys', () => {
    it.each(ALL_LOGS)('%s: every line is an MLLOG JSON line with the official fields', async (name) => {
      const p = await pair(name);
      checkDetailLines(p.official.paths.detail); // the reference itself satisfies the check
      checkDetailLines(p.ours.paths.detail);
    });

    it.each(ALL_LOGS)('%s: requested_*/effective_*/result_* keys, same set and order', async (name) => {
      const p = await pair(name);
      for (const prefix of ['requested_', 'effective_', 'result_']) {
        const ours = keysWithPrefix(p.ours.detail, [prefix]);
        const theirs = keysWithPrefix(p.official.detail, [prefix]);
        expect(ours, `${prefix}*: ${firstDifference(ours, theirs)}`).toEqual(theirs);
      }
    });

    it.each(ALL_LOGS)('%s: requested_*/effective_* values equal the official ones', async (name) => {
      const p = await pair(name);
      const values = (entries: DetailEntry[]) =>
        entries
          .filter((e) => e.key.startsWith('requested_') || e.key.startsWith('effective_'))
          .map((e) => `${e.key}=${e.valueText}`);
      expect(values(p.ours.detail)).toEqual(values(p.official.detail));
    });

    it.each(ALL_LOGS)('%s: the whole key sequence (without the official logger allocation warnings)', async (name) => {
      const p = await pair(name);
      const ours = keySequence(p.ours.detail);
      const theirs = keySequence(p.official.detail);
      expect(ours, firstDifference(ours, theirs)).toEqual(theirs);
    });
  });

  describe('accuracy JSON: field names and layout', () => {
    it.each(ALL_LOGS)('%s', async (name) => {
      const p = await pair(name);
      const ours = accuracyLineShapes(p.ours.paths.accuracy);
      const theirs = accuracyLineShapes(p.official.paths.accuracy);
      expect([...ours.shapes]).toEqual([...theirs.shapes]);
      expect(ours.lines.length).toBe(theirs.lines.length);
      if (name === 'Server_AccuracyOnly') {
        expect(Object.keys(readAccuracy(p.ours.paths.accuracy)[0])).toEqual([
          'seq_id',
          'qsl_idx',
          'data',
          'token_data',
          'token_count',
        ]);
      }
      if (name === 'Offline_AccuracyOnly') {
        expect(Object.keys(readAccuracy(p.ours.paths.accuracy)[0])).toEqual([
          'seq_id',
          'qsl_idx',
          'data',
          'token_count',
        ]);
      }
    });
  });

  it('trace: our SingleStream trace parses with JSON.parse and has the official Sample events', async () => {
    const p = await pair('SingleStream_PerformanceOnly');
    expect(p.ours.trace).not.toBeNull();
    const trace = readTrace(p.ours.trace!);
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    const begins = trace.traceEvents.filter((e) => e.name === 'Sample' && e.ph === 'b');
    const ends = trace.traceEvents.filter((e) => e.name === 'Sample' && e.ph === 'e');
    expect(begins.length).toBe(1000);
    expect(ends.length).toBe(1000);
    expect(Object.keys(begins[0].args!)).toEqual([
      'sample_seq',
      'query_seq',
      'sample_idx',
      'issue_start_ns',
      'complete_ns',
    ]);
  });
});

// ---------------------------------------------------------------------------
// Shape checks on our own runs (no official logs needed).

const HEADER = [
  '================================================',
  'MLPerf Results Summary',
  '================================================',
];
const PARAM_LINE = /^[a-z_]+( \((ns|ms)\))? ?: \S+$/;

function checkSummaryShape(lines: string[], scenario: string, mode: string, sutName: string) {
  expect(lines.slice(0, 3)).toEqual(HEADER);
  expect(lines[3]).toBe(`SUT name : ${sutName}`);
  expect(lines[4]).toBe(`Scenario : ${scenario}`);
  expect(lines[5]).toBe(`Mode     : ${mode}`);
  expect(lines.filter((l) => /^Result is : (VALID|INVALID)$/.test(l)).length).toBe(1);
  const stats = lines.indexOf('Additional Stats');
  const params = lines.indexOf('Test Parameters Used');
  expect(stats).toBeGreaterThan(5);
  expect(params).toBeGreaterThan(stats);
  expect(lines[stats - 1]).toBe(HEADER[0]);
  expect(lines[stats + 1]).toBe(HEADER[0]);
  expect(lines[params - 2]).toBe('');
  let i = params + 2;
  for (; i < lines.length && lines[i] !== ''; i++) expect(lines[i]).toMatch(PARAM_LINE);
  expect(lines.slice(i).map(summaryLabel)).toEqual(['', '<warnings>', '', '<errors>']);
  for (const key of ['qsl_rng_seed', 'sample_index_rng_seed', 'schedule_rng_seed']) {
    expect(lines).toContain(
      `${key} : ${String(MLPERF_SEEDS[key === 'qsl_rng_seed' ? 'qslRngSeed' : key === 'sample_index_rng_seed' ? 'sampleIndexRngSeed' : 'scheduleRngSeed'])}`,
    );
  }
}

describe('log shapes of our own runs', () => {
  const cases: Array<[string, Partial<TestSettings>, boolean]> = [
    [
      'Server',
      {
        scenario: 'Server',
        serverTargetQps: 500,
        minDurationMs: 200,
        minQueryCount: 50,
        useTokenLatencies: true,
        ttftLatencyNs: 2e9,
        tpotLatencyNs: 2e8,
      },
      true,
    ],
    ['SingleStream', { scenario: 'SingleStream', minDurationMs: 0, minQueryCount: 100 }, false],
    ['MultiStream', { scenario: 'MultiStream', minDurationMs: 0, minQueryCount: 100 }, false],
    ['Offline', { scenario: 'Offline', minDurationMs: 0, minQueryCount: 200, offlineExpectedQps: 100 }, false],
  ];

  it.each(cases)('%s PerformanceOnly: summary, detail, accuracy and trace', async (scenario, settings, tokens) => {
    const sut = tokens ? tokenSut({ name: 'ShapeSUT' }) : inlineSut('ShapeSUT');
    const { result } = await runTest(
      sut,
      nullQsl(256, 128),
      { ...MLPERF_SEEDS, mode: 'PerformanceOnly', ...settings },
      { enableTrace: true },
    );
    checkSummaryShape(readSummary(result.logs.summary), scenario, 'PerformanceOnly', 'ShapeSUT');
    expect(readFileSync(result.logs.summary, 'utf8')).toBe(result.summaryText);

    const detail = checkDetailLines(result.logs.detail);
    const keys = detail.map((e) => e.key);
    expect(keys[0]).toBe('loadgen_version');
    for (const k of [
      'test_datetime',
      'sut_name',
      'qsl_name',
      'qsl_reported_total_count',
      'requested_scenario',
      'effective_scenario',
      'loaded_qsl_set',
      'generated_query_count',
      'result_validity',
    ]) {
      expect(keys, k).toContain(k);
    }
    expect(keys.indexOf('requested_scenario')).toBeLessThan(keys.indexOf('effective_scenario'));
    expect(keys.indexOf('effective_scenario')).toBeLessThan(keys.indexOf('loaded_qsl_set'));
    expect(keys.indexOf('loaded_qsl_set')).toBeLessThan(keys.indexOf('generated_query_count'));
    expect(keys.indexOf('generated_query_count')).toBeLessThan(keys.indexOf('result_validity'));
    expect(keys[keys.length - 1]).toBe('num_errors');
    expect(detail.find((e) => e.key === 'sut_name')!.value).toBe('ShapeSUT');
    expect(detail.find((e) => e.key === 'requested_qsl_rng_seed')!.valueText).toBe(String(MLPERF_SEEDS.qslRngSeed));
    expect(detail.find((e) => e.key === 'effective_schedule_rng_seed')!.valueText).toBe(
      String(MLPERF_SEEDS.scheduleRngSeed),
    );

    expect(readAccuracy(result.logs.accuracy)).toEqual([]);
    expect(readFileSync(result.logs.accuracy, 'utf8')).toBe('[\n]\n');

    expect(result.logs.trace).not.toBeNull();
    const trace = readTrace(result.logs.trace!);
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    const begins = trace.traceEvents.filter((e) => e.name === 'Sample' && e.ph === 'b');
    expect(begins.length).toBe(sut.issued.length);
    expect(begins.map((e) => e.args!.sample_idx).sort((a, b) => a - b)).toEqual(
      sut.issued.map((s) => s.index).sort((a, b) => a - b),
    );
  });

  it('AccuracyOnly with tokens: accuracy entries have seq_id, qsl_idx, data, token_data, token_count', async () => {
    const sut = tokenSut({ nTokens: 7 });
    const { result } = await runTest(
      sut,
      nullQsl(64, 64),
      { ...MLPERF_SEEDS, scenario: 'Server', mode: 'AccuracyOnly', serverTargetQps: 5000, useTokenLatencies: true },
      { enableTrace: false },
    );
    expect(result.logs.trace).toBeNull();
    const { shapes } = accuracyLineShapes(result.logs.accuracy);
    expect([...shapes]).toEqual([
      '{ "seq_id" : N, "qsl_idx" : N, "data" : "H", "token_data" : "H", "token_count" : N }',
    ]);
    const acc = readAccuracy(result.logs.accuracy);
    expect(acc.length).toBe(64);
    for (const e of acc) {
      // int32 LE of the index, then a zero int32.
      const hex = Buffer.from(new Int32Array([e.qsl_idx, 0]).buffer)
        .toString('hex')
        .toUpperCase();
      expect(e.data).toBe(hex);
      expect(e.token_data).toBe(hex);
      expect(e.token_count).toBe(7);
    }
    expect(readSummary(result.logs.summary).map(summaryLabel)).toEqual(['', '<warnings>', '', '<errors>']);
  });

  it('AccuracyOnly without tokens: entries have seq_id, qsl_idx, data only', async () => {
    const { result } = await runTest(inlineSut(), nullQsl(32, 32), {
      ...MLPERF_SEEDS,
      scenario: 'SingleStream',
      mode: 'AccuracyOnly',
    });
    const { shapes } = accuracyLineShapes(result.logs.accuracy);
    expect([...shapes]).toEqual(['{ "seq_id" : N, "qsl_idx" : N, "data" : "H" }']);
    expect(readAccuracy(result.logs.accuracy).every((e) => e.data === '')).toBe(true);
  });

  it('prefix, suffix and prefixWithDatetime name the files', async () => {
    const { result, outdir } = await runTest(
      inlineSut(),
      nullQsl(16, 16),
      { scenario: 'Offline', minDurationMs: 0, minQueryCount: 16 },
      { prefix: 'pre_', suffix: '_suf', prefixWithDatetime: true },
    );
    for (const [kind, ext] of [
      ['summary', 'txt'],
      ['detail', 'txt'],
      ['accuracy', 'json'],
      ['trace', 'json'],
    ] as const) {
      const path = result.logs[kind]!;
      expect(path.startsWith(`${outdir}/pre_`)).toBe(true);
      expect(path.endsWith(`${kind}_suf.${ext}`)).toBe(true);
      expect(readFileSync(path, 'utf8').length).toBeGreaterThan(0);
    }
    // prefix + datetime + '_' + kind
    expect(result.logs.summary).toMatch(/\/pre_\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z_summary_suf\.txt$/);
  });
});
