#include "detail_log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "clock.h"
#include "json_escape.h"

namespace lg {

const char* ShortFile(const char* path) {
  const char* p = std::strstr(path, "native/");
  return p ? p : path;
}

LogValue::LogValue(const std::string& s) : text_("\"" + JsonEscape(s) + "\"") {}
LogValue::LogValue(const char* s) : LogValue(std::string(s)) {}
LogValue::LogValue(bool b) : text_(b ? "true" : "false") {}
LogValue::LogValue(int v) : text_(std::to_string(v)) {}
LogValue::LogValue(unsigned v) : text_(std::to_string(v)) {}
LogValue::LogValue(long v) : text_(std::to_string(v)) {}
LogValue::LogValue(unsigned long v) : text_(std::to_string(v)) {}
LogValue::LogValue(long long v) : text_(std::to_string(v)) {}
LogValue::LogValue(unsigned long long v) : text_(std::to_string(v)) {}
LogValue::LogValue(double v) {
  std::ostringstream ss;
  ss << v;
  text_ = ss.str();
}
LogValue::LogValue(const std::vector<uint64_t>& list) {
  text_.reserve(list.size() * 6 + 2);
  text_ += '[';
  for (size_t i = 0; i < list.size(); i++) {
    if (i) text_ += ',';
    text_ += std::to_string(list[i]);
  }
  text_ += ']';
}
LogValue LogValue::Raw(std::string json) {
  LogValue v;
  v.text_ = std::move(json);
  return v;
}

void DetailLog::Open(std::ostream* out, bool copy_to_stdout, int64_t origin_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  out_ = out;
  copy_to_stdout_ = copy_to_stdout;
  origin_ns_ = origin_ns;
  fixed_ns_ = 0;
  errors_ = warnings_ = 0;
  error_messages_.clear();
  pid_ = static_cast<long>(getpid());
}

void DetailLog::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (out_) out_->flush();
  out_ = nullptr;
}

void DetailLog::SetFixedTime(int64_t ns) {
  std::lock_guard<std::mutex> lock(mu_);
  fixed_ns_ = ns;
}

void DetailLog::Log(const std::string& key, const LogValue& value, const char* file, int line, LogFlag flag) {
  const int64_t now = NowNs();
  std::lock_guard<std::mutex> lock(mu_);
  if (flag == LogFlag::Error) {
    errors_++;
    if (error_messages_.size() < 100) error_messages_.push_back(key + ": " + value.text());
  } else if (flag == LogFlag::Warning) {
    warnings_++;
  }
  if (!out_ && !copy_to_stdout_) return;
  int64_t t = (fixed_ns_ ? fixed_ns_ : now) - origin_ns_;
  if (t < 0) t = 0;
  const long tid = static_cast<long>(syscall(SYS_gettid));
  char time_buf[48];
  std::snprintf(time_buf, sizeof time_buf, "%" PRId64 ".%06" PRId64, t / 1000000, t % 1000000);
  std::string lineText;
  lineText.reserve(256 + value.text().size());
  lineText += ":::MLLOG {\"key\": \"";
  lineText += JsonEscape(key);
  lineText += "\", \"value\": ";
  lineText += value.text();
  lineText += ", \"time_ms\": ";
  lineText += time_buf;
  lineText += ", \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": ";
  lineText += flag == LogFlag::Error ? "true" : "false";
  lineText += ", \"is_warning\": ";
  lineText += flag == LogFlag::Warning ? "true" : "false";
  lineText += ", \"file\": \"";
  lineText += file;
  lineText += "\", \"line_no\": ";
  lineText += std::to_string(line);
  lineText += ", \"pid\": ";
  lineText += std::to_string(pid_);
  lineText += ", \"tid\": ";
  lineText += std::to_string(tid);
  lineText += "}}\n";
  if (out_) {
    *out_ << lineText;
    // Errors are flushed at once so a crash right after still leaves them readable.
    if (flag == LogFlag::Error) out_->flush();
  }
  if (copy_to_stdout_) std::cout << lineText << std::flush;
}

uint64_t DetailLog::error_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return errors_;
}
uint64_t DetailLog::warning_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}
void DetailLog::ResetCounts() {
  std::lock_guard<std::mutex> lock(mu_);
  errors_ = warnings_ = 0;
  error_messages_.clear();
}
std::vector<std::string> DetailLog::errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_messages_;
}

}  // namespace lg
