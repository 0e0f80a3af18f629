#include "query_generation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "rng.h"

namespace lg {

std::vector<LoadableSet> GenerateLoadableSets(const EffectiveSettings& s, uint64_t requested_count,
                                              uint64_t qsl_total_count) {
  const uint64_t count = std::min(requested_count, qsl_total_count);
  std::vector<uint64_t> order(count);
  std::iota(order.begin(), order.end(), uint64_t{0});
  Mt19937 qsl_rng(s.qsl_rng_seed);
  Shuffle(order.data(), order.data() + order.size(), qsl_rng);

  const uint64_t set_size = s.performance_sample_count;
  const uint64_t padding = s.scenario == Scenario::MultiStream ? s.samples_per_query - 1 : 0;
  std::vector<LoadableSet> sets;
  if (set_size == 0) throw std::invalid_argument("performance sample count is 0");
  for (uint64_t begin = 0; begin < count; begin += set_size) {
    const uint64_t end = std::min(count, begin + set_size);
    LoadableSet ls;
    ls.set.reserve(end - begin + padding);
    ls.set.assign(order.begin() + begin, order.begin() + end);
    ls.sample_distribution_end = end - begin;
    sets.push_back(std::move(ls));
  }
  // MultiStream takes S consecutive entries from a random start, so each set
  // repeats its first S-1 entries at its end.
  for (auto& ls : sets) {
    for (uint64_t i = 0; i < padding; i++) ls.set.push_back(ls.set[i % ls.set.size()]);
  }
  return sets;
}

namespace {

// A fixed list of positions consumed in order (the accuracy-mode and
// "unique" sources; both a shuffle of 0, stride, 2*stride, ...).
class ShuffledPositions {
 public:
  ShuffledPositions(uint64_t end, uint64_t stride, Mt19937* rng) {
    for (uint64_t i = 0; i < end; i += stride) positions_.push_back(i);
    Shuffle(positions_.data(), positions_.data() + positions_.size(), *rng);
  }
  uint64_t Next() {
    if (next_ >= positions_.size()) {
      throw std::out_of_range("generated more queries than there are loaded samples");
    }
    return positions_[next_++];
  }

 private:
  std::vector<uint64_t> positions_;
  size_t next_ = 0;
};

// Equal-issue source: back-to-back independent permutations of the set, so
// every sample is issued equally often.
class ConcatenatedPermutations {
 public:
  ConcatenatedPermutations(uint64_t min_queries, uint64_t set_size, Mt19937* rng) {
    std::vector<uint64_t> perm(set_size);
    std::iota(perm.begin(), perm.end(), uint64_t{0});
    for (uint64_t j = 0; j < min_queries; j += set_size) {
      Shuffle(perm.data(), perm.data() + perm.size(), *rng);
      positions_.insert(positions_.end(), perm.begin(), perm.end());
    }
  }
  uint64_t Next() {
    if (positions_.empty()) throw std::out_of_range("equal-issue source is empty");
    return positions_[(next_++) % positions_.size()];
  }

 private:
  std::vector<uint64_t> positions_;
  uint64_t next_ = 0;
};

// Seconds as double → integer ns, truncating like a duration_cast.
inline int64_t SecondsToNs(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

}  // namespace

GeneratedQueries GenerateQueries(const EffectiveSettings& s, const LoadableSet& loaded_set, bool accuracy) {
  const std::vector<uint64_t>& loaded = loaded_set.set;
  const bool server = s.scenario == Scenario::Server;
  const bool offline = s.scenario == Scenario::Offline;
  const bool multi_stream = s.scenario == Scenario::MultiStream;

  // Generate twice the duration outside Server, in case the SUT is faster than expected.
  // A closed loop issues as fast as completions allow: target_qps is only its
  // expected rate, so it gets the same margin.
  const bool paced = server && s.requested.closed_loop_concurrency == 0;
  int64_t gen_duration_ns = (paced ? 1 : 2) * s.target_duration_ms * 1000000;
  uint64_t min_queries = s.min_query_count;
  uint64_t spq = s.samples_per_query;
  if (accuracy && offline) spq = loaded_set.sample_distribution_end;
  if (accuracy || s.performance_issue_unique) {
    gen_duration_ns = 0;
    min_queries = loaded.size() / spq;  // truncation intended; MultiStream sets are padded
  }

  Mt19937 sample_rng(s.sample_index_rng_seed);
  Mt19937 schedule_rng(s.schedule_rng_seed);
  const uint64_t stride = multi_stream ? spq : 1;

  // All three sources are built up front, in this order, and all draw from
  // sample_rng at construction (except the performance-mode uniform source).
  const uint64_t dist_end = loaded_set.sample_distribution_end;
  std::unique_ptr<ShuffledPositions> accuracy_source;
  if (accuracy) accuracy_source.reset(new ShuffledPositions(dist_end, stride, &sample_rng));
  UniformIntDistribution uniform_source(0, static_cast<int>(dist_end) - 1);
  ShuffledPositions unique_source(dist_end, stride, &sample_rng);
  ConcatenatedPermutations equal_issue_source(min_queries, loaded.size(), &sample_rng);
  auto next_from_mode_source = [&]() -> uint64_t {
    if (accuracy) return accuracy_source->Next();
    return static_cast<uint64_t>(uniform_source(sample_rng));
  };

  const bool equal_issue = s.sample_concatenate_permutation;
  if (!accuracy && equal_issue) {
    if (offline && spq % loaded.size() != 0) {
      spq += loaded.size() - spq % loaded.size();
    } else if (!offline && min_queries % loaded.size() != 0) {
      min_queries += loaded.size() - min_queries % loaded.size();
    }
  }

  const double period_s = 1.0 / s.target_qps;
  const int64_t fixed_period_ns = SecondsToNs(period_s);
  // Our non-MLPerf arrival patterns draw from their own generator, so the
  // official schedule (and its RNG stream) is untouched when they are off.
  const TestSettings& req = s.requested;
  const bool patterned = server && req.closed_loop_concurrency == 0 && req.NonMlperfIssuePolicy();
  std::mt19937_64 pattern_rng(s.schedule_rng_seed);
  auto rate_at = [&](int64_t t_ns) -> double {
    if (req.ramp_start_qps <= 0 || req.ramp_duration_ms == 0) return s.target_qps;
    const double f = static_cast<double>(t_ns) / (static_cast<double>(req.ramp_duration_ms) * 1e6);
    if (f >= 1.0) return s.target_qps;
    if (req.ramp_exponential) return req.ramp_start_qps * std::pow(s.target_qps / req.ramp_start_qps, f);
    return req.ramp_start_qps + (s.target_qps - req.ramp_start_qps) * f;
  };
  auto patterned_gap = [&](int64_t t_ns) -> int64_t {
    const double rate = rate_at(t_ns);
    // Gamma with shape k and mean 1/rate: k = 1 is exponential, smaller k clusters arrivals.
    const double k = req.server_burstiness;
    std::gamma_distribution<double> gap(k, 1.0 / (rate * k));
    return SecondsToNs(gap(pattern_rng));
  };
  int64_t timestamp = 0;
  auto next_gap = [&]() -> int64_t {
    if (patterned) return patterned_gap(timestamp);
    if (server) return SecondsToNs(ExponentialDouble(schedule_rng, s.target_qps));
    return fixed_period_ns;
  };

  GeneratedQueries out;
  out.query_offset.push_back(0);
  if (!accuracy && !s.performance_issue_unique && !offline && s.target_qps > 0) {
    // Reserve roughly what the loop will generate, to avoid regrowth at 1e7 queries.
    double expected = std::max<double>(min_queries, gen_duration_ns * 1e-9 * s.target_qps * 1.05 + 16);
    if (expected < 5e8) {
      out.scheduled_delta_ns.reserve(static_cast<size_t>(expected));
      out.query_offset.reserve(static_cast<size_t>(expected) + 1);
      out.sample_index.reserve(static_cast<size_t>(expected * spq));
    }
  }

  // Trace replay: row i of the trace is QSL sample i, issued once at the
  // trace's own time, in the trace's order; no generator is drawn from.
  const std::vector<int64_t>& trace = req.trace_schedule_ns;
  if (server && !accuracy && !trace.empty()) {
    if (loaded_set.sample_distribution_end < trace.size()) {
      throw std::invalid_argument("a trace of " + std::to_string(trace.size()) +
                                  " requests needs that many loaded samples; the performance set has " +
                                  std::to_string(loaded_set.sample_distribution_end));
    }
    out.scheduled_delta_ns.reserve(trace.size());
    out.query_offset.reserve(trace.size() + 1);
    out.sample_index.reserve(trace.size());
    for (size_t i = 0; i < trace.size(); i++) {
      out.sample_index.push_back(i);
      out.scheduled_delta_ns.push_back(trace[i]);
      out.query_offset.push_back(out.sample_index.size());
    }
    out.samples_per_query = 1;
    out.duration_ns = trace.back();
    return out;
  }

  const uint64_t same = s.performance_issue_same_index;
  int64_t prev_timestamp = 0;
  while (prev_timestamp < gen_duration_ns || out.query_count() < min_queries) {
    if (multi_stream) {
      uint64_t start = s.performance_issue_unique ? unique_source.Next()
                       : s.performance_issue_same ? same
                                                  : next_from_mode_source();
      for (uint64_t k = 0; k < spq; k++) out.sample_index.push_back(loaded.at(start + k));
    } else if (offline) {
      const uint64_t n = loaded.size();
      const uint64_t full = spq / n;
      const uint64_t remainder = spq % n;
      const size_t base = out.sample_index.size();
      if (s.performance_issue_same) {
        out.sample_index.insert(out.sample_index.end(), spq, loaded.at(same));
      } else {
        for (uint64_t r = 0; r < full; r++) {
          out.sample_index.insert(out.sample_index.end(), loaded.begin(), loaded.end());
          if (equal_issue) {
            uint64_t* p = out.sample_index.data() + base + r * n;
            Shuffle(p, p + n, sample_rng);
          }
        }
        out.sample_index.insert(out.sample_index.end(), loaded.begin(), loaded.begin() + remainder);
      }
    } else {
      for (uint64_t k = 0; k < spq; k++) {
        uint64_t pos = s.performance_issue_unique ? unique_source.Next()
                       : s.performance_issue_same ? same
                       : equal_issue              ? equal_issue_source.Next()
                                                  : next_from_mode_source();
        out.sample_index.push_back(loaded.at(pos));
      }
    }
    out.scheduled_delta_ns.push_back(timestamp);
    out.query_offset.push_back(out.sample_index.size());
    prev_timestamp = timestamp;
    timestamp += next_gap();
    // Equal issue: keep the total a whole number of passes over the set.
    if (equal_issue && out.query_count() >= min_queries && prev_timestamp < gen_duration_ns && !offline) {
      min_queries += loaded.size();
    }
  }

  // Offline accuracy: a last, smaller query for what a whole query missed.
  if (offline && accuracy) {
    const uint64_t remaining = loaded.size() % spq;
    if (remaining != 0) {
      for (uint64_t k = 0; k < remaining; k++) out.sample_index.push_back(loaded.at(next_from_mode_source()));
      out.scheduled_delta_ns.push_back(timestamp);
      out.query_offset.push_back(out.sample_index.size());
    }
  }

  out.samples_per_query = spq;
  out.duration_ns = timestamp;
  return out;
}

}  // namespace lg
