// Tests for rng.h: our re-implementations must match libstdc++ (GCC 12,
// Linux x86_64) draw for draw. With libstdc++ they are compared against the
// real std:: facilities; golden values (taken from std:: on Linux x86_64 and
// from the official LoadGen's logs) guard builds with other libraries.
#include "rng.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#ifdef __GLIBCXX__
#include <algorithm>
#endif

#include "check.h"

namespace {

uint64_t Bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Seeds used throughout: ones from official LoadGen settings, edge values,
// and random ones (std::mt19937_64 is fully specified by the standard, so
// this list is the same everywhere).
std::vector<uint64_t> Seeds() {
  std::vector<uint64_t> seeds = {2085463073848966840ull,
                                 2747215439041700203ull,
                                 16159082839903944936ull,
                                 0,
                                 1,
                                 5489,
                                 0xffffffffull,
                                 0x100000000ull,
                                 ~uint64_t{0}};
  std::mt19937_64 meta(20240601);
  for (int i = 0; i < 12; ++i) seeds.push_back(meta());
  return seeds;
}

std::vector<size_t> Iota(size_t n) {
  std::vector<size_t> v(n);
  std::iota(v.begin(), v.end(), size_t{0});
  return v;
}

std::vector<size_t> OurShuffle(uint64_t seed, size_t n, uint32_t* next_output = nullptr) {
  std::vector<size_t> v = Iota(n);
  lg::Mt19937 g(seed);
  lg::Shuffle(v.data(), v.data() + v.size(), g);
  if (next_output) *next_output = g();
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------
// Platform-independent checks.

TEST_CASE("mt19937: 10000th output of the default seed is 4123659995") {
  // Required by the C++ standard ([rand.predef]).
  lg::Mt19937 g;
  g.discard(9999);
  CHECK_EQ(g(), 4123659995u);
}

TEST_CASE("mt19937: 64-bit seeds are reduced mod 2^32") {
  lg::Mt19937 a(0x1234567800000005ull), b(5);
  for (int i = 0; i < 1000; ++i) CHECK_EQ(a(), b());
  lg::Mt19937 c(7);
  c();
  c.seed(2085463073848966840ull);
  lg::Mt19937 d(2085463073848966840ull & 0xffffffffull);
  for (int i = 0; i < 1000; ++i) CHECK_EQ(c(), d());
}

TEST_CASE("golden: official LoadGen loaded_qsl_set (shuffle of 0..1023)") {
  const size_t expected[] = {216, 267, 822, 906, 663, 580, 710, 908, 410, 882, 910, 801, 676, 877, 868, 478,
                             153, 561, 562, 372, 276, 772, 320, 460, 481, 368, 778, 107, 111, 480, 993, 668};
  std::vector<size_t> v = OurShuffle(2085463073848966840ull, 1024);
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) CHECK_EQ(v[i], expected[i]);
}

TEST_CASE("golden: shuffles (pair-draw and single-draw paths)") {
  uint32_t next = 0;
  {
    const size_t expected[] = {7466, 11480, 190,  6597, 11681, 564,  613,  4491,
                               3030, 11189, 3330, 5947, 551,   3863, 2426, 475};
    std::vector<size_t> v = OurShuffle(2747215439041700203ull, 13368, &next);
    for (size_t i = 0; i < 16; ++i) CHECK_EQ(v[i], expected[i]);
    CHECK_EQ(next, 3163435394u);
  }
  {
    // 70000 >= 65536 elements: one draw per position.
    const size_t expected[] = {20057, 49674, 7856,  65266, 68310, 3842,  38143, 62983,
                               25800, 61877, 11962, 10992, 63878, 32367, 37112, 33800};
    std::vector<size_t> v = OurShuffle(16159082839903944936ull, 70000, &next);
    for (size_t i = 0; i < 16; ++i) CHECK_EQ(v[i], expected[i]);
    CHECK_EQ(next, 1043017773u);
  }
  {
    const size_t expected[] = {0, 2, 1, 5, 9, 8, 4, 7, 6, 3};
    std::vector<size_t> v = OurShuffle(0, 10, &next);
    for (size_t i = 0; i < 10; ++i) CHECK_EQ(v[i], expected[i]);
    CHECK_EQ(next, 3684848379u);
  }
}

TEST_CASE("golden: shuffle is a permutation; sizes 0 and 1 draw nothing") {
  for (uint64_t seed : Seeds()) {
    for (size_t n : {0, 1, 2, 3, 10, 1024, 13368, 65535, 65536, 70001}) {
      std::vector<size_t> v = OurShuffle(seed, n);
      std::vector<bool> seen(n, false);
      bool ok = v.size() == n;
      for (size_t x : v) {
        if (x >= n || seen[x]) ok = false;
        if (x < n) seen[x] = true;
      }
      CHECK(ok);
    }
  }
  uint32_t next = 0;
  OurShuffle(5489, 0, &next);
  CHECK_EQ(next, lg::Mt19937(5489)());
  OurShuffle(5489, 1, &next);
  CHECK_EQ(next, lg::Mt19937(5489)());
  // Shuffle works on any element type; the permutation depends only on n.
  std::vector<int> ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  lg::Mt19937 g(0);
  lg::Shuffle(ints.data(), ints.data() + ints.size(), g);
  std::vector<size_t> sizes = OurShuffle(0, 10);
  for (size_t i = 0; i < 10; ++i) CHECK_EQ(static_cast<size_t>(ints[i]), sizes[i]);
}

TEST_CASE("golden: uniform ints") {
  {
    const int expected[] = {10688, 12747, 6742,  3821,  8783, 9277, 1566, 8700,
                            11879, 11521, 10176, 10314, 4642, 2942, 2653, 10694};
    lg::Mt19937 g(2747215439041700203ull);
    lg::UniformIntDistribution d(0, 13367);
    for (int e : expected) CHECK_EQ(d(g), e);
  }
  {
    const int expected[] = {98, 186, 431, 689, 206, 716, 90, 695};
    lg::Mt19937 g(0);
    for (int e : expected) CHECK_EQ(lg::UniformInt(g, -1000, 1000), e);
  }
  {
    // 2^31 + 1 possible values: about half the engine outputs are rejected
    // (8 results here use more than 8 outputs).
    const int expected[] = {1807669778, 460988107, 1553893126, 1630110529,
                            1341063700, 688281028, 231715753,  1920764878};
    lg::Mt19937 g(16159082839903944936ull);
    for (int e : expected) CHECK_EQ(lg::UniformInt(g, -1, 2147483647), e);
    CHECK_EQ(g(), 4146251800u);
  }
  {
    // Wider than 32 bits: the upscaling path.
    const uint64_t expected[] = {898230034166ull,  1000018747257ull, 141600208863ull,
                                 1005971681249ull, 697108269355ull,  109724476965ull};
    lg::Mt19937 g(5489);
    lg::UniformU64Distribution d(0, uint64_t{1} << 40);
    for (uint64_t e : expected) CHECK_EQ(d(g), e);
  }
  {
    const uint64_t expected[] = {15028999435905310454ull, 16708911996216745849ull, 2342493223442167775ull,
                                 16848810653347327969ull};
    lg::Mt19937 g(5489);
    lg::UniformU64Distribution d;  // [0, 2^64 - 1]
    for (uint64_t e : expected) CHECK_EQ(d(g), e);
  }
  {
    // A single-value range still consumes one output (as libstdc++ does).
    lg::Mt19937 g(5489), h(5489);
    CHECK_EQ(lg::UniformInt(g, 42, 42), 42);
    h();
    CHECK_EQ(g(), h());
    // The full int range uses an output as is.
    lg::Mt19937 a(9), b(9);
    CHECK_EQ(lg::UniformInt(a, INT32_MIN, INT32_MAX),
             static_cast<int>(static_cast<int64_t>(INT32_MIN) + static_cast<int64_t>(b())));
  }
}

TEST_CASE("golden: canonical, uniform real and exponential doubles") {
  {
    const uint64_t expected[] = {0x3fc1574f7b6848deull, 0x3feab863ef3cfc3full, 0x3fef00f6fbe41047ull,
                                 0x3fcc4ad7f0f4e980ull};
    lg::Mt19937 g(5489);
    for (uint64_t e : expected) CHECK_EQ(Bits(lg::GenerateCanonicalDouble(g)), e);
  }
  {
    const uint64_t expected[] = {0xc00e921ffb4c1861ull, 0x40021dd95b8b0b08ull, 0x400b6ee5fd767034ull,
                                 0xc0089db42e946dd6ull};
    lg::Mt19937 g(5489);
    for (uint64_t e : expected) CHECK_EQ(Bits(lg::UniformRealDouble(g, -5.0, 3.7)), e);
  }
  {
    // These go through the platform's log(); allow one ulp for libms that
    // round differently from glibc's (with libstdc++ the test below checks
    // exact equality with std::exponential_distribution).
    const double expected[] = {0x1.e1fc8c3bd9609p-18, 0x1.ee7c29a548d3ep-20, 0x1.17ce93f6ba035p-20,
                               0x1.594bf223296f2p-18};
    lg::Mt19937 g(2085463073848966840ull);
    for (double e : expected) {
      double got = lg::ExponentialDouble(g, 350000.0);
      uint64_t a = Bits(got), b = Bits(e);
      CHECK((a > b ? a - b : b - a) <= 1);
    }
  }
}

TEST_CASE("canonical: combining two outputs, including the round-up-to-1 fix-up") {
  CHECK_EQ(lg::CanonicalFromOutputs(0, 0), 0.0);
  CHECK_EQ(lg::CanonicalFromOutputs(1, 0), 0x1p-64);
  CHECK_EQ(lg::CanonicalFromOutputs(0, 1), 0x1p-32);
  CHECK_EQ(lg::CanonicalFromOutputs(0, 0x80000000u), 0.5);
  // (2^32 - 1) * 2^32 + (2^32 - 1) rounds to 2^64, i.e. exactly 1.0; the
  // result is then replaced by the largest double below 1.
  const double below_one = std::nextafter(1.0, 0.0);
  CHECK_EQ(Bits(lg::CanonicalFromOutputs(0xffffffffu, 0xffffffffu)), Bits(below_one));
  CHECK_EQ(Bits(lg::CanonicalFromOutputs(0xfffffc01u, 0xffffffffu)), Bits(below_one));
  CHECK(lg::CanonicalFromOutputs(0u, 0xffffffffu) < 1.0);
}

// ---------------------------------------------------------------------------
// Draw-for-draw comparisons with libstdc++ itself.

#ifdef __GLIBCXX__

namespace {

// A generator that replays given outputs, with std::mt19937's result type
// and range, to reach cases a real engine makes too rare to test.
struct ScriptedUrbg {
  using result_type = std::mt19937::result_type;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xffffffffu; }
  const uint32_t* values;
  size_t pos = 0;
  result_type operator()() { return values[pos++]; }
};

}  // namespace

TEST_CASE("libstdc++: Mt19937 equals std::mt19937") {
  static_assert(sizeof(std::mt19937::result_type) == 8 || sizeof(std::mt19937::result_type) == 4, "");
  for (uint64_t seed : Seeds()) {
    lg::Mt19937 ours(seed);
    std::mt19937 ref(seed);
    bool same = true;
    for (int i = 0; i < 5000; ++i) same = same && (ours() == ref());
    CHECK(same);
  }
  lg::Mt19937 ours;
  std::mt19937 ref;
  bool same = true;
  for (int i = 0; i < 2000; ++i) same = same && (ours() == ref());
  CHECK(same);
}

TEST_CASE("libstdc++: UniformInt equals std::uniform_int_distribution<int>") {
  // Includes spans with heavy Lemire rejection (0x80000000: 2^31 + 1 values)
  // and none (0x7fffffff: 2^31 values).
  const int64_t spans[] = {0,
                           1,
                           2,
                           3,
                           6,
                           999,
                           1023,
                           13367,
                           (1 << 20) - 1,
                           (1 << 20),
                           65535,
                           1000000007,
                           0x40000000,
                           0x40000001,
                           2147483646,
                           2147483647,
                           0x80000000ll,
                           0xbfffffffll,
                           0xc0000001ll,
                           0xfffffffell,
                           0xffffffffll};
  for (uint64_t seed : Seeds()) {
    for (int64_t span : spans) {
      for (int a : {0, -7, -1073741824, INT32_MIN}) {
        int64_t b64 = a + span;
        if (b64 > INT32_MAX) continue;
        int b = static_cast<int>(b64);
        lg::Mt19937 ours(seed);
        std::mt19937 ref(seed);
        std::uniform_int_distribution<int> d(a, b);
        lg::UniformIntDistribution od(a, b);
        bool same = true;
        for (int i = 0; i < 300; ++i) same = same && (od(ours) == d(ref));
        same = same && (ours() == ref());  // same number of outputs consumed
        if (!same) std::printf("  seed %llu range [%d, %d]\n", (unsigned long long)seed, a, b);
        CHECK(same);
      }
    }
    // Full int range and the default-constructed distribution.
    lg::Mt19937 ours(seed);
    std::mt19937 ref(seed);
    std::uniform_int_distribution<int> full(INT32_MIN, INT32_MAX), dflt;
    lg::UniformIntDistribution odflt;
    bool same = true;
    for (int i = 0; i < 200; ++i) {
      same = same && (lg::UniformInt(ours, INT32_MIN, INT32_MAX) == full(ref));
      same = same && (odflt(ours) == dflt(ref));
    }
    CHECK(same);
    // Varying ranges on one generator, as LoadGen's per-query draws do.
    std::uniform_int_distribution<> shared;
    bool same2 = true;
    for (int i = 1; i < 3000; i += 7) {
      using P = std::uniform_int_distribution<>::param_type;
      same2 = same2 && (lg::UniformInt(ours, 0, i - 1) == shared(ref, P(0, i - 1)));
    }
    CHECK(same2);
  }
}

TEST_CASE("libstdc++: UniformU64 equals std::uniform_int_distribution<unsigned long>") {
  using ulong = unsigned long;
  const uint64_t spans[] = {0,
                            1,
                            2,
                            1023,
                            13367,
                            0x7ffffffeull,
                            0x80000000ull,
                            0xfffffffeull,
                            0xffffffffull,
                            0x100000000ull,
                            0x100000001ull,
                            0x1ffffffffull,
                            0x200000000ull,
                            (uint64_t{1} << 40) + 12345,
                            0x8000000000000000ull,
                            0x8000000000000001ull,
                            0xfffffffeffffffffull,
                            0xffffffff00000000ull,
                            ~uint64_t{0} - 1,
                            ~uint64_t{0}};
  for (uint64_t seed : Seeds()) {
    for (uint64_t span : spans) {
      for (uint64_t a : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 33}) {
        if (span > ~uint64_t{0} - a) continue;
        lg::Mt19937 ours(seed);
        std::mt19937 ref(seed);
        std::uniform_int_distribution<ulong> d(a, a + span);
        bool same = true;
        for (int i = 0; i < 200; ++i) same = same && (lg::UniformU64(ours, a, a + span) == d(ref));
        same = same && (ours() == ref());
        if (!same) std::printf("  seed %llu span %llu\n", (unsigned long long)seed, (unsigned long long)span);
        CHECK(same);
      }
    }
  }
}

TEST_CASE("libstdc++: canonical combining equals std::generate_canonical on scripted outputs") {
  // Canonical combining against std::generate_canonical on scripted pairs.
  const uint32_t pairs[][2] = {{0, 0},
                               {1, 0},
                               {0, 1},
                               {0xffffffffu, 0xffffffffu},
                               {0xfffffc00u, 0xffffffffu},
                               {0xfffffc01u, 0xffffffffu},
                               {0xfffffbffu, 0xffffffffu},
                               {0x80000000u, 0x7fffffffu},
                               {0xffffffffu, 0},
                               {0x12345678u, 0x9abcdef0u}};
  for (const auto& p : pairs) {
    ScriptedUrbg s{p};
    double want = std::generate_canonical<double, 53>(s);
    CHECK_EQ(s.pos, size_t{2});
    CHECK_EQ(Bits(lg::CanonicalFromOutputs(p[0], p[1])), Bits(want));
  }
}

TEST_CASE("libstdc++: Shuffle equals std::shuffle") {
  const size_t sizes[] = {0, 1, 2, 3, 4, 5, 10, 11, 100, 1023, 1024, 13368, 65535, 65536, 65537, 100001};
  for (uint64_t seed : Seeds()) {
    for (size_t n : sizes) {
      uint32_t next = 0;
      std::vector<size_t> ours = OurShuffle(seed, n, &next);
      std::vector<size_t> ref = Iota(n);
      std::mt19937 g(seed);
      std::shuffle(ref.begin(), ref.end(), g);
      bool same = ours == ref && next == g();
      if (!same) std::printf("  seed %llu n %zu\n", (unsigned long long)seed, n);
      CHECK(same);
    }
  }
  // Repeated shuffles of the same buffer on one generator.
  std::vector<uint64_t> a(13368), b(13368);
  std::iota(a.begin(), a.end(), uint64_t{0});
  b = a;
  lg::Mt19937 og(2747215439041700203ull);
  std::mt19937 rg(2747215439041700203ull);
  for (int r = 0; r < 5; ++r) {
    lg::Shuffle(a.data(), a.data() + a.size(), og);
    std::shuffle(b.begin(), b.end(), rg);
    CHECK(a == b);
  }
}

TEST_CASE("libstdc++: canonical, uniform real and exponential equal std::") {
  const double lambdas[] = {1.0, 1000.0, 350000.0, 0.5, 1e-9};
  for (uint64_t seed : Seeds()) {
    {
      lg::Mt19937 ours(seed);
      std::mt19937 ref(seed);
      bool same = true;
      for (int i = 0; i < 2000; ++i)
        same = same && Bits(lg::GenerateCanonicalDouble(ours)) == Bits(std::generate_canonical<double, 53>(ref));
      CHECK(same);
    }
    // When GCC may use FMA (-mfma, -march=native) it fuses libstdc++'s
    // u * (b - a) + a, so std:: itself then drifts from the official
    // (non-FMA) results; ours never fuses and the golden test covers it.
#ifndef __FMA__
    const double ranges[][2] = {{0.0, 1.0}, {-5.0, 3.7}, {0.0, 1e9}, {1e-3, 2e-3}, {-1e300, 1e300}};
    for (const auto& r : ranges) {
      lg::Mt19937 ours(seed);
      std::mt19937 ref(seed);
      std::uniform_real_distribution<double> d(r[0], r[1]);
      bool same = true;
      for (int i = 0; i < 1000; ++i) same = same && Bits(lg::UniformRealDouble(ours, r[0], r[1])) == Bits(d(ref));
      CHECK(same);
    }
#endif
    for (double lambda : lambdas) {
      lg::Mt19937 ours(seed);
      std::mt19937 ref(seed);
      std::exponential_distribution<double> d(lambda);
      bool same = true;
      for (int i = 0; i < 1000; ++i) same = same && Bits(lg::ExponentialDouble(ours, lambda)) == Bits(d(ref));
      CHECK(same);
    }
  }
}

TEST_CASE("libstdc++: interleaved use of one generator stays in step") {
  // Mimics LoadGen: shuffle sample indices, then draw sample ids and
  // Poisson inter-arrival times from the same engines.
  for (uint64_t seed : Seeds()) {
    lg::Mt19937 ours(seed);
    std::mt19937 ref(seed);
    std::vector<size_t> a = Iota(1024), b = Iota(1024);
    lg::Shuffle(a.data(), a.data() + a.size(), ours);
    std::shuffle(b.begin(), b.end(), ref);
    bool same = a == b;
    std::uniform_int_distribution<> ids(0, 1023);
    std::exponential_distribution<> arrivals(350000.0);
    std::uniform_real_distribution<> reals(0.0, 1.0);
    for (int i = 0; i < 500; ++i) {
      same = same && lg::UniformInt(ours, 0, 1023) == ids(ref);
      same = same && Bits(lg::ExponentialDouble(ours, 350000.0)) == Bits(arrivals(ref));
      if (i % 3 == 0) same = same && Bits(lg::UniformRealDouble(ours, 0.0, 1.0)) == Bits(reals(ref));
    }
    same = same && ours() == ref();
    CHECK(same);
  }
}

#endif  // __GLIBCXX__

TEST_MAIN()
