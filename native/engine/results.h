// Turns a PerformanceResult into the figures, the validity verdict and the
// summary/detail log text, following the official results.cc semantics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "detail_log.h"
#include "effective_settings.h"
#include "performance_result.h"

namespace lg {

struct PercentileValue {
  double percentile;
  int64_t value = 0;
};

// Everything the summary shows, as data (the JS result is built from it).
struct Summary {
  std::string sut_name;
  Scenario scenario;
  Mode mode;
  bool valid = false;
  bool perf_constraints_met = true;
  bool has_perf_constraints = false;
  bool min_duration_met = false;
  bool min_queries_met = false;
  bool early_stopping_met = false;
  std::vector<std::string> recommendations;  // without the leading " * "
  std::string invalid_reason;                // result_invalid_reason (before '\n' -> ' '); empty if valid
  std::string early_stopping_text;           // " * ..." lines joined by \n (non-token)
  std::string early_stopping_ttft_text;
  std::string early_stopping_tpot_text;

  uint64_t sample_count = 0;
  uint64_t query_count = 0;
  uint64_t overlatency_query_count = 0;
  // Scenario metric and throughput figures (NaN when not applicable).
  double completed_samples_per_sec = 0;  // Server
  double scheduled_samples_per_sec = 0;  // Server
  double samples_per_sec = 0;            // Offline
  double qps_with_loadgen_overhead = 0;  // SingleStream
  double qps_without_loadgen_overhead = 0;
  double tokens_per_sec = 0;  // Offline: tokens / max latency; others: tokens / last completion
  double token_throughput_with_overhead = 0;
  double token_throughput_official = 0;   // the official (off by 1e9) result_token_throughput
  double token_throughput_corrected = 0;  // tokens / (mean latency in s x samples), non-Offline
  double inferred_tokens_per_sec = 0;
  int64_t target_latency_percentile_value = 0;  // MS: query latency; others: sample latency
  int64_t token_target_percentile_value = 0;    // TTFT at target percentile
  int64_t tpot_target_percentile_value = 0;
  int64_t early_stopping_latency_ss = 0;
  int64_t early_stopping_latency_ms = 0;

  int64_t latency_min = 0, latency_max = 0, latency_mean = 0;
  std::vector<PercentileValue> latency_percentiles;  // 50,90,95,97,99,99.9
  int64_t query_latency_min = 0, query_latency_max = 0, query_latency_mean = 0;
  std::vector<PercentileValue> query_latency_percentiles;
  uint64_t token_count = 0;
  int64_t ttft_min = 0, ttft_max = 0, ttft_mean = 0;
  std::vector<PercentileValue> ttft_percentiles;
  int64_t tpot_min = 0, tpot_max = 0, tpot_mean = 0;
  std::vector<PercentileValue> tpot_percentiles;
};

// Computes the summary. `pr` is taken by value: it is sorted in place.
Summary ComputeSummary(const std::string& sut_name, const EffectiveSettings& settings, PerformanceResult pr);

// Appends the results block of mlperf_log_summary.txt (everything from the
// header to the end of "Test Parameters Used"; the warning/error tail is
// written by the caller at the end of the test).
void AppendSummaryText(const Summary& s, const EffectiveSettings& settings, std::string* out);

// Writes the result_* / early_stopping_* lines of the detail log, ending with
// num_errors.
void LogSummaryDetail(const Summary& s, const EffectiveSettings& settings, DetailLog* log);

// Whether Server's latency (or TTFT/TPOT) constraint holds; used by
// FindPeakPerformance for each step.
bool PerfConstraintsMet(const Summary& s);

}  // namespace lg
