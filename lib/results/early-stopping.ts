// Early-stopping percentile estimates for result_summary.json's
// `early_stopping_percentiles` (mlcommons/endpoints' metrics/early_stopping.py
// at ea332753, itself after LoadGen's early_stopping.cc): for n sorted
// values and a percentile p, the t-th highest value, where t is the largest
// number of values over it that the binomial test at 99% confidence still
// tolerates in n samples. The true p-percentile is at most that value with
// 99% confidence. MLPerf's submission checker v6.1 reads p99 TTFT and TPOT of
// endpoints results from these estimates.

const CONFIDENCE = 0.99;

// Lanczos approximation of ln Γ(x) (g = 7, 9 terms), accurate to ~1e-15 for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

// The continued fraction of the regularized incomplete beta (modified Lentz),
// capped at 400 steps: every decision below compares against 0.01, far from
// the slowly converging middle of the distribution.
function betaContinuedFraction(a: number, b: number, x: number): number {
  const eps = 3e-16;
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 400; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < eps) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta. */
function betaRegularized(a: number, b: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  const front = Math.exp(lnFront);
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(at most t of h + t trials over the percentile | rate 1 - p) = I_p(h, t + 1). */
function odds(h: number, t: number, p: number): number {
  return betaRegularized(h, t + 1, p);
}

/** The fewest values under the percentile that, beside t over it, pass the test. */
export function minPassing(t: number, p: number): number {
  const target = 1 - CONFIDENCE;
  let lo = 1;
  let hi = 2;
  // Bounded: odds falls to 0 as h grows; 2^60 values is beyond any run.
  for (let i = 0; i < 60 && odds(hi, t, p) >= target; i++) hi *= 2;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (odds(mid, t, p) < target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The largest t >= 1 with n >= minPassing(t) + t (0 when even t = 1 needs more than n). */
function discardCount(n: number, p: number): number {
  if (minPassing(1, p) + 1 > n) return 0;
  let lo = 1;
  let hi = 2;
  for (let i = 0; i < 60 && minPassing(hi, p) + hi <= n; i++) hi *= 2;
  while (lo < hi - 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (minPassing(mid, p) + mid <= n) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The estimate for `percentile` (0-100) over ascending `sorted` values; null when n is too small to claim anything. */
export function earlyStoppingEstimate(sorted: ArrayLike<number>, percentile: number): number | null {
  const p = percentile / 100;
  const n = sorted.length;
  if (n < minPassing(1, p) + 1) return null;
  const t = discardCount(n, p);
  return sorted[n - t];
}

/** endpoints' map: every grid key from the median up (below 100), estimate or null. */
export function earlyStoppingPercentiles(
  sorted: ArrayLike<number>,
  grid: readonly string[],
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const key of grid) {
    const v = Number(key);
    if (v >= 50 && v < 100) out[key] = earlyStoppingEstimate(sorted, v);
  }
  return out;
}
