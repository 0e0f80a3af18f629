#include "rng.h"

#include <cmath>

namespace lg {

namespace {

// Mersenne Twister (MT19937) constants.
constexpr size_t kN = 624;
constexpr size_t kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpperMask = 0x80000000u;
constexpr uint32_t kLowerMask = 0x7fffffffu;
constexpr uint32_t kInitMultiplier = 1812433253u;

// The engine yields exactly 32 bits per call (max() - min() == 2^32 - 1).
constexpr uint64_t kEngineSpan = 0xffffffffu;

// Lemire's multiply-and-reject method ("Fast Random Integer Generation in an
// Interval", 2019), the one libstdc++ >= 11 uses when the engine yields
// exactly 32 bits and the wanted range fits in 32 bits. `count` is the
// number of possible results, in [1, 2^32 - 1].
uint64_t LemireDraw(Mt19937& g, uint32_t count) {
  uint64_t product = static_cast<uint64_t>(g()) * count;
  uint32_t low = static_cast<uint32_t>(product);
  if (low < count) {
    // 2^32 mod count, computed in 32 bits; low parts below it are biased.
    const uint32_t reject_below = static_cast<uint32_t>(0u - count) % count;
    while (low < reject_below) {
      product = static_cast<uint64_t>(g()) * count;
      low = static_cast<uint32_t>(product);
    }
  }
  return product >> 32;
}

}  // namespace

void Mt19937::seed(uint64_t seed_value) {
  // Only the low 32 bits of the seed matter (std::mt19937 reduces mod 2^32).
  state_[0] = static_cast<uint32_t>(seed_value);
  for (size_t i = 1; i < kN; ++i) {
    const uint32_t prev = state_[i - 1];
    state_[i] = kInitMultiplier * (prev ^ (prev >> 30)) + static_cast<uint32_t>(i);
  }
  // Force a full regeneration before the first output, as std::mt19937 does.
  index_ = kN;
}

void Mt19937::Regenerate() {
  // In-place twist of the whole state; words past kN - kM read entries that
  // were already replaced in this pass, as the reference algorithm does.
  for (size_t k = 0; k < kN; ++k) {
    const uint32_t y = (state_[k] & kUpperMask) | (state_[(k + 1) % kN] & kLowerMask);
    state_[k] = state_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
  }
  index_ = 0;
}

uint64_t UniformSpan(Mt19937& g, uint64_t span) {
  if (span < kEngineSpan) {
    // Narrower than the engine: downscale. span + 1 fits in 32 bits here.
    return LemireDraw(g, static_cast<uint32_t>(span + 1));
  }
  if (span > kEngineSpan) {
    // Wider than the engine: build the value as high * 2^32 + low, drawing
    // `high` recursively (first) and `low` from one engine output (second),
    // and retry on overshoot or wrap-around.
    constexpr uint64_t kEngineCount = kEngineSpan + 1;
    uint64_t base;
    uint64_t result;
    do {
      base = kEngineCount * UniformSpan(g, span / kEngineCount);
      result = base + g();
    } while (result > span || result < base);
    return result;
  }
  // Exactly the engine's range: use an output as is.
  return g();
}

int UniformInt(Mt19937& g, int a, int b) {
  // libstdc++ does this arithmetic in the common type of the engine's
  // result (unsigned long) and unsigned int, i.e. 64 bits on Linux x86_64.
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(b) - static_cast<int64_t>(a));
  return static_cast<int>(static_cast<int64_t>(a) + static_cast<int64_t>(UniformSpan(g, span)));
}

uint64_t UniformU64(Mt19937& g, uint64_t a, uint64_t b) { return a + UniformSpan(g, b - a); }

double CanonicalFromOutputs(uint32_t first, uint32_t second) {
  // 53 bits wanted, 32 per output: two outputs, the first one low.
  const double low = static_cast<double>(first);
  const double high = static_cast<double>(second) * 4294967296.0;  // exact
  const double result = (low + high) / 18446744073709551616.0;     // / 2^64, exact
  // The sum can round up to 2^64; libstdc++ then returns the largest double
  // below 1 (nextafter(1.0, 0.0)) to keep the result in [0, 1).
  if (result >= 1.0) return 1.0 - 0x1p-53;
  return result;
}

double GenerateCanonicalDouble(Mt19937& g) {
  const uint32_t first = g();
  const uint32_t second = g();
  return CanonicalFromOutputs(first, second);
}

double UniformRealDouble(Mt19937& g, double a, double b) {
  // libstdc++: canonical * (b - a) + a. The product is stored through a
  // volatile so that no compiler fuses it with the addition into an FMA
  // (clang does by default on arm64, GCC with -mfma), which would change the
  // rounding.
  volatile double scaled = GenerateCanonicalDouble(g) * (b - a);
  return scaled + a;
}

double ExponentialDouble(Mt19937& g, double lambda) {
  // libstdc++: -log(1 - canonical) / lambda.
  return -std::log(1.0 - GenerateCanonicalDouble(g)) / lambda;
}

}  // namespace lg
