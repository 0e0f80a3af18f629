// The two interfaces a test drives: the system under test and the query
// sample library, plus the response record a SUT completes samples with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lg {

// One sample of an issued query. `id` is the sample's sequence number in the
// test: what the SUT hands back on completion.
struct QuerySample {
  uint64_t id;
  uint64_t index;  // QSL index
};

struct SampleResponse {
  uint64_t id;
  const uint8_t* data = nullptr;  // bytes for the accuracy log (copied only if logged)
  size_t size = 0;
  int64_t n_tokens = 0;
};

class SystemUnderTest {
 public:
  virtual ~SystemUnderTest() = default;
  virtual std::string Name() = 0;
  // Called from the engine's issuing thread(s), or, in SingleStream and
  // MultiStream, from whichever thread completed the previous query.
  virtual void IssueQuery(const QuerySample* samples, size_t count) = 0;
  virtual void FlushQueries() = 0;
  // SingleStream/MultiStream issue the next query on the thread that
  // completed the previous one. A SUT bound to one thread (a JS SUT on the
  // main thread) answers false elsewhere; the engine then calls
  // RequestIssueContext and the SUT must call Engine::ResumeIssuing() on its
  // thread.
  virtual bool CanIssueOnThisThread() { return true; }
  virtual void RequestIssueContext() {}
};

class QuerySampleLibrary {
 public:
  virtual ~QuerySampleLibrary() = default;
  virtual std::string Name() = 0;
  virtual uint64_t TotalSampleCount() = 0;
  virtual uint64_t PerformanceSampleCount() = 0;
  // Blocking: returns once the samples are ready.
  virtual void LoadSamplesToRam(const std::vector<uint64_t>& indices) = 0;
  virtual void UnloadSamplesFromRam(const std::vector<uint64_t>& indices) = 0;
};

}  // namespace lg
