// Hands work from engine threads to the JS thread that started the test:
// issued queries (the hot path: flat arrays, no allocation per query once
// warm) and rare control calls. One uv_async wake-up drains everything
// queued, so a burst of queries costs one wake-up.
#pragma once

#include <uv.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "sut.h"

namespace lgaddon {

class MainThreadChannel {
 public:
  using QueryHandler =
      std::function<void(const std::vector<lg::QuerySample>& samples, const std::vector<uint32_t>& query_sizes)>;
  using Control = std::function<void()>;

  MainThreadChannel(uv_loop_t* loop, QueryHandler on_queries);
  ~MainThreadChannel();

  // Any thread.
  void PostQuery(const lg::QuerySample* samples, size_t count);
  void PostControl(Control fn);
  // JS thread: stop receiving and release the uv handle (asynchronously).
  void Close();
  // Any thread, when the JS side is going away: nothing posted from now on
  // (nor anything still queued) reaches JS.
  void Silence() { silent_.store(true, std::memory_order_release); }

 private:
  static void OnAsync(uv_async_t* handle);
  void Drain();

  uv_async_t* async_;
  QueryHandler on_queries_;
  std::mutex mu_;
  std::vector<lg::QuerySample> samples_, samples_spare_;
  std::vector<uint32_t> sizes_, sizes_spare_;
  std::vector<Control> controls_, controls_spare_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> silent_{false};
};

}  // namespace lgaddon
