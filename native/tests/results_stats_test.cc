// Tests of the results statistics: percentiles, token stats, MultiStream and
// SingleStream (early stopping, QPS lines, token mode, the official
// SingleStream run rebuilt from its trace).
// Where the official sample logs are available (../shared/official-logs, or
// $LG_OFFICIAL_LOGS), the official runs are rebuilt from them and compared
// line by line; without them those cases report themselves skipped.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
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
// Statistics

TEST_CASE("percentiles are sorted[floor(n*p)], mean truncated, min/max") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  // 1..1000 (x 1000 ns) shuffled, plus 1 ns on the first so the mean truncates.
  for (int64_t i = 1; i <= 1000; ++i) pr.sample_latencies.push_back(i * 1000);
  pr.sample_latencies[0] += 999;
  std::mt19937 rng(7);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  pr.queries_issued = 1;
  pr.max_latency = 1.0;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 1000u);
  CHECK_EQ(s.latency_min, 1999);  // 1000 + 999
  CHECK_EQ(s.latency_max, 1000000);
  CHECK_EQ(s.latency_mean, 500500);  // (500500000 + 999) / 1000 truncated
  CHECK_EQ(s.latency_percentiles.size(), 6u);
  CHECK_EQ(s.latency_percentiles[0].value, 501000);   // sorted[500]
  CHECK_EQ(s.latency_percentiles[1].value, 901000);   // sorted[900]
  CHECK_EQ(s.latency_percentiles[2].value, 951000);   // sorted[950]
  CHECK_EQ(s.latency_percentiles[3].value, 971000);   // sorted[970]
  CHECK_EQ(s.latency_percentiles[4].value, 991000);   // sorted[990]
  CHECK_EQ(s.latency_percentiles[5].value, 1000000);  // sorted[999]
  CHECK_EQ(s.query_count, 1u);
  CHECK(s.valid);
  CHECK(s.early_stopping_text.empty());
}

TEST_CASE("percentile index truncates n*p (n=7)") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies = {70, 10, 60, 20, 50, 30, 40};
  pr.queries_issued = 1;
  pr.max_latency = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.latency_percentiles[0].value, 40);  // 3.5 -> 3
  CHECK_EQ(s.latency_percentiles[1].value, 70);  // 6.3 -> 6
  CHECK_EQ(s.latency_percentiles[5].value, 70);  // 6.993 -> 6
  CHECK_EQ(s.latency_mean, 40);
}

TEST_CASE("token stats: means over the sample count, INT64_MIN token counts skipped") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies = {100, 200, 300, 400};
  pr.first_token_latencies = {10, 20, 30};  // one missing: still divided by 4
  pr.time_per_output_token = {7, 1, 3, 5};
  pr.tokens_per_sample = {5, lg::kInvalidTokens, 7, 8};
  pr.queries_issued = 4;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 2;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.token_count, 20u);
  CHECK_EQ(s.ttft_mean, 15);  // 60 / 4
  CHECK_EQ(s.tpot_mean, 4);   // 16 / 4
  CHECK_EQ(s.ttft_min, 10);
  CHECK_EQ(s.ttft_max, 30);
  CHECK_EQ(s.tpot_min, 1);
  CHECK_EQ(s.tpot_max, 7);
  CHECK_EQ(s.tpot_percentiles[0].value, 5);  // sorted {1,3,5,7}[2]
  CHECK(s.tokens_per_sec == 10.0);           // 20 tokens / 2 s
  CHECK(s.token_throughput_with_overhead == 20.0);
  // Upstream: 20 / (250 ns mean * 4) ; corrected: 20 / (250e-9 s * 4)
  CHECK(std::fabs(s.token_throughput_official - 0.02) < 1e-12);
  CHECK(std::fabs(s.token_throughput_corrected - 2e7) < 1e-3);
}

TEST_CASE("MultiStream: per-query latency stats and estimate") {
  TestSettings ts;
  ts.scenario = Scenario::MultiStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  const int64_t queries = 700;
  PerformanceResult pr;
  for (int64_t q = 0; q < queries; ++q) {
    for (int k = 0; k < 8; ++k) pr.sample_latencies.push_back(1000 + q * 10 + k);
    pr.query_latencies.push_back(1000 + q * 10 + 7 + 1);
  }
  std::mt19937 rng(3);
  std::shuffle(pr.query_latencies.begin(), pr.query_latencies.end(), rng);
  pr.queries_issued = queries;
  pr.final_query_issued_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 5600u);
  CHECK_EQ(s.query_latency_min, 1008);
  CHECK_EQ(s.query_latency_max, 1000 + 699 * 10 + 8);
  CHECK_EQ(s.query_latency_mean, (1008 + 7998) / 2);                 // evenly spaced
  CHECK_EQ(s.target_latency_percentile_value, 1000 + 693 * 10 + 8);  // sorted[floor(700*0.99)=693]
  CHECK(s.early_stopping_met);
  // Independent: largest t with 700 >= h(t) + t at p = 0.99.
  int64_t t = 1;
  while (queries >= SlowMinPassing(t + 1, 0.99) + t + 1) ++t;
  const int64_t estimate = 1000 + (queries - t) * 10 + 8;  // sorted[700 - t]
  CHECK_EQ(s.early_stopping_latency_ms, estimate);
  const std::string want_es =
      " * Processed at least " + std::to_string(SlowMinPassing(1, 0.99) + 1) + " queries (700).\n * Would discard " +
      std::to_string(t - 1) +
      " highest latency queries.\n * Early stopping 99.0th percentile estimate: " + std::to_string(estimate);
  CHECK_EQ(s.early_stopping_text, want_es);

  const std::string text = SummaryOf(s, st);
  CHECK(text.find("99.0th percentile latency (ns) : 7938\n") != std::string::npos);
  CHECK(text.find(kRule + "\nAdditional Stats\n" + kRule +
                  "\nPer-query latency:  \nMin latency (ns)                : 1008\n") != std::string::npos);
  // Per-sample latencies are not shown for MultiStream.
  CHECK(text.find("Min latency (ns)                : 1000\n") == std::string::npos);

  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_min_query_latency_ns"), "1008");
  CHECK_EQ(ValueOf(d, "result_99.00_percentile_per_query_latency_ns"), "7938");
  CHECK_EQ(ValueOf(d, "early_stopping_latency_ms"), std::to_string(estimate));
  CHECK_EQ(ValueOf(d, "result_min_latency_ns"), "1000");
  CHECK_EQ(ValueOf(d, "result_perf_constraints_met"), "<absent>");
}

TEST_CASE("MultiStream with too few queries fails early stopping") {
  TestSettings ts;
  ts.scenario = Scenario::MultiStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int q = 0; q < 100; ++q) {
    for (int k = 0; k < 8; ++k) pr.sample_latencies.push_back(100 + q);
    pr.query_latencies.push_back(100 + q);
  }
  pr.queries_issued = 100;
  pr.final_query_issued_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK(!s.valid);
  CHECK_EQ(s.early_stopping_text, " * Only processed 100 queries.\n * Need to process at least " +
                                      std::to_string(SlowMinPassing(1, 0.99) + 1) + " queries for early stopping.");
  // Early stopping adds no advice: the list is empty, the reason too.
  CHECK(s.recommendations.empty());
  CHECK_EQ(s.invalid_reason, "");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("  Early stopping satisfied: NO\nRecommendations:\nEarly Stopping Result:\n * Only processed 100") !=
        std::string::npos);
  CHECK_EQ(ValueOf(DetailOf(s, st), "result_invalid_reason"), "\"\"");
}

// ===========================================================================
// SingleStream

TEST_CASE("SingleStream: too few queries for any estimate") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 50; ++i) pr.sample_latencies.push_back(1000 + i);
  pr.queries_issued = 50;
  pr.final_query_issued_time = 0.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK_EQ(s.early_stopping_text,
           " * Only processed 50 queries.\n * Need to process at least 64 queries for early stopping.");
  CHECK_EQ(s.early_stopping_latency_ss, 0);
  CHECK_EQ(s.early_stopping_latency_ms, 0);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "early_stopping_result"),
           "\" * Only processed 50 queries.  * Need to process at least 64 queries for early stopping.\"");
}

TEST_CASE("SingleStream: 90th estimate but too few for the 99th") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  const int64_t n = 200;
  for (int64_t i = 0; i < n; ++i) pr.sample_latencies.push_back(5000 + i);
  std::mt19937 rng(5);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  pr.queries_issued = n;
  pr.final_query_issued_time = 0.25;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.early_stopping_met);
  int64_t t = 1;
  while (n >= SlowMinPassing(t + 1, 0.90) + t + 1) ++t;
  const std::string want =
      " * Processed at least 64 queries (200).\n * Would discard " + std::to_string(t - 1) +
      " highest latency queries.\n * Early stopping 90.0th percentile estimate: " + std::to_string(5000 + n - t) +
      "\n * Not enough queries processed for 99.0th percentile\n early stopping estimate "
      "(would need to process at\n least " +
      std::to_string(SlowMinPassing(1, 0.99) + 1) + " total queries).";
  CHECK_EQ(s.early_stopping_text, want);
  CHECK_EQ(s.early_stopping_latency_ss, 5000 + n - t);
  CHECK_EQ(s.early_stopping_latency_ms, 0);
  // QPS lines: (n-1)/issue time, 1/mean.
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("QPS w/ loadgen overhead         : 796.00\n") != std::string::npos);
  CHECK(text.find("QPS w/o loadgen overhead        : 196116.89\n\nMin latency (ns)") != std::string::npos);  // 1/5099ns
}

TEST_CASE("SingleStream token mode: TPOT fails first, TTFT text stays empty") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 40; ++i) {
    pr.sample_latencies.push_back(1000 + i);
    pr.first_token_latencies.push_back(100 + i);
    pr.time_per_output_token.push_back(i % 5);
    pr.tokens_per_sample.push_back(10);
  }
  pr.queries_issued = 40;
  pr.final_query_issued_time = 0.1;
  pr.final_query_all_samples_done_time = 0.2;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK_EQ(s.early_stopping_tpot_text,
           " * Only processed 40 queries.\n * Need to process at least 64 queries for early stopping.");
  CHECK_EQ(s.early_stopping_ttft_text, "");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("90.0th first token percentile latency (ns) : 136\n") != std::string::npos);  // ttft sorted[36]
  CHECK(text.find("TTFT Early Stopping Result:\n\nTPOT Early Stopping Result:\n * Only processed 40 queries.\n") !=
        std::string::npos);
  CHECK(text.find("TPS w/ loadgen overhead         : 4000.00\nTPS w/o loadgen overhead        : ") !=
        std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "result_completed_tokens_per_second"), "2000");  // 400 / 0.2
}

TEST_CASE("SingleStream token mode: both pass, TTFT estimates replace TPOT's") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  const int64_t n = 800;
  for (int64_t i = 0; i < n; ++i) {
    pr.sample_latencies.push_back(100000 + i);
    pr.first_token_latencies.push_back(50000 + i);
    pr.time_per_output_token.push_back(10 + i);
    pr.tokens_per_sample.push_back(3);
  }
  pr.queries_issued = n;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.early_stopping_met);
  auto largest_t = [&](double p) {
    int64_t t = 1;
    while (n >= SlowMinPassing(t + 1, p) + t + 1) ++t;
    return t;
  };
  const int64_t t90 = largest_t(0.90), t99 = largest_t(0.99);
  auto text_for = [&](int64_t base) {
    return " * Processed at least 64 queries (800).\n * Would discard " + std::to_string(t90 - 1) +
           " highest latency queries.\n * Early stopping 90.0th percentile estimate: " +
           std::to_string(base + n - t90) +
           "\n * Early stopping 99.0th percentile estimate: " + std::to_string(base + n - t99);
  };
  CHECK_EQ(s.early_stopping_tpot_text, text_for(10));
  CHECK_EQ(s.early_stopping_ttft_text, text_for(50000));
  // Both evaluations write the estimates; the TTFT one runs last.
  CHECK_EQ(s.early_stopping_latency_ss, 50000 + n - t90);
  CHECK_EQ(s.early_stopping_latency_ms, 50000 + n - t99);
}

TEST_CASE("official SingleStream run: latencies from its trace reproduce summary and detail") {
  const std::string dir = OfficialDir();
  std::string trace, summary, detail;
  if (dir.empty() || !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_trace.json", &trace) ||
      !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_summary.txt", &summary) ||
      !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_detail.txt", &detail)) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  // Sample latencies: complete_ns - issue_start_ns of each traced sample.
  std::vector<std::pair<int64_t, int64_t>> by_seq;
  const std::string tag = "\"sample_seq\":";
  for (size_t pos = trace.find(tag); pos != std::string::npos; pos = trace.find(tag, pos + 1)) {
    const int64_t seq = std::atoll(trace.c_str() + pos + tag.size());
    const size_t a = trace.find("\"issue_start_ns\":", pos);
    const size_t b = trace.find("\"complete_ns\":", pos);
    if (a == std::string::npos || b == std::string::npos) break;
    const int64_t start = std::atoll(trace.c_str() + a + 17);
    const int64_t done = std::atoll(trace.c_str() + b + 14);
    by_seq.push_back({seq, done - start});
  }
  CHECK_EQ(by_seq.size(), 1000u);
  std::sort(by_seq.begin(), by_seq.end());
  PerformanceResult pr;
  for (const auto& e : by_seq) pr.sample_latencies.push_back(e.second);
  pr.queries_issued = 1000;
  // The only figure the trace cannot give: the last query's issue time.
  pr.final_query_issued_time = 999 / 1177446.77;

  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::SingleStream;
  ts.single_stream_expected_latency_ns = 1000000;
  ts.single_stream_target_latency_percentile = 0.9;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1000;
  EffectiveSettings st = Effective(ts);
  Summary s = lg::ComputeSummary("NullSUT", st, pr);
  CHECK(s.valid);
  CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
  CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
}

TEST_MAIN()
