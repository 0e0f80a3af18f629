// The settings a test really runs with, derived from the requested
// TestSettings and the QSL's sizes exactly as the official engine derives
// them (its TestSettingsInternal), and their `requested_*` / `effective_*`
// detail-log lines.
#pragma once

#include <cstdint>

#include "detail_log.h"
#include "test_settings.h"

namespace lg {

struct EffectiveSettings {
  EffectiveSettings(const TestSettings& requested, uint64_t qsl_performance_sample_count,
                    uint64_t qsl_total_sample_count, DetailLog* log);

  TestSettings requested;
  Scenario scenario;
  Mode mode;
  uint64_t samples_per_query = 1;
  double target_qps = 1;
  int64_t target_latency_ns = 0;
  double target_latency_percentile = 0;
  uint64_t max_async_queries = 0;
  int64_t target_duration_ms = 0;
  int64_t min_duration_ms = 0;
  int64_t max_duration_ms = 0;
  uint64_t min_query_count = 0;
  uint64_t max_query_count = 0;
  uint64_t min_sample_count = 0;
  uint64_t qsl_rng_seed = 0;
  uint64_t sample_index_rng_seed = 0;
  uint64_t schedule_rng_seed = 0;
  uint64_t accuracy_log_rng_seed = 0;
  double accuracy_log_probability = 0;
  uint64_t accuracy_log_sampling_target = 0;
  bool print_timestamps = false;
  bool performance_issue_unique = false;
  bool performance_issue_same = false;
  uint64_t performance_issue_same_index = 0;
  uint64_t performance_sample_count = 0;
  uint64_t accuracy_sample_count = 0;
  bool sample_concatenate_permutation = false;
  bool use_token_latencies = false;
  uint64_t server_ttft_latency = 0;
  uint64_t server_tpot_latency = 0;
  bool infer_token_latencies = false;
  uint64_t token_latency_scaling_factor = 0;

  // Writes requested_* then effective_* lines, as the official engine does.
  void LogAll(DetailLog* log) const;
  // The "Test Parameters Used" block of the summary, one entry per line.
  void AppendSummaryLines(std::string* out) const;
};

void LogRequestedSettings(const TestSettings& s, DetailLog* log);

}  // namespace lg
