// A minimal test harness for the engine's C++ tests (run by ctest): no
// dependency to download or install.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace lgtest {

struct Case {
  const char* name;
  std::function<void()> fn;
};

inline std::vector<Case>& Registry() {
  static std::vector<Case> cases;
  return cases;
}

inline int& Failures() {
  static int n = 0;
  return n;
}

struct Registrar {
  Registrar(const char* name, std::function<void()> fn) { Registry().push_back({name, std::move(fn)}); }
};

inline int RunAll() {
  int failed_cases = 0;
  for (auto& c : Registry()) {
    int before = Failures();
    c.fn();
    bool ok = Failures() == before;
    if (!ok) failed_cases++;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", c.name);
  }
  std::printf("%zu passed, %d failed\n", Registry().size() - failed_cases, failed_cases);
  return failed_cases == 0 ? 0 : 1;
}

template <typename A, typename B>
void ExpectEq(const A& a, const B& b, const char* ea, const char* eb, const char* file, int line) {
  if (!(a == b)) {
    std::ostringstream ss;
    ss << a << " vs " << b;
    std::printf("  %s:%d: expected %s == %s (%s)\n", file, line, ea, eb, ss.str().c_str());
    Failures()++;
  }
}

}  // namespace lgtest

#define LG_TEST_CAT2(a, b) a##b
#define LG_TEST_CAT(a, b) LG_TEST_CAT2(a, b)
#define TEST_CASE(name)                                                                               \
  static void LG_TEST_CAT(test_fn_, __LINE__)();                                                      \
  static ::lgtest::Registrar LG_TEST_CAT(test_reg_, __LINE__)(name, LG_TEST_CAT(test_fn_, __LINE__)); \
  static void LG_TEST_CAT(test_fn_, __LINE__)()
#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ::lgtest::Failures()++;                                                \
    }                                                                        \
  } while (0)
#define CHECK_EQ(a, b) ::lgtest::ExpectEq((a), (b), #a, #b, __FILE__, __LINE__)
#define TEST_MAIN() \
  int main() { return ::lgtest::RunAll(); }
