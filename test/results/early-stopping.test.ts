// result_summary.json's early_stopping_percentiles: LoadGen's binomial test
// at 99% confidence, as endpoints' metrics/early_stopping.py computes it.
// LoadGen's reference counts (459 queries for p99 with none over the bound,
// 44 for p90, 662 for p99 with one over it) pin the test itself.
import { describe, expect, it } from 'vitest';

import { earlyStoppingEstimate, earlyStoppingPercentiles, minPassing } from '../../lib/results/early-stopping.js';
import { ENDPOINTS_PERCENTILES, seriesSummary } from '../../lib/results/result-summary.js';

describe('early-stopping estimates', () => {
  it("matches LoadGen's reference query counts", () => {
    expect(minPassing(0, 0.99)).toBe(459);
    expect(minPassing(0, 0.9)).toBe(44);
    expect(minPassing(1, 0.99) + 1).toBe(662);
  });

  it('is null below the minimum, then a high order statistic at or above the empirical percentile', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(earlyStoppingEstimate(values(661), 99)).toBeNull();
    expect(earlyStoppingEstimate(values(662), 99)).toBe(661);
    // 1000 values 0..999: p99 is 989 empirically; the estimate discards one value above it.
    expect(earlyStoppingPercentiles(values(1000), ENDPOINTS_PERCENTILES)).toEqual({
      '99.9': null,
      '99.0': 998,
      '97.0': 983,
      '95.0': 966,
      '90.0': 922,
      '80.0': 830,
      '75.0': 782,
      '50.0': 538,
    });
  });

  it('sits right after percentiles in a series rollup, only when asked', () => {
    const s = seriesSummary(
      Float64Array.from({ length: 800 }, (_, i) => 800 - i),
      true,
    );
    expect(Object.keys(s)).toEqual([
      'total',
      'min',
      'max',
      'median',
      'avg',
      'std_dev',
      'percentiles',
      'early_stopping_percentiles',
      'histogram',
    ]);
    expect('early_stopping_percentiles' in seriesSummary([1, 2, 3])).toBe(false);
  });
});
