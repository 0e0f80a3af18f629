#include "main_thread_channel.h"

namespace lgaddon {

MainThreadChannel::MainThreadChannel(uv_loop_t* loop, QueryHandler on_queries)
    : async_(new uv_async_t), on_queries_(std::move(on_queries)) {
  uv_async_init(loop, async_, &MainThreadChannel::OnAsync);
  async_->data = this;
  samples_.reserve(4096);
  samples_spare_.reserve(4096);
  sizes_.reserve(4096);
  sizes_spare_.reserve(4096);
}

MainThreadChannel::~MainThreadChannel() { Close(); }

void MainThreadChannel::PostQuery(const lg::QuerySample* samples, size_t count) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    samples_.insert(samples_.end(), samples, samples + count);
    sizes_.push_back(static_cast<uint32_t>(count));
  }
  // libuv coalesces: a send while one is pending costs only an atomic check.
  if (!closed_.load(std::memory_order_acquire)) uv_async_send(async_);
}

void MainThreadChannel::PostControl(Control fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    controls_.push_back(std::move(fn));
  }
  if (!closed_.load(std::memory_order_acquire)) uv_async_send(async_);
}

void MainThreadChannel::OnAsync(uv_async_t* handle) { static_cast<MainThreadChannel*>(handle->data)->Drain(); }

void MainThreadChannel::Drain() {
  // Queries first, then control calls: a flush or "done" never overtakes the
  // queries posted before it.
  for (;;) {
    if (silent_.load(std::memory_order_acquire)) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      samples_spare_.clear();
      sizes_spare_.clear();
      controls_spare_.clear();
      samples_.swap(samples_spare_);
      sizes_.swap(sizes_spare_);
      controls_.swap(controls_spare_);
    }
    if (sizes_spare_.empty() && controls_spare_.empty()) return;
    if (!sizes_spare_.empty()) on_queries_(samples_spare_, sizes_spare_);
    for (auto& fn : controls_spare_) {
      fn();
      if (closed_.load()) return;
    }
  }
}

void MainThreadChannel::Close() {
  if (closed_.exchange(true)) return;
  uv_close(reinterpret_cast<uv_handle_t*>(async_), [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
}

}  // namespace lgaddon
