import { describe, expect, test } from 'vitest';

import { Column, percentiles } from '../../lib/sut/stats.js';

describe('Column', () => {
  test('values come back in order across block boundaries', () => {
    const c = new Column(7);
    expect(c.toArray()).toEqual(new Float64Array(0));
    for (let i = 0; i < 50; i++) c.push(i * 1.5);
    expect(c.length).toBe(50);
    const a = c.toArray();
    expect(a.length).toBe(50);
    expect(Array.from(a)).toEqual(Array.from({ length: 50 }, (_, i) => i * 1.5));
  });

  test('a full last block and a copy that does not change with later pushes', () => {
    const c = new Column(4);
    for (let i = 0; i < 8; i++) c.push(i);
    const a = c.toArray();
    c.push(8);
    expect(Array.from(a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Array.from(c.toArray())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(percentiles(c.toArray()).max).toBe(8);
  });
});
