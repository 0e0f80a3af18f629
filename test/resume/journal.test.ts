// The journal's records: what is written is read back byte for byte; a torn
// tail (a crash in mid-write) and a corrupted record end a segment there;
// the first record of a qsl_idx wins; segments of several runs are merged.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { FIRST_TOKEN_ABSENT, FIRST_TOKEN_DATA } from '../../lib/resume/journal-format.js';
import { parseSegment, readJournal } from '../../lib/resume/journal-reader.js';
import { JournalWriter, type JournalTarget } from '../../lib/resume/journal-writer.js';

const root = mkdtempSync(join(tmpdir(), 'lg-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function target(dir: string, tag: string): JournalTarget {
  const enabled = new SharedArrayBuffer(4);
  new Int32Array(enabled)[0] = 1;
  return { dir, tag, enabled };
}

describe('journal records', () => {
  test('written records read back exactly; torn and corrupted tails are dropped', () => {
    const dir = join(root, 'a');
    const w = new JournalWriter(target(dir, '0001'));
    const ids = Int32Array.from({ length: 300 }, (_, i) => (i * 7919) ^ -i);
    for (let q = 0; q < 50; q++)
      w.append(q, q + 1, ids, q * 6, q % 2 ? FIRST_TOKEN_DATA : FIRST_TOKEN_ABSENT, q % 3, q * 1e6, q * 2e6 + 0.5);
    w.close();
    const j = readJournal(dir);
    expect(j).toMatchObject({ segments: 1, duplicates: 0, tornBytes: 0 });
    expect(j.records.size).toBe(50);
    for (let q = 0; q < 50; q++) {
      const r = j.records.get(q)!;
      expect(r).toMatchObject({
        qslIdx: q,
        nTokens: q + 1,
        firstToken: q % 2 ? FIRST_TOKEN_DATA : FIRST_TOKEN_ABSENT,
        endpoint: q % 3,
        ttftNs: q * 1e6,
        latencyNs: q * 2e6 + 0.5,
      });
      expect(Buffer.from(r.data)).toEqual(Buffer.from(ids.buffer, 0, q * 6 * 4));
    }
    const seg = join(dir, readdirSync(dir)[0]);
    const whole = readFileSync(seg);
    // A record cut in the middle (the process died inside write()): the ones before it stay.
    const cut = join(root, 'cut.bin');
    writeFileSync(cut, whole.subarray(0, whole.length - 10));
    const m = new Map();
    const r = parseSegment(readFileSync(cut), m);
    expect(m.size).toBe(49);
    expect(r.torn).toBe(44 + 49 * 6 * 4 - 10);
    // A flipped bit in the last record's ids: its checksum fails.
    const bad = Buffer.from(whole);
    bad[bad.length - 8] ^= 1;
    const m2 = new Map();
    parseSegment(bad, m2);
    expect(m2.size).toBe(49);
    // Garbage after whole records (e.g. zeros after a power loss) is not a record.
    appendFileSync(seg, Buffer.alloc(64));
    expect(readJournal(dir)).toMatchObject({ tornBytes: 64 });
    expect(readJournal(dir).records.size).toBe(50);
  });

  test('a second run appends its own segment; the first record of a sample wins; the switch stops journaling', () => {
    const dir = join(root, 'b');
    const w1 = new JournalWriter(target(dir, '0001'));
    w1.append(1, 5, Int32Array.of(9, 9, 9, 9, 9), 5, FIRST_TOKEN_DATA, 0, 1, 2);
    w1.close();
    const t2 = target(dir, '0002');
    const w2 = new JournalWriter(t2);
    expect(w2.enabled).toBe(true);
    w2.append(1, 2, Int32Array.of(1, 1), 2, FIRST_TOKEN_DATA, 0, 1, 2);
    w2.append(2, 2, Int32Array.of(3, 4), 2, FIRST_TOKEN_DATA, 0, 1, 2);
    new Int32Array(t2.enabled)[0] = 0;
    expect(w2.enabled).toBe(false);
    w2.close();
    const j = readJournal(dir);
    expect(j).toMatchObject({ segments: 2, duplicates: 1 });
    expect(j.records.get(1)!.nTokens).toBe(5);
    expect([...new Int32Array(Uint8Array.from(j.records.get(2)!.data).buffer)]).toEqual([3, 4]);
  });
});
