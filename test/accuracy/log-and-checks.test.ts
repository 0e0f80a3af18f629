// The accuracy-log reader and the TEST06 checks, on logs the tests write and
// on the official LoadGen's logs (../shared/official-logs; skipped if absent).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  AccuracyLogError,
  decodeTokens,
  dedupByQslIdx,
  parseAccuracyLog,
  readAccuracyLog,
} from '../../lib/accuracy/accuracy-log.js';
import { runTest06, trailingEosCount } from '../../lib/accuracy/test06.js';
import { HAVE_OFFICIAL_LOGS, officialDir } from '../helpers.js';
import { tempDir, writeLog } from './helpers.js';

describe('decodeTokens', () => {
  it('decodes little-endian ids of each dtype', () => {
    expect(Array.from(decodeTokens('D800000000000000'))).toEqual([216, 0]);
    expect(Array.from(decodeTokens('D800000000000000', 'int64'))).toEqual([216]);
    expect(Array.from(decodeTokens('FFFFFFFF01000000', 'int32'))).toEqual([-1, 1]);
    expect(Array.from(decodeTokens('0100FFFF', 'int16'))).toEqual([1, -1]);
    expect(Array.from(decodeTokens('0000803F', 'float32'))).toEqual([1]);
    expect(Array.from(decodeTokens(''))).toEqual([]);
  });

  it('rejects odd, non-hex and non-whole-dtype data like np.frombuffer', () => {
    expect(() => decodeTokens('ABC')).toThrow(AccuracyLogError);
    expect(() => decodeTokens('ZZ000000')).toThrow(/hex/);
    expect(() => decodeTokens('010000000200', 'int32')).toThrow(/6 bytes is not a whole number of int32/);
  });
});

describe('readAccuracyLog', () => {
  it('reads the line layout, keeps duplicates, de-duplicates by qsl_idx (first wins)', async () => {
    const p = writeLog(join(tempDir(), 'a.json'), [
      { seq: 0, qsl: 3, ids: [10, 11], first: [10] },
      { seq: 1, qsl: 1, ids: [12] },
      { seq: 2, qsl: 3, ids: [99] },
    ]);
    const log = await readAccuracyLog(p);
    expect(log.entries.map((e) => [e.seqId, e.qslIdx, Array.from(e.tokens)])).toEqual([
      [0, 3, [10, 11]],
      [1, 1, [12]],
      [2, 3, [99]],
    ]);
    expect(Array.from(log.entries[0]!.firstTokens!)).toEqual([10]);
    expect(log.entries[1]!.firstTokens).toBeUndefined();
    expect(log.truncated).toBe(false);
    const d = dedupByQslIdx(log.entries);
    expect(d.duplicates).toBe(1);
    expect(d.entries.map((e) => Array.from(e.tokens))).toEqual([[10, 11], [12]]);
  });

  it('reads a log cut short by a crash (no closing bracket, torn last line)', async () => {
    const dir = tempDir();
    const p = writeLog(
      join(dir, 'cut.json'),
      [
        { seq: 0, qsl: 0, ids: [1] },
        { seq: 1, qsl: 1, ids: [2] },
      ],
      { close: false },
    );
    const log = await readAccuracyLog(p);
    expect(log.truncated).toBe(true);
    expect(log.entries).toHaveLength(2);
    writeFileSync(
      join(dir, 'torn.json'),
      '[\n{ "seq_id" : 0, "qsl_idx" : 0, "data" : "01000000", "token_count" : 1 },\n{ "seq_id" : 1, "qsl_i',
    );
    const torn = await readAccuracyLog(join(dir, 'torn.json'));
    expect(torn.truncated).toBe(true);
    expect(torn.entries).toHaveLength(1);
  });

  it('reads other JSON layouts and the empty log', async () => {
    const one = parseAccuracyLog('[{"seq_id":0,"qsl_idx":5,"data":"07000000"}]');
    expect(one.entries[0]!.qslIdx).toBe(5);
    expect(Array.from(one.entries[0]!.tokens)).toEqual([7]);
    const pretty = parseAccuracyLog(
      JSON.stringify([{ seq_id: 0, qsl_idx: 2, data: '08000000', token_count: 1 }], null, 2),
    );
    expect(pretty.entries[0]!.tokenCount).toBe(1);
    expect(parseAccuracyLog('[\n]\n').entries).toEqual([]);
  });

  it('reports unusable input clearly', async () => {
    const dir = tempDir();
    await expect(readAccuracyLog(join(dir, 'none.json'))).rejects.toThrow(/no such file/);
    writeFileSync(join(dir, 'empty.json'), '');
    await expect(readAccuracyLog(join(dir, 'empty.json'))).rejects.toThrow(/empty file/);
    writeFileSync(join(dir, 'bad.json'), 'hello');
    await expect(readAccuracyLog(join(dir, 'bad.json'))).rejects.toThrow(/not JSON/);
    writeFileSync(join(dir, 'obj.json'), '{"a": 1}');
    await expect(readAccuracyLog(join(dir, 'obj.json'))).rejects.toThrow(/JSON array/);
    writeFileSync(join(dir, 'noqsl.json'), '[\n{ "seq_id" : 0, "data" : "00" }\n]\n');
    await expect(readAccuracyLog(join(dir, 'noqsl.json'))).rejects.toThrow(/qsl_idx/);
    writeFileSync(join(dir, 'odd.json'), '[\n{ "seq_id" : 0, "qsl_idx" : 0, "data" : "010000" }\n]\n');
    const odd = await readAccuracyLog(join(dir, 'odd.json'));
    expect(odd.entries[0]!.malformed).toMatch(/3 bytes/);
  });
});

describe('TEST06 checks', () => {
  const e = (seqId: number, tokens: number[], extra: { first?: number[]; count?: number } = {}) => ({
    seqId,
    qslIdx: seqId,
    tokens,
    byteLength: tokens.length * 4,
    ...(extra.first ? { firstTokens: extra.first } : {}),
    tokenCount: extra.count ?? tokens.length,
  });

  it('EOS: at most one trailing EOS, index 0 never counted (as run_verification.py)', () => {
    expect(trailingEosCount([5, 2], 2)).toBe(1);
    expect(trailingEosCount([5, 2, 2], 2)).toBe(2);
    expect(trailingEosCount([2, 2], 2)).toBe(1);
    expect(trailingEosCount([2], 2)).toBe(0);
    expect(runTest06([e(0, [5, 2])]).eos.pass).toBe(true);
    const r = runTest06([e(0, [5, 2, 2]), e(1, [4, 2])]);
    expect(r.eos.pass).toBe(false);
    expect(r.eos.failures).toBe(1);
    expect(r.eos.examples[0]!.reason).toMatch(/2 EOS/);
  });

  it('first token compared over the shorter sequence; token count equals output length', () => {
    const ok = runTest06([e(0, [7, 8, 9], { first: [7] }), e(1, [7, 8], { first: [7, 8] })], { eosTokenId: 2 });
    expect(ok.pass).toBe(true);
    expect(ok.text).toBe(
      'First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n',
    );
    const bad = runTest06([e(0, [7, 8], { first: [8] }), e(1, [7, 8], { first: [7], count: 3 })]);
    expect(bad.firstToken.failures).toBe(1);
    expect(bad.sampleLength.examples[0]!.reason).toBe('token_count 3 but 2 output ids');
    expect(bad.text).toMatch(
      /First token check pass: False\nEOS check pass: True\nSample length check pass: False\nTEST06 verification failed/,
    );
  });

  it('Offline skips the first-token check', () => {
    const r = runTest06([e(0, [1, 2, 3])], { scenario: 'Offline' });
    expect(r.firstToken.checked).toBe(false);
    expect(r.text.split('\n')[0]).toBe('First token check pass: Skipped');
  });
});

describe.skipIf(!HAVE_OFFICIAL_LOGS)('official LoadGen accuracy logs', () => {
  for (const name of ['Offline_AccuracyOnly', 'Server_AccuracyOnly']) {
    it(`${name}: 1024 distinct samples; data is the QSL index then 0 (int32)`, async () => {
      const log = await readAccuracyLog(join(officialDir(name), 'mlperf_log_accuracy.json'));
      expect(log.truncated).toBe(false);
      expect(log.entries).toHaveLength(1024);
      expect(dedupByQslIdx(log.entries).duplicates).toBe(0);
      expect(new Set(log.entries.map((x) => x.seqId)).size).toBe(1024);
      for (const x of log.entries) {
        expect(Array.from(x.tokens)).toEqual([x.qslIdx, 0]);
        expect(x.tokenCount).toBe(100);
      }
      const as64 = await readAccuracyLog(join(officialDir(name), 'mlperf_log_accuracy.json'), { dtype: 'int64' });
      expect(as64.entries.every((x) => x.tokens.length === 1 && x.tokens[0] === x.qslIdx)).toBe(true);

      // The null SUT claims 100 tokens for 8 bytes: TEST06's length check fails; its
      // first-token bytes equal the data (Server), and there is no EOS run.
      const t = runTest06(log.entries, { scenario: name.split('_')[0]! });
      expect(t.sampleLength.failures).toBe(1024);
      expect(t.eos.pass).toBe(true);
      if (name.startsWith('Server')) expect(t.firstToken.pass).toBe(true);
      else expect(t.firstToken.checked).toBe(false);
      expect(t.text.split('\n')[2]).toBe('Sample length check pass: False');
    });
  }
  it('the empty logs of performance runs read as no entries', async () => {
    const log = await readAccuracyLog(join(officialDir('Offline_PerformanceOnly'), 'mlperf_log_accuracy.json'));
    expect(log.entries).toEqual([]);
    expect(log.truncated).toBe(false);
  });
});

describe('TEST06 on a run of ours against the simulator (TEST06 audit settings)', () => {
  it('first tokens, one trailing EOS and token counts all check out', async () => {
    const { createLlmSut, TestMode, TestScenario } = await import('../../lib/index.js');
    const { sim, track, idDataset, serverRun, logPaths } = await import('../sut/helpers.js');
    const s = await sim({ decodeStepNs: 20_000, eosAfter: 4, eosTokenId: 2 });
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: idDataset(100, 16), workers: 0, onWarning: () => {} }),
    );
    // compliance/TEST06/audit.config: performance mode, 100 queries, 100 samples logged.
    const { outdir } = await serverRun(llm, 100, {
      mode: TestMode.PerformanceOnly,
      scenario: TestScenario.Server,
      accuracyLogSamplingTarget: 100,
      accuracyLogRngSeed: 720381539243781796n,
    });
    const log = await readAccuracyLog(logPaths(outdir).accuracy);
    expect(log.entries.length).toBeGreaterThanOrEqual(50);
    for (const e of log.entries) {
      expect(Array.from(e.tokens).slice(-1)).toEqual([2]);
      expect(e.tokens.length).toBe(4);
    }
    const r = runTest06(log.entries, { eosTokenId: 2, scenario: 'Server' });
    expect(r.text).toBe(
      'First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n',
    );
  });
});
