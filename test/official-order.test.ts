// Sample order and schedule against the official LoadGen 6.0.17: with the
// same settings and seeds, the loaded set, the generated schedule and the
// (seq_id -> qsl_idx) mapping must be the official ones exactly. Then, with
// other seeds, the invariants that must hold whatever the generator.
import { afterAll, describe, expect, it } from 'vitest';

import type { TestSettings } from '../lib/index.js';
import {
  cleanupTempDirs,
  countBy,
  detailValue,
  HAVE_OFFICIAL_LOGS,
  inlineSut,
  logPaths,
  MLPERF_SEEDS,
  nullQsl,
  officialDir,
  readAccuracy,
  readDetail,
  readTrace,
  readTraceLines,
  runTest,
  settingsFromRequested,
  tokenSut,
  traceSampleIndices,
  type DetailEntry,
} from './helpers.js';

afterAll(() => cleanupTempDirs());

const GENERATED = ['generated_query_count', 'generated_samples_per_query', 'generated_query_duration'] as const;

function official(name: string) {
  const paths = logPaths(officialDir(name));
  const detail = readDetail(paths.detail);
  return { paths, detail, settings: settingsFromRequested(detail) };
}

/** Runs our engine with the settings of an official log (QSL 1024/1024, SUT answering as the official null SUT). */
async function runLike(settings: Partial<TestSettings>, logSettings = {}) {
  const sut = settings.useTokenLatencies ? tokenSut({ nTokens: 100 }) : inlineSut();
  const qsl = nullQsl(1024, 1024);
  const { result } = await runTest(sut, qsl, settings, logSettings);
  return { result, sut, qsl, detail: readDetail(result.logs.detail) };
}

function expectSameGenerated(ours: DetailEntry[], theirs: DetailEntry[], keys: readonly string[] = GENERATED) {
  for (const key of keys) {
    expect(detailValue(ours, key), key).toBeDefined();
    expect(detailValue(ours, key), key).toEqual(detailValue(theirs, key));
  }
}

function expectSameLoadedSet(ours: DetailEntry[], theirs: DetailEntry[]) {
  const a = detailValue(ours, 'loaded_qsl_set') as number[];
  const b = detailValue(theirs, 'loaded_qsl_set') as number[];
  expect(Array.isArray(b)).toBe(true);
  expect(a.length).toBe(b.length);
  const firstDiff = a.findIndex((v, i) => v !== b[i]);
  expect(firstDiff, `loaded_qsl_set differs first at ${firstDiff}`).toBe(-1);
}

/** seq_id -> qsl_idx as an array ordered by seq_id. */
function seqMap(entries: { seq_id: number; qsl_idx: number }[]): Array<[number, number]> {
  return entries.map((e) => [e.seq_id, e.qsl_idx] as [number, number]).sort((x, y) => x[0] - y[0]);
}

describe.skipIf(!HAVE_OFFICIAL_LOGS)('order and schedule equal the official LoadGen 6.0.17', () => {
  it('parses the settings of the official logs (sanity of the reference)', () => {
    const s = official('Server_AccuracyOnly').settings;
    expect(s.scenario).toBe('Server');
    expect(s.mode).toBe('AccuracyOnly');
    expect(s.qslRngSeed).toBe(MLPERF_SEEDS.qslRngSeed);
    expect(s.sampleIndexRngSeed).toBe(MLPERF_SEEDS.sampleIndexRngSeed);
    expect(s.scheduleRngSeed).toBe(MLPERF_SEEDS.scheduleRngSeed);
  });

  it('Server_AccuracyOnly: accuracy log mapping, generated_* and loaded_qsl_set', async () => {
    const ref = official('Server_AccuracyOnly');
    const { result, detail } = await runLike(ref.settings);
    expect(result.errors.count).toBe(0);

    const theirs = readAccuracy(ref.paths.accuracy);
    const ours = readAccuracy(result.logs.accuracy);
    expect(ours.length).toBe(theirs.length);
    const a = seqMap(ours);
    const b = seqMap(theirs);
    for (let i = 0; i < b.length; i++) {
      if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1]) {
        expect(a[i], `entry ${i} (seq_id -> qsl_idx)`).toEqual(b[i]);
      }
    }
    // The SUT answers with the official null SUT's bytes, so the logged data match too.
    const bySeq = new Map(ours.map((e) => [e.seq_id, e]));
    for (const t of theirs) {
      const o = bySeq.get(t.seq_id)!;
      expect([o.data, o.token_data, o.token_count], `seq_id ${t.seq_id}`).toEqual([
        t.data,
        t.token_data,
        t.token_count,
      ]);
    }

    expectSameGenerated(detail, ref.detail);
    expectSameLoadedSet(detail, ref.detail);
  });

  it('Offline_AccuracyOnly: accuracy log mapping, generated_* and loaded_qsl_set', async () => {
    const ref = official('Offline_AccuracyOnly');
    const { result, detail } = await runLike(ref.settings);
    expect(result.errors.count).toBe(0);
    const theirs = readAccuracy(ref.paths.accuracy);
    const ours = readAccuracy(result.logs.accuracy);
    expect(seqMap(ours)).toEqual(seqMap(theirs));
    expectSameGenerated(detail, ref.detail);
    expectSameLoadedSet(detail, ref.detail);
  });

  it('Offline_PerformanceOnly: generated_* and loaded_qsl_set', async () => {
    const ref = official('Offline_PerformanceOnly');
    const { detail, sut } = await runLike(ref.settings);
    expectSameGenerated(detail, ref.detail);
    expectSameLoadedSet(detail, ref.detail);
    // One query of generated_samples_per_query samples.
    expect(sut.queries.length).toBe(1);
    expect(sut.queries[0].length).toBe(detailValue(ref.detail, 'generated_samples_per_query'));
  });

  it('Offline_PerformanceOnly_INVALID_minduration: generated_* and loaded_qsl_set', async () => {
    const ref = official('Offline_PerformanceOnly_INVALID_minduration');
    const { detail } = await runLike(ref.settings);
    expectSameGenerated(detail, ref.detail);
    expectSameLoadedSet(detail, ref.detail);
  });

  it('Server_PerformanceOnly: generated_query_count and generated_query_duration (seeds and settings only)', async () => {
    const ref = official('Server_PerformanceOnly');
    const { detail, sut } = await runLike(ref.settings);
    expectSameGenerated(detail, ref.detail, [
      'generated_query_count',
      'generated_query_duration',
      'generated_samples_per_query',
    ]);
    expectSameLoadedSet(detail, ref.detail);
    // Server issues every generated query.
    expect(sut.queries.length).toBe(detailValue(ref.detail, 'generated_query_count'));
  });

  it('SingleStream_PerformanceOnly: the first 1000 sample_idx of the trace', async () => {
    const ref = official('SingleStream_PerformanceOnly');
    const { result, detail, sut } = await runLike(ref.settings, { enableTrace: true });
    expectSameGenerated(detail, ref.detail);
    expectSameLoadedSet(detail, ref.detail);

    // The official trace is not valid JSON as a whole: read it event by event.
    const theirs = traceSampleIndices(readTraceLines(ref.paths.trace)).slice(0, 1000);
    expect(theirs.length).toBe(1000);
    expect(result.logs.trace).not.toBeNull();
    const ours = traceSampleIndices(readTrace(result.logs.trace!)).slice(0, 1000);
    expect(ours.length).toBe(1000);
    const firstDiff = ours.findIndex((v, i) => v !== theirs[i]);
    expect(firstDiff, `trace sample_idx differs first at sample_seq ${firstDiff}`).toBe(-1);
    // And the SUT saw them in that order.
    expect(sut.issued.slice(0, 1000).map((s) => s.index)).toEqual(theirs);
  });
});

// ---------------------------------------------------------------------------
// Other seeds: invariants.

const OTHER = { qslRngSeed: 12345678901234567890n, sampleIndexRngSeed: 42n, scheduleRngSeed: 987654321n };

describe('order invariants with other seeds', () => {
  it('the loaded set is a permutation of the QSL when it all fits', async () => {
    const qsl = nullQsl(300, 300);
    const { result } = await runTest(inlineSut(), qsl, {
      ...OTHER,
      scenario: 'Offline',
      minDurationMs: 0,
      minQueryCount: 10,
    });
    const loaded = detailValue(readDetail(result.logs.detail), 'loaded_qsl_set') as number[];
    expect(loaded).toEqual(qsl.loads[0]);
    expect([...loaded].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    // Not the identity: the QSL seed shuffles it.
    expect(loaded).not.toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it.each(['SingleStream', 'Server', 'Offline', 'MultiStream'] as const)(
    '%s AccuracyOnly issues each loaded index exactly once',
    async (scenario) => {
      const qsl = nullQsl(200, 100);
      const sut = inlineSut();
      await runTest(sut, qsl, {
        ...OTHER,
        scenario,
        mode: 'AccuracyOnly',
        serverTargetQps: 5000,
        multiStreamSamplesPerQuery: 4,
      });
      expect(qsl.loads.length).toBe(2);
      const loadedDistinct = qsl.loads.flatMap((set) => set.slice(0, 100));
      expect(new Set(loadedDistinct).size).toBe(200);
      const counts = countBy(sut.issued.map((s) => s.index));
      expect(counts.size).toBe(200);
      for (const idx of loadedDistinct) expect(counts.get(idx), `index ${idx}`).toBe(1);
    },
  );

  it('Server PerformanceOnly issues only indices of the loaded set', async () => {
    const qsl = nullQsl(1024, 100);
    const sut = inlineSut();
    const { result } = await runTest(sut, qsl, {
      ...OTHER,
      scenario: 'Server',
      serverTargetQps: 2000,
      minDurationMs: 150,
      minQueryCount: 50,
    });
    const loaded = detailValue(readDetail(result.logs.detail), 'loaded_qsl_set') as number[];
    expect(loaded).toEqual(qsl.loads[0]);
    expect(loaded.length).toBe(100);
    const set = new Set(loaded);
    expect(sut.issued.length).toBeGreaterThanOrEqual(50);
    for (const s of sut.issued) expect(set.has(s.index), `index ${s.index}`).toBe(true);
    // As in the official 6.0.17 GenerateLoadableSets, the performance set is
    // a shuffle of the first performance_sample_count indices (not a sample
    // of the whole QSL).
    expect([...loaded].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  async function serverOrder(seeds: typeof OTHER) {
    const qsl = nullQsl(512, 256);
    const sut = inlineSut();
    const { result } = await runTest(sut, qsl, {
      ...seeds,
      scenario: 'Server',
      serverTargetQps: 2000,
      minDurationMs: 100,
      minQueryCount: 64,
    });
    const detail = readDetail(result.logs.detail);
    return {
      indices: sut.issued.map((s) => s.index),
      loaded: qsl.loads[0],
      duration: detailValue(detail, 'generated_query_duration'),
      count: detailValue(detail, 'generated_query_count'),
    };
  }

  it('same seeds give the same loaded set, order and schedule across runs', async () => {
    const a = await serverOrder(OTHER);
    const b = await serverOrder(OTHER);
    expect(b.loaded).toEqual(a.loaded);
    expect(b.indices).toEqual(a.indices);
    expect(b.duration).toBe(a.duration);
    expect(b.count).toBe(a.count);
  });

  it('a different sample seed changes the order but not the loaded set or schedule', async () => {
    const a = await serverOrder(OTHER);
    const b = await serverOrder({ ...OTHER, sampleIndexRngSeed: 43n });
    expect(b.loaded).toEqual(a.loaded);
    expect(b.duration).toBe(a.duration);
    const n = Math.min(a.indices.length, b.indices.length);
    expect(b.indices.slice(0, n)).not.toEqual(a.indices.slice(0, n));
  });

  it('a different QSL seed changes the loaded set; a different schedule seed changes the schedule', async () => {
    const a = await serverOrder(OTHER);
    const q = await serverOrder({ ...OTHER, qslRngSeed: 1n });
    expect(q.loaded).not.toEqual(a.loaded);
    expect(q.duration).toBe(a.duration);
    const s = await serverOrder({ ...OTHER, scheduleRngSeed: 1n });
    expect(s.loaded).toEqual(a.loaded);
    expect(s.duration).not.toBe(a.duration);
  });
});
