// Helpers shared by the settings tests (settings_effective_test.cc,
// settings_log_test.cc): settings with the official seeds, the official runs'
// settings, and the MLLOG lines a DetailLog writes, parsed back. Functions are
// inline so a test that leaves one unused gets no warning.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "clock.h"
#include "detail_log.h"
#include "test_settings.h"

namespace settings_support {

using lg::Mode;
using lg::Scenario;
using lg::TestSettings;

const uint64_t kQslSeed = 2085463073848966840ULL;
const uint64_t kSampleSeed = 2747215439041700203ULL;
const uint64_t kScheduleSeed = 16159082839903944936ULL;

inline TestSettings WithSeeds(Scenario scenario, Mode mode) {
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

inline std::string Between(const std::string& line, const std::string& open, const std::string& close) {
  const size_t a = line.find(open);
  if (a == std::string::npos) return "";
  const size_t b = line.find(close, a + open.size());
  if (b == std::string::npos) return "";
  return line.substr(a + open.size(), b - a - open.size());
}

inline std::vector<LogLine> ParseLog(const std::string& text) {
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
inline std::vector<LogLine> Logged(Fn fn) {
  std::ostringstream out;
  lg::DetailLog log;
  log.Open(&out, false, lg::NowNs());
  fn(&log);
  log.Close();
  return ParseLog(out.str());
}

inline const LogLine* Find(const std::vector<LogLine>& lines, const std::string& key) {
  for (const auto& l : lines) {
    if (l.key == key) return &l;
  }
  return nullptr;
}

inline std::string ValueOf(const std::vector<LogLine>& lines, const std::string& key) {
  const LogLine* l = Find(lines, key);
  return l ? l->value : std::string("<missing>");
}

// The official runs: QSL of 1024 samples, performance count 1024.
inline TestSettings OfficialServerRun() {
  TestSettings s = WithSeeds(Scenario::Server, Mode::PerformanceOnly);
  s.server_target_qps = 1000;
  s.server_target_latency_ns = 10000000;
  s.min_duration_ms = 2000;
  s.use_token_latencies = true;
  s.server_ttft_latency = 2000000000;
  s.server_tpot_latency = 200000000;
  return s;
}

inline TestSettings OfficialOfflineInvalidRun() {
  TestSettings s = WithSeeds(Scenario::Offline, Mode::PerformanceOnly);
  s.offline_expected_qps = 1000;
  s.min_duration_ms = 1000;
  s.use_token_latencies = true;
  s.server_ttft_latency = 2000000000;
  s.server_tpot_latency = 200000000;
  return s;
}

inline TestSettings OfficialSingleStreamRun() {
  TestSettings s = WithSeeds(Scenario::SingleStream, Mode::PerformanceOnly);
  s.single_stream_expected_latency_ns = 1000000;
  s.min_duration_ms = 0;
  s.min_query_count = 1000;
  return s;
}

}  // namespace settings_support
