// The running test as seen from JS: the engine thread, the JS-backed SUT and
// QSL, and the channel that carries their calls to the JS thread.
#pragma once

#include <napi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "loadgen.h"
#include "main_thread_channel.h"

namespace lgaddon {

class TestContext;

// Forwards IssueQuery/FlushQueries to the JS dispatcher.
class JsSut : public lg::SystemUnderTest {
 public:
  JsSut(TestContext* ctx, std::string name) : ctx_(ctx), name_(std::move(name)) {}
  std::string Name() override { return name_; }
  void IssueQuery(const lg::QuerySample* samples, size_t count) override;
  void FlushQueries() override;
  bool CanIssueOnThisThread() override;
  void RequestIssueContext() override;

 private:
  TestContext* ctx_;
  std::string name_;
};

// Forwards LoadSamplesToRam/UnloadSamplesFromRam to JS and blocks the engine
// thread until the JS side (possibly a promise) settles.
class JsQsl : public lg::QuerySampleLibrary {
 public:
  JsQsl(TestContext* ctx, std::string name, uint64_t total, uint64_t perf)
      : ctx_(ctx), name_(std::move(name)), total_(total), perf_(perf) {}
  std::string Name() override { return name_; }
  uint64_t TotalSampleCount() override { return total_; }
  uint64_t PerformanceSampleCount() override { return perf_; }
  void LoadSamplesToRam(const std::vector<uint64_t>& indices) override;
  void UnloadSamplesFromRam(const std::vector<uint64_t>& indices) override;

 private:
  void CallAndWait(const char* method, const std::vector<uint64_t>& indices);
  TestContext* ctx_;
  std::string name_;
  uint64_t total_, perf_;
};

class TestContext {
 public:
  TestContext(Napi::Env env, Napi::Object dispatcher);
  ~TestContext();

  void Start(lg::SystemUnderTest* sut, lg::QuerySampleLibrary* qsl, lg::TestSettings settings,
             lg::LogSettings log_settings, lg::TestOptions options, std::unique_ptr<lg::SystemUnderTest> owned_sut,
             std::unique_ptr<lg::QuerySampleLibrary> owned_qsl);
  void SettleQslCall(uint64_t token, std::string error);
  // The process (or this JS environment) is ending while the test may still
  // run: abort it, give the engine up to `grace` to write its logs, and never
  // block longer than that. Afterwards this object must not be destroyed (the
  // engine thread, if it is still running, may post to the channel).
  void AbandonOnExit(std::chrono::milliseconds grace);
  bool Exiting() const { return exiting_.load(std::memory_order_acquire); }

  bool OnOwnerThread() const { return std::this_thread::get_id() == owner_; }
  // JS thread only.
  void DispatchDirect(const lg::QuerySample* samples, size_t count);
  // SingleStream/MultiStream on the JS thread: the next query goes into a
  // one-query mailbox that the JS dispatcher's loop empties, so issuing it
  // costs no native→JS call. Returns false when the mailbox is taken.
  bool PostToMailbox(const lg::QuerySample* samples, size_t count);
  // After an engine call made from JS outside a dispatch: deliver a query
  // left in the mailbox.
  void FlushMailboxIfIdle();
  bool in_dispatch_ = false;
  void DeliverQueries(const std::vector<lg::QuerySample>& samples, const std::vector<uint32_t>& sizes);

  Napi::Env env_;
  Napi::ObjectReference dispatcher_;
  Napi::FunctionReference issue_fn_, flush_fn_, load_fn_, unload_fn_, done_fn_;
  std::unique_ptr<MainThreadChannel> channel_;
  std::thread::id owner_;
  std::thread engine_thread_;

  // Reused Float64Array handed to the dispatcher: [n, id, index, id, index, ..., n, ...].
  Napi::Reference<Napi::Float64Array> drain_buf_;
  double* drain_data_ = nullptr;
  size_t drain_cap_ = 0;
  Napi::Reference<Napi::Float64Array> mailbox_buf_;  // [words, n, id, index, ...]
  double* mailbox_ = nullptr;
  size_t mailbox_cap_ = 0;
  Napi::Reference<Napi::Float64Array> direct_buf_;
  double* direct_data_ = nullptr;
  size_t direct_cap_ = 0;

  // Time-slicing of inline SingleStream/MultiStream issuing on the JS thread.
  int64_t slice_start_ns_ = 0;
  int64_t slice_last_ns_ = 0;

  std::mutex qsl_mu_;
  std::condition_variable qsl_cv_;
  std::map<uint64_t, std::pair<bool, std::string>> qsl_calls_;  // token → (settled, error)
  uint64_t next_token_ = 0;

  std::unique_ptr<lg::SystemUnderTest> owned_sut_;
  std::unique_ptr<lg::QuerySampleLibrary> owned_qsl_;
  bool finished_ = false;

 private:
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool engine_done_ = false;  // StartTest returned on the engine thread
  std::atomic<bool> exiting_{false};
};

}  // namespace lgaddon
