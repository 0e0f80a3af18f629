#include "test_settings.h"

#include <cctype>
#include <cstddef>
#include <sstream>

namespace lg {

namespace {

const char* const kScenarioNames[] = {"SingleStream", "MultiStream", "Server", "Offline"};
const char* const kModeNames[] = {"SubmissionRun", "AccuracyOnly", "PerformanceOnly", "FindPeakPerformance"};

bool EqualsIgnoreCase(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size(); i++) {
    if (b[i] == '\0') return false;
    const unsigned char ca = static_cast<unsigned char>(a[i]);
    const unsigned char cb = static_cast<unsigned char>(b[i]);
    if (std::tolower(ca) != std::tolower(cb)) return false;
  }
  return b[i] == '\0';
}

// Position of `name` in `names`, compared without regard to case (the
// official spellings differ in more than case, so this never is ambiguous).
template <size_t N>
int FindName(const std::string& name, const char* const (&names)[N]) {
  for (size_t i = 0; i < N; i++) {
    if (EqualsIgnoreCase(name, names[i])) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

const char* ToString(Scenario s) {
  switch (s) {
    case Scenario::SingleStream: return kScenarioNames[0];
    case Scenario::MultiStream: return kScenarioNames[1];
    case Scenario::Server: return kScenarioNames[2];
    case Scenario::Offline: return kScenarioNames[3];
  }
  return "InvalidScenario";
}

const char* ToString(Mode m) {
  switch (m) {
    case Mode::SubmissionRun: return kModeNames[0];
    case Mode::AccuracyOnly: return kModeNames[1];
    case Mode::PerformanceOnly: return kModeNames[2];
    case Mode::FindPeakPerformance: return kModeNames[3];
  }
  return "InvalidMode";
}

bool ParseScenario(const std::string& name, Scenario* out) {
  const int i = FindName(name, kScenarioNames);
  if (i < 0) return false;
  if (out) *out = static_cast<Scenario>(i);
  return true;
}

bool ParseMode(const std::string& name, Mode* out) {
  const int i = FindName(name, kModeNames);
  if (i < 0) return false;
  if (out) *out = static_cast<Mode>(i);
  return true;
}

std::string DescribeIssuePolicy(const TestSettings& s) {
  if (!s.NonMlperfIssuePolicy()) return "";
  std::ostringstream ss;
  if (!s.trace_schedule_ns.empty()) {
    ss << "trace replay, " << s.trace_schedule_ns.size() << " requests over " << s.TraceSpanNs() / 1000000 << " ms";
  } else if (s.closed_loop_concurrency > 0) {
    ss << "closed loop, concurrency " << s.closed_loop_concurrency;
  } else {
    ss << (s.server_burstiness != 1.0 ? "gamma arrivals" : "Poisson arrivals");
    if (s.server_burstiness != 1.0) ss << ", burstiness " << s.server_burstiness;
    if (s.ramp_start_qps > 0) {
      ss << ", " << (s.ramp_exponential ? "exponential" : "linear") << " ramp from " << s.ramp_start_qps << " to "
         << s.server_target_qps << " QPS over " << s.ramp_duration_ms << " ms";
    }
  }
  ss << " (not an MLPerf scenario)";
  return ss.str();
}

}  // namespace lg
