// Tests of the Offline results (samples per second, token mode, the official
// Offline runs), the advice for each failing criterion (min duration, min
// queries, token-mode constraints), the MLLOG line format of the detail log,
// and a run with no samples.
// Where the official sample logs are available (../shared/official-logs, or
// $LG_OFFICIAL_LOGS), the official runs are rebuilt from them and compared
// line by line; without them those cases report themselves skipped.

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "performance_result.h"
#include "results.h"
#include "results_support.h"

using lg::EffectiveSettings;
using lg::PerformanceResult;
using lg::Scenario;
using lg::Summary;
using lg::TestSettings;
using namespace results_support;

// ===========================================================================
// Offline

TEST_CASE("Offline: samples per second in default ostream format") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1100;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(1100, 1000);
  pr.queries_issued = 1;
  pr.max_latency = 471468e-9;
  Summary s = lg::ComputeSummary("sut", st, pr);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Mode     : PerformanceOnly\nSamples per second: 2.33314e+06\nResult is : VALID\n") !=
        std::string::npos);
  // No performance-constraint or early-stopping block; 99.90 line then the parameters.
  CHECK(text.find("Performance constraints") == std::string::npos);
  CHECK(text.find("Early Stopping Result") == std::string::npos);
  CHECK(text.find("99.90 percentile latency (ns)   : 1000\n\n" + kRule + "\nTest Parameters Used") !=
        std::string::npos);
  CHECK_EQ(ValueOf(DetailOf(s, st), "result_samples_per_second"), "2.33314e+06");
  CHECK_EQ(ValueOf(DetailOf(s, st), "early_stopping_result"), "\"\"");

  // A tiny max latency: large figures stay in exponent form.
  pr.max_latency = 1e-9;
  Summary big = lg::ComputeSummary("sut", st, pr);
  CHECK(SummaryOf(big, st).find("Samples per second: 1.1e+12\n") != std::string::npos);
}

TEST_CASE("Offline token mode with inferred tokens") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  ts.infer_token_latencies = true;
  ts.token_latency_scaling_factor = 7;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(10, 100);
  pr.tokens_per_sample.assign(10, 3);
  pr.queries_issued = 1;
  pr.max_latency = 0.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find(
            "Samples per second: 20\nTokens per second: 60\nTokens per second (inferred): 140\nResult is : VALID\n") !=
        std::string::npos);
  // The token block of Additional Stats is a single blank line for Offline.
  CHECK(text.find("99.90 percentile latency (ns)   : 100\n\n\n" + kRule) != std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_tokens_per_second"), "60");
  CHECK_EQ(ValueOf(d, "result_inferred_tokens_per_second"), "140");
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "result_first_token_min_latency_ns"), "<absent>");
  CHECK_EQ(KeysOf(d).back(), "num_errors");
}

TEST_CASE("official Offline runs: crafted latencies reproduce summary and detail") {
  const std::string dir = OfficialDir();
  if (dir.empty()) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  struct Case {
    const char* folder;
    size_t n;
    uint64_t min_query_count;
    uint64_t min_duration_ms;
    int64_t mn, mx, mean;
    std::vector<int64_t> pcts;
    bool valid;
  };
  const Case cases[] = {
      {"Offline_PerformanceOnly",
       4096,
       4096,
       0,
       62973,
       2163734,
       978239,
       {1087020, 1665176, 1742130, 1772595, 1801368, 1818343},
       true},
      {"Offline_PerformanceOnly_INVALID_minduration",
       1100,
       100,
       1000,
       16244,
       471468,
       227981,
       {242479, 380954, 454343, 461804, 469014, 471208},
       false},
  };
  for (const Case& c : cases) {
    std::string summary, detail;
    if (!ReadFile(dir + "/" + c.folder + "/mlperf_log_summary.txt", &summary) ||
        !ReadFile(dir + "/" + c.folder + "/mlperf_log_detail.txt", &detail)) {
      std::printf("  (skipped %s)\n", c.folder);
      continue;
    }
    PerformanceResult pr;
    pr.sample_latencies = Crafted(c.n, Anchors(c.n, c.mn, c.mx, c.pcts), c.mean);
    pr.tokens_per_sample.assign(c.n, 100);
    pr.queries_issued = 1;
    pr.max_latency = static_cast<double>(c.mx) / 1e9;

    TestSettings ts = ConfSeeds(TestSettings());
    ts.scenario = Scenario::Offline;
    ts.offline_expected_qps = 1000;
    ts.min_duration_ms = c.min_duration_ms;
    ts.min_query_count = c.min_query_count;
    ts.use_token_latencies = true;
    ts.server_ttft_latency = 2000000000;
    ts.server_tpot_latency = 200000000;
    EffectiveSettings st = Effective(ts);
    Summary s = lg::ComputeSummary("NullSUT", st, pr);
    CHECK_EQ(s.valid, c.valid);
    CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
    CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
  }
}

// ===========================================================================
// Recommendations for each failing criterion

TEST_CASE("min duration advice per scenario") {
  struct Case {
    Scenario scenario;
    const char* advice;
  };
  const Case cases[] = {
      {Scenario::SingleStream, "Decrease the expected latency so the loadgen pre-generates more queries."},
      {Scenario::MultiStream, "Decrease the expected latency so the loadgen pre-generates more queries."},
      {Scenario::Server, "Increase the target QPS so the loadgen pre-generates more queries."},
      {Scenario::Offline, "Increase expected QPS so the loadgen pre-generates a larger (coalesced) query."},
  };
  for (const Case& c : cases) {
    TestSettings ts;
    ts.scenario = c.scenario;
    ts.min_duration_ms = 5000;
    ts.min_query_count = 1;
    ts.server_target_latency_ns = 1000000;
    EffectiveSettings st = Effective(ts);
    PerformanceResult pr;
    const int n = 1000;
    for (int i = 0; i < n; ++i) pr.sample_latencies.push_back(100);
    if (c.scenario == Scenario::MultiStream) {
      pr.sample_latencies.clear();
      for (int i = 0; i < n * 8; ++i) pr.sample_latencies.push_back(100);
      pr.query_latencies.assign(n, 100);
    }
    pr.queries_issued = c.scenario == Scenario::Offline ? 1 : n;
    // 4.999 s of whichever time the scenario measures: just short.
    pr.max_latency = pr.final_query_scheduled_time = pr.final_query_issued_time = 4.999;
    pr.final_query_all_samples_done_time = 5;
    Summary s = lg::ComputeSummary("sut", st, pr);
    CHECK(!s.min_duration_met);
    CHECK(!s.valid);
    CHECK_EQ(s.recommendations.size(), 1u);
    if (!s.recommendations.empty()) CHECK_EQ(s.recommendations[0], std::string(c.advice));
    CHECK_EQ(s.invalid_reason, std::string(c.advice) + " ");
    CHECK(SummaryOf(s, st).find("Recommendations:\n * " + std::string(c.advice) + "\n") != std::string::npos);
    CHECK_EQ(ValueOf(DetailOf(s, st), "result_invalid_reason"), "\"" + std::string(c.advice) + " \"");

    // Exactly the minimum is enough.
    pr.max_latency = pr.final_query_scheduled_time = pr.final_query_issued_time = 5.0;
    CHECK(lg::ComputeSummary("sut", st, pr).min_duration_met);
  }
}

TEST_CASE("min queries and min samples") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1000;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(999, 10);
  pr.queries_issued = 1000;  // queries enough, samples one short
  pr.final_query_scheduled_time = pr.final_query_issued_time = pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.min_queries_met);
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.invalid_reason, "The test exited early, before enough queries were issued.");
  CHECK(SummaryOf(s, st).find("  Min queries satisfied : NO\n  Early stopping satisfied: Yes\nRecommendations:\n * The "
                              "test exited early, before enough queries were issued.\n   See the detailed log for "
                              "why this may have occurred.\nEarly Stopping Result:\n") != std::string::npos);
  pr.sample_latencies.assign(1000, 10);
  pr.queries_issued = 999;  // samples enough, queries one short
  CHECK(!lg::ComputeSummary("sut", st, pr).min_queries_met);
  pr.queries_issued = 1000;
  CHECK(lg::ComputeSummary("sut", st, pr).min_queries_met);
}

TEST_CASE("token-mode perf constraint advice: TTFT only, TPOT only") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 100;
  ts.server_tpot_latency = 10;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) {
    pr.sample_latencies.push_back(50);
    pr.first_token_latencies.push_back(i >= 985 ? 101 : 100);  // sorted[990] = 101 > 100
    pr.time_per_output_token.push_back(10);                    // == bound: fine
    pr.tokens_per_sample.push_back(2);
  }
  pr.queries_issued = 1000;
  pr.final_query_scheduled_time = pr.final_query_issued_time = pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.perf_constraints_met);
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.invalid_reason, "TTFT constrain not met: Reduce target QPS to improve latency. ");
  // TTFT early stopping: 15 over 100 among 1000 queries.
  CHECK_EQ(s.early_stopping_met, 1000 >= SlowMinPassing(15, 0.99) + 15);

  for (auto& v : pr.first_token_latencies) v = 100;
  for (auto& v : pr.time_per_output_token) v = 11;
  Summary s2 = lg::ComputeSummary("sut", st, pr);
  CHECK(!s2.perf_constraints_met);
  CHECK_EQ(s2.invalid_reason, "TPOT constrain not met: Reduce target QPS to improve latency. ");
  CHECK(!s2.early_stopping_met);  // every TPOT over its bound
  CHECK(s2.early_stopping_ttft_text.empty());
}

// ===========================================================================
// Detail log shape

TEST_CASE("every detail line is ':::MLLOG ' + JSON, ends with num_errors") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) pr.sample_latencies.push_back(100 + i % 37);
  pr.queries_issued = 1000;
  pr.final_query_issued_time = 0.001;

  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  LG_LOG_ERROR(log, "error_runtime", "something \"quoted\"\n");
  Summary s = lg::ComputeSummary("sut \"x\"", st, pr);
  lg::LogSummaryDetail(s, st, &log);
  log.Close();
  const std::vector<DetailEntry> d = ParseDetail(os.str());
  CHECK(d.size() > 10);
  CHECK_EQ(d.back().key, "num_errors");
  CHECK_EQ(d.back().value, "1");
  const std::vector<std::string> keys = KeysOf(d);
  const std::vector<std::string> want = {"error_runtime",
                                         "result_validity",
                                         "result_min_duration_met",
                                         "result_min_queries_met",
                                         "early_stopping_met",
                                         "early_stopping_result",
                                         "result_query_count",
                                         "result_qps_with_loadgen_overhead",
                                         "result_qps_without_loadgen_overhead",
                                         "early_stopping_latency_ss",
                                         "early_stopping_latency_ms",
                                         "result_min_latency_ns",
                                         "result_max_latency_ns",
                                         "result_mean_latency_ns",
                                         "result_50.00_percentile_latency_ns",
                                         "result_90.00_percentile_latency_ns",
                                         "result_95.00_percentile_latency_ns",
                                         "result_97.00_percentile_latency_ns",
                                         "result_99.00_percentile_latency_ns",
                                         "result_99.90_percentile_latency_ns",
                                         "num_errors"};
  CHECK(keys == want);
  CHECK_EQ(ValueOf(d, "result_qps_with_loadgen_overhead"), "999000");
}

TEST_CASE("no samples: figures stay 0 and nothing crashes") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.queries_issued = 0;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 0u);
  CHECK_EQ(s.query_count, 0u);
  CHECK(!s.valid);
  std::string text = SummaryOf(s, st);
  CHECK(!text.empty());
  // The rates divide by zero here, and upstream's "inf" is not JSON, so only
  // the last line is looked at.
  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  lg::LogSummaryDetail(s, st, &log);
  const std::vector<std::string> lines = SplitLines(os.str());
  CHECK(!lines.empty() && lines.back().find("{\"key\": \"num_errors\", \"value\": 0,") != std::string::npos);
}

TEST_MAIN()
