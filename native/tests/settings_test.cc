// Tests of the scenario/mode names, of the derivation of the effective
// settings, of their requested_* / effective_* detail-log lines and of the
// summary's "Test Parameters Used" block. Expected texts are those of runs of
// the official LoadGen 6.0.17.
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "clock.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "test_settings.h"

using lg::EffectiveSettings;
using lg::Mode;
using lg::Scenario;
using lg::TestSettings;

namespace {

const uint64_t kQslSeed = 2085463073848966840ULL;
const uint64_t kSampleSeed = 2747215439041700203ULL;
const uint64_t kScheduleSeed = 16159082839903944936ULL;

TestSettings WithSeeds(Scenario scenario, Mode mode) {
  TestSettings s;
  s.scenario = scenario;
  s.mode = mode;
  s.qsl_rng_seed = kQslSeed;
  s.sample_index_rng_seed = kSampleSeed;
  s.schedule_rng_seed = kScheduleSeed;
  return s;
}

struct LogLine {
  std::string key;
  std::string value;  // JSON text
  std::string time_ms;
  bool is_error = false;
};

std::string Between(const std::string& line, const std::string& open, const std::string& close) {
  const size_t a = line.find(open);
  if (a == std::string::npos) return "";
  const size_t b = line.find(close, a + open.size());
  if (b == std::string::npos) return "";
  return line.substr(a + open.size(), b - a - open.size());
}

std::vector<LogLine> ParseLog(const std::string& text) {
  std::vector<LogLine> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(":::MLLOG ", 0) != 0) continue;
    LogLine l;
    l.key = Between(line, "\"key\": \"", "\"");
    l.value = Between(line, "\"value\": ", ", \"time_ms\": ");
    l.time_ms = Between(line, "\"time_ms\": ", ",");
    l.is_error = line.find("\"is_error\": true") != std::string::npos;
    out.push_back(l);
  }
  return out;
}

// Runs `fn` with a DetailLog writing into a string; returns the parsed lines.
template <typename Fn>
std::vector<LogLine> Logged(Fn fn) {
  std::ostringstream out;
  lg::DetailLog log;
  log.Open(&out, false, lg::NowNs());
  fn(&log);
  log.Close();
  return ParseLog(out.str());
}

std::vector<std::string> Keys(const std::vector<LogLine>& lines) {
  std::vector<std::string> keys;
  for (const auto& l : lines) keys.push_back(l.key);
  return keys;
}

const LogLine* Find(const std::vector<LogLine>& lines, const std::string& key) {
  for (const auto& l : lines) {
    if (l.key == key) return &l;
  }
  return nullptr;
}

std::string ValueOf(const std::vector<LogLine>& lines, const std::string& key) {
  const LogLine* l = Find(lines, key);
  return l ? l->value : std::string("<missing>");
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

// The official runs: QSL of 1024 samples, performance count 1024.
TestSettings OfficialServerRun() {
  TestSettings s = WithSeeds(Scenario::Server, Mode::PerformanceOnly);
  s.server_target_qps = 1000;
  s.server_target_latency_ns = 10000000;
  s.min_duration_ms = 2000;
  s.use_token_latencies = true;
  s.server_ttft_latency = 2000000000;
  s.server_tpot_latency = 200000000;
  return s;
}

TestSettings OfficialOfflineInvalidRun() {
  TestSettings s = WithSeeds(Scenario::Offline, Mode::PerformanceOnly);
  s.offline_expected_qps = 1000;
  s.min_duration_ms = 1000;
  s.use_token_latencies = true;
  s.server_ttft_latency = 2000000000;
  s.server_tpot_latency = 200000000;
  return s;
}

TestSettings OfficialSingleStreamRun() {
  TestSettings s = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  s.single_stream_expected_latency_ns = 1000000;
  s.min_duration_ms = 0;
  s.min_query_count = 1000;
  return s;
}

const std::string kSeedLines =
    "qsl_rng_seed : 2085463073848966840\n"
    "sample_index_rng_seed : 2747215439041700203\n"
    "schedule_rng_seed : 16159082839903944936\n";

}  // namespace

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
