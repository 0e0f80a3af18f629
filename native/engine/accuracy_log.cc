#include "accuracy_log.h"

#include <chrono>
#include <string>

namespace lg {

namespace {

void AppendHex(const std::vector<uint8_t>& bytes, std::string* out) {
  static const char kDigits[] = "0123456789ABCDEF";
  out->push_back('"');
  for (uint8_t b : bytes) {
    out->push_back(kDigits[b >> 4]);
    out->push_back(kDigits[b & 0x0F]);
  }
  out->push_back('"');
}

}  // namespace

AccuracyLog::~AccuracyLog() { Close(); }

void AccuracyLog::Open(std::ostream* out, AccuracyFormat format) {
  Close();
  out_ = out;
  format_ = format;
  stop_ = false;
  need_comma_ = false;
  written_ = 0;
  if (out_) *out_ << "[";
  thread_ = std::thread([this] { Run(); });
}

void AccuracyLog::Add(AccuracyEntry&& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(std::move(entry));
}

void AccuracyLog::Run() {
  std::vector<AccuracyEntry> batch;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
    batch.swap(pending_);
    const bool stopping = stop_;
    lock.unlock();
    WriteBatch(&batch);
    batch.clear();
    lock.lock();
    if (stopping && pending_.empty()) return;
  }
}

void AccuracyLog::WriteBatch(std::vector<AccuracyEntry>* batch) {
  if (!out_ || batch->empty()) return;
  std::string text;
  for (const auto& e : *batch) {
    text.clear();
    text += need_comma_ ? ",\n{ " : "\n{ ";
    text +=
        "\"seq_id\" : " + std::to_string(e.seq_id) + ", \"qsl_idx\" : " + std::to_string(e.qsl_idx) + ", \"data\" : ";
    AppendHex(e.data, &text);
    if (format_ == AccuracyFormat::TokenDataAndCount) {
      text += ", \"token_data\" : ";
      AppendHex(e.token_data, &text);
    }
    if (format_ != AccuracyFormat::Plain) text += ", \"token_count\" : " + std::to_string(e.n_tokens);
    text += " }";
    *out_ << text;
    need_comma_ = true;
    written_++;
  }
  out_->flush();
}

void AccuracyLog::Close() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (out_) {
    *out_ << "\n]\n";
    out_->flush();
  }
  out_ = nullptr;
}

}  // namespace lg
