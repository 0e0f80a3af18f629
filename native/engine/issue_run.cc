#include "issue_run.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "clock.h"

namespace lg {

namespace {

constexpr uint8_t kCompleted = 1;
constexpr uint8_t kFirstToken = 2;

// Timer slack defaults to 50 µs on Linux; Server issue times should be tighter.
void TightenTimerSlack() {
#ifdef PR_SET_TIMERSLACK
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
}

// So `top -H`, perf and /proc show which thread issues (Server, Offline).
void NameIssueThread() {
#ifdef PR_SET_NAME
  prctl(PR_SET_NAME, "loadgen-issue", 0, 0, 0);
#endif
}

// Sleeps until `deadline_ns`, in slices so an abort is noticed. Like the
// official engine it sleeps even for a few microseconds: spinning or
// yielding instead keeps a core busy that the SUT's own threads need, which
// on a small client machine costs worker-thread SUTs much of their capacity.
void SleepUntil(int64_t deadline_ns, const std::atomic<bool>& aborted) {
  for (;;) {
    const int64_t now = NowNs();
    if (now >= deadline_ns || aborted.load(std::memory_order_relaxed)) return;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(deadline_ns - now, 5000000)));
  }
}

}  // namespace

IssueRun::IssueRun(IssueRunConfig config, GeneratedQueries&& queries)
    : cfg_(std::move(config)),
      s_(*cfg_.settings),
      gen_(std::move(queries)),
      first_id_(cfg_.id_base + cfg_.first_sequence_id),
      sample_count_(gen_.sample_index.size()),
      samples_(new Sample[gen_.sample_index.size()]),
      queries_(new Query[gen_.query_count()]) {
  const size_t nq = gen_.query_count();
  for (size_t q = 0; q < nq; q++) {
    Query& query = queries_[q];
    query.scheduled_delta = gen_.scheduled_delta_ns[q];
    query.first_sample = gen_.query_offset[q];
    query.count = static_cast<uint32_t>(gen_.query_offset[q + 1] - gen_.query_offset[q]);
    query.remaining.store(query.count, std::memory_order_relaxed);
    for (uint64_t i = query.first_sample; i < gen_.query_offset[q + 1]; i++) {
      samples_[i].query = static_cast<uint32_t>(q);
    }
  }
  // Which samples go to the accuracy log is fixed up front: all of them in
  // accuracy mode, else those whose shifted uniform draw is <= probability.
  for (uint64_t i = 0; i < sample_count_; i++) {
    if (cfg_.accuracy) {
      samples_[i].logged = true;
    } else {
      double v = cfg_.accuracy_log_values[i] + cfg_.accuracy_log_offset;
      if (!(v < 1.0)) v -= 1.0;
      samples_[i].logged = v <= cfg_.accuracy_log_probability;
    }
  }
  cfg_.accuracy_log_values.clear();
  cfg_.accuracy_log_values.shrink_to_fit();
}

IssueRun::~IssueRun() {
  for (uint64_t i = 0; i < sample_count_; i++) delete samples_[i].token_data;
}

void IssueRun::RecordError(const char* message) { LG_LOG_ERROR(*cfg_.detail, "error_runtime", message); }

void IssueRun::MarkIssued(Query& q, int64_t scheduled_ns, int64_t issued_ns) {
  q.scheduled_ns = scheduled_ns;
  q.issued_ns = issued_ns;
  q.issued.store(true, std::memory_order_release);
}

void IssueRun::CallSut(uint64_t first_query, uint64_t last_query, uint64_t stride) {
  // A query of one sample (Server, SingleStream) goes without any allocation.
  if (first_query == last_query && queries_[first_query].count == 1) {
    const Query& q = queries_[first_query];
    QuerySample one{first_id_ + q.first_sample, gen_.sample_index[q.first_sample]};
    issued_samples_.fetch_add(1, std::memory_order_relaxed);
    cfg_.sut->IssueQuery(&one, 1);
    return;
  }
  // Reused per thread, so MultiStream and coalesced queries allocate nothing
  // once warm. Safe: the SUT copies or consumes the samples before the engine
  // issues again on this thread (the sequential trampoline never nests).
  thread_local std::vector<QuerySample> batch;
  batch.clear();
  size_t total = 0;
  for (uint64_t qi = first_query; qi <= last_query; qi += stride) total += queries_[qi].count;
  batch.reserve(total);
  for (uint64_t qi = first_query; qi <= last_query; qi += stride) {
    const Query& q = queries_[qi];
    for (uint64_t i = q.first_sample; i < q.first_sample + q.count; i++) {
      batch.push_back({first_id_ + i, gen_.sample_index[i]});
    }
  }
  issued_samples_.fetch_add(total, std::memory_order_relaxed);
  cfg_.sut->IssueQuery(batch.data(), batch.size());
}

// Server and Offline: issue on a schedule, without waiting for completions.
void IssueRun::IssueServer(size_t thread_idx, size_t stride) {
  TightenTimerSlack();
  NameIssueThread();
  const bool server = s_.scenario == Scenario::Server;
  const bool multi_thread = stride > 1;
  const uint64_t count = gen_.query_count();
  const uint64_t min_q = s_.min_query_count;
  const uint64_t min_for_thread = thread_idx < min_q % stride ? min_q / stride + 1 : min_q / stride;
  const uint64_t max_q = s_.max_query_count;
  const uint64_t max_for_thread = thread_idx < max_q % stride ? max_q / stride + 1 : max_q / stride;
  const int64_t start = start_ns_;
  bool ran_out = !server;
  uint64_t issued = 0;
  uint64_t expected = 0;
  int64_t last_now = start;

  for (uint64_t qi = thread_idx; qi < count; qi += stride) {
    if (aborted_.load(std::memory_order_relaxed)) {
      ran_out = false;
      break;
    }
    uint64_t per_iter = 0;
    Query& q = queries_[qi];
    int64_t scheduled = server ? start + q.scheduled_delta : start;
    int64_t now = NowNs();
    if (server && now < scheduled) {
      SleepUntil(scheduled, aborted_);
      now = NowNs();
    }
    last_now = now;
    const uint64_t first = qi;
    if (server && s_.requested.server_coalesce_queries) {
      // Every later query already due joins this IssueQuery call.
      for (; qi + stride < count; qi += stride) {
        if (last_now < start + queries_[qi + stride].scheduled_delta) break;
        per_iter++;
      }
    }
    for (uint64_t k = first; k <= qi; k += stride) {
      Query& member = queries_[k];
      MarkIssued(member, server ? start + member.scheduled_delta : scheduled, now);
      expected += member.count;
    }
    CallSut(first, qi, stride);
    per_iter++;
    issued += per_iter;

    if (cfg_.accuracy) continue;

    const int64_t duration = last_now - start;
    if (server) {
      if (s_.max_async_queries != 0) {
        uint64_t total_issued;
        if (multi_thread) {
          std::lock_guard<std::mutex> lock(issue_mu_);
          queries_issued_ += per_iter;
          total_issued = queries_issued_;
        } else {
          total_issued = issued;
        }
        const uint64_t outstanding = total_issued - queries_completed_.load(std::memory_order_relaxed);
        if (outstanding > s_.max_async_queries) {
          std::ostringstream ss;
          ss << "IssueQueryThread " << thread_idx << " Ending early: Too many outstanding queries."
             << " issued " << total_issued << " outstanding " << outstanding;
          RecordError(ss.str().c_str());
          break;
        }
      }
    } else if (issued >= min_for_thread && duration >= s_.target_duration_ms * 1000000) {
      LG_LOG(*cfg_.detail, "generic_message", "Ending naturally: Minimum query count and test duration met.");
      ran_out = false;
      break;
    }
    if (max_q != 0 && issued >= max_for_thread) {
      std::ostringstream ss;
      ss << "IssueQueryThread " << thread_idx << " Ending early: Max query count reached."
         << " query_count " << issued;
      RecordError(ss.str().c_str());
      ran_out = false;
      break;
    }
    if (s_.max_duration_ms != 0 && duration > s_.max_duration_ms * 1000000) {
      std::ostringstream ss;
      ss << "IssueQueryThread " << thread_idx << " Ending early: Max test duration reached."
         << " duration_ns " << duration;
      RecordError(ss.str().c_str());
      ran_out = false;
      break;
    }
  }

  std::lock_guard<std::mutex> lock(issue_mu_);
  ran_out_ = ran_out_ || ran_out;
  if (!(server && s_.max_async_queries != 0 && multi_thread)) queries_issued_ += issued;
  expected_latencies_ += expected;
}

// Closed loop (not an MLPerf scenario): `closed_loop_concurrency` queries in
// flight, the next issued as soon as one completes, on this thread, so the
// SUT sees issues from the same thread as in Server. A query's scheduled time
// is its issue time: latency is what the client that sent it waits.
void IssueRun::IssueClosedLoop() {
  TightenTimerSlack();
  NameIssueThread();
  const uint64_t width = s_.requested.closed_loop_concurrency;
  const uint64_t count = gen_.query_count();
  bool ran_out = true;
  uint64_t issued = 0;
  uint64_t expected = 0;
  for (uint64_t qi = 0; qi < count; qi++) {
    {
      std::unique_lock<std::mutex> lock(issue_mu_);
      issue_cv_.wait(lock, [&] {
        return aborted_.load(std::memory_order_relaxed) ||
               issued - queries_completed_.load(std::memory_order_acquire) < width;
      });
    }
    if (aborted_.load(std::memory_order_relaxed)) {
      ran_out = false;
      break;
    }
    Query& q = queries_[qi];
    const int64_t now = NowNs();
    q.scheduled_delta = now - start_ns_;
    MarkIssued(q, now, now);
    expected += q.count;
    CallSut(qi, qi, 1);
    issued++;
    if (cfg_.accuracy) continue;

    const int64_t duration = now - start_ns_;
    if (issued >= s_.min_query_count && duration >= s_.target_duration_ms * 1000000) {
      LG_LOG(*cfg_.detail, "generic_message", "Ending naturally: Minimum query count and test duration met.");
      ran_out = false;
      break;
    }
    if (s_.max_query_count != 0 && issued >= s_.max_query_count) {
      std::ostringstream ss;
      ss << "IssueQueryThread 0 Ending early: Max query count reached. query_count " << issued;
      RecordError(ss.str().c_str());
      ran_out = false;
      break;
    }
    if (s_.max_duration_ms != 0 && duration > s_.max_duration_ms * 1000000) {
      std::ostringstream ss;
      ss << "IssueQueryThread 0 Ending early: Max test duration reached. duration_ns " << duration;
      RecordError(ss.str().c_str());
      ran_out = false;
      break;
    }
  }
  if (cfg_.accuracy) ran_out = false;
  std::lock_guard<std::mutex> lock(issue_mu_);
  ran_out_ = ran_out_ || ran_out;
  queries_issued_ += issued;
  expected_latencies_ += expected;
}

void IssueRun::KickSequential() {
  if (kicks_.fetch_add(1, std::memory_order_acq_rel) == 0) RunSequential();
}

void IssueRun::ResumeIssuing() { RunSequential(); }

void IssueRun::RunSequential() {
  for (;;) {
    bool done;
    {
      std::lock_guard<std::mutex> lock(issue_mu_);
      done = issuing_done_;
    }
    if (!done && !aborted_.load(std::memory_order_relaxed) && !cfg_.sut->CanIssueOnThisThread()) {
      // Parked: kicks_ stays above zero until ResumeIssuing runs the loop.
      cfg_.sut->RequestIssueContext();
      return;
    }
    if (!done) IssueNextSequential();
    if (kicks_.fetch_sub(1, std::memory_order_acq_rel) == 1) return;
  }
}

// SingleStream/MultiStream: called once per completed query (and once at
// start); issues the next query at once, so latency is issue → completion.
bool IssueRun::IssueNextSequential() {
  if (aborted_.load(std::memory_order_relaxed)) {
    FinishIssuing(false);
    return false;
  }
  const uint64_t qi = next_query_++;
  Query& q = queries_[qi];
  const int64_t now = NowNs();
  MarkIssued(q, now, now);
  last_issue_ns_ = now;
  {
    std::lock_guard<std::mutex> lock(issue_mu_);
    queries_issued_++;
    expected_latencies_ += q.count;
  }
  CallSut(qi, qi, 1);

  uint64_t issued;
  {
    std::lock_guard<std::mutex> lock(issue_mu_);
    issued = queries_issued_;
  }
  if (!cfg_.accuracy) {
    const int64_t duration = now - start_ns_;
    if (issued >= s_.min_query_count && duration >= s_.target_duration_ms * 1000000) {
      LG_LOG(*cfg_.detail, "generic_message", "Ending naturally: Minimum query count and test duration met.");
      FinishIssuing(false);
      return false;
    }
    if (s_.max_query_count != 0 && issued >= s_.max_query_count) {
      std::ostringstream ss;
      ss << "IssueQueryThread 0 Ending early: Max query count reached. query_count " << issued;
      RecordError(ss.str().c_str());
      FinishIssuing(false);
      return false;
    }
    if (s_.max_duration_ms != 0 && duration > s_.max_duration_ms * 1000000) {
      std::ostringstream ss;
      ss << "IssueQueryThread 0 Ending early: Max test duration reached. duration_ns " << duration;
      RecordError(ss.str().c_str());
      FinishIssuing(false);
      return false;
    }
  }
  if (next_query_ >= gen_.query_count()) {
    FinishIssuing(true);
    return false;
  }
  return true;
}

void IssueRun::FinishIssuing(bool ran_out) {
  {
    std::lock_guard<std::mutex> lock(issue_mu_);
    if (issuing_done_) return;
    issuing_done_ = true;
    ran_out_ = ran_out;
  }
  issue_cv_.notify_all();
}

void IssueRun::OnQueryDone(Query& q) {
  (void)q;
  if (s_.scenario == Scenario::Server) {
    queries_completed_.fetch_add(1, std::memory_order_relaxed);
    if (s_.requested.closed_loop_concurrency > 0) {
      // Taking the lock orders this wake-up after the issuer's check of the count.
      { std::lock_guard<std::mutex> lock(issue_mu_); }
      issue_cv_.notify_one();
    }
  }
  if (s_.scenario == Scenario::SingleStream || s_.scenario == Scenario::MultiStream) KickSequential();
}

bool IssueRun::IssueTimes(uint64_t id, int64_t* scheduled_ns, int64_t* issued_ns) const {
  if (id < first_id_ || id - first_id_ >= sample_count_) return false;
  const Query& q = queries_[samples_[id - first_id_].query];
  if (!q.issued.load(std::memory_order_acquire)) return false;
  *scheduled_ns = q.scheduled_ns;
  *issued_ns = q.issued_ns;
  return true;
}

bool IssueRun::FromEarlierTest(uint64_t id) const {
  // Ids below 2^32 were never handed out (test numbers start at 1).
  return id < cfg_.id_base && id >= (uint64_t{1} << kIdBaseShift);
}

void IssueRun::Complete(const SampleResponse& r, int64_t now) {
  if (FromEarlierTest(r.id)) return;  // a late answer to an ended test: not this test's business
  if (r.id < first_id_ || r.id - first_id_ >= sample_count_) {
    cfg_.errors->unknown_ids.fetch_add(1, std::memory_order_relaxed);
    std::ostringstream ss;
    ss << "Received a completion for an unknown response id " << r.id << " (this pass issued ids " << first_id_
       << " to " << first_id_ + sample_count_ - 1 << ")";
    RecordError(ss.str().c_str());
    return;
  }
  const uint64_t i = r.id - first_id_;
  Sample& s = samples_[i];
  Query& q = queries_[s.query];
  if (!q.issued.load(std::memory_order_acquire)) {
    cfg_.errors->unknown_ids.fetch_add(1, std::memory_order_relaxed);
    std::ostringstream ss;
    ss << "Received a completion for response id " << r.id << ", which was never issued";
    RecordError(ss.str().c_str());
    return;
  }
  const uint8_t prev = s.state.fetch_or(kCompleted, std::memory_order_acq_rel);
  if (prev & kCompleted) {
    cfg_.errors->duplicate_completions.fetch_add(1, std::memory_order_relaxed);
    RecordError("Attempted to complete a sample twice.");
    return;
  }
  const int64_t latency = now - q.scheduled_ns;
  if (cfg_.use_tokens) {
    const bool has_first = (prev & kFirstToken) != 0;
    if (cfg_.needs_first_token && !has_first) {
      cfg_.errors->missing_first_tokens.fetch_add(1, std::memory_order_relaxed);
      RecordError("Attempted to record a sample latency before it's first token latency");
    }
    int64_t n = r.n_tokens;
    if (n == 0) {
      cfg_.errors->token_count_errors.fetch_add(1, std::memory_order_relaxed);
      RecordError("n_tokens argument missing or attempted to record 0 as number of tokens");
    } else if (n < 0) {
      cfg_.errors->token_count_errors.fetch_add(1, std::memory_order_relaxed);
      RecordError("Attempted to record a negative number of tokens");
      n = 0;
    } else if (n == 1) {
      cfg_.errors->token_count_errors.fetch_add(1, std::memory_order_relaxed);
      RecordError("Number of tokens need to be greater than 1");
      n = 0;
    }
    s.n_tokens = n;
    // The official engine divides by n - 1 even when n was reset to 0, and
    // subtracts an unset TTFT as-is; reproduce that arithmetic without UB.
    const int64_t ttft = cfg_.needs_first_token ? (has_first ? s.ttft : kInvalidLatency) : 0;
    const int64_t diff = static_cast<int64_t>(static_cast<uint64_t>(latency) - static_cast<uint64_t>(ttft));
    s.tpot = diff / (n - 1);
  }
  s.latency = latency;
  s.complete_ns = now;
  if (s.logged && cfg_.accuracy_log) {
    AccuracyEntry e;
    e.seq_id = r.id - cfg_.id_base;
    e.qsl_idx = gen_.sample_index[i];
    if (r.data && r.size) e.data.assign(r.data, r.data + r.size);
    if (s.token_data) e.token_data = *s.token_data;
    e.n_tokens = r.n_tokens;
    cfg_.accuracy_log->Add(std::move(e));
  }
  if (q.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    q.done_ns.store(now, std::memory_order_release);
    OnQueryDone(q);
  }
  const uint64_t c = completed_.fetch_add(1, std::memory_order_seq_cst) + 1;
  if (c == expected_.load(std::memory_order_seq_cst)) {
    std::lock_guard<std::mutex> lock(done_mu_);
    done_cv_.notify_all();
  }
}

void IssueRun::FirstToken(const SampleResponse& r, int64_t now) {
  if (FromEarlierTest(r.id)) return;
  if (r.id < first_id_ || r.id - first_id_ >= sample_count_) {
    cfg_.errors->unknown_ids.fetch_add(1, std::memory_order_relaxed);
    std::ostringstream ss;
    ss << "Received a first token for an unknown response id " << r.id;
    RecordError(ss.str().c_str());
    return;
  }
  const uint64_t i = r.id - first_id_;
  Sample& s = samples_[i];
  Query& q = queries_[s.query];
  if (!q.issued.load(std::memory_order_acquire)) {
    cfg_.errors->unknown_ids.fetch_add(1, std::memory_order_relaxed);
    RecordError("Received a first token for a response id that was never issued");
    return;
  }
  uint8_t prev = s.state.load(std::memory_order_acquire);
  if (prev & kCompleted) {
    cfg_.errors->late_first_tokens.fetch_add(1, std::memory_order_relaxed);
    RecordError("Attempted to record token latency after sample was completed");
    return;
  }
  if (prev & kFirstToken) {
    cfg_.errors->duplicate_first_tokens.fetch_add(1, std::memory_order_relaxed);
    RecordError("Attempted to complete a sample twice.");
    return;
  }
  s.ttft = now - q.scheduled_ns;
  if (s.logged && cfg_.accuracy_log && !s.token_data) {
    s.token_data = new std::vector<uint8_t>(r.data, r.data + (r.data ? r.size : 0));
  }
  while (!s.state.compare_exchange_weak(prev, prev | kFirstToken, std::memory_order_acq_rel)) {
    if (prev & (kCompleted | kFirstToken)) {
      // Lost a race with a completion or another first token of this sample.
      cfg_.errors->late_first_tokens.fetch_add(1, std::memory_order_relaxed);
      RecordError("Attempted to record token latency after sample was completed");
      return;
    }
  }
}

void IssueRun::Abort() {
  aborted_.store(true);
  { std::lock_guard<std::mutex> lock(issue_mu_); }
  issue_cv_.notify_all();
  { std::lock_guard<std::mutex> lock(done_mu_); }
  done_cv_.notify_all();
}

PerformanceResult IssueRun::Run() {
  start_ns_ = NowNs();
  const Scenario sc = s_.scenario;
  if (sc == Scenario::Server && s_.requested.closed_loop_concurrency > 0) {
    IssueClosedLoop();
  } else if (sc == Scenario::Server && s_.requested.server_num_issue_query_threads > 0) {
    const size_t n = s_.requested.server_num_issue_query_threads;
    std::vector<std::thread> threads;
    for (size_t t = 0; t < n; t++) threads.emplace_back([this, t, n] { IssueServer(t, n); });
    for (auto& t : threads) t.join();
  } else if (sc == Scenario::Server || sc == Scenario::Offline) {
    IssueServer(0, 1);
  } else {
    KickSequential();
    std::unique_lock<std::mutex> lock(issue_mu_);
    issue_cv_.wait(lock, [this] { return issuing_done_ || aborted_.load(); });
  }

  cfg_.sut->FlushQueries();

  uint64_t queries_issued, expected;
  bool ran_out;
  {
    std::lock_guard<std::mutex> lock(issue_mu_);
    queries_issued = queries_issued_;
    expected = expected_latencies_;
    ran_out = ran_out_;
  }
  if (!cfg_.accuracy && ran_out && !aborted_.load()) {
    RecordError(
        "Ending early: Ran out of generated queries to issue before the minimum query count and test duration "
        "were reached. Please update the relevant expected latency or target qps in the TestSettings so they are "
        "more accurate.");
  }

  // Wait for every issued sample to complete (or for an abort).
  expected_.store(expected, std::memory_order_seq_cst);
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    while (completed_.load(std::memory_order_seq_cst) < expected && !aborted_.load()) {
      done_cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }
  // A sequential loop may still be unwinding on the completing thread.
  while (kicks_.load(std::memory_order_acquire) != 0 && !aborted_.load()) std::this_thread::yield();

  PerformanceResult pr;
  pr.queries_issued = queries_issued;
  const bool tokens = cfg_.use_tokens;
  pr.sample_latencies.reserve(expected);
  if (tokens) {
    pr.tokens_per_sample.reserve(expected);
    if (cfg_.needs_first_token) {
      pr.first_token_latencies.reserve(expected);
      pr.time_per_output_token.reserve(expected);
    }
  }
  int64_t max_latency = 0;
  uint64_t incomplete = 0;
  for (uint64_t i = 0; i < sample_count_; i++) {
    const Sample& s = samples_[i];
    if (!queries_[s.query].issued.load(std::memory_order_acquire)) continue;
    if (!(s.state.load(std::memory_order_acquire) & kCompleted)) {
      incomplete++;
      continue;
    }
    pr.sample_latencies.push_back(s.latency);
    max_latency = std::max(max_latency, s.latency);
    if (tokens) {
      pr.tokens_per_sample.push_back(s.n_tokens);
      if (cfg_.needs_first_token) {
        pr.first_token_latencies.push_back(s.ttft);
        pr.time_per_output_token.push_back(s.tpot);
      }
    }
  }
  if (incomplete != 0) {
    std::ostringstream ss;
    ss << "Encountered incomplete samples at the end of a series of queries. count: " << incomplete;
    RecordError(ss.str().c_str());
  }
  pr.max_latency = NsToSeconds(max_latency);
  if (queries_issued > 0) {
    const Query& final_query = queries_[queries_issued - 1];
    pr.final_query_scheduled_time = NsToSeconds(final_query.scheduled_delta);
    pr.final_query_issued_time = NsToSeconds(final_query.issued_ns - start_ns_);
    pr.final_query_all_samples_done_time = NsToSeconds(final_query.done_ns.load() - start_ns_);
  }
  if (sc == Scenario::MultiStream) {
    pr.query_latencies.reserve(queries_issued);
    for (uint64_t q = 0; q < queries_issued; q++) {
      pr.query_latencies.push_back(queries_[q].done_ns.load() - queries_[q].scheduled_ns);
    }
  }
  return pr;
}

std::vector<IssueRun::SampleTimes> IssueRun::CollectTimes() const {
  std::vector<SampleTimes> out;
  out.reserve(sample_count_);
  for (uint64_t i = 0; i < sample_count_; i++) {
    const Sample& s = samples_[i];
    const Query& q = queries_[s.query];
    if (!q.issued.load(std::memory_order_acquire)) continue;
    const int64_t first = (s.state.load() & kFirstToken) ? q.scheduled_ns + s.ttft : 0;
    const int64_t done = (s.state.load() & kCompleted) ? s.complete_ns : 0;
    out.push_back(
        {first_id_ - cfg_.id_base + i, s.query, gen_.sample_index[i], q.scheduled_ns, q.issued_ns, first, done});
  }
  return out;
}

}  // namespace lg
