#include "worker_queues.h"

#include <algorithm>
#include <map>

#include "loadgen.h"

namespace lgaddon {

namespace {
constexpr size_t kDeliverPairs = 8192;  // pairs per JS call; the rest follow in the same wake-up

std::mutex g_groups_mu;
std::map<uint32_t, std::shared_ptr<WorkerQueueGroup>> g_groups;
uint32_t g_next_group = 1;
}  // namespace

void WorkerQueue::WakeLocked() {
  // libuv coalesces sends: while one is pending this is an atomic check.
  if (async_ != nullptr) uv_async_send(async_);
}

void WorkerQueue::Push(const lg::QuerySample* samples, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < count; i++) {
    pairs_.push_back(static_cast<double>(samples[i].id));
    pairs_.push_back(static_cast<double>(samples[i].index));
  }
  WakeLocked();
}

size_t WorkerQueue::Waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  return (pairs_.size() - head_) / 2;
}

void WorkerQueue::Attach(Napi::Env env, Napi::Function callback, std::shared_ptr<WorkerQueueGroup> keep) {
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr)
    throw Napi::Error::New(env, "worker queue: no event loop");
  Napi::Float64Array buffer = Napi::Float64Array::New(env, 2 * kDeliverPairs);
  std::lock_guard<std::mutex> lock(mu_);
  if (async_ != nullptr) throw Napi::Error::New(env, "worker queue: already attached");
  env_ = env;
  keep_ = std::move(keep);
  callback_ = Napi::Persistent(callback);
  buffer_ = Napi::Persistent(buffer);
  buffer_data_ = buffer.Data();
  buffer_pairs_ = kDeliverPairs;
  async_ = new uv_async_t;
  uv_async_init(loop, async_, &WorkerQueue::OnAsync);
  async_->data = this;
  napi_add_env_cleanup_hook(env, &WorkerQueue::OnEnvCleanup, this);
  if (pairs_.size() > head_) uv_async_send(async_);  // pairs pushed before the worker was ready
}

void WorkerQueue::OnEnvCleanup(void* arg) { static_cast<WorkerQueue*>(arg)->Detach(); }

void WorkerQueue::Detach() {
  uv_async_t* async;
  napi_env env;
  {
    std::lock_guard<std::mutex> lock(mu_);
    async = async_;
    env = env_;
    async_ = nullptr;
  }
  if (async == nullptr) return;
  napi_remove_env_cleanup_hook(env, &WorkerQueue::OnEnvCleanup, this);
  uv_close(reinterpret_cast<uv_handle_t*>(async), [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
  callback_.Reset();
  buffer_.Reset();
  buffer_data_ = nullptr;
  std::shared_ptr<WorkerQueueGroup> keep;
  {
    std::lock_guard<std::mutex> lock(mu_);
    keep.swap(keep_);
  }
  // `keep` may hold the last reference to the group that owns this queue:
  // it goes out of scope after the last use of any member.
}

void WorkerQueue::OnAsync(uv_async_t* handle) { static_cast<WorkerQueue*>(handle->data)->Deliver(); }

void WorkerQueue::Deliver() {
  Napi::Env env(env_);
  std::shared_ptr<WorkerQueueGroup> keep;  // the callback may detach this queue
  {
    std::lock_guard<std::mutex> lock(mu_);
    keep = keep_;
  }
  for (;;) {
    size_t n;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (async_ == nullptr || buffer_data_ == nullptr) return;
      n = std::min((pairs_.size() - head_) / 2, buffer_pairs_);
      if (n == 0) return;
      std::copy(pairs_.begin() + head_, pairs_.begin() + head_ + 2 * n, buffer_data_);
      head_ += 2 * n;
      if (head_ == pairs_.size()) {
        pairs_.clear();  // keeps its capacity: no allocation once warm
        head_ = 0;
      }
    }
    Napi::HandleScope scope(env);
    try {
      callback_.MakeCallback(env.Global(), {buffer_.Value(), Napi::Number::New(env, static_cast<double>(n))});
    } catch (const Napi::Error& e) {
      lg::AbortTest(std::string("the adapter worker failed to take issued samples: ") + e.Message());
      return;
    }
  }
}

WorkerQueueGroup::WorkerQueueGroup(size_t n) {
  queues_.reserve(n);
  for (size_t k = 0; k < n; k++) queues_.emplace_back(new WorkerQueue);
}

void WorkerQueueGroup::Distribute(const lg::QuerySample* samples, size_t count) {
  const size_t w = queues_.size();
  if (count == 1 || w == 1) {
    queues_[next_.fetch_add(1, std::memory_order_relaxed) % w]->Push(samples, count);
    return;
  }
  const size_t share = (count + w - 1) / w;
  for (size_t from = 0; from < count; from += share) {
    queues_[next_.fetch_add(1, std::memory_order_relaxed) % w]->Push(samples + from, std::min(share, count - from));
  }
}

uint32_t CreateWorkerQueueGroup(size_t n) {
  std::lock_guard<std::mutex> lock(g_groups_mu);
  const uint32_t id = g_next_group++;
  g_groups[id] = std::make_shared<WorkerQueueGroup>(n);
  return id;
}

std::shared_ptr<WorkerQueueGroup> FindWorkerQueueGroup(uint32_t id) {
  std::lock_guard<std::mutex> lock(g_groups_mu);
  auto it = g_groups.find(id);
  return it == g_groups.end() ? nullptr : it->second;
}

void ReleaseWorkerQueueGroup(uint32_t id) {
  std::lock_guard<std::mutex> lock(g_groups_mu);
  g_groups.erase(id);
}

namespace {

std::shared_ptr<WorkerQueueGroup> GroupArg(const Napi::CallbackInfo& info) {
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "worker queue group id must be a number");
  auto group = FindWorkerQueueGroup(info[0].As<Napi::Number>().Uint32Value());
  if (!group) throw Napi::Error::New(info.Env(), "unknown or released worker queue group");
  return group;
}

WorkerQueue& QueueArg(const Napi::CallbackInfo& info, WorkerQueueGroup& group) {
  if (!info[1].IsNumber()) throw Napi::TypeError::New(info.Env(), "worker queue index must be a number");
  const uint32_t k = info[1].As<Napi::Number>().Uint32Value();
  if (k >= group.size()) throw Napi::RangeError::New(info.Env(), "worker queue index out of range");
  return group.at(k);
}

}  // namespace

void RegisterWorkerQueues(Napi::Env env, Napi::Object exports) {
  // (workers) -> group id
  exports.Set("workerQueuesCreate", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                const uint32_t n = info[0].As<Napi::Number>().Uint32Value();
                if (n == 0) throw Napi::RangeError::New(info.Env(), "a worker queue group needs at least one queue");
                return Napi::Number::New(info.Env(), CreateWorkerQueueGroup(n));
              }));
  // (group) -> undefined; queues already attached keep working until they detach.
  exports.Set("workerQueuesRelease", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                ReleaseWorkerQueueGroup(info[0].As<Napi::Number>().Uint32Value());
                return info.Env().Undefined();
              }));
  // (group, Float64Array [id, index, ...], pairs) -> undefined: a query issued from JS.
  exports.Set("workerQueuesPush", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                auto group = GroupArg(info);
                Napi::Float64Array a = info[1].As<Napi::Float64Array>();
                const size_t n = info[2].As<Napi::Number>().Uint32Value();
                if (2 * n > a.ElementLength())
                  throw Napi::RangeError::New(info.Env(), "workerQueuesPush: more pairs than the array holds");
                thread_local std::vector<lg::QuerySample> samples;
                samples.resize(n);
                for (size_t i = 0; i < n; i++) {
                  samples[i].id = static_cast<uint64_t>(a[2 * i]);
                  samples[i].index = static_cast<uint64_t>(a[2 * i + 1]);
                }
                group->Distribute(samples.data(), n);
                return info.Env().Undefined();
              }));
  // (group, k, callback(pairs: Float64Array, n)) on the worker's thread.
  exports.Set("workerQueueAttach", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                auto group = GroupArg(info);
                QueueArg(info, *group).Attach(info.Env(), info[2].As<Napi::Function>(), group);
                return info.Env().Undefined();
              }));
  exports.Set("workerQueueDetach", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                auto group = FindWorkerQueueGroup(info[0].As<Napi::Number>().Uint32Value());
                if (group) QueueArg(info, *group).Detach();
                return info.Env().Undefined();
              }));
  // (group, k) -> pairs waiting (tests, idle checks).
  exports.Set("workerQueueWaiting", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                auto group = GroupArg(info);
                return Napi::Number::New(info.Env(), static_cast<double>(QueueArg(info, *group).Waiting()));
              }));
}

}  // namespace lgaddon
