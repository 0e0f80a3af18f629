// Tests of the scenario/mode names and of the derivation of the effective
// settings, including the errors logged for invalid ones. Expected texts
// are those of runs of the official LoadGen 6.0.17.
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

// ---------------------------------------------------------------- names

TEST_CASE("scenario and mode names") {
  CHECK_EQ(std::string(lg::ToString(Scenario::SingleStream)), std::string("SingleStream"));
  CHECK_EQ(std::string(lg::ToString(Scenario::MultiStream)), std::string("MultiStream"));
  CHECK_EQ(std::string(lg::ToString(Scenario::Server)), std::string("Server"));
  CHECK_EQ(std::string(lg::ToString(Scenario::Offline)), std::string("Offline"));
  CHECK_EQ(std::string(lg::ToString(Mode::SubmissionRun)), std::string("SubmissionRun"));
  CHECK_EQ(std::string(lg::ToString(Mode::AccuracyOnly)), std::string("AccuracyOnly"));
  CHECK_EQ(std::string(lg::ToString(Mode::PerformanceOnly)), std::string("PerformanceOnly"));
  CHECK_EQ(std::string(lg::ToString(Mode::FindPeakPerformance)), std::string("FindPeakPerformance"));

  for (Scenario sc : {Scenario::SingleStream, Scenario::MultiStream, Scenario::Server, Scenario::Offline}) {
    Scenario parsed = Scenario::Offline;
    CHECK(lg::ParseScenario(lg::ToString(sc), &parsed));
    CHECK(parsed == sc);
  }
  for (Mode m : {Mode::SubmissionRun, Mode::AccuracyOnly, Mode::PerformanceOnly, Mode::FindPeakPerformance}) {
    Mode parsed = Mode::SubmissionRun;
    CHECK(lg::ParseMode(lg::ToString(m), &parsed));
    CHECK(parsed == m);
  }
  Scenario sc = Scenario::SingleStream;
  CHECK(lg::ParseScenario("offline", &sc));
  CHECK(sc == Scenario::Offline);
  CHECK(lg::ParseScenario("MULTISTREAM", &sc));
  CHECK(sc == Scenario::MultiStream);
  CHECK(!lg::ParseScenario("Single Stream", &sc));
  CHECK(!lg::ParseScenario("", &sc));
  CHECK(!lg::ParseScenario("Offline2", &sc));
  CHECK(!lg::ParseScenario("Offlin", &sc));
  CHECK(sc == Scenario::MultiStream);  // untouched on failure
  Mode m = Mode::SubmissionRun;
  CHECK(lg::ParseMode("performanceonly", &m));
  CHECK(m == Mode::PerformanceOnly);
  CHECK(!lg::ParseMode("Performance", &m));
  CHECK(!lg::ParseMode("2", &m));
  CHECK(lg::ParseMode("AccuracyOnly", nullptr));
}

// ---------------------------------------------------------------- derivation

TEST_CASE("effective: SingleStream") {
  EffectiveSettings e(OfficialSingleStreamRun(), 1024, 1024, nullptr);
  CHECK(e.scenario == Scenario::SingleStream);
  CHECK(e.mode == Mode::PerformanceOnly);
  CHECK_EQ(e.samples_per_query, uint64_t(1));
  CHECK_EQ(e.target_qps, 1000.0);
  CHECK_EQ(e.target_latency_ns, int64_t(0));
  CHECK_EQ(e.target_latency_percentile, 0.9);
  CHECK_EQ(e.max_async_queries, uint64_t(1));
  CHECK_EQ(e.target_duration_ms, int64_t(0));
  CHECK_EQ(e.min_query_count, uint64_t(1000));
  CHECK_EQ(e.min_sample_count, uint64_t(1000));
  CHECK_EQ(e.performance_sample_count, uint64_t(1024));
  CHECK_EQ(e.accuracy_sample_count, uint64_t(1024));
  CHECK_EQ(e.qsl_rng_seed, kQslSeed);

  TestSettings s = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  s.single_stream_expected_latency_ns = 10000000;  // 10 ms
  s.min_duration_ms = 600000;
  EffectiveSettings d(s, 500, 2000, nullptr);
  CHECK_EQ(d.target_qps, 100.0);
  CHECK_EQ(d.target_duration_ms, int64_t(600000));
  CHECK_EQ(d.min_duration_ms, int64_t(600000));
  CHECK_EQ(d.min_query_count, uint64_t(100));  // no bump without concat
  CHECK_EQ(d.performance_sample_count, uint64_t(500));
  CHECK_EQ(d.accuracy_sample_count, uint64_t(2000));
}

TEST_CASE("effective: MultiStream") {
  TestSettings s = WithSeeds(Scenario::MultiStream, Mode::PerformanceOnly);
  s.min_query_count = 662;
  EffectiveSettings e(s, 64, 64, nullptr);
  CHECK_EQ(e.target_qps, 125.0);  // 1e9 / 8 ms
  CHECK_EQ(e.samples_per_query, uint64_t(8));
  CHECK_EQ(e.max_async_queries, uint64_t(1));
  CHECK_EQ(e.target_latency_percentile, 0.99);
  CHECK_EQ(e.min_query_count, uint64_t(662));
  CHECK_EQ(e.min_sample_count, uint64_t(662 * 8));
  CHECK_EQ(e.target_duration_ms, int64_t(10000));
  s.multi_stream_samples_per_query = 3;
  s.multi_stream_expected_latency_ns = 528e6;
  EffectiveSettings f(s, 64, 64, nullptr);
  CHECK_EQ(f.samples_per_query, uint64_t(3));
  CHECK_EQ(f.target_qps, 1e9 / 528e6);
}

TEST_CASE("effective: Server") {
  EffectiveSettings e(OfficialServerRun(), 1024, 1024, nullptr);
  CHECK_EQ(e.samples_per_query, uint64_t(1));
  CHECK_EQ(e.target_qps, 1000.0);
  CHECK_EQ(e.target_latency_ns, int64_t(10000000));
  CHECK_EQ(e.target_latency_percentile, 0.99);
  CHECK_EQ(e.max_async_queries, uint64_t(0));
  CHECK_EQ(e.target_duration_ms, int64_t(2000));
  CHECK_EQ(e.min_duration_ms, int64_t(2000));
  CHECK_EQ(e.min_query_count, uint64_t(100));
  CHECK_EQ(e.min_sample_count, uint64_t(100));
  CHECK(e.use_token_latencies);
  CHECK_EQ(e.server_ttft_latency, uint64_t(2000000000));
  CHECK_EQ(e.server_tpot_latency, uint64_t(200000000));

  TestSettings s = OfficialServerRun();
  s.server_max_async_queries = 3;
  s.server_target_latency_percentile = 0.97;
  s.sample_concatenate_permutation = true;  // no effect outside SingleStream
  EffectiveSettings f(s, 1024, 1024, nullptr);
  CHECK_EQ(f.max_async_queries, uint64_t(3));
  CHECK_EQ(f.target_latency_percentile, 0.97);
  CHECK_EQ(f.min_query_count, uint64_t(100));
  CHECK(f.sample_concatenate_permutation);
}

TEST_CASE("effective: Offline samples_per_query") {
  // The official INVALID run: 1.1 x 1 s x 1000 QPS.
  EffectiveSettings inv(OfficialOfflineInvalidRun(), 1024, 1024, nullptr);
  CHECK_EQ(inv.samples_per_query, uint64_t(1100));
  CHECK_EQ(inv.min_query_count, uint64_t(1));
  CHECK_EQ(inv.min_sample_count, uint64_t(1100));
  CHECK_EQ(inv.target_duration_ms, int64_t(0));
  CHECK_EQ(inv.min_duration_ms, int64_t(1000));
  CHECK_EQ(inv.target_qps, 1000.0);
  CHECK_EQ(inv.target_latency_ns, int64_t(0));
  CHECK_EQ(inv.target_latency_percentile, 0.99);
  CHECK_EQ(inv.max_async_queries, uint64_t(1));

  // The official AccuracyOnly run: defaults (10 s) at 1000 QPS.
  TestSettings acc = WithSeeds(Scenario::Offline, Mode::AccuracyOnly);
  acc.offline_expected_qps = 1000;
  CHECK_EQ(EffectiveSettings(acc, 1024, 1024, nullptr).samples_per_query, uint64_t(11000));

  // The official VALID run: min duration 0, min_query_count 4096.
  TestSettings perf = WithSeeds(Scenario::Offline, Mode::PerformanceOnly);
  perf.offline_expected_qps = 1000;
  perf.min_duration_ms = 0;
  perf.min_query_count = 4096;
  EffectiveSettings p(perf, 1024, 1024, nullptr);
  CHECK_EQ(p.samples_per_query, uint64_t(4096));
  CHECK_EQ(p.min_sample_count, uint64_t(4096));

  // performance_issue_unique: one pass over the performance set.
  perf.performance_issue_unique = true;
  CHECK_EQ(EffectiveSettings(perf, 1024, 1024, nullptr).samples_per_query, uint64_t(1024));
  perf.performance_sample_count_override = 64;
  CHECK_EQ(EffectiveSettings(perf, 1024, 1024, nullptr).samples_per_query, uint64_t(64));

  // Truncation: 1.1 x 1.234 s x 12.5 QPS = 16.96...
  TestSettings t = WithSeeds(Scenario::Offline, Mode::PerformanceOnly);
  t.offline_expected_qps = 12.5;
  t.min_duration_ms = 1234;
  t.min_query_count = 1;
  CHECK_EQ(EffectiveSettings(t, 10, 10, nullptr).samples_per_query, uint64_t(16));
}

TEST_CASE("effective: SingleStream + sample_concatenate_permutation raises min_query_count") {
  // 2 x 600 s x 100 QPS = 120000, then up past the next multiple of 13368.
  TestSettings s = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  s.sample_concatenate_permutation = true;
  s.single_stream_expected_latency_ns = 10000000;
  s.min_duration_ms = 600000;
  EffectiveSettings e(s, 13368, 13368, nullptr);
  CHECK_EQ(e.min_query_count, uint64_t(120312));  // 9 x 13368
  CHECK_EQ(e.min_sample_count, uint64_t(120312));
  CHECK(e.sample_concatenate_permutation);

  // Already a multiple: a whole extra set.
  TestSettings m = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  m.sample_concatenate_permutation = true;
  m.min_duration_ms = 0;
  m.min_query_count = 1024;
  CHECK_EQ(EffectiveSettings(m, 1024, 1024, nullptr).min_query_count, uint64_t(2048));

  // It is the QSL's own count that matters, not the override.
  m.min_query_count = 100;
  m.performance_sample_count_override = 64;
  EffectiveSettings o(m, 1000, 5000, nullptr);
  CHECK_EQ(o.min_query_count, uint64_t(1000));
  CHECK_EQ(o.performance_sample_count, uint64_t(64));

  // A QSL reporting 0 would divide by zero in the official engine; we leave the count.
  CHECK_EQ(EffectiveSettings(m, 0, 5000, nullptr).min_query_count, uint64_t(100));

  // Other scenarios are not raised.
  m.scenario = Scenario::MultiStream;
  CHECK_EQ(EffectiveSettings(m, 1000, 5000, nullptr).min_query_count, uint64_t(100));
}

TEST_CASE("effective: overrides of the sample counts") {
  TestSettings s = WithSeeds(Scenario::Server, Mode::AccuracyOnly);
  s.performance_sample_count_override = 6396;
  s.accuracy_sample_count_override = 4395;
  EffectiveSettings e(s, 100, 200, nullptr);
  CHECK_EQ(e.performance_sample_count, uint64_t(6396));
  CHECK_EQ(e.accuracy_sample_count, uint64_t(4395));
}

TEST_CASE("effective: invalid settings are logged with the official messages") {
  TestSettings s = WithSeeds(Scenario::Server, Mode::PerformanceOnly);
  s.server_target_qps = -2.5;
  s.performance_issue_same = true;
  s.performance_issue_same_index = 1024;
  s.performance_issue_unique = true;
  std::vector<LogLine> lines = Logged([&](lg::DetailLog* log) {
    EffectiveSettings e(s, 1024, 1024, log);
    CHECK_EQ(e.target_qps, 1.0);
    CHECK_EQ(log->error_count(), uint64_t(3));
  });
  CHECK_EQ(lines.size(), size_t(3));
  for (const auto& l : lines) {
    CHECK_EQ(l.key, std::string("error_invalid_test_settings"));
    CHECK(l.is_error);
  }
  if (lines.size() == 3) {
    CHECK_EQ(lines[0].value,
             std::string("\"Invalid value for server_target_qps requested. requested: -2.5 using: 1\""));
    CHECK_EQ(lines[1].value,
             std::string("\"Sample Idx to be repeated in performance_issue_same mode cannot be greater than loaded "
                         "performance_sample_count. performance_issue_same_index: 1024 performance_sample_count: "
                         "1024\""));
    CHECK_EQ(lines[2].value,
             std::string("\"Performance_issue_unique and performance_issue_same, both cannot be true at the same "
                         "time. performance_issue_unique: 1 performance_issue_same: 1\""));
  }

  TestSettings o = WithSeeds(Scenario::Offline, Mode::PerformanceOnly);
  o.offline_expected_qps = -1e7;
  lines = Logged([&](lg::DetailLog* log) {
    EffectiveSettings e(o, 1024, 1024, log);
    CHECK_EQ(e.target_qps, 1.0);
    CHECK_EQ(e.samples_per_query, uint64_t(100));  // 1.1 x 10 s x 1 QPS = 11 < min_query_count
  });
  CHECK_EQ(lines.size(), size_t(1));
  CHECK_EQ(ValueOf(lines, "error_invalid_test_settings"),
           std::string("\"Invalid value for offline_expected_qps requested. requested: -1e+07 using: 1\""));

  // The index is fine below the effective count (here the override).
  TestSettings ok = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  ok.performance_issue_same = true;
  ok.performance_issue_same_index = 3;
  lines = Logged([&](lg::DetailLog* log) { EffectiveSettings e(ok, 1024, 1024, log); });
  CHECK(lines.empty());
  ok.performance_sample_count_override = 3;
  lines = Logged([&](lg::DetailLog* log) { EffectiveSettings e(ok, 1024, 1024, log); });
  CHECK_EQ(lines.size(), size_t(1));
}

TEST_MAIN()
