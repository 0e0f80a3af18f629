// Issued samples handed straight from the engine's issue thread to the
// adapter's worker threads: one queue per worker, each woken through a
// uv_async handle on that worker's own event loop. The main thread is not on
// this path, so a Server query costs one thread wake-up (engine -> worker)
// instead of two (engine -> main -> worker).
#pragma once

#include <napi.h>
#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sut.h"

namespace lgaddon {

class WorkerQueueGroup;

class WorkerQueue {
 public:
  // Any thread: appends (id, index) pairs and wakes the worker.
  void Push(const lg::QuerySample* samples, size_t count);

  // The worker's JS thread: from now on pairs are delivered to `callback`
  // as (Float64Array [id, index, id, index, ...], pairs) on this thread.
  // `keep` is the owning group, held until Detach.
  void Attach(Napi::Env env, Napi::Function callback, std::shared_ptr<WorkerQueueGroup> keep);
  // The worker's JS thread (or its environment's cleanup hook): stop
  // delivering; releases the uv handle and the JS references.
  void Detach();

  size_t Waiting();

 private:
  static void OnAsync(uv_async_t* handle);
  static void OnEnvCleanup(void* arg);
  void Deliver();
  void WakeLocked();

  std::mutex mu_;
  std::vector<double> pairs_;    // [id, index, ...] not yet delivered
  size_t head_ = 0;              // doubles already delivered from pairs_
  uv_async_t* async_ = nullptr;  // non-null while attached
  napi_env env_ = nullptr;
  Napi::FunctionReference callback_;
  Napi::Reference<Napi::Float64Array> buffer_;
  double* buffer_data_ = nullptr;
  size_t buffer_pairs_ = 0;
  std::shared_ptr<WorkerQueueGroup> keep_;  // while attached: the group outlives a release
};

// The queues of one adapter's workers.
class WorkerQueueGroup {
 public:
  explicit WorkerQueueGroup(size_t n);
  size_t size() const { return queues_.size(); }
  WorkerQueue& at(size_t k) { return *queues_[k]; }
  // Server: one sample per query, round robin; a bigger query is split
  // evenly, starting where the last one stopped.
  void Distribute(const lg::QuerySample* samples, size_t count);

 private:
  std::vector<std::unique_ptr<WorkerQueue>> queues_;
  std::atomic<size_t> next_{0};
};

// Process-wide registry: the engine runs on the main thread's addon
// instance, the workers load their own instances of the same library.
uint32_t CreateWorkerQueueGroup(size_t n);
std::shared_ptr<WorkerQueueGroup> FindWorkerQueueGroup(uint32_t id);
void ReleaseWorkerQueueGroup(uint32_t id);

// A SUT that hands every issued query to a worker queue group.
class WorkerQueueSut : public lg::SystemUnderTest {
 public:
  WorkerQueueSut(std::shared_ptr<WorkerQueueGroup> group, std::string name)
      : group_(std::move(group)), name_(std::move(name)) {}
  std::string Name() override { return name_; }
  void IssueQuery(const lg::QuerySample* samples, size_t count) override { group_->Distribute(samples, count); }
  // The adapter sends every sample as it arrives: nothing to flush.
  void FlushQueries() override {}

 private:
  std::shared_ptr<WorkerQueueGroup> group_;
  std::string name_;
};

void RegisterWorkerQueues(Napi::Env env, Napi::Object exports);

}  // namespace lgaddon
