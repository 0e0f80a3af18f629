#include "test_context.h"

#include <cstring>
#include <stdexcept>

#include "clock.h"
#include "convert.h"

namespace lgaddon {

namespace {
constexpr size_t kDrainCapacity = 1 << 16;  // doubles
constexpr size_t kDirectCapacity = 1 << 12;
constexpr int64_t kSliceNs = 10 * 1000 * 1000;  // yield to the event loop every 10 ms
constexpr int64_t kSliceGapNs = 1000 * 1000;    // a 1 ms gap means we already yielded

uv_loop_t* LoopOf(Napi::Env env) {
  uv_loop_t* loop = nullptr;
  napi_get_uv_event_loop(env, &loop);
  return loop;
}

// Marks the JS dispatcher as running for the scope (nested scopes restore).
class DispatchScope {
 public:
  explicit DispatchScope(bool* flag) : flag_(flag), old_(*flag) { *flag = true; }
  ~DispatchScope() { *flag_ = old_; }

 private:
  bool* flag_;
  bool old_;
};

size_t PackQuery(double* out, const lg::QuerySample* samples, size_t count) {
  out[0] = static_cast<double>(count);
  for (size_t i = 0; i < count; i++) {
    out[1 + 2 * i] = static_cast<double>(samples[i].id);
    out[2 + 2 * i] = static_cast<double>(samples[i].index);
  }
  return 1 + 2 * count;
}
}  // namespace

TestContext::TestContext(Napi::Env env, Napi::Object dispatcher)
    : env_(env), dispatcher_(Napi::Persistent(dispatcher)), owner_(std::this_thread::get_id()) {
  issue_fn_ = Napi::Persistent(dispatcher.Get("issue").As<Napi::Function>());
  flush_fn_ = Napi::Persistent(dispatcher.Get("flush").As<Napi::Function>());
  load_fn_ = Napi::Persistent(dispatcher.Get("load").As<Napi::Function>());
  unload_fn_ = Napi::Persistent(dispatcher.Get("unload").As<Napi::Function>());
  done_fn_ = Napi::Persistent(dispatcher.Get("done").As<Napi::Function>());
  Napi::Float64Array drain = Napi::Float64Array::New(env, kDrainCapacity);
  drain_data_ = drain.Data();
  drain_cap_ = kDrainCapacity;
  drain_buf_ = Napi::Persistent(drain);
  Napi::Float64Array mailbox = Napi::Float64Array::New(env, kDirectCapacity);
  mailbox_ = mailbox.Data();
  mailbox_cap_ = kDirectCapacity;
  mailbox_buf_ = Napi::Persistent(mailbox);
  dispatcher.Set("mailbox", mailbox);
  Napi::Float64Array direct = Napi::Float64Array::New(env, kDirectCapacity);
  direct_data_ = direct.Data();
  direct_cap_ = kDirectCapacity;
  direct_buf_ = Napi::Persistent(direct);
  channel_.reset(new MainThreadChannel(
      LoopOf(env),
      [this](const std::vector<lg::QuerySample>& s, const std::vector<uint32_t>& sizes) { DeliverQueries(s, sizes); }));
}

TestContext::~TestContext() {
  if (engine_thread_.joinable()) engine_thread_.join();
  if (channel_) channel_->Close();
}

void TestContext::Start(lg::SystemUnderTest* sut, lg::QuerySampleLibrary* qsl, lg::TestSettings settings,
                        lg::LogSettings log_settings, lg::TestOptions options,
                        std::unique_ptr<lg::SystemUnderTest> owned_sut,
                        std::unique_ptr<lg::QuerySampleLibrary> owned_qsl) {
  owned_sut_ = std::move(owned_sut);
  owned_qsl_ = std::move(owned_qsl);
  engine_thread_ = std::thread([this, sut, qsl, settings, log_settings, options] {
    auto outcome = std::make_shared<lg::TestOutcome>();
    auto failure = std::make_shared<std::string>();
    try {
      *outcome = lg::StartTest(sut, qsl, settings, log_settings, options);
    } catch (const std::exception& e) {
      *failure = e.what();
      if (failure->empty()) *failure = "the test failed";
    }
    {
      std::lock_guard<std::mutex> lock(done_mu_);
      engine_done_ = true;
    }
    done_cv_.notify_all();
    if (exiting_.load(std::memory_order_acquire)) return;  // nobody is left to hear the outcome
    channel_->PostControl([this, outcome, failure] {
      Napi::HandleScope scope(env_);
      finished_ = true;
      Napi::Value result = failure->empty() ? Napi::Value(OutcomeToJs(env_, *outcome)) : Napi::Value(env_.Null());
      Napi::Value error = failure->empty() ? Napi::Value(env_.Null()) : Napi::Value(Napi::String::New(env_, *failure));
      if (engine_thread_.joinable()) engine_thread_.join();
      channel_->Close();
      try {
        done_fn_.MakeCallback(dispatcher_.Value(), {result, error});
      } catch (const Napi::Error&) {
        // The dispatcher reports its own errors; nothing is left to abort.
      }
    });
  });
}

void TestContext::AbandonOnExit(std::chrono::milliseconds grace) {
  if (!engine_thread_.joinable()) return;
  exiting_.store(true, std::memory_order_release);
  lg::AbortTest("the process is exiting");
  {
    std::lock_guard<std::mutex> lock(qsl_mu_);  // wakes a QSL call that JS will never settle
  }
  qsl_cv_.notify_all();
  bool done;
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    done = done_cv_.wait_for(lock, grace, [this] { return engine_done_; });
  }
  // A finished engine has flushed and closed its log files; one still busy
  // after the grace period is left behind so that the exit goes on.
  if (done) {
    engine_thread_.join();
  } else {
    engine_thread_.detach();
  }
  channel_->Silence();
  // The loop's handle must be closed on its own thread (a worker's loop is
  // checked for open handles when the worker ends).
  if (OnOwnerThread()) channel_->Close();
}

bool TestContext::PostToMailbox(const lg::QuerySample* samples, size_t count) {
  if (mailbox_[0] != 0 || 2 + 2 * count > mailbox_cap_) return false;
  const size_t words = PackQuery(mailbox_ + 1, samples, count);
  mailbox_[0] = static_cast<double>(words);
  return true;
}

void TestContext::FlushMailboxIfIdle() {
  if (in_dispatch_ || mailbox_[0] == 0 || finished_) return;
  Napi::HandleScope scope(env_);
  DispatchScope dispatching(&in_dispatch_);
  issue_fn_.Call(dispatcher_.Value(), {direct_buf_.Value(), Napi::Number::New(env_, 0)});
}

void TestContext::DispatchDirect(const lg::QuerySample* samples, size_t count) {
  Napi::HandleScope scope(env_);
  DispatchScope dispatching(&in_dispatch_);
  if (1 + 2 * count <= direct_cap_) {
    const size_t words = PackQuery(direct_data_, samples, count);
    issue_fn_.Call(dispatcher_.Value(), {direct_buf_.Value(), Napi::Number::New(env_, static_cast<double>(words))});
  } else {
    Napi::Float64Array big = Napi::Float64Array::New(env_, 1 + 2 * count);
    const size_t words = PackQuery(big.Data(), samples, count);
    issue_fn_.Call(dispatcher_.Value(), {big, Napi::Number::New(env_, static_cast<double>(words))});
  }
}

void TestContext::DeliverQueries(const std::vector<lg::QuerySample>& samples, const std::vector<uint32_t>& sizes) {
  Napi::HandleScope scope(env_);
  DispatchScope dispatching(&in_dispatch_);
  slice_start_ns_ = slice_last_ns_ = lg::NowNs();
  size_t used = 0;
  size_t offset = 0;
  auto flush = [&]() {
    if (used == 0) return;
    issue_fn_.MakeCallback(dispatcher_.Value(),
                           {drain_buf_.Value(), Napi::Number::New(env_, static_cast<double>(used))});
    used = 0;
  };
  try {
    for (uint32_t n : sizes) {
      const size_t words = 1 + 2 * static_cast<size_t>(n);
      if (words > drain_cap_) {
        // A query too big for the shared buffer (Offline) travels alone.
        flush();
        Napi::Float64Array big = Napi::Float64Array::New(env_, words);
        PackQuery(big.Data(), samples.data() + offset, n);
        issue_fn_.MakeCallback(dispatcher_.Value(), {big, Napi::Number::New(env_, static_cast<double>(words))});
      } else {
        if (used + words > drain_cap_) flush();
        used += PackQuery(drain_data_ + used, samples.data() + offset, n);
      }
      offset += n;
    }
    flush();
  } catch (const Napi::Error& e) {
    lg::AbortTest(std::string("issueQuery dispatch failed: ") + e.Message());
  }
}

void TestContext::SettleQslCall(uint64_t token, std::string error) {
  {
    std::lock_guard<std::mutex> lock(qsl_mu_);
    auto it = qsl_calls_.find(token);
    if (it == qsl_calls_.end()) return;
    it->second = {true, std::move(error)};
  }
  qsl_cv_.notify_all();
}

void JsSut::IssueQuery(const lg::QuerySample* samples, size_t count) {
  if (ctx_->OnOwnerThread()) {
    if (ctx_->PostToMailbox(samples, count)) return;
    ctx_->DispatchDirect(samples, count);
  } else {
    ctx_->channel_->PostQuery(samples, count);
  }
}

void JsSut::FlushQueries() {
  TestContext* ctx = ctx_;
  ctx->channel_->PostControl([ctx] {
    Napi::HandleScope scope(ctx->env_);
    try {
      ctx->flush_fn_.MakeCallback(ctx->dispatcher_.Value(), {});
    } catch (const Napi::Error& e) {
      lg::AbortTest(std::string("flushQueries failed: ") + e.Message());
    }
  });
}

bool JsSut::CanIssueOnThisThread() {
  if (!ctx_->OnOwnerThread()) return false;
  const int64_t now = lg::NowNs();
  if (now - ctx_->slice_last_ns_ > kSliceGapNs) ctx_->slice_start_ns_ = now;
  ctx_->slice_last_ns_ = now;
  return now - ctx_->slice_start_ns_ < kSliceNs;
}

void JsSut::RequestIssueContext() {
  TestContext* ctx = ctx_;
  ctx->channel_->PostControl([ctx] {
    Napi::HandleScope scope(ctx->env_);
    ctx->slice_start_ns_ = ctx->slice_last_ns_ = lg::NowNs();
    try {
      lg::ResumeIssuing();
      ctx->FlushMailboxIfIdle();
    } catch (const Napi::Error& e) {
      lg::AbortTest(std::string("issueQuery failed: ") + e.Message());
    }
  });
}

void JsQsl::LoadSamplesToRam(const std::vector<uint64_t>& indices) { CallAndWait("load", indices); }
void JsQsl::UnloadSamplesFromRam(const std::vector<uint64_t>& indices) { CallAndWait("unload", indices); }

void JsQsl::CallAndWait(const char* method, const std::vector<uint64_t>& indices) {
  TestContext* ctx = ctx_;
  uint64_t token;
  {
    std::lock_guard<std::mutex> lock(ctx->qsl_mu_);
    token = ++ctx->next_token_;
    ctx->qsl_calls_[token] = {false, ""};
  }
  const bool load = std::strcmp(method, "load") == 0;
  auto copy = std::make_shared<std::vector<uint64_t>>(indices);
  ctx->channel_->PostControl([ctx, token, load, copy] {
    Napi::HandleScope scope(ctx->env_);
    Napi::Float64Array arr = Napi::Float64Array::New(ctx->env_, copy->size());
    for (size_t i = 0; i < copy->size(); i++) arr[i] = static_cast<double>((*copy)[i]);
    try {
      (load ? ctx->load_fn_ : ctx->unload_fn_)
          .MakeCallback(ctx->dispatcher_.Value(), {Napi::Number::New(ctx->env_, static_cast<double>(token)), arr});
    } catch (const Napi::Error& e) {
      ctx->SettleQslCall(token, e.Message());
    }
  });
  std::unique_lock<std::mutex> lock(ctx->qsl_mu_);
  for (;;) {
    auto& entry = ctx->qsl_calls_[token];
    if (entry.first) break;
    if (ctx->Exiting()) {
      ctx->qsl_calls_.erase(token);
      throw std::runtime_error("the process is exiting");
    }
    if (ctx->qsl_cv_.wait_for(lock, std::chrono::milliseconds(50)) == std::cv_status::timeout) {
      // An abort (Ctrl-C, a failed SUT) must not leave the engine blocked here.
      if (lg::GetProgress().running && !ctx->qsl_calls_[token].first) {
        lock.unlock();
        bool aborted = false;
        {
          // AbortTest sets the flag that the engine driver polls.
          aborted = lg::AbortRequested();
        }
        lock.lock();
        if (aborted) {
          ctx->qsl_calls_.erase(token);
          throw std::runtime_error("aborted while waiting for the QSL");
        }
      }
    }
  }
  std::string error = ctx->qsl_calls_[token].second;
  ctx->qsl_calls_.erase(token);
  if (!error.empty())
    throw std::runtime_error(std::string("QSL ") + (load ? "loadSamplesToRam" : "unloadSamplesFromRam") +
                             " failed: " + error);
}

}  // namespace lgaddon
