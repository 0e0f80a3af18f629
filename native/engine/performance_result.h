// What one performance run measured, handed from the issuing code to the
// results code (the official PerformanceResult).
#pragma once

#include <cstdint>
#include <vector>

namespace lg {

struct PerformanceResult {
  std::vector<int64_t> sample_latencies;  // ns, in sample sequence order
  std::vector<int64_t> query_latencies;   // ns, MultiStream only
  uint64_t queries_issued = 0;
  double max_latency = 0;                        // seconds
  double final_query_scheduled_time = 0;         // seconds from start
  double final_query_issued_time = 0;            // seconds from start
  double final_query_all_samples_done_time = 0;  // seconds from start
  // Token latencies (empty unless use_token_latencies).
  std::vector<int64_t> first_token_latencies;
  std::vector<int64_t> time_per_output_token;
  std::vector<int64_t> tokens_per_sample;
};

// Marks an unset latency or token count, as the official engine does.
constexpr int64_t kInvalidLatency = INT64_MIN;
constexpr int64_t kInvalidTokens = INT64_MIN;

}  // namespace lg
