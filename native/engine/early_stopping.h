// Early-stopping arithmetic: the minimum number of passing queries needed,
// given t over-latency queries, for the target percentile to hold with the
// given confidence (binomial tail via the regularised incomplete beta).
#pragma once

#include <cstdint>
#include <map>
#include <tuple>

namespace lg {

class MinPassingQueriesFinder {
 public:
  // Smallest h with P(<= t events in h + t trials) < 1 - confidence, where each
  // trial is over latency with probability 1 - (p - tolerance).
  int64_t operator()(int64_t t, double p, double tolerance, double confidence);

 private:
  std::map<std::tuple<double, double, double>, std::map<int64_t, int64_t>> caches_;
};

}  // namespace lg
