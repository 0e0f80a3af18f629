// Random number generation that reproduces, bit for bit, what the official
// MLPerf LoadGen gets from std::mt19937 and the libstdc++ (GCC 12, Linux
// x86_64) versions of std::shuffle, std::uniform_int_distribution,
// std::uniform_real_distribution and std::exponential_distribution.
//
// Only the engine is pinned down by the C++ standard; the distributions and
// std::shuffle differ between libstdc++, libc++ and MSVC. Implementing the
// libstdc++ algorithms here keeps sample orders and schedules identical to
// the official logs whichever standard library builds the addon.
//
// None of the draw functions allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace lg {

// The 32-bit Mersenne Twister, i.e. std::mt19937. std::mt19937 on Linux
// x86_64 takes a 64-bit seed and keeps only its low 32 bits; seed() does the
// same so that LoadGen's 64-bit seeds give the same streams.
class Mt19937 {
 public:
  static constexpr uint64_t kDefaultSeed = 5489u;

  explicit Mt19937(uint64_t seed_value = kDefaultSeed) { seed(seed_value); }

  void seed(uint64_t seed_value);

  // Next 32-bit output.
  uint32_t operator()() {
    if (index_ >= kStateSize) Regenerate();
    uint32_t y = state_[index_++];
    // Tempering.
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  // Skips n outputs.
  void discard(uint64_t n) {
    for (; n != 0; --n) (*this)();
  }

  static constexpr uint32_t min() { return 0u; }
  static constexpr uint32_t max() { return 0xffffffffu; }

 private:
  static constexpr size_t kStateSize = 624;
  void Regenerate();

  uint32_t state_[kStateSize];
  size_t index_;
};

// A uniform integer in [0, span] (inclusive), drawn exactly as libstdc++'s
// uniform_int_distribution does with a 32-bit engine and 64-bit arithmetic.
// This is the core that all integer draws below go through.
uint64_t UniformSpan(Mt19937& g, uint64_t span);

// std::uniform_int_distribution<int>(a, b)(g). Requires a <= b.
int UniformInt(Mt19937& g, int a, int b);

// std::uniform_int_distribution<uint64_t>(a, b)(g) (also size_t). Requires
// a <= b.
uint64_t UniformU64(Mt19937& g, uint64_t a, uint64_t b);

// Stateless stand-in for std::uniform_int_distribution<int>; the defaults
// match the std ones (0, INT_MAX).
class UniformIntDistribution {
 public:
  explicit UniformIntDistribution(int a = 0, int b = 0x7fffffff) : a_(a), b_(b) {}
  int operator()(Mt19937& g) const { return UniformInt(g, a_, b_); }
  int operator()(Mt19937& g, int a, int b) const { return UniformInt(g, a, b); }
  int a() const { return a_; }
  int b() const { return b_; }

 private:
  int a_;
  int b_;
};

// Stateless stand-in for std::uniform_int_distribution<uint64_t> (and
// std::uniform_int_distribution<size_t> on 64-bit Linux).
class UniformU64Distribution {
 public:
  explicit UniformU64Distribution(uint64_t a = 0, uint64_t b = ~uint64_t{0}) : a_(a), b_(b) {}
  uint64_t operator()(Mt19937& g) const { return UniformU64(g, a_, b_); }
  uint64_t operator()(Mt19937& g, uint64_t a, uint64_t b) const { return UniformU64(g, a, b); }
  uint64_t a() const { return a_; }
  uint64_t b() const { return b_; }

 private:
  uint64_t a_;
  uint64_t b_;
};

// std::shuffle(first, last, g). The permutation depends only on the length,
// so any element type works.
template <typename T>
void Shuffle(T* first, T* last, Mt19937& g) {
  if (first == last) return;
  const uint64_t n = static_cast<uint64_t>(last - first);
  auto swap_at = [first](uint64_t i, uint64_t j) {
    if (i != j) {
      using std::swap;
      swap(first[i], first[j]);
    }
  };
  // libstdc++ picks the swap targets for two consecutive positions with one
  // draw whenever the engine's range (2^32 - 1) holds n * n values, i.e.
  // for n < 65536. Both paths must be kept to reproduce its permutations.
  constexpr uint64_t kEngineRange = 0xffffffffu;
  if (kEngineRange / n >= n) {
    uint64_t i = 1;
    // Positions 1..n-1 are processed in pairs; with an even n there is an
    // odd count of them, so position 1 is done alone first.
    if (n % 2 == 0) {
      swap_at(i, UniformSpan(g, 1));
      ++i;
    }
    while (i != n) {
      // Position i takes a target in [0, i], position i + 1 one in
      // [0, i + 1]; both come from one draw in [0, (i + 1) * (i + 2)).
      const uint64_t k0 = i + 1;
      const uint64_t k1 = i + 2;
      const uint64_t x = UniformSpan(g, k0 * k1 - 1);
      swap_at(i, x / k1);
      swap_at(i + 1, x % k1);
      i += 2;
    }
    return;
  }
  // Large ranges: one draw per position (plain Fisher-Yates, forward).
  for (uint64_t i = 1; i != n; ++i) swap_at(i, UniformSpan(g, i));
}

// std::generate_canonical<double, 53>(g): two engine outputs combined into
// a double in [0, 1).
double GenerateCanonicalDouble(Mt19937& g);

// The combining step of GenerateCanonicalDouble for two given outputs, in
// draw order (exposed so tests can reach the rare round-up-to-1 case).
double CanonicalFromOutputs(uint32_t first, uint32_t second);

// std::uniform_real_distribution<double>(a, b)(g).
double UniformRealDouble(Mt19937& g, double a, double b);

// std::exponential_distribution<double>(lambda)(g). The result goes through
// std::log, so it is only as portable as the platform's log().
double ExponentialDouble(Mt19937& g, double lambda);

}  // namespace lg
