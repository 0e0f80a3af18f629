// The engine's public entry points: run one test, complete samples from any
// thread, abort. One test runs at a time per process, as in the official
// LoadGen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results.h"
#include "sut.h"
#include "test_settings.h"

namespace lg {

// The LoadGen version whose behaviour and log formats this engine follows.
constexpr const char* kCompatibleLoadgenVersion = "6.0.17";
constexpr const char* kEngineVersion = "0.1.0";

struct TestOptions {
  std::string audit_config_path = "audit.config";
};

struct TestOutcome {
  bool has_summary = false;                // a performance result exists
  Summary summary;                         // the final performance summary
  std::string summary_text;                // the whole mlperf_log_summary.txt
  EffectiveSettings* effective = nullptr;  // unused by callers; kept null
  uint64_t warnings = 0;
  uint64_t errors = 0;
  std::vector<std::string> error_messages;
  uint64_t unknown_ids = 0;
  uint64_t duplicate_completions = 0;
  uint64_t duplicate_first_tokens = 0;
  uint64_t late_first_tokens = 0;
  uint64_t token_count_errors = 0;
  uint64_t missing_first_tokens = 0;
  uint64_t accuracy_log_entries = 0;
  bool aborted = false;
  std::string abort_reason;
  std::string summary_path, detail_path, accuracy_path, trace_path;
  // Effective values the JS result reports.
  uint64_t effective_samples_per_query = 0;
  uint64_t effective_min_query_count = 0;
  double effective_target_qps = 0;
  uint64_t performance_sample_count = 0;
  uint64_t accuracy_sample_count = 0;
  double peak_target_qps = 0;  // FindPeakPerformance: the best passing QPS
};

// Runs a whole test on the calling thread. Throws std::runtime_error when a
// test is already running or the log files cannot be opened; errors raised
// by the SUT/QSL callbacks should be reported through AbortTest.
TestOutcome StartTest(SystemUnderTest* sut, QuerySampleLibrary* qsl, const TestSettings& settings,
                      const LogSettings& log_settings, const TestOptions& options);

// Thread-safe, wait-free with respect to other completing threads (apart from
// the accuracy-log hand-over of logged samples).
void QuerySamplesComplete(const SampleResponse* responses, size_t count);
void FirstTokenComplete(const SampleResponse* responses, size_t count);

// When the query holding response id `id` was scheduled and issued (steady
// clock ns), for harness-side timings; false if the id is not issued.
bool SampleIssueTimes(uint64_t id, int64_t* scheduled_ns, int64_t* issued_ns);

// Writes a line from the SUT side into the running test's detail log (for
// example a sample that failed at the endpoint). Returns false when no test
// is running. Errors count in the summary's error tally, as official ones do.
enum class SutLogLevel { Info, Warning, Error };
bool LogSutMessage(const std::string& key, const std::string& message, SutLogLevel level);

// Ends the running test as soon as possible; logs are still written.
void AbortTest(const std::string& reason);

// SingleStream/MultiStream: continue issuing on the calling thread (see
// SystemUnderTest::RequestIssueContext).
void ResumeIssuing();

bool TestRunning();
bool AbortRequested();

// Progress of the running test, for reporting (relaxed reads).
struct Progress {
  bool running;
  uint64_t issued_samples;
  uint64_t completed_samples;
  int64_t elapsed_ns;
};
Progress GetProgress();

}  // namespace lg
