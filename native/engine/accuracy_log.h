// Writer of mlperf_log_accuracy.json. Completing threads hand over entries
// (a copy of the response bytes); a background thread formats and writes
// them, so completion stays cheap and a crash loses only the last interval.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

namespace lg {

struct AccuracyEntry {
  uint64_t seq_id;
  uint64_t qsl_idx;
  std::vector<uint8_t> data;
  std::vector<uint8_t> token_data;
  int64_t n_tokens;
};

enum class AccuracyFormat { Plain, TokenCount, TokenDataAndCount };

class AccuracyLog {
 public:
  ~AccuracyLog();
  void Open(std::ostream* out, AccuracyFormat format);
  void Add(AccuracyEntry&& entry);
  // Writes everything queued, the closing bracket, and stops the writer thread.
  void Close();
  uint64_t entries_written() const { return written_; }

 private:
  void Run();
  void WriteBatch(std::vector<AccuracyEntry>* batch);

  std::ostream* out_ = nullptr;
  AccuracyFormat format_ = AccuracyFormat::Plain;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<AccuracyEntry> pending_;
  bool stop_ = false;
  bool need_comma_ = false;
  uint64_t written_ = 0;
  std::thread thread_;
};

}  // namespace lg
