// A SUT and QSL written in C++ that answer at once: the reference point for
// the bridge benchmark (the cost of the engine alone, with no JS in the loop).
#pragma once

#include <string>
#include <vector>

#include "loadgen.h"
#include "sut.h"

namespace lgaddon {

class NativeNullSut : public lg::SystemUnderTest {
 public:
  // tokens > 0: report a first token, then complete with that many tokens.
  explicit NativeNullSut(int64_t tokens) : tokens_(tokens) {}
  std::string Name() override { return "NativeNullSUT"; }
  void IssueQuery(const lg::QuerySample* samples, size_t count) override {
    // Reused per thread: answering costs no allocation once warm.
    thread_local std::vector<lg::SampleResponse> responses;
    responses.resize(count);
    for (size_t i = 0; i < count; i++) {
      responses[i].id = samples[i].id;
      responses[i].n_tokens = tokens_;
    }
    if (tokens_ > 0) lg::FirstTokenComplete(responses.data(), count);
    lg::QuerySamplesComplete(responses.data(), count);
  }
  void FlushQueries() override {}

 private:
  int64_t tokens_;
};

class NativeNullQsl : public lg::QuerySampleLibrary {
 public:
  NativeNullQsl(uint64_t total, uint64_t perf) : total_(total), perf_(perf) {}
  std::string Name() override { return "NativeNullQSL"; }
  uint64_t TotalSampleCount() override { return total_; }
  uint64_t PerformanceSampleCount() override { return perf_; }
  void LoadSamplesToRam(const std::vector<uint64_t>&) override {}
  void UnloadSamplesFromRam(const std::vector<uint64_t>&) override {}

 private:
  uint64_t total_, perf_;
};

}  // namespace lgaddon
