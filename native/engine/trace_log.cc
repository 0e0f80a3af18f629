#include "trace_log.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace lg {

namespace {
// Trace timestamps are microseconds with three decimals (ns precision).
void AppendMicros(int64_t ns, std::string* out) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>((ns < 0 ? -ns : ns) % 1000));
  *out += buf;
}
}  // namespace

TraceLog::TraceLog(std::ostream* out, int64_t origin_ns) : out_(out), origin_ns_(origin_ns), pid_(getpid()) {
  *out_ << "{\"traceEvents\":[\n";
}

void TraceLog::AddSamples(const std::vector<IssueRun::SampleTimes>& samples, bool server) {
  std::string line;
  for (const auto& s : samples) {
    line.clear();
    const int64_t begin = s.scheduled_ns - origin_ns_;
    line += "{\"name\":\"Sample\",\"cat\":\"default\",\"ph\":\"b\",\"pid\":" + std::to_string(pid_) +
            ",\"id\":" + std::to_string(s.seq_id) + ",\"ts\":";
    AppendMicros(begin, &line);
    line += ",\"args\":{\"sample_seq\":" + std::to_string(s.seq_id) + ",\"query_seq\":" + std::to_string(s.query) +
            ",\"sample_idx\":" + std::to_string(s.qsl_index) +
            ",\"issue_start_ns\":" + std::to_string(s.issued_ns - s.scheduled_ns) +
            ",\"complete_ns\":" + std::to_string(s.complete_ns ? s.complete_ns - s.scheduled_ns : -1) + "}},\n";
    if (s.complete_ns) {
      line += "{\"name\":\"Sample\",\"cat\":\"default\",\"ph\":\"e\", \"pid\":" + std::to_string(pid_) +
              ",\"id\":" + std::to_string(s.seq_id) + ",\"ts\":";
      AppendMicros(s.complete_ns - origin_ns_, &line);
      line += "},\n";
    }
    if (s.first_token_ns) {
      line += "{\"name\":\"" + std::string(server ? "Token_Latency" : "Token") +
              "\",\"ph\":\"n\",\"cat\":\"default\",\"pid\":" + std::to_string(pid_) +
              ",\"id\":" + std::to_string(s.seq_id) + ",\"ts\":";
      AppendMicros(s.first_token_ns - origin_ns_, &line);
      line += "},\n";
    }
    *out_ << line;
  }
  out_->flush();
}

void TraceLog::Finish() {
  if (finished_) return;
  finished_ = true;
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string ts;
  AppendMicros(since_epoch, &ts);
  *out_ << "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n\"ts\":" << ts
        << ",\n\"version\":\"MLPerf LoadGen v1.0\"\n}\n}\n";
  out_->flush();
}

}  // namespace lg
