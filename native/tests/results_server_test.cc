// Tests of the Server results: overlatency count, latency bounds, early
// stopping, token mode, the full summary text and detail lines, and the
// official Server token run.
// Where the official sample logs are available (../shared/official-logs, or
// $LG_OFFICIAL_LOGS), the official runs are rebuilt from them and compared
// line by line; without them those cases report themselves skipped.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
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

namespace {

// The summary's "Test Parameters Used" lines.
std::string ParamsOf(const EffectiveSettings& st) {
  std::string out;
  st.AppendSummaryLines(&out);
  return out;
}

}  // namespace

// ===========================================================================
// Server

TEST_CASE("Server: overlatency count, t > target, success text") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.server_target_latency_ns = 1000;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  // 2000 queries; 5 over latency, one exactly at the bound (not over).
  for (int i = 0; i < 2000; ++i) pr.sample_latencies.push_back(i < 5 ? 5000 : (i == 5 ? 1000 : 10));
  pr.queries_issued = 2000;
  pr.final_query_scheduled_time = 2;
  pr.final_query_issued_time = 2;
  pr.final_query_all_samples_done_time = 2.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.overlatency_query_count, 5u);
  CHECK(2000 >= SlowMinPassing(5, 0.99) + 5);
  CHECK(s.early_stopping_met);
  CHECK_EQ(s.early_stopping_text, " * Run successful.");
  CHECK(s.perf_constraints_met);  // sorted[1980] = 10
  CHECK(s.valid);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Completed samples per second    : 799.60\n") != std::string::npos);  // 1999 / 2.5
  CHECK(text.find("Scheduled samples per second : 999.50\nMin latency (ns)") != std::string::npos);
  CHECK(text.find("  Performance constraints satisfied : Yes\n") != std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_overlatency_query_count"), "5");
  CHECK_EQ(ValueOf(d, "result_scheduled_samples_per_sec"), "999.5");
  CHECK_EQ(ValueOf(d, "result_completed_samples_per_sec"), "799.6");
  CHECK_EQ(ValueOf(d, "result_invalid_reason"), "<absent>");
}

TEST_CASE("Server: latency bound and early stopping both fail") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.server_target_latency_ns = 1000;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 300; ++i) pr.sample_latencies.push_back(i < 10 ? 2000 : 10);
  pr.queries_issued = 300;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.perf_constraints_met);  // sorted[297] = 2000 > 1000
  CHECK(!lg::PerfConstraintsMet(s));
  CHECK(!s.early_stopping_met);
  const int64_t more = SlowMinPassing(10, 0.99) + 10 - 300;
  CHECK_EQ(s.early_stopping_text, " * Run unsuccessful.\n * Processed 300 queries.\n * Would need to run at least " +
                                      std::to_string(more) +
                                      " more queries,\n with the run being successful if every additional\n query "
                                      "were under latency.");
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.recommendations[0], "Reduce target QPS to improve latency.");
  CHECK_EQ(s.invalid_reason, "Reduce target QPS to improve latency. ");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n"
                  "  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * Reduce target "
                  "QPS to improve latency.\nEarly Stopping Result:\n * Run unsuccessful.\n") != std::string::npos);
}

TEST_CASE("Server token mode: TTFT/TPOT bounds replace the target latency") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.server_target_latency_ns = 1;  // every query over it; not checked in token mode
  ts.server_ttft_latency = 1000;
  ts.server_tpot_latency = 100;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) {
    pr.sample_latencies.push_back(5000);
    pr.first_token_latencies.push_back(500);
    pr.time_per_output_token.push_back(50);
    pr.tokens_per_sample.push_back(4);
  }
  pr.queries_issued = 1000;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.perf_constraints_met);
  CHECK(s.early_stopping_met);
  CHECK(s.valid);
  CHECK_EQ(s.overlatency_query_count, 1000u);  // still reported against the target latency
  CHECK_EQ(s.early_stopping_ttft_text, " * Run successful.");
  CHECK_EQ(s.early_stopping_tpot_text, " * Run successful.");
}

TEST_CASE("Server token run: full summary text and detail lines") {
  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::Server;
  ts.server_target_qps = 400;
  ts.server_target_latency_ns = 150000;
  ts.min_duration_ms = 1000;
  ts.min_query_count = 300;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 90000;
  ts.server_tpot_latency = 5;
  ts.infer_token_latencies = true;
  ts.token_latency_scaling_factor = 3;
  EffectiveSettings st = Effective(ts);

  PerformanceResult pr;
  for (int64_t i = 0; i < 200; ++i) {
    pr.sample_latencies.push_back((i + 1) * 1000);
    pr.first_token_latencies.push_back((i + 1) * 500);
    pr.time_per_output_token.push_back(i % 7);
    pr.tokens_per_sample.push_back(i == 0 ? lg::kInvalidTokens : 10);
  }
  std::mt19937 rng(11);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  std::shuffle(pr.first_token_latencies.begin(), pr.first_token_latencies.end(), rng);
  std::shuffle(pr.time_per_output_token.begin(), pr.time_per_output_token.end(), rng);
  pr.queries_issued = 200;
  pr.final_query_scheduled_time = 0.5;
  pr.final_query_issued_time = 0.5;
  pr.final_query_all_samples_done_time = 0.8;
  Summary s = lg::ComputeSummary("MySUT", st, pr);

  // TPOT values above 5: the 6s, i = 6, 13, ..., 195: 28 of them.
  const int64_t more = SlowMinPassing(28, 0.99) + 28 - 200;
  const std::string want = kRule + "\nMLPerf Results Summary\n" + kRule + "\n" +
                           "SUT name : MySUT\n"
                           "Scenario : Server\n"
                           "Mode     : PerformanceOnly\n"
                           "Completed samples per second    : 248.75\n"        // 199 / 0.8
                           "Completed tokens per second: 2487.50\n"            // 1990 / 0.8
                           "Completed tokens per second (inferred): 746.25\n"  // 199 * 3 / 0.8
                           "Result is : INVALID\n"
                           "  Performance constraints satisfied : NO\n"
                           "  Min duration satisfied : NO\n"
                           "  Min queries satisfied : NO\n"
                           "  Early stopping satisfied: NO\n"
                           "Recommendations:\n"
                           " * TTFT constrain not met: Reduce target QPS to improve latency.\n"
                           " * TPOT constrain not met: Reduce target QPS to improve latency.\n"
                           " * Increase the target QPS so the loadgen pre-generates more queries.\n"
                           " * The test exited early, before enough queries were issued.\n"
                           "   See the detailed log for why this may have occurred.\n"
                           "TTFT Early Stopping Result:\n"
                           "\n"
                           "TPOT Early Stopping Result:\n"
                           " * Run unsuccessful.\n"
                           " * Processed 200 queries.\n"
                           " * Would need to run at least " +
                           std::to_string(more) +
                           " more queries,\n"
                           " with the run being successful if every additional\n"
                           " query were under latency.\n"
                           "\n" +
                           kRule + "\nAdditional Stats\n" + kRule +
                           "\n"
                           "Scheduled samples per second : 398.00\n"
                           "Min latency (ns)                : 1000\n"
                           "Max latency (ns)                : 200000\n"
                           "Mean latency (ns)               : 100500\n"
                           "50.00 percentile latency (ns)   : 101000\n"
                           "90.00 percentile latency (ns)   : 181000\n"
                           "95.00 percentile latency (ns)   : 191000\n"
                           "97.00 percentile latency (ns)   : 195000\n"
                           "99.00 percentile latency (ns)   : 199000\n"
                           "99.90 percentile latency (ns)   : 200000\n"
                           "\n"
                           "Completed tokens per second                 : 2487.50\n"
                           "Min First Token latency (ns)                : 500\n"
                           "Max First Token latency (ns)                : 100000\n"
                           "Mean First Token latency (ns)               : 50250\n"
                           "50.00 percentile first token latency (ns)   : 50500\n"
                           "90.00 percentile first token latency (ns)   : 90500\n"
                           "95.00 percentile first token latency (ns)   : 95500\n"
                           "97.00 percentile first token latency (ns)   : 97500\n"
                           "99.00 percentile first token latency (ns)   : 99500\n"
                           "99.90 percentile first token latency (ns)   : 100000\n"
                           "\n"
                           "Min Time per Output Token (ns)                : 0\n"
                           "Max Time per Output Token (ns)                : 6\n"
                           "Mean Time per Output Token (ns)               : 2\n"
                           "50.00 percentile time to output token (ns)   : 3\n"
                           "90.00 percentile time to output token (ns)   : 6\n"
                           "95.00 percentile time to output token (ns)   : 6\n"
                           "97.00 percentile time to output token (ns)   : 6\n"
                           "99.00 percentile time to output token (ns)   : 6\n"
                           "99.90 percentile time to output token (ns)   : 6\n"
                           "\n" +
                           kRule + "\nTest Parameters Used\n" + kRule + "\n" + ParamsOf(st);
  CHECK(SameLines(SummaryOf(s, st), want));

  const std::vector<DetailEntry> d = DetailOf(s, st);
  const std::vector<std::string> want_keys = {"result_validity",
                                              "result_perf_constraints_met",
                                              "result_min_duration_met",
                                              "result_min_queries_met",
                                              "early_stopping_met",
                                              "result_invalid_reason",
                                              "early_stopping_ttft_result",
                                              "early_stopping_tpot_result",
                                              "result_query_count",
                                              "result_overlatency_query_count",
                                              "result_scheduled_samples_per_sec",
                                              "result_completed_samples_per_sec",
                                              "result_min_latency_ns",
                                              "result_max_latency_ns",
                                              "result_mean_latency_ns",
                                              "result_50.00_percentile_latency_ns",
                                              "result_90.00_percentile_latency_ns",
                                              "result_95.00_percentile_latency_ns",
                                              "result_97.00_percentile_latency_ns",
                                              "result_99.00_percentile_latency_ns",
                                              "result_99.90_percentile_latency_ns",
                                              "result_first_token_min_latency_ns",
                                              "result_first_token_max_latency_ns",
                                              "result_first_token_mean_latency_ns",
                                              "result_first_token_50.00_percentile_latency_ns",
                                              "result_first_token_90.00_percentile_latency_ns",
                                              "result_first_token_95.00_percentile_latency_ns",
                                              "result_first_token_97.00_percentile_latency_ns",
                                              "result_first_token_99.00_percentile_latency_ns",
                                              "result_first_token_99.90_percentile_latency_ns",
                                              "result_token_throughput_with_loadgen_overhead",
                                              "result_token_throughput",
                                              "result_time_per_output_token_50.00_percentile_ns",
                                              "result_time_per_output_token_90.00_percentile_ns",
                                              "result_time_per_output_token_95.00_percentile_ns",
                                              "result_time_per_output_token_97.00_percentile_ns",
                                              "result_time_per_output_token_99.00_percentile_ns",
                                              "result_time_per_output_token_99.90_percentile_ns",
                                              "result_time_to_output_token_min",
                                              "result_time_to_output_token_max",
                                              "result_time_to_output_token_mean",
                                              "result_completed_tokens_per_second",
                                              "result_inferred_completed_tokens_per_second",
                                              "num_errors"};
  CHECK(KeysOf(d) == want_keys);
  CHECK_EQ(ValueOf(d, "result_validity"), "\"INVALID\"");
  CHECK_EQ(ValueOf(d, "result_perf_constraints_met"), "false");
  CHECK_EQ(ValueOf(d, "result_invalid_reason"),
           "\"TTFT constrain not met: Reduce target QPS to improve latency.  * TPOT constrain not met: Reduce "
           "target QPS to improve latency. Increase the target QPS so the loadgen pre-generates more queries. The "
           "test exited early, before enough queries were issued.\"");
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "early_stopping_tpot_result"),
           "\" * Run unsuccessful.  * Processed 200 queries.  * Would need to run at least " + std::to_string(more) +
               " more queries,  with the run being successful if every additional  query were under latency.\"");
  CHECK_EQ(ValueOf(d, "result_query_count"), "200");
  CHECK_EQ(ValueOf(d, "result_overlatency_query_count"), "50");
  CHECK_EQ(ValueOf(d, "result_scheduled_samples_per_sec"), "398");
  CHECK_EQ(ValueOf(d, "result_completed_samples_per_sec"), "248.75");
  CHECK_EQ(ValueOf(d, "result_mean_latency_ns"), "100500");
  CHECK_EQ(ValueOf(d, "result_token_throughput_with_loadgen_overhead"), "3980");  // 1990 / 0.5
  CHECK_EQ(ValueOf(d, "result_token_throughput"), "9.9005e-05");                  // 1990 / (100500 * 200)
  CHECK_EQ(ValueOf(d, "result_token_throughput_corrected"), "<absent>");          // only in the JS result
  CHECK(std::fabs(s.token_throughput_corrected - 99004.975) < 1e-3);              // 1990 / (100.5e-6 * 200)
  CHECK_EQ(ValueOf(d, "result_time_to_output_token_mean"), "2");
  CHECK_EQ(ValueOf(d, "result_completed_tokens_per_second"), "2487.5");
  CHECK_EQ(ValueOf(d, "result_inferred_completed_tokens_per_second"), "746.25");
  CHECK_EQ(ValueOf(d, "num_errors"), "0");
}

TEST_CASE("official Server token run: crafted latencies reproduce summary and detail") {
  const std::string dir = OfficialDir();
  std::string summary, detail;
  if (dir.empty() || !ReadFile(dir + "/Server_PerformanceOnly/mlperf_log_summary.txt", &summary) ||
      !ReadFile(dir + "/Server_PerformanceOnly/mlperf_log_detail.txt", &detail)) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  const size_t n = 2068;
  PerformanceResult pr;
  pr.sample_latencies = Crafted(n, Anchors(n, 873, 4320973, {76912, 111253, 134039, 248337, 1414779, 3594297}), 116393);
  pr.first_token_latencies =
      Crafted(n, Anchors(n, 691, 4319771, {76601, 110281, 133644, 247336, 1414348, 3592975}), 115953);
  pr.time_per_output_token = Crafted(n, Anchors(n, 0, 113, {2, 10, 13, 14, 19, 25}), 4);
  pr.tokens_per_sample.assign(n, 100);
  pr.queries_issued = n;
  pr.final_query_scheduled_time = 2067 / 1033.30;
  pr.final_query_issued_time = 2.000466;
  pr.final_query_all_samples_done_time = 206800 / 103375.90;

  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::Server;
  ts.server_target_qps = 1000;
  ts.server_target_latency_ns = 10000000;
  ts.server_target_latency_percentile = 0.99;
  ts.min_duration_ms = 2000;
  ts.min_query_count = 100;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 2000000000;
  ts.server_tpot_latency = 200000000;
  EffectiveSettings st = Effective(ts);
  Summary s = lg::ComputeSummary("NullSUT", st, pr);
  CHECK(s.valid);
  CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
  CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
}

TEST_MAIN()
