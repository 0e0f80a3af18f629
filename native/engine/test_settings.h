// Public settings of one test: the fields of the official LoadGen's
// TestSettings and LogSettings, with the official defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lg {

enum class Scenario { SingleStream = 0, MultiStream = 1, Server = 2, Offline = 3 };

// Numbering follows the official enum order (and the `mode` key of the config
// files: 0 submission, 1 accuracy, 2 performance, 3 find peak).
enum class Mode { SubmissionRun = 0, AccuracyOnly = 1, PerformanceOnly = 2, FindPeakPerformance = 3 };

const char* ToString(Scenario s);
const char* ToString(Mode m);
bool ParseScenario(const std::string& name, Scenario* out);
bool ParseMode(const std::string& name, Mode* out);

struct TestSettings {
  Scenario scenario = Scenario::SingleStream;
  Mode mode = Mode::PerformanceOnly;

  double single_stream_expected_latency_ns = 1000000;
  double single_stream_target_latency_percentile = 0.90;

  double multi_stream_expected_latency_ns = 8000000;
  double multi_stream_target_latency_percentile = 0.99;
  uint64_t multi_stream_samples_per_query = 8;

  double server_target_qps = 1;
  uint64_t server_target_latency_ns = 100000000;
  double server_target_latency_percentile = 0.99;
  bool server_coalesce_queries = false;
  int server_find_peak_qps_decimals_of_precision = 1;
  double server_find_peak_qps_boundary_step_size = 1;
  uint64_t server_max_async_queries = 0;  // 0 = unbounded
  uint64_t server_num_issue_query_threads = 0;

  double offline_expected_qps = 1;
  bool sample_concatenate_permutation = false;

  uint64_t min_duration_ms = 10000;
  uint64_t max_duration_ms = 0;  // 0 = unbounded
  uint64_t min_query_count = 100;
  uint64_t max_query_count = 0;  // 0 = unbounded

  uint64_t qsl_rng_seed = 0;
  uint64_t sample_index_rng_seed = 0;
  uint64_t schedule_rng_seed = 0;
  uint64_t accuracy_log_rng_seed = 0;
  double accuracy_log_probability = 0.0;
  uint64_t accuracy_log_sampling_target = 0;
  bool test05 = false;
  uint64_t test05_qsl_rng_seed = 0;
  uint64_t test05_sample_index_rng_seed = 0;
  uint64_t test05_schedule_rng_seed = 0;

  bool print_timestamps = false;
  bool performance_issue_unique = false;
  bool performance_issue_same = false;
  uint64_t performance_issue_same_index = 0;
  uint64_t performance_sample_count_override = 0;
  uint64_t accuracy_sample_count_override = 0;

  bool use_token_latencies = false;
  uint64_t server_ttft_latency = 100000000;
  uint64_t server_tpot_latency = 100000000;
  bool infer_token_latencies = false;
  // The official struct leaves this uninitialised; we default it to 0.
  uint64_t token_latency_scaling_factor = 0;

  // Issue policies beyond MLPerf's (Server only). At their defaults the
  // official Server schedule runs untouched; any other value makes the run
  // one that no MLPerf rule describes, and every log says so.
  // Closed loop: this many queries in flight, each completion issuing the next.
  uint64_t closed_loop_concurrency = 0;
  // Gamma inter-arrival shape (1 = Poisson, the official schedule; < 1 burstier).
  double server_burstiness = 1.0;
  // Ramp-up: the rate grows from ramp_start_qps to server_target_qps over
  // ramp_duration_ms (linear, or exponential when ramp_exponential), then holds.
  double ramp_start_qps = 0;
  uint64_t ramp_duration_ms = 0;
  bool ramp_exponential = false;
  // Trace replay: query i is QSL sample i, due this many ns after the test
  // starts (non-decreasing). A list, so it comes with the test's options
  // rather than as a config key; empty = no trace.
  std::vector<int64_t> trace_schedule_ns;

  // True when an issue policy other than MLPerf's own is asked for.
  bool NonMlperfIssuePolicy() const {
    return scenario == Scenario::Server && (closed_loop_concurrency > 0 || server_burstiness != 1.0 ||
                                            ramp_start_qps > 0 || !trace_schedule_ns.empty());
  }
  // The span of the trace: its last query's offset (0 without a trace).
  int64_t TraceSpanNs() const { return trace_schedule_ns.empty() ? 0 : trace_schedule_ns.back(); }
};

// One line naming a non-MLPerf issue policy ("closed loop, concurrency 16"), empty for the official one.
std::string DescribeIssuePolicy(const TestSettings& s);

enum class LoggingMode { AsyncPoll = 0, EndOfTestOnly = 1, Synchronous = 2 };

struct LogSettings {
  std::string outdir = ".";
  std::string prefix = "mlperf_log_";
  std::string suffix = "";
  bool prefix_with_datetime = false;
  bool copy_detail_to_stdout = false;
  bool copy_summary_to_stdout = false;
  bool enable_trace = true;
  LoggingMode log_mode = LoggingMode::AsyncPoll;
};

}  // namespace lg
