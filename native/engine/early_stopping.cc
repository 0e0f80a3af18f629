// Early-stopping arithmetic. The integers it returns must equal the official
// LoadGen's exactly, so every floating-point step below is evaluated in the
// same order and with the same operand types as upstream: a different but
// "better" formula could move a borderline h by one and change a verdict.

// Keep a*b+c as two roundings on every target (FMA contraction would give
// other bits than the x86-64 reference build).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "early_stopping.h"

#include <cmath>

namespace lg {
namespace {

// Series of 2F1(1, b; c; z) (DLMF 15.2.1 with a = 1). Here b <= 0 is an
// integer, so the series is a polynomial: the loop ends when a term hits 0,
// or earlier once a term is at most 2^-33 in magnitude.
double Hyp2F1WithAOne(int64_t b, int64_t c, double z) {
  const double kStopBelow = 1.0 / static_cast<double>(int64_t{1} << 33);
  double sum = 1.0;
  double term = 1.0;
  int64_t k = 0;
  while (std::fabs(term) > kStopBelow) {
    const double ratio = static_cast<double>(b + k) * z / static_cast<double>(c + k);
    term *= ratio;
    sum += term;
    ++k;
  }
  return sum;
}

// log(Beta(a, b)) from log-gamma values.
double LogBeta(int64_t a, int64_t b) {
  const double ga = std::lgamma(static_cast<double>(a));
  const double gb = std::lgamma(static_cast<double>(b));
  const double gab = std::lgamma(static_cast<double>(a + b));
  return ga + gb - gab;
}

// I_x(a, b), via DLMF 8.17.8 / 15.8.1:
//   x^a (1-x)^(b-1) / (a B(a,b)) * 2F1(1, 1-b; 1+a; x/(x-1)).
double RegularisedIncompleteBeta(double x, int64_t a, int64_t b) {
  const double log_prefactor =
      static_cast<double>(a) * std::log(x) + static_cast<double>(b - 1) * std::log(1 - x) - LogBeta(a, b);
  const double scaled = std::exp(log_prefactor) / static_cast<double>(a);
  return scaled * Hyp2F1WithAOne(1 - b, 1 + a, x / (x - 1));
}

// P(at most t over-latency queries among h + t), each query passing with
// probability q = p - tolerance: the binomial CDF, which equals I_q(h, t + 1).
double ProbAtMostTFailures(int64_t h, int64_t t, double p, double tolerance) {
  return RegularisedIncompleteBeta(p - tolerance, h, t + 1);
}

// First h in [lo, hi) whose probability drops below 1 - confidence (hi if
// none), by halving the candidate range as std::lower_bound does.
int64_t SearchFirstPassing(int64_t lo, int64_t hi, int64_t t, double p, double tolerance, double confidence) {
  int64_t remaining = hi - lo;
  while (remaining > 0) {
    const int64_t half = remaining / 2;
    const int64_t mid = lo + half;
    if (ProbAtMostTFailures(mid, t, p, tolerance) < 1 - confidence) {
      remaining = half;
    } else {
      lo = mid + 1;
      remaining -= half + 1;
    }
  }
  return lo;
}

// Large, yet far enough from INT64_MAX that callers can add a query count.
constexpr int64_t kUnreachable = INT64_MAX / 4;

}  // namespace

int64_t MinPassingQueriesFinder::operator()(int64_t t, double p, double tolerance, double confidence) {
  const double q = p - tolerance;
  // With q >= 1 (a 100th percentile target) no number of passing queries is
  // ever enough; upstream would convert ceil(-inf) to an integer here, which
  // is undefined, so we answer "unreachable" instead.
  if (!(q < 1)) return kUnreachable;

  std::map<int64_t, int64_t>& known = caches_[std::make_tuple(p, tolerance, confidence)];
  auto at_or_after = known.lower_bound(t);
  if (at_or_after != known.end() && at_or_after->first == t) return at_or_after->second;

  // The search range is extrapolated from the two largest cached t below this
  // one; with nothing cached it starts from (t=0, h=ceil(log(1-c)/log(q)))
  // and a virtual point (t=-1, h=0).
  int64_t prev_t = 0;
  int64_t prev_h = static_cast<int64_t>(std::ceil(std::log(1 - confidence) / std::log(q)));
  int64_t older_t = -1;
  int64_t older_h = 0;
  auto walk = at_or_after;
  if (walk != known.begin()) {
    --walk;
    prev_t = walk->first;
    prev_h = walk->second;
    if (walk != known.begin()) {
      --walk;
      older_t = walk->first;
      older_h = walk->second;
    }
  }

  const double low_slope = q / (1 - p + tolerance);
  // Upstream multiplies the two differences where a slope would divide them;
  // it only widens the range, and we must reproduce the same range.
  const double high_slope = static_cast<double>((prev_h - older_h) * (prev_t - older_t));
  const double dt = static_cast<double>(t - prev_t);
  const int64_t lo = static_cast<int64_t>(dt * low_slope + static_cast<double>(prev_h));
  const int64_t hi = static_cast<int64_t>(dt * high_slope + static_cast<double>(prev_h) + 1);

  const int64_t h = SearchFirstPassing(lo, hi, t, p, tolerance, confidence);
  known[t] = h;
  return h;
}

}  // namespace lg
