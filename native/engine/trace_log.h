// Writer of mlperf_log_trace.json (Chrome trace-event format). Built from
// the per-sample timestamps after each pass, so tracing costs nothing while
// queries are being issued and completed.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "issue_run.h"

namespace lg {

class TraceLog {
 public:
  TraceLog(std::ostream* out, int64_t origin_ns);
  void AddSamples(const std::vector<IssueRun::SampleTimes>& samples, bool server);
  void Finish();

 private:
  void Event(const char* text);
  std::ostream* out_;
  int64_t origin_ns_;
  long pid_;
  bool finished_ = false;
};

}  // namespace lg
