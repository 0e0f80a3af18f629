#include "effective_settings.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "clock.h"

namespace lg {

namespace {

// Milliseconds as seconds, the way a chrono duration<double> conversion does it.
double MsToSeconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

// double -> uint64_t with C++'s truncation toward zero, but without the
// undefined behaviour for negative, NaN or out-of-range values.
uint64_t TruncateToU64(double x) {
  if (!(x > 0)) return 0;
  if (x >= 18446744073709551616.0) return UINT64_MAX;
  return static_cast<uint64_t>(x);
}

// Holds one timestamp for every line logged while it lives: a settings block
// carries a single time in the official logs.
class FixedTimeBlock {
 public:
  explicit FixedTimeBlock(DetailLog* log) : log_(log) { log_->SetFixedTime(NowNs()); }
  ~FixedTimeBlock() { log_->SetFixedTime(0); }
  FixedTimeBlock(const FixedTimeBlock&) = delete;
  FixedTimeBlock& operator=(const FixedTimeBlock&) = delete;

 private:
  DetailLog* log_;
};

void AppendLine(std::string* out, const char* label, const std::string& value) {
  out->append(label);
  out->append(value);
  out->push_back('\n');
}

// Default ostream formatting: 6 significant digits for doubles, 0/1 for bools.
template <typename T>
std::string Streamed(const T& v) {
  std::ostringstream ss;
  ss << v;
  return ss.str();
}

}  // namespace

EffectiveSettings::EffectiveSettings(const TestSettings& req, uint64_t qsl_performance_sample_count,
                                     uint64_t qsl_total_sample_count, DetailLog* log)
    : requested(req),
      scenario(req.scenario),
      mode(req.mode),
      target_duration_ms(static_cast<int64_t>(req.min_duration_ms)),
      min_duration_ms(static_cast<int64_t>(req.min_duration_ms)),
      max_duration_ms(static_cast<int64_t>(req.max_duration_ms)),
      min_query_count(req.min_query_count),
      max_query_count(req.max_query_count),
      qsl_rng_seed(req.qsl_rng_seed),
      sample_index_rng_seed(req.sample_index_rng_seed),
      schedule_rng_seed(req.schedule_rng_seed),
      accuracy_log_rng_seed(req.accuracy_log_rng_seed),
      accuracy_log_probability(req.accuracy_log_probability),
      accuracy_log_sampling_target(req.accuracy_log_sampling_target),
      print_timestamps(req.print_timestamps),
      performance_issue_unique(req.performance_issue_unique),
      performance_issue_same(req.performance_issue_same),
      performance_issue_same_index(req.performance_issue_same_index),
      sample_concatenate_permutation(req.sample_concatenate_permutation),
      use_token_latencies(req.use_token_latencies),
      server_ttft_latency(req.server_ttft_latency),
      server_tpot_latency(req.server_tpot_latency),
      infer_token_latencies(req.infer_token_latencies),
      token_latency_scaling_factor(req.token_latency_scaling_factor) {
  auto report_invalid = [log](const std::string& message) {
    if (log) LG_LOG_ERROR(*log, "error_invalid_test_settings", message);
  };

  // Rate, latency bound and concurrency of each scenario.
  switch (req.scenario) {
    case Scenario::SingleStream:
      target_qps = 1e9 / req.single_stream_expected_latency_ns;
      max_async_queries = 1;
      target_latency_percentile = req.single_stream_target_latency_percentile;
      break;
    case Scenario::MultiStream:
      target_qps = 1e9 / req.multi_stream_expected_latency_ns;
      max_async_queries = 1;
      target_latency_percentile = req.multi_stream_target_latency_percentile;
      break;
    case Scenario::Server:
      if (req.server_target_qps >= 0.0) {
        target_qps = req.server_target_qps;
      } else {
        std::ostringstream ss;
        ss << "Invalid value for server_target_qps requested. requested: " << req.server_target_qps
           << " using: " << target_qps;
        report_invalid(ss.str());
      }
      target_latency_ns = static_cast<int64_t>(req.server_target_latency_ns);
      target_latency_percentile = req.server_target_latency_percentile;
      max_async_queries = req.server_max_async_queries;
      break;
    case Scenario::Offline:
      // Offline has no latency bound; the percentile is a placeholder.
      target_latency_percentile = 0.99;
      if (req.offline_expected_qps >= 0.0) {
        target_qps = req.offline_expected_qps;
      } else {
        std::ostringstream ss;
        ss << "Invalid value for offline_expected_qps requested. requested: " << req.offline_expected_qps
           << " using: " << target_qps;
        report_invalid(ss.str());
      }
      max_async_queries = 1;
      break;
  }

  performance_sample_count =
      req.performance_sample_count_override != 0 ? req.performance_sample_count_override : qsl_performance_sample_count;
  accuracy_sample_count =
      req.accuracy_sample_count_override != 0 ? req.accuracy_sample_count_override : qsl_total_sample_count;

  if (req.scenario == Scenario::MultiStream) samples_per_query = req.multi_stream_samples_per_query;

  // Offline sends everything as one query, sized to outlast the minimum
  // duration by 10% at the expected rate (or one pass over the performance
  // set when every sample is to be issued once).
  if (req.scenario == Scenario::Offline) {
    const uint64_t sized_for_duration = TruncateToU64(1.1 * MsToSeconds(target_duration_ms) * target_qps);
    samples_per_query =
        req.performance_issue_unique ? performance_sample_count : std::max(min_query_count, sized_for_duration);
    min_query_count = 1;
    target_duration_ms = 0;
  }

  // SingleStream with equal-issue sampling: at least twice the queries the
  // duration needs, then strictly past the next multiple of the QSL's own
  // performance count (a whole extra set when it already is a multiple).
  if (sample_concatenate_permutation && req.scenario == Scenario::SingleStream) {
    const uint64_t doubled = TruncateToU64(2.0 * MsToSeconds(target_duration_ms) * target_qps);
    min_query_count = std::max(min_query_count, doubled);
    // The official engine divides by zero here; we leave the count as is.
    if (qsl_performance_sample_count != 0) {
      min_query_count += qsl_performance_sample_count - min_query_count % qsl_performance_sample_count;
    }
  }

  // A trace is the whole test: every row once, at its time. Its span is the
  // minimum duration and its rows the minimum query count, so a short trace
  // is not INVALID for being short; the rate it reports is the trace's mean.
  if (req.scenario == Scenario::Server && !req.trace_schedule_ns.empty()) {
    const int64_t span_ns = req.TraceSpanNs();
    min_query_count = req.trace_schedule_ns.size();
    min_duration_ms = target_duration_ms = span_ns / 1000000;
    if (span_ns > 0) target_qps = static_cast<double>(req.trace_schedule_ns.size() - 1) * 1e9 / span_ns;
  }

  min_sample_count = min_query_count * samples_per_query;

  if (req.performance_issue_same && req.performance_issue_same_index >= performance_sample_count) {
    std::ostringstream ss;
    ss << "Sample Idx to be repeated in performance_issue_same mode cannot be greater than loaded "
          "performance_sample_count. performance_issue_same_index: "
       << req.performance_issue_same_index << " performance_sample_count: " << performance_sample_count;
    report_invalid(ss.str());
  }
  if (req.performance_issue_unique && req.performance_issue_same) {
    std::ostringstream ss;
    ss << "Performance_issue_unique and performance_issue_same, both cannot be true at the same time."
       << " performance_issue_unique: " << req.performance_issue_unique
       << " performance_issue_same: " << req.performance_issue_same;
    report_invalid(ss.str());
  }
}

void LogRequestedSettings(const TestSettings& s, DetailLog* log) {
  if (!log) return;
  FixedTimeBlock block(log);
  DetailLog& d = *log;
  LG_LOG(d, "requested_scenario", ToString(s.scenario));
  LG_LOG(d, "requested_test_mode", ToString(s.mode));
  switch (s.scenario) {
    case Scenario::SingleStream:
      LG_LOG(d, "requested_single_stream_expected_latency_ns", s.single_stream_expected_latency_ns);
      LG_LOG(d, "requested_single_stream_target_latency_percentile", s.single_stream_target_latency_percentile);
      break;
    case Scenario::MultiStream:
      LG_LOG(d, "requested_multi_stream_expected_latency_ns", s.multi_stream_expected_latency_ns);
      LG_LOG(d, "requested_multi_stream_target_latency_percentile", s.multi_stream_target_latency_percentile);
      LG_LOG(d, "requested_multi_stream_samples_per_query", s.multi_stream_samples_per_query);
      break;
    case Scenario::Server:
      LG_LOG(d, "requested_server_target_qps", s.server_target_qps);
      LG_LOG(d, "requested_server_target_latency_ns", s.server_target_latency_ns);
      LG_LOG(d, "requested_server_target_latency_percentile", s.server_target_latency_percentile);
      LG_LOG(d, "requested_server_coalesce_queries", s.server_coalesce_queries);
      LG_LOG(d, "requested_server_find_peak_qps_decimals_of_precision", s.server_find_peak_qps_decimals_of_precision);
      LG_LOG(d, "requested_server_find_peak_qps_boundary_step_size", s.server_find_peak_qps_boundary_step_size);
      LG_LOG(d, "requested_server_max_async_queries", s.server_max_async_queries);
      LG_LOG(d, "requested_server_num_issue_query_threads", s.server_num_issue_query_threads);
      // Our extensions, logged only when used so an official run's log keeps the official keys alone.
      if (s.NonMlperfIssuePolicy()) {
        LG_LOG_WARNING(d, "warning_generic_message", "Issue policy: " + DescribeIssuePolicy(s));
        LG_LOG(d, "requested_issue_policy", DescribeIssuePolicy(s));
        LG_LOG(d, "requested_closed_loop_concurrency", s.closed_loop_concurrency);
        LG_LOG(d, "requested_server_burstiness", s.server_burstiness);
        LG_LOG(d, "requested_ramp_start_qps", s.ramp_start_qps);
        LG_LOG(d, "requested_ramp_duration_ms", s.ramp_duration_ms);
        LG_LOG(d, "requested_ramp_exponential", s.ramp_exponential);
        LG_LOG(d, "requested_trace_request_count", static_cast<uint64_t>(s.trace_schedule_ns.size()));
        LG_LOG(d, "requested_trace_span_ns", s.TraceSpanNs());
      }
      break;
    case Scenario::Offline: LG_LOG(d, "requested_offline_expected_qps", s.offline_expected_qps); break;
  }
  LG_LOG(d, "requested_min_duration_ms", s.min_duration_ms);
  LG_LOG(d, "requested_max_duration_ms", s.max_duration_ms);
  LG_LOG(d, "requested_min_query_count", s.min_query_count);
  LG_LOG(d, "requested_max_query_count", s.max_query_count);
  LG_LOG(d, "requested_qsl_rng_seed", s.qsl_rng_seed);
  LG_LOG(d, "requested_sample_index_rng_seed", s.sample_index_rng_seed);
  LG_LOG(d, "requested_schedule_rng_seed", s.schedule_rng_seed);
  LG_LOG(d, "requested_accuracy_log_rng_seed", s.accuracy_log_rng_seed);
  LG_LOG(d, "requested_accuracy_log_probability", s.accuracy_log_probability);
  LG_LOG(d, "requested_accuracy_log_sampling_target", s.accuracy_log_sampling_target);
  LG_LOG(d, "requested_print_timestamps", s.print_timestamps);
  LG_LOG(d, "requested_performance_issue_unique", s.performance_issue_unique);
  LG_LOG(d, "requested_performance_issue_same", s.performance_issue_same);
  LG_LOG(d, "requested_performance_issue_same_index", s.performance_issue_same_index);
  LG_LOG(d, "requested_performance_sample_count_override", s.performance_sample_count_override);
  LG_LOG(d, "requested_accuracy_sample_count_override", s.accuracy_sample_count_override);
  LG_LOG(d, "requested_sample_concatenate_permutation", s.sample_concatenate_permutation);
  if (s.use_token_latencies) {
    LG_LOG(d, "requested_use_token_latencies", s.use_token_latencies);
    // Offline has no first-token bound to report.
    if (s.scenario != Scenario::Offline) {
      LG_LOG(d, "requested_server_ttft_latency", s.server_ttft_latency);
      LG_LOG(d, "requested_server_tpot_latency", s.server_tpot_latency);
    }
  }
}

void EffectiveSettings::LogAll(DetailLog* log) const {
  if (!log) return;
  LogRequestedSettings(requested, log);
  FixedTimeBlock block(log);
  DetailLog& d = *log;
  LG_LOG(d, "effective_scenario", ToString(scenario));
  LG_LOG(d, "effective_test_mode", ToString(mode));
  LG_LOG(d, "effective_samples_per_query", samples_per_query);
  LG_LOG(d, "effective_target_qps", target_qps);
  LG_LOG(d, "effective_target_latency_ns", target_latency_ns);
  LG_LOG(d, "effective_target_latency_percentile", target_latency_percentile);
  LG_LOG(d, "effective_max_async_queries", max_async_queries);
  LG_LOG(d, "effective_target_duration_ms", target_duration_ms);
  LG_LOG(d, "effective_min_duration_ms", min_duration_ms);
  LG_LOG(d, "effective_max_duration_ms", max_duration_ms);
  LG_LOG(d, "effective_min_query_count", min_query_count);
  LG_LOG(d, "effective_max_query_count", max_query_count);
  LG_LOG(d, "effective_min_sample_count", min_sample_count);
  LG_LOG(d, "effective_qsl_rng_seed", qsl_rng_seed);
  LG_LOG(d, "effective_sample_index_rng_seed", sample_index_rng_seed);
  LG_LOG(d, "effective_schedule_rng_seed", schedule_rng_seed);
  LG_LOG(d, "effective_accuracy_log_rng_seed", accuracy_log_rng_seed);
  LG_LOG(d, "effective_accuracy_log_probability", accuracy_log_probability);
  LG_LOG(d, "effective_accuracy_log_sampling_target", accuracy_log_sampling_target);
  LG_LOG(d, "effective_print_timestamps", print_timestamps);
  LG_LOG(d, "effective_performance_issue_unique", performance_issue_unique);
  LG_LOG(d, "effective_performance_issue_same", performance_issue_same);
  LG_LOG(d, "effective_performance_issue_same_index", performance_issue_same_index);
  LG_LOG(d, "effective_performance_sample_count", performance_sample_count);
  LG_LOG(d, "effective_accuracy_sample_count", accuracy_sample_count);
  LG_LOG(d, "effective_sample_concatenate_permutation", sample_concatenate_permutation);
}

void EffectiveSettings::AppendSummaryLines(std::string* out) const {
  if (!out) return;
  AppendLine(out, "samples_per_query : ", Streamed(samples_per_query));
  AppendLine(out, "target_qps : ", Streamed(target_qps));
  if (use_token_latencies) {
    AppendLine(out, "ttft_latency (ns): ", Streamed(server_ttft_latency));
    AppendLine(out, "tpot_latency (ns): ", Streamed(server_tpot_latency));
  } else {
    AppendLine(out, "target_latency (ns): ", Streamed(target_latency_ns));
  }
  AppendLine(out, "max_async_queries : ", Streamed(max_async_queries));
  AppendLine(out, "min_duration (ms): ", Streamed(min_duration_ms));
  AppendLine(out, "max_duration (ms): ", Streamed(max_duration_ms));
  AppendLine(out, "min_query_count : ", Streamed(min_query_count));
  AppendLine(out, "max_query_count : ", Streamed(max_query_count));
  AppendLine(out, "qsl_rng_seed : ", Streamed(qsl_rng_seed));
  AppendLine(out, "sample_index_rng_seed : ", Streamed(sample_index_rng_seed));
  AppendLine(out, "schedule_rng_seed : ", Streamed(schedule_rng_seed));
  AppendLine(out, "accuracy_log_rng_seed : ", Streamed(accuracy_log_rng_seed));
  AppendLine(out, "accuracy_log_probability : ", Streamed(accuracy_log_probability));
  AppendLine(out, "accuracy_log_sampling_target : ", Streamed(accuracy_log_sampling_target));
  AppendLine(out, "print_timestamps : ", Streamed(print_timestamps));
  AppendLine(out, "performance_issue_unique : ", Streamed(performance_issue_unique));
  AppendLine(out, "performance_issue_same : ", Streamed(performance_issue_same));
  AppendLine(out, "performance_issue_same_index : ", Streamed(performance_issue_same_index));
  AppendLine(out, "performance_sample_count : ", Streamed(performance_sample_count));
  AppendLine(out, "accuracy_sample_count : ", Streamed(accuracy_sample_count));
  if (sample_concatenate_permutation) {
    // Four lines; the first keeps the space after "true." that the official text has.
    out->append("WARNING: sample_concatenate_permutation was set to true. \n");
    out->append("Generated samples per query might be different as the one in the setting.\n");
    out->append("Check the generated_samples_per_query line in the detailed log for the real\n");
    out->append("samples_per_query value\n");
  }
}

}  // namespace lg
