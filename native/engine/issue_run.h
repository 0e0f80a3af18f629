// One pass of issuing pre-generated queries to the SUT and recording their
// completions (the official IssueQueries): the per-sample and per-query
// records, the issuing loops of each scenario, and the wait-free completion
// path that any thread may call.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "accuracy_log.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "performance_result.h"
#include "query_generation.h"
#include "sut.h"

namespace lg {

// Counters of responses that could not be recorded, reported in the result.
struct ResponseErrorCounts {
  std::atomic<uint64_t> unknown_ids{0};  // id of no issued sample of this run
  std::atomic<uint64_t> duplicate_completions{0};
  std::atomic<uint64_t> duplicate_first_tokens{0};
  std::atomic<uint64_t> late_first_tokens{0};  // first token after completion
  std::atomic<uint64_t> token_count_errors{0};
  std::atomic<uint64_t> missing_first_tokens{0};
};

// Response ids are (test number << kIdBaseShift) + sequence id.
constexpr int kIdBaseShift = 32;

struct IssueRunConfig {
  const EffectiveSettings* settings;
  bool accuracy;               // accuracy-mode pass (log every sample)
  uint64_t first_sequence_id;  // sample ids continue across passes
  // Added to every sequence id handed to the SUT, and unique per test in the
  // process, so a response that arrives after its test ended can never pass
  // for a sample of a later test. The logs show sequence ids (id - id_base).
  uint64_t id_base = 0;
  SystemUnderTest* sut;
  DetailLog* detail;
  AccuracyLog* accuracy_log;  // may be null
  ResponseErrorCounts* errors;
  std::vector<double> accuracy_log_values;  // per generated sample, from the sequence RNG
  double accuracy_log_offset;
  double accuracy_log_probability;
  bool use_tokens;
  bool needs_first_token;
};

class IssueRun {
 public:
  IssueRun(IssueRunConfig config, GeneratedQueries&& queries);
  ~IssueRun();

  // Issues the queries (blocking until issuing ends), flushes, waits for the
  // completions and returns what was measured. Returns early, with partial
  // data, once Abort() is called.
  PerformanceResult Run();

  // Completion entry points; safe from any thread, no allocation unless the
  // sample goes into the accuracy log.
  void Complete(const SampleResponse& r, int64_t now_ns);
  void FirstToken(const SampleResponse& r, int64_t now_ns);

  // SingleStream/MultiStream: continue issuing on the calling thread after
  // the SUT asked for an issue context.
  void ResumeIssuing();
  void Abort();

  uint64_t first_sequence_id() const { return first_id_ - cfg_.id_base; }
  uint64_t sample_count() const { return sample_count_; }
  // Scheduled and issued times of the query holding response id `id`;
  // false for an id this pass has not issued.
  bool IssueTimes(uint64_t id, int64_t* scheduled_ns, int64_t* issued_ns) const;
  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }
  uint64_t issued_samples() const { return issued_samples_.load(std::memory_order_relaxed); }
  int64_t start_ns() const { return start_ns_; }

  // Per-sample records, kept for the trace after Run() returns.
  struct SampleTimes {
    uint64_t seq_id, query, qsl_index;
    int64_t scheduled_ns, issued_ns, first_token_ns, complete_ns;
  };
  std::vector<SampleTimes> CollectTimes() const;

 private:
  bool FromEarlierTest(uint64_t id) const;
  struct Sample {
    std::atomic<uint8_t> state{0};  // bit 0: completed, bit 1: first token seen
    bool logged = false;
    uint32_t query = 0;
    int64_t latency = kInvalidLatency;
    int64_t ttft = kInvalidLatency;
    int64_t tpot = kInvalidLatency;
    int64_t n_tokens = kInvalidTokens;
    int64_t complete_ns = 0;
    std::vector<uint8_t>* token_data = nullptr;  // accuracy-logged samples only
  };
  struct Query {
    int64_t scheduled_delta = 0;
    int64_t scheduled_ns = 0;
    int64_t issued_ns = 0;
    std::atomic<int64_t> done_ns{0};
    std::atomic<uint32_t> remaining{0};
    std::atomic<bool> issued{false};
    uint64_t first_sample = 0;
    uint32_t count = 0;
  };

  void IssueServer(size_t thread_idx, size_t stride);
  void IssueClosedLoop();
  void IssueOffline();
  void KickSequential();
  void RunSequential();
  bool IssueNextSequential();  // returns false once issuing is over
  void MarkIssued(Query& q, int64_t scheduled_ns, int64_t issued_ns);
  void CallSut(uint64_t first_query, uint64_t last_query, uint64_t stride);
  void FinishIssuing(bool ran_out);
  void OnQueryDone(Query& q);
  void RecordError(const char* message);

  IssueRunConfig cfg_;
  const EffectiveSettings& s_;
  GeneratedQueries gen_;
  uint64_t first_id_;
  uint64_t sample_count_;
  std::unique_ptr<Sample[]> samples_;
  std::unique_ptr<Query[]> queries_;

  int64_t start_ns_ = 0;
  int64_t start_wall_ms_ = 0;
  std::atomic<bool> aborted_{false};

  // Issuing bookkeeping (official IssueQueryState).
  std::mutex issue_mu_;
  std::condition_variable issue_cv_;
  bool issuing_done_ = false;
  bool ran_out_ = false;
  uint64_t queries_issued_ = 0;
  uint64_t expected_latencies_ = 0;
  std::atomic<uint64_t> issued_samples_{0};
  std::atomic<uint64_t> queries_completed_{0};
  int64_t last_issue_ns_ = 0;

  // Sequential trampoline: whoever raises kicks_ from 0 runs the loop.
  std::atomic<uint64_t> kicks_{0};
  uint64_t next_query_ = 0;

  // Completion wait.
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> expected_{UINT64_MAX};
  std::mutex done_mu_;
  std::condition_variable done_cv_;
};

}  // namespace lg
