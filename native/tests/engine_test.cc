// Query generation against values logged by the official LoadGen 6.0.17
// (hard-coded here, so this runs without ../shared), and whole tests with a
// C++ SUT, also under the sanitizers (cmake -DLG_SANITIZE=ON).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "loadgen.h"
#include "query_generation.h"

namespace {

lg::TestSettings OfficialSeeds(lg::Scenario scenario, lg::Mode mode) {
  lg::TestSettings s;
  s.scenario = scenario;
  s.mode = mode;
  s.qsl_rng_seed = 2085463073848966840ULL;
  s.sample_index_rng_seed = 2747215439041700203ULL;
  s.schedule_rng_seed = 16159082839903944936ULL;
  return s;
}

lg::GeneratedQueries Generate(const lg::TestSettings& t, bool accuracy, std::vector<uint64_t>* loaded = nullptr) {
  lg::DetailLog log;
  lg::EffectiveSettings eff(t, 1024, 1024, &log);
  auto sets = lg::GenerateLoadableSets(eff, accuracy ? eff.accuracy_sample_count : eff.performance_sample_count, 1024);
  if (loaded) *loaded = sets.front().set;
  return lg::GenerateQueries(eff, sets.front(), accuracy);
}

TEST_CASE("Server accuracy schedule matches the official generated_query_duration") {
  auto t = OfficialSeeds(lg::Scenario::Server, lg::Mode::AccuracyOnly);
  t.server_target_qps = 1000;
  t.min_duration_ms = 10000;
  auto g = Generate(t, true);
  CHECK_EQ(g.query_count(), 1024u);
  CHECK_EQ(g.duration_ns, 987472266);
  // Official accuracy log: seq 0 -> 296, 1 -> 844, 2 -> 285, 3 -> 544, 4 -> 830, 1023 -> 520.
  CHECK_EQ(g.sample_index[0], 296u);
  CHECK_EQ(g.sample_index[1], 844u);
  CHECK_EQ(g.sample_index[2], 285u);
  CHECK_EQ(g.sample_index[3], 544u);
  CHECK_EQ(g.sample_index[4], 830u);
  CHECK_EQ(g.sample_index[1023], 520u);
}

TEST_CASE("Server performance generation matches the official count and duration") {
  auto t = OfficialSeeds(lg::Scenario::Server, lg::Mode::PerformanceOnly);
  t.server_target_qps = 1000;
  t.min_duration_ms = 2000;
  auto g = Generate(t, false);
  CHECK_EQ(g.query_count(), 2068u);
  CHECK_EQ(g.duration_ns, 2000668289);
}

TEST_CASE("SingleStream trace order matches the official run") {
  auto t = OfficialSeeds(lg::Scenario::SingleStream, lg::Mode::PerformanceOnly);
  t.min_query_count = 1000;
  t.min_duration_ms = 0;
  std::vector<uint64_t> loaded;
  auto g = Generate(t, false, &loaded);
  CHECK_EQ(g.query_count(), 1000u);
  CHECK_EQ(g.duration_ns, 1000000000);
  // The official trace: sample_seq 0 -> sample_idx 784, 1 -> 618.
  CHECK_EQ(g.sample_index[0], 784u);
  CHECK_EQ(g.sample_index[1], 618u);
  CHECK_EQ(loaded[0], 216u);
  CHECK_EQ(loaded[1], 267u);
}

TEST_CASE("Offline generation: samples per query and accuracy order") {
  auto t = OfficialSeeds(lg::Scenario::Offline, lg::Mode::PerformanceOnly);
  t.offline_expected_qps = 1000;
  t.min_duration_ms = 0;
  t.min_query_count = 4096;
  auto g = Generate(t, false);
  CHECK_EQ(g.query_count(), 1u);
  CHECK_EQ(g.samples_per_query, 4096u);
  CHECK_EQ(g.duration_ns, 1000000);
  t.min_duration_ms = 1000;
  t.min_query_count = 100;
  CHECK_EQ(Generate(t, false).samples_per_query, 1100u);
  t.mode = lg::Mode::AccuracyOnly;
  auto a = Generate(t, true);
  CHECK_EQ(a.samples_per_query, 1024u);
  // Official Offline accuracy log: seq 0 -> 216, 1 -> 267, 2 -> 822, 3 -> 906, 4 -> 663.
  CHECK_EQ(a.sample_index[0], 216u);
  CHECK_EQ(a.sample_index[4], 663u);
}

class InlineSut : public lg::SystemUnderTest {
 public:
  explicit InlineSut(int64_t tokens, bool from_thread) : tokens_(tokens), from_thread_(from_thread) {}
  std::string Name() override { return "InlineSUT"; }
  void IssueQuery(const lg::QuerySample* samples, size_t count) override {
    std::vector<lg::SampleResponse> r(count);
    std::vector<int32_t> data(count);
    for (size_t i = 0; i < count; i++) {
      r[i].id = samples[i].id;
      data[i] = static_cast<int32_t>(samples[i].index);
      r[i].data = reinterpret_cast<const uint8_t*>(&data[i]);
      r[i].size = 4;
      r[i].n_tokens = tokens_;
    }
    auto work = [r, data, this]() mutable {
      for (size_t i = 0; i < r.size(); i++) r[i].data = reinterpret_cast<const uint8_t*>(&data[i]);
      if (tokens_ > 0) lg::FirstTokenComplete(r.data(), r.size());
      lg::QuerySamplesComplete(r.data(), r.size());
    };
    if (from_thread_) {
      std::thread(work).detach();
    } else {
      work();
    }
  }
  void FlushQueries() override {}

 private:
  int64_t tokens_;
  bool from_thread_;
};

class NullQsl : public lg::QuerySampleLibrary {
 public:
  std::string Name() override { return "NullQSL"; }
  uint64_t TotalSampleCount() override { return 256; }
  uint64_t PerformanceSampleCount() override { return 128; }
  void LoadSamplesToRam(const std::vector<uint64_t>&) override {}
  void UnloadSamplesFromRam(const std::vector<uint64_t>&) override {}
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) n++;
  return n;
}

lg::TestOutcome Run(lg::TestSettings t, int64_t tokens, bool from_thread, const std::string& dir) {
  InlineSut sut(tokens, from_thread);
  NullQsl qsl;
  lg::LogSettings ls;
  ls.outdir = dir;
  lg::TestOptions opts;
  opts.audit_config_path = "";
  return lg::StartTest(&sut, &qsl, t, ls, opts);
}

TEST_CASE("every scenario runs to a VALID result with an inline C++ SUT") {
  const lg::Scenario all[] = {lg::Scenario::SingleStream, lg::Scenario::MultiStream, lg::Scenario::Server,
                              lg::Scenario::Offline};
  for (lg::Scenario sc : all) {
    for (bool thread : {false, true}) {
      auto t = OfficialSeeds(sc, lg::Mode::PerformanceOnly);
      // The expected latencies and Offline QPS must let the engine generate
      // enough queries for the minimum duration, as in the official engine.
      t.min_duration_ms = sc == lg::Scenario::Offline ? 0 : 50;
      t.min_query_count = sc == lg::Scenario::Offline ? 1 : 700;
      t.server_target_qps = 20000;
      t.server_target_latency_ns = 1000000000;
      t.offline_expected_qps = 1000;
      t.single_stream_expected_latency_ns = 500;
      t.multi_stream_expected_latency_ns = 500;
      auto out = Run(t, 0, thread, "/tmp/lg-engine-test");
      CHECK(out.has_summary);
      CHECK(out.summary.valid);
      CHECK_EQ(out.errors, 0u);
      if (!out.summary.valid) std::printf("%s", out.summary_text.c_str());
    }
  }
}

TEST_CASE("accuracy mode logs every sample exactly once, token data included") {
  auto t = OfficialSeeds(lg::Scenario::Server, lg::Mode::AccuracyOnly);
  t.server_target_qps = 50000;
  t.use_token_latencies = true;
  auto out = Run(t, 8, true, "/tmp/lg-engine-test-acc");
  CHECK_EQ(out.accuracy_log_entries, 256u);
  std::string acc = ReadFile("/tmp/lg-engine-test-acc/mlperf_log_accuracy.json");
  CHECK_EQ(CountOccurrences(acc, "\"token_data\""), 256);
  CHECK_EQ(CountOccurrences(acc, "\"token_count\" : 8"), 256);
  CHECK(acc.rfind("\n]\n") == acc.size() - 3);
  CHECK(!out.has_summary);
}

TEST_CASE("token counts of 0 and 1 are errors, as in the official engine") {
  auto t = OfficialSeeds(lg::Scenario::Server, lg::Mode::PerformanceOnly);
  t.server_target_qps = 20000;
  t.min_duration_ms = 10;
  t.min_query_count = 50;
  t.use_token_latencies = true;
  auto out = Run(t, 1, false, "/tmp/lg-engine-test-tok");
  CHECK(out.token_count_errors > 0);
  CHECK_EQ(out.errors, out.token_count_errors);
}

}  // namespace

TEST_MAIN()
