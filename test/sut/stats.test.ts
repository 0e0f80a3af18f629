import { describe, expect, test } from 'vitest';

import { LogHistogram, percentiles } from '../../lib/sut/stats.js';

describe('percentiles', () => {
  test('nearest rank over the finite values, scaled', () => {
    const v = Float64Array.from({ length: 1000 }, (_, i) => 1000 - i); // 1000 .. 1, unsorted
    const p = percentiles([...v, NaN, Infinity], 1e-3);
    expect(p.count).toBe(1000);
    expect(p.min).toBeCloseTo(0.001);
    expect(p.max).toBeCloseTo(1);
    expect(p.p50).toBeCloseTo(0.5);
    expect(p.p99).toBeCloseTo(0.99);
    expect(p.p999).toBeCloseTo(0.999);
    expect(p.mean).toBeCloseTo(0.5005);
  });

  test('nothing finite: count 0 and NaN figures', () => {
    const p = percentiles([NaN]);
    expect(p.count).toBe(0);
    expect(p.p50).toBeNaN();
  });
});

describe('LogHistogram', () => {
  test('quantiles within the bucket resolution (about 2 %)', () => {
    const h = new LogHistogram();
    for (let i = 1; i <= 10_000; i++) h.record(i * 1000);
    expect(h.total).toBe(10_000);
    expect(h.min).toBe(1000);
    expect(h.max).toBe(10_000_000);
    expect(Math.abs(h.quantile(0.5) / 5_000_000 - 1)).toBeLessThan(0.03);
    expect(Math.abs(h.quantile(0.99) / 9_900_000 - 1)).toBeLessThan(0.03);
  });

  test('merge adds another histogram', () => {
    const a = new LogHistogram();
    const b = new LogHistogram();
    for (let i = 0; i < 100; i++) a.record(1000);
    for (let i = 0; i < 100; i++) b.record(64_000);
    a.merge(b);
    expect(a.total).toBe(200);
    expect(a.max).toBe(64_000);
    expect(a.min).toBe(1000);
    expect(Math.abs(a.quantile(0.75) / 64_000 - 1)).toBeLessThan(0.03);
  });
});
