import { describe, expect, test } from 'vitest';

import { native } from '../../lib/core/binding.js';
import { Column } from '../../lib/sut/column.js';
import { percentiles } from '../../lib/sut/stats.js';

describe('Column (values kept outside the JS heap)', () => {
  test('values come back in order across stage flushes', () => {
    const c = new Column(7);
    expect(c.toArray()).toEqual(new Float64Array(0));
    for (let i = 0; i < 50; i++) c.push(i * 1.5);
    expect(c.length).toBe(50);
    const a = c.toArray();
    expect(a.length).toBe(50);
    expect(Array.from(a)).toEqual(Array.from({ length: 50 }, (_, i) => i * 1.5));
  });

  test('a full stage, and a copy that does not change with later pushes', () => {
    const c = new Column(4);
    for (let i = 0; i < 8; i++) c.push(i);
    const a = c.toArray();
    c.push(8);
    expect(Array.from(a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Array.from(c.toArray())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(percentiles(c.toArray()).max).toBe(8);
  });

  test('more values than one native block (65,536), NaN and negative values kept', () => {
    const c = new Column(1000);
    const n = 200_003;
    for (let i = 0; i < n; i++) c.push(i % 997 === 0 ? NaN : i - 5);
    const a = c.toArray();
    expect(a.length).toBe(n);
    for (const i of [0, 1, 65_535, 65_536, 65_537, 131_072, n - 1]) {
      if (i % 997 === 0) expect(a[i]).toBeNaN();
      else expect(a[i]).toBe(i - 5);
    }
  });

  test('the native calls reject what is not theirs', () => {
    const rows = native.offHeapCreate();
    expect(() => native.offHeapAppend({} as never, new Float64Array(1), 1)).toThrow(
      /offHeapAppend: expected the handle/,
    );
    expect(() => native.offHeapAppend(rows, new Float32Array(2) as never, 1)).toThrow(
      /offHeapAppend\(handle, Float64Array, n\)/,
    );
    expect(() => native.offHeapAppend(rows, new Float64Array(2), 3)).toThrow(/n is not within the array/);
    expect(() => native.offHeapCopy(undefined as never)).toThrow(/offHeapCopy: expected the handle/);
    native.offHeapAppend(rows, Float64Array.of(1, 2, 3), 2);
    expect(Array.from(native.offHeapCopy(rows))).toEqual([1, 2]);
  });
});
