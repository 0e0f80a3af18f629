// Writer of mlperf_log_detail.txt: one `:::MLLOG {...}` JSON line per event,
// in the official key/value format that MLPerf's submission tools parse.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace lg {

// A value as it appears after `"value": ` in an MLLOG line.
class LogValue {
 public:
  LogValue(const std::string& s);  // quoted JSON string
  LogValue(const char* s);         // quoted JSON string
  LogValue(bool b);                // true / false
  LogValue(int v);
  LogValue(unsigned v);
  LogValue(long v);
  LogValue(unsigned long v);
  LogValue(long long v);
  LogValue(unsigned long long v);
  LogValue(double v);                           // default ostream format: 6 significant digits
  LogValue(const std::vector<uint64_t>& list);  // [1,2,3]
  static LogValue Raw(std::string json);        // already-formatted JSON
  const std::string& text() const { return text_; }

 private:
  LogValue() = default;
  std::string text_;
};

enum class LogFlag { None, Error, Warning };

class DetailLog {
 public:
  // `origin_ns` is the steady-clock time that `time_ms` counts from.
  void Open(std::ostream* out, bool copy_to_stdout, int64_t origin_ns);
  void Close();

  void Log(const std::string& key, const LogValue& value, const char* file, int line, LogFlag flag = LogFlag::None);
  // Same as Log, but every line shares one timestamp, as a block of settings does.
  void SetFixedTime(int64_t ns);  // 0 = take a new timestamp per line
  uint64_t error_count() const;
  uint64_t warning_count() const;
  void ResetCounts();
  std::vector<std::string> errors() const;  // messages of error lines, for the result

 private:
  mutable std::mutex mu_;
  std::ostream* out_ = nullptr;
  bool copy_to_stdout_ = false;
  int64_t origin_ns_ = 0;
  int64_t fixed_ns_ = 0;
  uint64_t errors_ = 0;
  uint64_t warnings_ = 0;
  std::vector<std::string> error_messages_;
  long pid_ = 0;
};

}  // namespace lg

// Source file and line go in each line's metadata, as in the official logs.
#define LG_LOG(log, key, value) (log).Log((key), (value), LG_FILE, __LINE__)
#define LG_LOG_ERROR(log, key, value) (log).Log((key), (value), LG_FILE, __LINE__, ::lg::LogFlag::Error)
#define LG_LOG_WARNING(log, key, value) (log).Log((key), (value), LG_FILE, __LINE__, ::lg::LogFlag::Warning)
#ifndef LG_FILE
#define LG_FILE ::lg::ShortFile(__FILE__)
#endif
namespace lg {
// "native/engine/results.cc" rather than a build machine's absolute path.
const char* ShortFile(const char* path);
}  // namespace lg
