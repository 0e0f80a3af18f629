#include "loadgen.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "accuracy_log.h"
#include "clock.h"
#include "config.h"
#include "detail_log.h"
#include "effective_settings.h"
#include "issue_run.h"
#include "query_generation.h"
#include "rng.h"
#include "trace_log.h"

namespace lg {

namespace {

// The engine's clock and the system clock read as one instant: the system
// clock between two reads of the engine's, taking the tightest of a few
// tries, the engine's time at its midpoint. Two bare reads in a row can be
// split by a preemption, and on a run of a few tens of milliseconds that
// alone puts the two durations 1 ms (over 1 %) apart, a clock error the
// clocks did not make.
struct ClockPair {
  Clock::time_point perf;
  std::chrono::system_clock::time_point system;
};

ClockPair ReadClocks() {
  ClockPair best{};
  Clock::duration tightest = Clock::duration::max();
  for (int i = 0; i < 3; ++i) {
    const auto before = Clock::now();
    const auto system = std::chrono::system_clock::now();
    const auto after = Clock::now();
    if (after - before < tightest) {
      tightest = after - before;
      best = {before + (after - before) / 2, system};
    }
  }
  return best;
}

// The state of the running test that completion calls need to reach.
struct Engine {
  std::atomic<bool> running{false};
  std::atomic<IssueRun*> active{nullptr};
  std::atomic<int64_t> inflight{0};  // completion calls inside `active`
  std::atomic<bool> abort_requested{false};
  std::atomic<int64_t> test_start_ns{0};
  std::atomic<uint64_t> issued_before{0};  // samples of finished passes
  std::atomic<uint64_t> completed_before{0};
  std::mutex abort_mu;
  std::string abort_reason;
  std::atomic<uint64_t> stray_completions{0};  // calls with no test running
  std::mutex sut_log_mu;                       // guards sut_log (rare path: SUT errors)
  DetailLog* sut_log = nullptr;                // the running test's detail log
};

Engine& E() {
  static Engine engine;
  return engine;
}

// Holds `active` alive while a completion call uses it.
class ActiveRunRef {
 public:
  ActiveRunRef() {
    E().inflight.fetch_add(1, std::memory_order_acq_rel);
    run_ = E().active.load(std::memory_order_acquire);
  }
  ~ActiveRunRef() { E().inflight.fetch_sub(1, std::memory_order_acq_rel); }
  IssueRun* get() const { return run_; }

 private:
  IssueRun* run_;
};

std::string FormatTime(const char* fmt, std::time_t t, bool utc) {
  std::tm tm_value{};
  if (utc) {
    gmtime_r(&t, &tm_value);
  } else {
    localtime_r(&t, &tm_value);
  }
  char buf[128];
  std::strftime(buf, sizeof buf, fmt, &tm_value);
  return buf;
}

// "MM-DD-YYYY HH:MM:SS.mmm" in UTC, the power-measurement time format.
std::string PowerTimeString(std::chrono::system_clock::time_point tp) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(tp);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(tp - std::chrono::system_clock::from_time_t(secs)).count();
  char ms_buf[8];
  std::snprintf(ms_buf, sizeof ms_buf, "%03d", static_cast<int>(ms));
  return FormatTime("%m-%d-%Y %T", secs, true) + "." + ms_buf;
}

// The build time, in the official loadgen_build_date_* format.
std::string BuildDate(bool utc) {
  std::tm tm_value{};
  strptime(__DATE__ " " __TIME__, "%b %d %Y %H:%M:%S", &tm_value);
  tm_value.tm_isdst = -1;
  std::time_t t = std::mktime(&tm_value);
  return FormatTime("%Y-%m-%dT%H:%M:%S", t, utc) + ".000000";
}

bool MakeDirs(const std::string& path) {
  if (path.empty()) return true;
  std::string partial;
  std::stringstream ss(path);
  std::string part;
  if (path[0] == '/') partial = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

struct LogFiles {
  std::ofstream summary, detail, accuracy, trace;
  std::string summary_path, detail_path, accuracy_path, trace_path;
};

void OpenLogFiles(const LogSettings& ls, const std::string& date_time, LogFiles* f) {
  if (!MakeDirs(ls.outdir)) {
    throw std::runtime_error("cannot create log directory '" + ls.outdir + "': " + std::strerror(errno));
  }
  std::string prefix = ls.outdir + "/" + ls.prefix;
  if (ls.prefix_with_datetime) prefix += date_time + "_";
  f->summary_path = prefix + "summary" + ls.suffix + ".txt";
  f->detail_path = prefix + "detail" + ls.suffix + ".txt";
  f->accuracy_path = prefix + "accuracy" + ls.suffix + ".json";
  f->trace_path = prefix + "trace" + ls.suffix + ".json";
  f->summary.open(f->summary_path);
  f->detail.open(f->detail_path);
  f->accuracy.open(f->accuracy_path);
  if (ls.enable_trace) f->trace.open(f->trace_path);
  const char* failed = !f->summary.good()                      ? f->summary_path.c_str()
                       : !f->detail.good()                     ? f->detail_path.c_str()
                       : !f->accuracy.good()                   ? f->accuracy_path.c_str()
                       : (ls.enable_trace && !f->trace.good()) ? f->trace_path.c_str()
                                                               : nullptr;
  if (failed) throw std::runtime_error(std::string("cannot open log file '") + failed + "'");
}

std::string WarningErrorTail(uint64_t warnings, uint64_t errors) {
  std::string out;
  if (warnings == 0) {
    out += "\nNo warnings encountered during test.\n";
  } else if (warnings == 1) {
    out += "\n1 warning encountered. See detailed log.\n";
  } else {
    out += "\n" + std::to_string(warnings) + " warnings encountered. See detailed log.\n";
  }
  if (errors == 0) {
    out += "\nNo errors encountered during test.\n";
  } else if (errors == 1) {
    out += "\n1 ERROR encountered. See detailed log.\n";
  } else {
    out += "\n" + std::to_string(errors) + " ERRORS encountered. See detailed log.\n";
  }
  return out;
}

uint64_t NextIdBase() {
  static std::atomic<uint64_t> tests{0};
  return ((tests.fetch_add(1) % ((uint64_t{1} << 21) - 1)) + 1) << kIdBaseShift;
}

// Everything one StartTest call needs while it runs its passes.
class TestDriver {
 public:
  TestDriver(SystemUnderTest* sut, QuerySampleLibrary* qsl, DetailLog* detail, AccuracyLog* acc, TraceLog* trace,
             ResponseErrorCounts* errors)
      : sut_(sut), qsl_(qsl), detail_(detail), acc_(acc), trace_(trace), errors_(errors) {}

  void RunAccuracy(const EffectiveSettings& s);
  void RunPerformance(const EffectiveSettings& s);
  void RunFindPeak(const EffectiveSettings& s);

  bool has_summary = false;
  Summary summary;
  std::string summary_text;
  double peak_qps = 0;

 private:
  PerformanceResult IssueQueries(const EffectiveSettings& s, const LoadableSet& set, bool accuracy);
  void Load(const std::vector<uint64_t>& indices);
  void Report(const EffectiveSettings& s, PerformanceResult pr);
  Summary RunAt(const EffectiveSettings& s, const LoadableSet& set);
  bool Aborted() const { return E().abort_requested.load(); }

  SystemUnderTest* sut_;
  QuerySampleLibrary* qsl_;
  DetailLog* detail_;
  AccuracyLog* acc_;
  TraceLog* trace_;
  ResponseErrorCounts* errors_;
  uint64_t next_sequence_id_ = 0;
  // Per test in this process (ids must stay exact in a JS number: 2^21 tests).
  const uint64_t id_base_ = NextIdBase();
  Mt19937 accuracy_log_rng_;  // never seeded explicitly, as in the official engine (5489)
};

void TestDriver::Load(const std::vector<uint64_t>& indices) {
  LG_LOG(*detail_, "loaded_qsl_set", LogValue(indices));
  qsl_->LoadSamplesToRam(indices);
}

PerformanceResult TestDriver::IssueQueries(const EffectiveSettings& s, const LoadableSet& set, bool accuracy) {
  IssueRunConfig cfg;
  cfg.settings = &s;
  cfg.accuracy = accuracy;
  cfg.first_sequence_id = next_sequence_id_;
  cfg.id_base = id_base_;
  cfg.sut = sut_;
  cfg.detail = detail_;
  cfg.accuracy_log = acc_;
  cfg.errors = errors_;
  {
    Mt19937 offset_rng(s.accuracy_log_rng_seed);
    cfg.accuracy_log_offset = UniformRealDouble(offset_rng, 0.0, 1.0);
  }
  cfg.accuracy_log_probability = s.accuracy_log_probability;
  cfg.use_tokens = s.use_token_latencies;
  cfg.needs_first_token = s.scenario != Scenario::Offline;

  GeneratedQueries gen = GenerateQueries(s, set, accuracy);
  LG_LOG(*detail_, "generated_query_count", static_cast<uint64_t>(gen.query_count()));
  LG_LOG(*detail_, "generated_samples_per_query", gen.samples_per_query);
  LG_LOG(*detail_, "generated_query_duration", static_cast<int64_t>(gen.duration_ns));
  cfg.accuracy_log_values.resize(gen.sample_index.size());
  for (auto& v : cfg.accuracy_log_values) v = UniformRealDouble(accuracy_log_rng_, 0.0, 1.0);
  next_sequence_id_ += gen.sample_index.size();

  // A sampling target turns into a probability over the expected sample count.
  uint64_t expected_queries = static_cast<uint64_t>(s.target_qps * static_cast<double>(s.min_duration_ms) / 1000);
  uint64_t minimum_queries = s.min_query_count * s.samples_per_query;
  if (s.scenario != Scenario::Offline) {
    expected_queries *= s.samples_per_query;
  } else {
    minimum_queries = s.min_sample_count;
  }
  if (expected_queries < minimum_queries) expected_queries = minimum_queries;
  if (s.accuracy_log_sampling_target > 0) {
    cfg.accuracy_log_probability = static_cast<double>(s.accuracy_log_sampling_target) / expected_queries;
  }

  auto run = std::make_unique<IssueRun>(std::move(cfg), std::move(gen));
  const auto wall_start = std::chrono::system_clock::now();
  E().active.store(run.get(), std::memory_order_release);
  if (Aborted()) run->Abort();
  PerformanceResult pr = run->Run();
  // Detach the pass; wait out completion calls still inside it.
  E().active.store(nullptr, std::memory_order_release);
  while (E().inflight.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  E().issued_before.fetch_add(run->issued_samples());
  E().completed_before.fetch_add(run->completed());

  // Counters of the official logger's internals; always 0 here (no TLS ring buffers).
  for (const char* key :
       {"logger_swap_request_slots_retry_count", "logger_swap_request_slots_retry_retry_count",
        "logger_swap_request_slots_retry_reencounter_count", "logger_start_reading_entries_retry_count",
        "logger_tls_total_log_cas_fail_count", "logger_tls_total_swap_buffers_slot_retry_count"}) {
    LG_LOG(*detail_, key, 0);
  }
  int64_t max_done_ns = run->start_ns();
  if (trace_) {
    auto times = run->CollectTimes();
    for (const auto& t : times) max_done_ns = std::max(max_done_ns, t.complete_ns);
    trace_->AddSamples(times, s.scenario == Scenario::Server);
  } else {
    max_done_ns += static_cast<int64_t>(pr.max_latency * 1e9);
  }
  const auto active = std::chrono::nanoseconds(max_done_ns - run->start_ns());
  LG_LOG(*detail_, "power_begin", PowerTimeString(wall_start));
  LG_LOG(*detail_, "power_end",
         PowerTimeString(wall_start + std::chrono::duration_cast<std::chrono::system_clock::duration>(active)));
  return pr;
}

Summary TestDriver::RunAt(const EffectiveSettings& s, const LoadableSet& set) {
  return ComputeSummary(sut_->Name(), s, IssueQueries(s, set, false));
}

void TestDriver::Report(const EffectiveSettings& s, PerformanceResult pr) {
  summary = ComputeSummary(sut_->Name(), s, std::move(pr));
  has_summary = true;
  summary_text.clear();
  AppendSummaryText(summary, s, &summary_text);
  LogSummaryDetail(summary, s, detail_);
}

void TestDriver::RunAccuracy(const EffectiveSettings& s) {
  LG_LOG(*detail_, "generic_message", "Starting accuracy mode");
  std::vector<LoadableSet> sets = GenerateLoadableSets(s, s.accuracy_sample_count, qsl_->TotalSampleCount());
  for (const auto& set : sets) {
    if (Aborted()) return;
    Load(set.set);
    IssueQueries(s, set, true);
    qsl_->UnloadSamplesFromRam(set.set);
  }
}

void TestDriver::RunPerformance(const EffectiveSettings& s) {
  LG_LOG(*detail_, "generic_message", "Starting performance mode");
  std::vector<LoadableSet> sets = GenerateLoadableSets(s, s.performance_sample_count, qsl_->TotalSampleCount());
  if (sets.empty()) throw std::runtime_error("the QSL has no samples");
  const LoadableSet& set = sets.front();
  Load(set.set);
  const ClockPair start = ReadClocks();
  const auto sc_start = start.system;
  if (s.print_timestamps) {
    std::cout << "Loadgen :: Perf mode start. system_clock Timestamp = "
              << std::chrono::system_clock::to_time_t(sc_start) << "\n"
              << std::flush;
  }
  PerformanceResult pr = IssueQueries(s, set, false);
  const ClockPair end = ReadClocks();
  const auto pc_ms = std::chrono::duration_cast<std::chrono::milliseconds>(end.perf - start.perf).count();
  const auto sc_ms = std::chrono::duration_cast<std::chrono::milliseconds>(end.system - sc_start).count();
  const float ratio = static_cast<float>(pc_ms) / sc_ms;
  if (s.print_timestamps) {
    std::cout << "Loadgen :: Perf mode stop. systme_clock Timestamp = "
              << std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()) << "\n"
              << "Loadgen :: PerfClock Perf duration = " << pc_ms << "ms\n"
              << "Loadgen :: system_clock Perf duration = " << sc_ms << "ms\n"
              << std::flush;
  }
  if (sc_ms > 0 && (ratio > 1.01f || ratio < 0.99f)) {
    std::ostringstream ss;
    ss << "PerfClock and system_clock differ by more than 1%!  pc_sc_ratio: " << ratio;
    LG_LOG_ERROR(*detail_, "error_runtime", ss.str());
  } else if (sc_ms > 0 && (ratio > 1.001f || ratio < 0.999f)) {
    std::ostringstream ss;
    ss << "PerfClock and system_clock differ by more than 0.1%!  pc_sc_ratio: " << ratio;
    LG_LOG_WARNING(*detail_, "warning_generic_message", ss.str());
  }
  if (!Aborted()) Report(s, std::move(pr));
  qsl_->UnloadSamplesFromRam(set.set);
}

std::string QpsField(double qps) { return std::to_string(qps); }

void TestDriver::RunFindPeak(const EffectiveSettings& base) {
  LG_LOG(*detail_, "generic_message", "Starting FindPeakPerformance mode");
  if (base.scenario != Scenario::Server) {
    LG_LOG_ERROR(*detail_, "error_invalid_config", "Finding peak performance is only supported in Server scenarios.");
    return;
  }
  LG_LOG(*detail_, "generic_message",
         "FindPeakPerformance: Check validity of the base settings field: " + QpsField(base.target_qps));
  auto load_set = [&](const EffectiveSettings& s) {
    return GenerateLoadableSets(s, s.performance_sample_count, qsl_->TotalSampleCount());
  };
  std::vector<LoadableSet> base_sets = load_set(base);
  Load(base_sets.front().set);
  Summary base_summary = RunAt(base, base_sets.front());
  if (!PerfConstraintsMet(base_summary)) {
    std::string msg;
    for (auto& r : base_summary.recommendations) msg += r;
    LG_LOG_ERROR(*detail_, "error_runtime",
                 "FindPeakPerformance: Initial lower bound does not satisfy performance constraints, msg: " + msg);
    summary = base_summary;
    has_summary = true;
    summary_text.clear();
    AppendSummaryText(summary, base, &summary_text);
    LogSummaryDetail(summary, base, detail_);
    qsl_->UnloadSamplesFromRam(base_sets.front().set);
    return;
  }
  qsl_->UnloadSamplesFromRam(base_sets.front().set);

  // Widen the upper bound until a run fails: [lower, upper).
  EffectiveSettings lower = base;
  Summary lower_summary = base_summary;
  EffectiveSettings upper = base;
  Summary upper_summary;
  for (;;) {
    if (Aborted()) return;
    upper = lower;
    upper.target_qps = lower.target_qps * (1 + lower.requested.server_find_peak_qps_boundary_step_size);
    LG_LOG(*detail_, "generic_message",
           "FindBoundaries: Checking fields [" + QpsField(lower.target_qps) + ", " + QpsField(upper.target_qps) + ")");
    std::vector<LoadableSet> sets = load_set(upper);
    Load(sets.front().set);
    upper_summary = RunAt(upper, sets.front());
    qsl_->UnloadSamplesFromRam(sets.front().set);
    if (!PerfConstraintsMet(upper_summary)) break;
    lower = upper;
    lower_summary = upper_summary;
  }
  LG_LOG(*detail_, "generic_message",
         "FindPeakPerformance: Found boundaries: [" + QpsField(lower.target_qps) + ", " + QpsField(upper.target_qps) +
             ")");

  std::vector<LoadableSet> sets = load_set(upper);
  Load(sets.front().set);
  const int precision = lower.requested.server_find_peak_qps_decimals_of_precision;
  for (;;) {
    if (Aborted()) break;
    const double l = std::floor(lower.target_qps * std::pow(10, precision));
    const double u = std::floor(upper.target_qps * std::pow(10, precision));
    if (l + 1 >= u) break;
    EffectiveSettings mid = lower;
    mid.target_qps = lower.target_qps + (upper.target_qps - lower.target_qps) / 2;
    LG_LOG(*detail_, "generic_message",
           "FindPeakPerformanceBinarySearch: Testing the mid value of bounds [" + QpsField(lower.target_qps) + ", " +
               QpsField(upper.target_qps) + "): " + QpsField(mid.target_qps));
    Summary mid_summary = RunAt(mid, sets.front());
    if (PerfConstraintsMet(mid_summary)) {
      lower = mid;
      lower_summary = mid_summary;
    } else {
      upper = mid;
    }
  }
  LG_LOG(*detail_, "generic_message",
         "FindPeakPerformance: Found peak performance field: " + QpsField(lower.target_qps));
  peak_qps = lower.target_qps;
  summary = lower_summary;
  has_summary = true;
  summary_text.clear();
  AppendSummaryText(summary, lower, &summary_text);
  LogSummaryDetail(summary, lower, detail_);
  qsl_->UnloadSamplesFromRam(sets.front().set);
}

}  // namespace

bool TestRunning() { return E().running.load(); }
bool AbortRequested() { return E().abort_requested.load(); }

TestOutcome StartTest(SystemUnderTest* sut, QuerySampleLibrary* qsl, const TestSettings& requested,
                      const LogSettings& log_settings, const TestOptions& options) {
  if (E().running.exchange(true)) {
    throw std::runtime_error("a test is already running in this process; wait for it to finish");
  }
  struct RunningGuard {
    ~RunningGuard() { E().running.store(false); }
  } running_guard;
  E().abort_requested.store(false);
  {
    std::lock_guard<std::mutex> lock(E().abort_mu);
    E().abort_reason.clear();
  }
  E().issued_before.store(0);
  E().completed_before.store(0);
  E().test_start_ns.store(NowNs());

  const std::string date_time = FormatTime("%FT%TZ", std::time(nullptr), false);
  LogFiles files;
  OpenLogFiles(log_settings, date_time, &files);

  TestOutcome out;
  out.summary_path = files.summary_path;
  out.detail_path = files.detail_path;
  out.accuracy_path = files.accuracy_path;
  out.trace_path = log_settings.enable_trace ? files.trace_path : "";

  DetailLog detail;
  detail.Open(&files.detail, log_settings.copy_detail_to_stdout, E().test_start_ns.load());
  {
    std::lock_guard<std::mutex> lock(E().sut_log_mu);
    E().sut_log = &detail;
  }
  AccuracyLog acc;
  acc.Open(&files.accuracy, !requested.use_token_latencies            ? AccuracyFormat::Plain
                            : requested.scenario == Scenario::Offline ? AccuracyFormat::TokenCount
                                                                      : AccuracyFormat::TokenDataAndCount);
  std::unique_ptr<TraceLog> trace;
  if (log_settings.enable_trace) trace.reset(new TraceLog(&files.trace, E().test_start_ns.load()));
  ResponseErrorCounts errors;

  detail.SetFixedTime(NowNs());
  LG_LOG(detail, "loadgen_version", std::string(kCompatibleLoadgenVersion) + " @ x-loadgen-" + kEngineVersion);
  LG_LOG(detail, "loadgen_build_date_local", BuildDate(false));
  LG_LOG(detail, "loadgen_build_date_utc", BuildDate(true));
  LG_LOG(detail, "loadgen_git_commit_date", "NA");
  LG_LOG(detail, "loadgen_git_log_message", "NA");
  LG_LOG(detail, "loadgen_git_status_message", "NA");
  LG_LOG(detail, "loadgen_file_sha1", LogValue::Raw(std::string("{\"@x/loadgen\":\"") + kEngineVersion + "\"}"));

  std::string summary_text;
  try {
    const int64_t before_name = NowNs();
    const std::string sut_name = sut->Name();
    const int64_t name_ns = NowNs() - before_name;
    const std::string qsl_name = qsl->Name();
    const uint64_t total = qsl->TotalSampleCount();
    const uint64_t perf = qsl->PerformanceSampleCount();
    detail.SetFixedTime(NowNs());
    LG_LOG(detail, "test_datetime", date_time);
    LG_LOG(detail, "sut_name", sut_name);
    LG_LOG(detail, "get_sut_name_duration_ns", name_ns);
    LG_LOG(detail, "qsl_name", qsl_name);
    LG_LOG(detail, "qsl_reported_total_count", total);
    LG_LOG(detail, "qsl_reported_performance_count", perf);
    detail.SetFixedTime(0);

    TestSettings settings = requested;
    std::ifstream audit_probe(options.audit_config_path);
    if (!options.audit_config_path.empty() && audit_probe.good()) {
      LG_LOG_WARNING(detail, "warning_generic_message",
                     "Found Audit Config file (audit.config). Overriding TestSettings from audit.config file.");
      std::vector<std::string> audit_errors;
      ApplyAuditConfig(options.audit_config_path, &settings, &audit_errors);
      for (const auto& e : audit_errors) LG_LOG_ERROR(detail, "error_invalid_config", e);
    }
    if (settings.test05) {
      LG_LOG_WARNING(detail, "warning_generic_message", "Test05 flag detected Overriding random seeds");
      settings.mode = Mode::PerformanceOnly;
      settings.qsl_rng_seed = requested.test05_qsl_rng_seed;
      settings.sample_index_rng_seed = requested.test05_sample_index_rng_seed;
      settings.schedule_rng_seed = requested.test05_schedule_rng_seed;
    }

    EffectiveSettings eff(settings, perf, total, &detail);
    eff.LogAll(&detail);
    // The official engine logs this and then reads past the loaded set; end
    // the test instead, with the logs written.
    if (eff.mode != Mode::AccuracyOnly && settings.performance_issue_same && !settings.performance_issue_unique &&
        settings.performance_issue_same_index >= eff.performance_sample_count) {
      throw std::runtime_error("performance_issue_same_index " + std::to_string(settings.performance_issue_same_index) +
                               " is past the loaded performance set (performance_sample_count " +
                               std::to_string(eff.performance_sample_count) + ")");
    }
    detail.SetFixedTime(0);
    out.effective_samples_per_query = eff.samples_per_query;
    out.effective_min_query_count = eff.min_query_count;
    out.effective_target_qps = eff.target_qps;
    out.performance_sample_count = eff.performance_sample_count;
    out.accuracy_sample_count = eff.accuracy_sample_count;

    TestDriver driver(sut, qsl, &detail, &acc, trace.get(), &errors);
    switch (eff.mode) {
      case Mode::SubmissionRun:
        driver.RunAccuracy(eff);
        if (!E().abort_requested.load()) driver.RunPerformance(eff);
        break;
      case Mode::AccuracyOnly: driver.RunAccuracy(eff); break;
      case Mode::PerformanceOnly: driver.RunPerformance(eff); break;
      case Mode::FindPeakPerformance: driver.RunFindPeak(eff); break;
    }
    out.has_summary = driver.has_summary;
    out.summary = driver.summary;
    summary_text = driver.summary_text;
    out.peak_target_qps = driver.peak_qps;
  } catch (const std::exception& e) {
    // A callback failure or an engine error: end the test, keep the logs readable.
    AbortTest(e.what());
  }

  if (E().abort_requested.load()) {
    std::lock_guard<std::mutex> lock(E().abort_mu);
    out.aborted = true;
    out.abort_reason = E().abort_reason;
    LG_LOG_ERROR(detail, "error_runtime", "Test aborted: " + E().abort_reason);
    if (summary_text.empty()) {
      summary_text =
          "================================================\n"
          "MLPerf Results Summary\n"
          "================================================\n"
          "Test aborted: " +
          E().abort_reason + "\n";
    }
  }

  acc.Close();
  out.accuracy_log_entries = acc.entries_written();
  out.unknown_ids = errors.unknown_ids.load();
  out.duplicate_completions = errors.duplicate_completions.load();
  out.duplicate_first_tokens = errors.duplicate_first_tokens.load();
  out.late_first_tokens = errors.late_first_tokens.load();
  out.token_count_errors = errors.token_count_errors.load();
  out.missing_first_tokens = errors.missing_first_tokens.load();
  out.warnings = detail.warning_count();
  out.errors = detail.error_count();
  out.error_messages = detail.errors();
  summary_text += WarningErrorTail(out.warnings, out.errors);
  out.summary_text = summary_text;
  files.summary << summary_text;
  files.summary.flush();
  if (log_settings.copy_summary_to_stdout) std::cout << summary_text << std::flush;
  {
    std::lock_guard<std::mutex> lock(E().sut_log_mu);
    E().sut_log = nullptr;
  }
  detail.Close();
  if (trace) trace->Finish();
  return out;
}

void QuerySamplesComplete(const SampleResponse* responses, size_t count) {
  const int64_t now = NowNs();
  ActiveRunRef ref;
  IssueRun* run = ref.get();
  if (!run) {
    E().stray_completions.fetch_add(count, std::memory_order_relaxed);
    return;
  }
  for (size_t i = 0; i < count; i++) run->Complete(responses[i], now);
}

void FirstTokenComplete(const SampleResponse* responses, size_t count) {
  const int64_t now = NowNs();
  ActiveRunRef ref;
  IssueRun* run = ref.get();
  if (!run) {
    E().stray_completions.fetch_add(count, std::memory_order_relaxed);
    return;
  }
  for (size_t i = 0; i < count; i++) run->FirstToken(responses[i], now);
}

bool SampleIssueTimes(uint64_t id, int64_t* scheduled_ns, int64_t* issued_ns) {
  ActiveRunRef ref;
  IssueRun* run = ref.get();
  return run && run->IssueTimes(id, scheduled_ns, issued_ns);
}

bool LogSutMessage(const std::string& key, const std::string& message, SutLogLevel level) {
  std::lock_guard<std::mutex> lock(E().sut_log_mu);
  DetailLog* log = E().sut_log;
  if (!log) return false;
  const LogFlag flag = level == SutLogLevel::Error     ? LogFlag::Error
                       : level == SutLogLevel::Warning ? LogFlag::Warning
                                                       : LogFlag::None;
  log->Log(key, LogValue(message), "sut", 0, flag);
  return true;
}

void AbortTest(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(E().abort_mu);
    if (!E().abort_requested.load()) E().abort_reason = reason;
  }
  E().abort_requested.store(true);
  ActiveRunRef ref;
  if (ref.get()) ref.get()->Abort();
}

void ResumeIssuing() {
  ActiveRunRef ref;
  if (ref.get()) ref.get()->ResumeIssuing();
}

Progress GetProgress() {
  Progress p{E().running.load(), E().issued_before.load(), E().completed_before.load(), 0};
  if (p.running) p.elapsed_ns = NowNs() - E().test_start_ns.load();
  ActiveRunRef ref;
  if (ref.get()) {
    p.issued_samples += ref.get()->issued_samples();
    p.completed_samples += ref.get()->completed();
  }
  return p;
}

}  // namespace lg
