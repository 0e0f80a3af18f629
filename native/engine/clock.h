// The engine's one clock: steady, nanoseconds. Every timestamp of a test is
// taken with it, so latencies never jump with wall-clock adjustments.
#pragma once

#include <chrono>
#include <cstdint>

namespace lg {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

inline double NsToSeconds(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace lg
