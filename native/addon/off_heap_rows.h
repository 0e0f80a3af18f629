// Append-only storage of doubles outside the JS heap, for the adapter's
// per-request columns (TTFT, latency, recordTimings' rows). Kept in typed
// arrays, those columns were external memory that V8 counts against its
// global allocation limit: at 9,400 requests/s a worker recording timings
// grew it by ~1.2 MB/s and ran a mark-compact (3-17 ms) every ~5 s. Memory
// here is not reported to V8 on purpose; it is freed when the JS handle is
// collected.
#pragma once

#include <napi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace lgaddon {

class OffHeapRows {
 public:
  void Append(const double* values, size_t n);
  size_t size() const { return size_; }
  void CopyTo(double* out) const;

 private:
  static constexpr size_t kBlock = size_t{1} << 16;  // doubles per block: growing never copies
  std::vector<std::unique_ptr<double[]>> blocks_;
  size_t size_ = 0;
};

// Adds offHeapCreate, offHeapAppend and offHeapCopy to the exports.
void RegisterOffHeapRows(Napi::Env env, Napi::Object exports);

}  // namespace lgaddon
