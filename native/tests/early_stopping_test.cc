// Tests of MinPassingQueriesFinder against a slow, direct binomial-CDF
// computation in long double.

#include <cmath>
#include <cstdint>
#include <vector>

#include "check.h"
#include "early_stopping.h"

namespace {

constexpr double kConfidence = 0.99;

// P(X <= t) for X ~ Binomial(h + t, 1 - p): the chance that at most t of
// h + t queries are over latency when each one is with probability 1 - p.
long double BinomialCdf(int64_t h, int64_t t, long double p) {
  const int64_t n = h + t;
  const long double q = 1.0L - p;
  long double total = 0;
  for (int64_t k = 0; k <= t; ++k) {
    const long double log_choose = std::lgamma(static_cast<long double>(n + 1)) -
                                   std::lgamma(static_cast<long double>(k + 1)) -
                                   std::lgamma(static_cast<long double>(n - k + 1));
    total += std::exp(log_choose + k * std::log(q) + (n - k) * std::log(p));
  }
  return total;
}

// Smallest h >= 1 whose CDF is below 1 - confidence (the CDF falls as h grows).
int64_t SlowMinPassing(int64_t t, double p) {
  int64_t lo = 1, hi = int64_t{1} << 26;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (BinomialCdf(mid, t, p) < 1.0L - kConfidence) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Number of queries SingleStream needs before it reports any estimate.
int64_t MinQueriesForEstimate(lg::MinPassingQueriesFinder& f, double p) { return f(1, p, 0.0, kConfidence) + 1; }

}  // namespace

TEST_CASE("p=0.90, t=1 needs 63 passing queries: at least 64 queries in all") {
  lg::MinPassingQueriesFinder f;
  CHECK_EQ(f(1, 0.90, 0.0, kConfidence), 63);
  CHECK_EQ(MinQueriesForEstimate(f, 0.90), 64);
  CHECK_EQ(SlowMinPassing(1, 0.90), 63);
}

TEST_CASE("p=0.99, t=0 needs 459 queries") {
  lg::MinPassingQueriesFinder f;
  CHECK_EQ(f(0, 0.99, 0.0, kConfidence), 459);
  // 0.99^459 < 0.01 <= 0.99^458
  CHECK(std::pow(0.99L, 459) < 0.01L);
  CHECK(std::pow(0.99L, 458) >= 0.01L);
}

TEST_CASE("table of (t, p) -> h matches the slow binomial computation (fresh finder each)") {
  const double ps[] = {0.5, 0.75, 0.9, 0.95, 0.97, 0.99};
  for (double p : ps) {
    for (int64_t t = 0; t <= 40; ++t) {
      lg::MinPassingQueriesFinder f;
      const int64_t got = f(t, p, 0.0, kConfidence);
      const int64_t want = SlowMinPassing(t, p);
      if (got != want)
        std::printf("  p=%g t=%lld: finder %lld, slow %lld\n", p, (long long)t, (long long)got, (long long)want);
      CHECK_EQ(got, want);
    }
  }
  for (int64_t t = 0; t <= 6; ++t) {
    lg::MinPassingQueriesFinder f;
    CHECK_EQ(f(t, 0.999, 0.0, kConfidence), SlowMinPassing(t, 0.999));
  }
}

TEST_CASE("ascending scan through the cache gives the same h as fresh searches") {
  const double ps[] = {0.9, 0.99};
  for (double p : ps) {
    lg::MinPassingQueriesFinder cached;
    int64_t previous = 0;
    for (int64_t t = 1; t <= 120; ++t) {
      const int64_t h = cached(t, p, 0.0, kConfidence);
      lg::MinPassingQueriesFinder fresh;
      CHECK_EQ(h, fresh(t, p, 0.0, kConfidence));
      CHECK(h >= previous);  // more failures need more passes
      previous = h;
      if (t <= 30) CHECK_EQ(h, SlowMinPassing(t, p));
    }
  }
}

TEST_CASE("repeated query is served from the cache") {
  lg::MinPassingQueriesFinder f;
  const int64_t a = f(17, 0.9, 0.0, kConfidence);
  CHECK_EQ(f(17, 0.9, 0.0, kConfidence), a);
  // Different keys do not share entries.
  CHECK(f(17, 0.99, 0.0, kConfidence) != a);
}

TEST_CASE("a tolerance lowers the passing probability used") {
  lg::MinPassingQueriesFinder f;
  // q = p - tolerance = 0.9: same answer as p = 0.9 without tolerance.
  CHECK_EQ(f(3, 0.95, 0.05, kConfidence), SlowMinPassing(3, 0.9));
}

TEST_CASE("SingleStream with 1000 queries at p=0.90 can discard 77 (t = 78)") {
  // The official SingleStream sample run reports "Would discard 77 highest
  // latency queries." for 1000 queries: the largest t with 1000 >= h(t) + t.
  lg::MinPassingQueriesFinder f;
  int64_t t = 1;
  f(1, 0.90, 0.0, kConfidence);
  for (int64_t i = 2; i <= 1000; ++i) {
    if (1000 < f(i, 0.90, 0.0, kConfidence) + i) {
      t = i - 1;
      break;
    }
  }
  CHECK_EQ(t, 78);
  CHECK(1000 >= SlowMinPassing(78, 0.90) + 78);
  CHECK(1000 < SlowMinPassing(79, 0.90) + 79);
}

TEST_CASE("a 100th percentile target can never be met") {
  lg::MinPassingQueriesFinder f;
  CHECK(f(0, 1.0, 0.0, kConfidence) > (int64_t{1} << 60));
  CHECK(f(5, 1.0, 0.0, kConfidence) > (int64_t{1} << 60));
}

TEST_MAIN()
