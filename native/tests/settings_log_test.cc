// Tests of the requested_* / effective_* detail-log lines of the settings
// (LogAll) and of the summary's "Test Parameters Used" block. Expected
// texts are those of runs of the official LoadGen 6.0.17.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "settings_support.h"
#include "test_settings.h"

using lg::EffectiveSettings;
using lg::Mode;
using lg::Scenario;
using lg::TestSettings;
using namespace settings_support;

namespace {

std::vector<std::string> Keys(const std::vector<LogLine>& lines) {
  std::vector<std::string> keys;
  for (const auto& l : lines) keys.push_back(l.key);
  return keys;
}

void CheckKeys(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  CHECK_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size() && i < want.size(); i++) {
    if (got[i] != want[i]) {
      CHECK_EQ(got[i], want[i]);
      std::printf("  (first difference at line %zu)\n", i);
      return;
    }
  }
}

const std::vector<std::string> kCommonRequestedKeys = {
    "requested_min_duration_ms",
    "requested_max_duration_ms",
    "requested_min_query_count",
    "requested_max_query_count",
    "requested_qsl_rng_seed",
    "requested_sample_index_rng_seed",
    "requested_schedule_rng_seed",
    "requested_accuracy_log_rng_seed",
    "requested_accuracy_log_probability",
    "requested_accuracy_log_sampling_target",
    "requested_print_timestamps",
    "requested_performance_issue_unique",
    "requested_performance_issue_same",
    "requested_performance_issue_same_index",
    "requested_performance_sample_count_override",
    "requested_accuracy_sample_count_override",
    "requested_sample_concatenate_permutation",
};

const std::vector<std::string> kEffectiveKeys = {
    "effective_scenario",
    "effective_test_mode",
    "effective_samples_per_query",
    "effective_target_qps",
    "effective_target_latency_ns",
    "effective_target_latency_percentile",
    "effective_max_async_queries",
    "effective_target_duration_ms",
    "effective_min_duration_ms",
    "effective_max_duration_ms",
    "effective_min_query_count",
    "effective_max_query_count",
    "effective_min_sample_count",
    "effective_qsl_rng_seed",
    "effective_sample_index_rng_seed",
    "effective_schedule_rng_seed",
    "effective_accuracy_log_rng_seed",
    "effective_accuracy_log_probability",
    "effective_accuracy_log_sampling_target",
    "effective_print_timestamps",
    "effective_performance_issue_unique",
    "effective_performance_issue_same",
    "effective_performance_issue_same_index",
    "effective_performance_sample_count",
    "effective_accuracy_sample_count",
    "effective_sample_concatenate_permutation",
};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::string kSeedLines =
    "qsl_rng_seed : 2085463073848966840\n"
    "sample_index_rng_seed : 2747215439041700203\n"
    "schedule_rng_seed : 16159082839903944936\n";

}  // namespace

// ---------------------------------------------------------------- detail log

TEST_CASE("LogAll: Server with token latencies, as in the official log") {
  EffectiveSettings e(OfficialServerRun(), 1024, 1024, nullptr);
  std::vector<LogLine> lines = Logged([&](lg::DetailLog* log) { e.LogAll(log); });
  std::vector<std::string> want = {"requested_scenario",
                                   "requested_test_mode",
                                   "requested_server_target_qps",
                                   "requested_server_target_latency_ns",
                                   "requested_server_target_latency_percentile",
                                   "requested_server_coalesce_queries",
                                   "requested_server_find_peak_qps_decimals_of_precision",
                                   "requested_server_find_peak_qps_boundary_step_size",
                                   "requested_server_max_async_queries",
                                   "requested_server_num_issue_query_threads"};
  want = Concat(want, kCommonRequestedKeys);
  want =
      Concat(want, {"requested_use_token_latencies", "requested_server_ttft_latency", "requested_server_tpot_latency"});
  want = Concat(want, kEffectiveKeys);
  CheckKeys(Keys(lines), want);

  const std::vector<std::pair<std::string, std::string>> values = {
      {"requested_scenario", "\"Server\""},
      {"requested_test_mode", "\"PerformanceOnly\""},
      {"requested_server_target_qps", "1000"},
      {"requested_server_target_latency_ns", "10000000"},
      {"requested_server_target_latency_percentile", "0.99"},
      {"requested_server_coalesce_queries", "false"},
      {"requested_server_find_peak_qps_decimals_of_precision", "1"},
      {"requested_server_find_peak_qps_boundary_step_size", "1"},
      {"requested_server_max_async_queries", "0"},
      {"requested_server_num_issue_query_threads", "0"},
      {"requested_min_duration_ms", "2000"},
      {"requested_min_query_count", "100"},
      {"requested_schedule_rng_seed", "16159082839903944936"},
      {"requested_accuracy_log_probability", "0"},
      {"requested_print_timestamps", "false"},
      {"requested_sample_concatenate_permutation", "false"},
      {"requested_use_token_latencies", "true"},
      {"requested_server_ttft_latency", "2000000000"},
      {"requested_server_tpot_latency", "200000000"},
      {"effective_scenario", "\"Server\""},
      {"effective_test_mode", "\"PerformanceOnly\""},
      {"effective_samples_per_query", "1"},
      {"effective_target_qps", "1000"},
      {"effective_target_latency_ns", "10000000"},
      {"effective_target_latency_percentile", "0.99"},
      {"effective_max_async_queries", "0"},
      {"effective_target_duration_ms", "2000"},
      {"effective_min_duration_ms", "2000"},
      {"effective_max_duration_ms", "0"},
      {"effective_min_query_count", "100"},
      {"effective_max_query_count", "0"},
      {"effective_min_sample_count", "100"},
      {"effective_qsl_rng_seed", "2085463073848966840"},
      {"effective_sample_index_rng_seed", "2747215439041700203"},
      {"effective_schedule_rng_seed", "16159082839903944936"},
      {"effective_performance_issue_same", "false"},
      {"effective_performance_sample_count", "1024"},
      {"effective_accuracy_sample_count", "1024"},
      {"effective_sample_concatenate_permutation", "false"},
  };
  for (const auto& kv : values) {
    if (ValueOf(lines, kv.first) != kv.second) {
      CHECK_EQ(ValueOf(lines, kv.first), kv.second);
      std::printf("  (key %s)\n", kv.first.c_str());
    }
  }

  // One timestamp for the requested block, one for the effective block.
  const std::string t_req = lines.front().time_ms;
  const std::string t_eff = lines.back().time_ms;
  for (const auto& l : lines) {
    const bool requested = l.key.rfind("requested_", 0) == 0;
    CHECK_EQ(l.time_ms, requested ? t_req : t_eff);
    CHECK(!l.is_error);
  }
  CHECK(!t_req.empty());
}

TEST_CASE("LogAll: Offline with token latencies logs no ttft/tpot") {
  EffectiveSettings e(OfficialOfflineInvalidRun(), 1024, 1024, nullptr);
  std::vector<LogLine> lines = Logged([&](lg::DetailLog* log) { e.LogAll(log); });
  std::vector<std::string> want = {"requested_scenario", "requested_test_mode", "requested_offline_expected_qps"};
  want = Concat(want, kCommonRequestedKeys);
  want.push_back("requested_use_token_latencies");
  want = Concat(want, kEffectiveKeys);
  CheckKeys(Keys(lines), want);
  CHECK_EQ(ValueOf(lines, "requested_offline_expected_qps"), std::string("1000"));
  CHECK_EQ(ValueOf(lines, "requested_min_duration_ms"), std::string("1000"));
  CHECK_EQ(ValueOf(lines, "effective_samples_per_query"), std::string("1100"));
  CHECK_EQ(ValueOf(lines, "effective_target_latency_ns"), std::string("0"));
  CHECK_EQ(ValueOf(lines, "effective_target_latency_percentile"), std::string("0.99"));
  CHECK_EQ(ValueOf(lines, "effective_max_async_queries"), std::string("1"));
  CHECK_EQ(ValueOf(lines, "effective_target_duration_ms"), std::string("0"));
  CHECK_EQ(ValueOf(lines, "effective_min_duration_ms"), std::string("1000"));
  CHECK_EQ(ValueOf(lines, "effective_min_query_count"), std::string("1"));
  CHECK_EQ(ValueOf(lines, "effective_min_sample_count"), std::string("1100"));
}

TEST_CASE("LogAll: SingleStream and MultiStream requested keys; no token keys when off") {
  EffectiveSettings ss(OfficialSingleStreamRun(), 1024, 1024, nullptr);
  std::vector<LogLine> lines = Logged([&](lg::DetailLog* log) { ss.LogAll(log); });
  std::vector<std::string> want = {"requested_scenario", "requested_test_mode",
                                   "requested_single_stream_expected_latency_ns",
                                   "requested_single_stream_target_latency_percentile"};
  want = Concat(want, kCommonRequestedKeys);
  want = Concat(want, kEffectiveKeys);
  CheckKeys(Keys(lines), want);
  CHECK_EQ(ValueOf(lines, "requested_single_stream_expected_latency_ns"), std::string("1e+06"));
  CHECK_EQ(ValueOf(lines, "requested_single_stream_target_latency_percentile"), std::string("0.9"));
  CHECK_EQ(ValueOf(lines, "effective_target_qps"), std::string("1000"));
  CHECK_EQ(ValueOf(lines, "effective_target_latency_percentile"), std::string("0.9"));
  CHECK_EQ(ValueOf(lines, "effective_min_query_count"), std::string("1000"));

  TestSettings m = WithSeeds(Scenario::MultiStream, Mode::AccuracyOnly);
  m.use_token_latencies = true;
  EffectiveSettings ms(m, 64, 64, nullptr);
  lines = Logged([&](lg::DetailLog* log) { ms.LogAll(log); });
  want = {"requested_scenario", "requested_test_mode", "requested_multi_stream_expected_latency_ns",
          "requested_multi_stream_target_latency_percentile", "requested_multi_stream_samples_per_query"};
  want = Concat(want, kCommonRequestedKeys);
  want =
      Concat(want, {"requested_use_token_latencies", "requested_server_ttft_latency", "requested_server_tpot_latency"});
  want = Concat(want, kEffectiveKeys);
  CheckKeys(Keys(lines), want);
  CHECK_EQ(ValueOf(lines, "requested_test_mode"), std::string("\"AccuracyOnly\""));
  CHECK_EQ(ValueOf(lines, "requested_multi_stream_expected_latency_ns"), std::string("8e+06"));
  CHECK_EQ(ValueOf(lines, "requested_multi_stream_samples_per_query"), std::string("8"));
  CHECK_EQ(ValueOf(lines, "effective_samples_per_query"), std::string("8"));
  CHECK_EQ(ValueOf(lines, "effective_target_qps"), std::string("125"));
  CHECK_EQ(ValueOf(lines, "effective_min_sample_count"), std::string("800"));

  // LogRequestedSettings alone writes only the requested block.
  lines = Logged([&](lg::DetailLog* log) { lg::LogRequestedSettings(m, log); });
  CHECK_EQ(lines.size(), size_t(5 + kCommonRequestedKeys.size() + 3));
}

// ---------------------------------------------------------------- summary block

TEST_CASE("summary parameters: official Server run (token latencies)") {
  EffectiveSettings e(OfficialServerRun(), 1024, 1024, nullptr);
  std::string text;
  e.AppendSummaryLines(&text);
  const std::string want =
      "samples_per_query : 1\n"
      "target_qps : 1000\n"
      "ttft_latency (ns): 2000000000\n"
      "tpot_latency (ns): 200000000\n"
      "max_async_queries : 0\n"
      "min_duration (ms): 2000\n"
      "max_duration (ms): 0\n"
      "min_query_count : 100\n"
      "max_query_count : 0\n" +
      kSeedLines +
      "accuracy_log_rng_seed : 0\n"
      "accuracy_log_probability : 0\n"
      "accuracy_log_sampling_target : 0\n"
      "print_timestamps : 0\n"
      "performance_issue_unique : 0\n"
      "performance_issue_same : 0\n"
      "performance_issue_same_index : 0\n"
      "performance_sample_count : 1024\n"
      "accuracy_sample_count : 1024\n";
  CHECK_EQ(text, want);
}

TEST_CASE("summary parameters: official Offline INVALID run") {
  EffectiveSettings e(OfficialOfflineInvalidRun(), 1024, 1024, nullptr);
  std::string text = "prefix\n";
  e.AppendSummaryLines(&text);
  const std::string want =
      "prefix\n"
      "samples_per_query : 1100\n"
      "target_qps : 1000\n"
      "ttft_latency (ns): 2000000000\n"
      "tpot_latency (ns): 200000000\n"
      "max_async_queries : 1\n"
      "min_duration (ms): 1000\n"
      "max_duration (ms): 0\n"
      "min_query_count : 1\n"
      "max_query_count : 0\n" +
      kSeedLines +
      "accuracy_log_rng_seed : 0\n"
      "accuracy_log_probability : 0\n"
      "accuracy_log_sampling_target : 0\n"
      "print_timestamps : 0\n"
      "performance_issue_unique : 0\n"
      "performance_issue_same : 0\n"
      "performance_issue_same_index : 0\n"
      "performance_sample_count : 1024\n"
      "accuracy_sample_count : 1024\n";
  CHECK_EQ(text, want);
}

TEST_CASE("summary parameters: official SingleStream run") {
  EffectiveSettings e(OfficialSingleStreamRun(), 1024, 1024, nullptr);
  std::string text;
  e.AppendSummaryLines(&text);
  const std::string want =
      "samples_per_query : 1\n"
      "target_qps : 1000\n"
      "target_latency (ns): 0\n"
      "max_async_queries : 1\n"
      "min_duration (ms): 0\n"
      "max_duration (ms): 0\n"
      "min_query_count : 1000\n"
      "max_query_count : 0\n" +
      kSeedLines +
      "accuracy_log_rng_seed : 0\n"
      "accuracy_log_probability : 0\n"
      "accuracy_log_sampling_target : 0\n"
      "print_timestamps : 0\n"
      "performance_issue_unique : 0\n"
      "performance_issue_same : 0\n"
      "performance_issue_same_index : 0\n"
      "performance_sample_count : 1024\n"
      "accuracy_sample_count : 1024\n";
  CHECK_EQ(text, want);
}

TEST_CASE("summary parameters: number formats and the concatenation warning") {
  TestSettings s = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  s.single_stream_expected_latency_ns = 1000;  // 1e6 QPS
  s.min_duration_ms = 0;
  s.min_query_count = 5;
  s.sample_concatenate_permutation = true;
  s.print_timestamps = true;
  s.performance_issue_same = true;
  s.performance_issue_same_index = 3;
  s.accuracy_log_probability = 0.125;
  s.accuracy_log_rng_seed = 720381539243781796ULL;
  s.accuracy_log_sampling_target = 4096;
  EffectiveSettings e(s, 10, 20, nullptr);
  std::string text;
  e.AppendSummaryLines(&text);
  const std::string want =
      "samples_per_query : 1\n"
      "target_qps : 1e+06\n"
      "target_latency (ns): 0\n"
      "max_async_queries : 1\n"
      "min_duration (ms): 0\n"
      "max_duration (ms): 0\n"
      "min_query_count : 10\n"
      "max_query_count : 0\n" +
      kSeedLines +
      "accuracy_log_rng_seed : 720381539243781796\n"
      "accuracy_log_probability : 0.125\n"
      "accuracy_log_sampling_target : 4096\n"
      "print_timestamps : 1\n"
      "performance_issue_unique : 0\n"
      "performance_issue_same : 1\n"
      "performance_issue_same_index : 3\n"
      "performance_sample_count : 10\n"
      "accuracy_sample_count : 20\n"
      "WARNING: sample_concatenate_permutation was set to true. \n"
      "Generated samples per query might be different as the one in the setting.\n"
      "Check the generated_samples_per_query line in the detailed log for the real\n"
      "samples_per_query value\n";
  CHECK_EQ(text, want);

  TestSettings q = WithSeeds(Scenario::Server, Mode::PerformanceOnly);
  q.server_target_qps = 1234.5678;
  EffectiveSettings f(q, 10, 10, nullptr);
  std::string t2;
  f.AppendSummaryLines(&t2);
  CHECK(t2.find("target_qps : 1234.57\n") != std::string::npos);
  CHECK(t2.find("target_latency (ns): 100000000\n") != std::string::npos);
}

TEST_MAIN()
