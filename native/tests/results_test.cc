// Tests of the results code: statistics, validity, summary text and detail
// lines. Where the official sample logs are available (../shared/official-logs,
// or $LG_OFFICIAL_LOGS), runs are rebuilt from them and compared line by
// line; without them those cases report themselves skipped.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "detail_log.h"
#include "early_stopping.h"
#include "effective_settings.h"
#include "performance_result.h"
#include "results.h"

using lg::EffectiveSettings;
using lg::Mode;
using lg::PerformanceResult;
using lg::Scenario;
using lg::Summary;
using lg::TestSettings;

namespace {

// ---------------------------------------------------------------------------
// Helpers

constexpr uint64_t kConfQslSeed = 2085463073848966840ULL;
constexpr uint64_t kConfSampleSeed = 2747215439041700203ULL;
constexpr uint64_t kConfScheduleSeed = 16159082839903944936ULL;

EffectiveSettings Effective(const TestSettings& ts, uint64_t perf = 1024, uint64_t total = 1024) {
  return EffectiveSettings(ts, perf, total, nullptr);
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

// Compares two texts line by line and prints the first differences.
bool SameLines(const std::string& got, const std::string& want) {
  const std::vector<std::string> a = SplitLines(got), b = SplitLines(want);
  bool same = a.size() == b.size() && got == want;
  int shown = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) && shown < 8; ++i) {
    const std::string x = i < a.size() ? a[i] : "<missing>";
    const std::string y = i < b.size() ? b[i] : "<missing>";
    if (x != y) {
      std::printf("    line %zu:\n      got:  [%s]\n      want: [%s]\n", i + 1, x.c_str(), y.c_str());
      ++shown;
      same = false;
    }
  }
  return same;
}

std::string SummaryOf(const Summary& s, const EffectiveSettings& st) {
  std::string out;
  lg::AppendSummaryText(s, st, &out);
  return out;
}

std::string ParamsOf(const EffectiveSettings& st) {
  std::string out;
  st.AppendSummaryLines(&out);
  return out;
}

const std::string kRule = "================================================";

// ---- a tiny JSON validator (enough to check one MLLOG line) ----

class Json {
 public:
  explicit Json(const std::string& s) : s_(s) {}

  // Parses a whole object; records the raw text of each top-level member.
  bool ParseTop(std::map<std::string, std::string>* members) {
    Ws();
    if (!Object(members)) return false;
    Ws();
    return i_ == s_.size();
  }

 private:
  void Ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool Lit(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  bool String(std::string* out) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    ++i_;
    std::string v;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') {
        if (out) *out = v;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        char e = s_[i_++];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return false;
            ++i_;
          }
          v += '?';
        } else if (std::string("\"\\/bfnrt").find(e) != std::string::npos) {
          v += e;
        } else {
          return false;
        }
      } else {
        v += c;
      }
    }
    return false;
  }
  bool Number() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '0') {
      ++i_;
    } else if (std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    } else {
      return false;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (i_ == d) return false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (i_ == d) return false;
    }
    return i_ > start;
  }
  bool Value() {
    Ws();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return Object(nullptr);
    if (c == '[') {
      ++i_;
      Ws();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      while (true) {
        if (!Value()) return false;
        Ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          return true;
        }
        return false;
      }
    }
    if (c == '"') return String(nullptr);
    if (c == 't') return Lit("true");
    if (c == 'f') return Lit("false");
    if (c == 'n') return Lit("null");
    return Number();
  }
  bool Object(std::map<std::string, std::string>* members) {
    if (i_ >= s_.size() || s_[i_] != '{') return false;
    ++i_;
    Ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      Ws();
      std::string key;
      if (!String(&key)) return false;
      Ws();
      if (i_ >= s_.size() || s_[i_] != ':') return false;
      ++i_;
      Ws();
      const size_t start = i_;
      if (!Value()) return false;
      if (members) (*members)[key] = s_.substr(start, i_ - start);
      Ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return false;
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

struct DetailEntry {
  std::string key;
  std::string value;  // raw JSON text
};

// Parses MLLOG lines; CHECKs each one's shape. Returns (key, raw value) pairs.
std::vector<DetailEntry> ParseDetail(const std::string& text) {
  std::vector<DetailEntry> out;
  for (const std::string& line : SplitLines(text)) {
    const std::string prefix = ":::MLLOG ";
    CHECK(line.compare(0, prefix.size(), prefix) == 0);
    if (line.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string body = line.substr(prefix.size());
    std::map<std::string, std::string> members;
    Json parser(body);
    const bool ok = parser.ParseTop(&members);
    if (!ok) std::printf("    not JSON: %s\n", body.c_str());
    CHECK(ok);
    CHECK(members.count("key") == 1 && members.count("value") == 1 && members.count("time_ms") == 1 &&
          members.count("metadata") == 1);
    std::string key = members["key"];
    if (key.size() >= 2) key = key.substr(1, key.size() - 2);
    out.push_back({key, members["value"]});
  }
  return out;
}

std::vector<DetailEntry> DetailOf(const Summary& s, const EffectiveSettings& st) {
  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  lg::LogSummaryDetail(s, st, &log);
  log.Close();
  return ParseDetail(os.str());
}

std::string ValueOf(const std::vector<DetailEntry>& d, const std::string& key) {
  for (const DetailEntry& e : d) {
    if (e.key == key) return e.value;
  }
  return "<absent>";
}

std::vector<std::string> KeysOf(const std::vector<DetailEntry>& d) {
  std::vector<std::string> keys;
  for (const DetailEntry& e : d) keys.push_back(e.key);
  return keys;
}

// A sorted vector of n values with the given values at the given indices
// (index 0 and n-1 must be among them), the other values placed between
// their neighbouring anchors so that sum / n truncates to `mean`.
std::vector<int64_t> Crafted(size_t n, const std::map<size_t, int64_t>& anchors, int64_t mean) {
  std::vector<int64_t> v(n);
  std::vector<bool> fixed(n, false);
  for (const auto& a : anchors) {
    v[a.first] = a.second;
    fixed[a.first] = true;
  }
  int64_t low = v[0];
  for (size_t i = 0; i < n; ++i) {
    if (fixed[i]) {
      low = v[i];
    } else {
      v[i] = low;
    }
  }
  int64_t sum = 0;
  for (int64_t x : v) sum += x;
  int64_t need = mean * static_cast<int64_t>(n) - sum;
  int64_t high = v[n - 1];
  for (size_t i = n; i-- > 0;) {
    if (fixed[i]) {
      high = v[i];
      continue;
    }
    const int64_t raise = std::min(need, high - v[i]);
    v[i] += raise;
    need -= raise;
  }
  CHECK_EQ(need, 0);
  // Hand them over unsorted, as a run would.
  std::mt19937 rng(12345);
  for (size_t i = n - 1; i > 0; --i) std::swap(v[i], v[rng() % (i + 1)]);
  return v;
}

// The indices the percentiles are read at, computed as the engine does.
size_t IndexOf(size_t n, double p) { return static_cast<size_t>(static_cast<double>(n) * p); }

std::map<size_t, int64_t> Anchors(size_t n, int64_t mn, int64_t mx, const std::vector<int64_t>& pcts) {
  const double ps[] = {0.50, 0.90, 0.95, 0.97, 0.99, 0.999};
  std::map<size_t, int64_t> a;
  a[0] = mn;
  a[n - 1] = mx;
  for (size_t k = 0; k < 6; ++k) a[IndexOf(n, ps[k])] = pcts[k];
  return a;
}

// ---- official sample logs ----

std::string OfficialDir() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("LG_OFFICIAL_LOGS")) candidates.push_back(env);
  candidates.push_back("../shared/official-logs");
  candidates.push_back("../../shared/official-logs");
  candidates.push_back("../../../shared/official-logs");
  for (const std::string& c : candidates) {
    std::ifstream probe(c + "/README.md");
    if (probe) return c;
  }
  return "";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

// The official summary without its warning/error tail (the last four lines:
// blank, warnings, blank, errors), i.e. what AppendSummaryText produces.
std::string OfficialResultsBlock(const std::string& summary) {
  std::vector<std::string> lines = SplitLines(summary);
  if (lines.size() < 4) return "";
  lines.resize(lines.size() - 4);
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The official result lines: from result_validity to num_errors.
std::vector<DetailEntry> OfficialResultDetail(const std::string& detail) {
  std::vector<DetailEntry> all = ParseDetail(detail);
  std::vector<DetailEntry> out;
  bool in = false;
  for (const DetailEntry& e : all) {
    if (e.key == "result_validity") in = true;
    if (in) out.push_back(e);
  }
  return out;
}

// Compares our detail lines with the official ones: the same keys, in the
// same order, with the same values.
void CompareDetail(const std::vector<DetailEntry>& ours, const std::vector<DetailEntry>& official) {
  const std::vector<DetailEntry>& filtered = ours;
  CHECK_EQ(filtered.size(), official.size());
  for (size_t i = 0; i < std::min(filtered.size(), official.size()); ++i) {
    if (filtered[i].key != official[i].key || filtered[i].value != official[i].value) {
      std::printf("    detail %zu: got %s=%s want %s=%s\n", i, filtered[i].key.c_str(), filtered[i].value.c_str(),
                  official[i].key.c_str(), official[i].value.c_str());
    }
    CHECK_EQ(filtered[i].key, official[i].key);
    CHECK_EQ(filtered[i].value, official[i].value);
  }
}

// ---- independent early-stopping reference for expected strings ----

long double BinomialCdf(int64_t h, int64_t t, long double p) {
  const int64_t n = h + t;
  long double total = 0;
  for (int64_t k = 0; k <= t; ++k) {
    const long double lc = std::lgamma(static_cast<long double>(n + 1)) - std::lgamma(static_cast<long double>(k + 1)) -
                           std::lgamma(static_cast<long double>(n - k + 1));
    total += std::exp(lc + k * std::log(1.0L - p) + (n - k) * std::log(p));
  }
  return total;
}

int64_t SlowMinPassing(int64_t t, double p) {
  int64_t lo = 1, hi = int64_t{1} << 26;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (BinomialCdf(mid, t, p) < 0.01L) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

TestSettings ConfSeeds(TestSettings ts) {
  ts.qsl_rng_seed = kConfQslSeed;
  ts.sample_index_rng_seed = kConfSampleSeed;
  ts.schedule_rng_seed = kConfScheduleSeed;
  return ts;
}

}  // namespace

// ===========================================================================
// Statistics

TEST_CASE("percentiles are sorted[floor(n*p)], mean truncated, min/max") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  // 1..1000 (x 1000 ns) shuffled, plus 1 ns on the first so the mean truncates.
  for (int64_t i = 1; i <= 1000; ++i) pr.sample_latencies.push_back(i * 1000);
  pr.sample_latencies[0] += 999;
  std::mt19937 rng(7);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  pr.queries_issued = 1;
  pr.max_latency = 1.0;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 1000u);
  CHECK_EQ(s.latency_min, 1999);  // 1000 + 999
  CHECK_EQ(s.latency_max, 1000000);
  CHECK_EQ(s.latency_mean, 500500);  // (500500000 + 999) / 1000 truncated
  CHECK_EQ(s.latency_percentiles.size(), 6u);
  CHECK_EQ(s.latency_percentiles[0].value, 501000);   // sorted[500]
  CHECK_EQ(s.latency_percentiles[1].value, 901000);   // sorted[900]
  CHECK_EQ(s.latency_percentiles[2].value, 951000);   // sorted[950]
  CHECK_EQ(s.latency_percentiles[3].value, 971000);   // sorted[970]
  CHECK_EQ(s.latency_percentiles[4].value, 991000);   // sorted[990]
  CHECK_EQ(s.latency_percentiles[5].value, 1000000);  // sorted[999]
  CHECK_EQ(s.query_count, 1u);
  CHECK(s.valid);
  CHECK(s.early_stopping_text.empty());
}

TEST_CASE("percentile index truncates n*p (n=7)") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies = {70, 10, 60, 20, 50, 30, 40};
  pr.queries_issued = 1;
  pr.max_latency = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.latency_percentiles[0].value, 40);  // 3.5 -> 3
  CHECK_EQ(s.latency_percentiles[1].value, 70);  // 6.3 -> 6
  CHECK_EQ(s.latency_percentiles[5].value, 70);  // 6.993 -> 6
  CHECK_EQ(s.latency_mean, 40);
}

TEST_CASE("token stats: means over the sample count, INT64_MIN token counts skipped") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies = {100, 200, 300, 400};
  pr.first_token_latencies = {10, 20, 30};  // one missing: still divided by 4
  pr.time_per_output_token = {7, 1, 3, 5};
  pr.tokens_per_sample = {5, lg::kInvalidTokens, 7, 8};
  pr.queries_issued = 4;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 2;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.token_count, 20u);
  CHECK_EQ(s.ttft_mean, 15);  // 60 / 4
  CHECK_EQ(s.tpot_mean, 4);   // 16 / 4
  CHECK_EQ(s.ttft_min, 10);
  CHECK_EQ(s.ttft_max, 30);
  CHECK_EQ(s.tpot_min, 1);
  CHECK_EQ(s.tpot_max, 7);
  CHECK_EQ(s.tpot_percentiles[0].value, 5);  // sorted {1,3,5,7}[2]
  CHECK(s.tokens_per_sec == 10.0);           // 20 tokens / 2 s
  CHECK(s.token_throughput_with_overhead == 20.0);
  // Upstream: 20 / (250 ns mean * 4) ; corrected: 20 / (250e-9 s * 4)
  CHECK(std::fabs(s.token_throughput_official - 0.02) < 1e-12);
  CHECK(std::fabs(s.token_throughput_corrected - 2e7) < 1e-3);
}

TEST_CASE("MultiStream: per-query latency stats and estimate") {
  TestSettings ts;
  ts.scenario = Scenario::MultiStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  const int64_t queries = 700;
  PerformanceResult pr;
  for (int64_t q = 0; q < queries; ++q) {
    for (int k = 0; k < 8; ++k) pr.sample_latencies.push_back(1000 + q * 10 + k);
    pr.query_latencies.push_back(1000 + q * 10 + 7 + 1);
  }
  std::mt19937 rng(3);
  std::shuffle(pr.query_latencies.begin(), pr.query_latencies.end(), rng);
  pr.queries_issued = queries;
  pr.final_query_issued_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 5600u);
  CHECK_EQ(s.query_latency_min, 1008);
  CHECK_EQ(s.query_latency_max, 1000 + 699 * 10 + 8);
  CHECK_EQ(s.query_latency_mean, (1008 + 7998) / 2);                 // evenly spaced
  CHECK_EQ(s.target_latency_percentile_value, 1000 + 693 * 10 + 8);  // sorted[floor(700*0.99)=693]
  CHECK(s.early_stopping_met);
  // Independent: largest t with 700 >= h(t) + t at p = 0.99.
  int64_t t = 1;
  while (queries >= SlowMinPassing(t + 1, 0.99) + t + 1) ++t;
  const int64_t estimate = 1000 + (queries - t) * 10 + 8;  // sorted[700 - t]
  CHECK_EQ(s.early_stopping_latency_ms, estimate);
  const std::string want_es =
      " * Processed at least " + std::to_string(SlowMinPassing(1, 0.99) + 1) + " queries (700).\n * Would discard " +
      std::to_string(t - 1) +
      " highest latency queries.\n * Early stopping 99.0th percentile estimate: " + std::to_string(estimate);
  CHECK_EQ(s.early_stopping_text, want_es);

  const std::string text = SummaryOf(s, st);
  CHECK(text.find("99.0th percentile latency (ns) : 7938\n") != std::string::npos);
  CHECK(text.find(kRule + "\nAdditional Stats\n" + kRule +
                  "\nPer-query latency:  \nMin latency (ns)                : 1008\n") != std::string::npos);
  // Per-sample latencies are not shown for MultiStream.
  CHECK(text.find("Min latency (ns)                : 1000\n") == std::string::npos);

  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_min_query_latency_ns"), "1008");
  CHECK_EQ(ValueOf(d, "result_99.00_percentile_per_query_latency_ns"), "7938");
  CHECK_EQ(ValueOf(d, "early_stopping_latency_ms"), std::to_string(estimate));
  CHECK_EQ(ValueOf(d, "result_min_latency_ns"), "1000");
  CHECK_EQ(ValueOf(d, "result_perf_constraints_met"), "<absent>");
}

TEST_CASE("MultiStream with too few queries fails early stopping") {
  TestSettings ts;
  ts.scenario = Scenario::MultiStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int q = 0; q < 100; ++q) {
    for (int k = 0; k < 8; ++k) pr.sample_latencies.push_back(100 + q);
    pr.query_latencies.push_back(100 + q);
  }
  pr.queries_issued = 100;
  pr.final_query_issued_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK(!s.valid);
  CHECK_EQ(s.early_stopping_text, " * Only processed 100 queries.\n * Need to process at least " +
                                      std::to_string(SlowMinPassing(1, 0.99) + 1) + " queries for early stopping.");
  // Early stopping adds no advice: the list is empty, the reason too.
  CHECK(s.recommendations.empty());
  CHECK_EQ(s.invalid_reason, "");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("  Early stopping satisfied: NO\nRecommendations:\nEarly Stopping Result:\n * Only processed 100") !=
        std::string::npos);
  CHECK_EQ(ValueOf(DetailOf(s, st), "result_invalid_reason"), "\"\"");
}

// ===========================================================================
// SingleStream

TEST_CASE("SingleStream: too few queries for any estimate") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 50; ++i) pr.sample_latencies.push_back(1000 + i);
  pr.queries_issued = 50;
  pr.final_query_issued_time = 0.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK_EQ(s.early_stopping_text,
           " * Only processed 50 queries.\n * Need to process at least 64 queries for early stopping.");
  CHECK_EQ(s.early_stopping_latency_ss, 0);
  CHECK_EQ(s.early_stopping_latency_ms, 0);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "early_stopping_result"),
           "\" * Only processed 50 queries.  * Need to process at least 64 queries for early stopping.\"");
}

TEST_CASE("SingleStream: 90th estimate but too few for the 99th") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  const int64_t n = 200;
  for (int64_t i = 0; i < n; ++i) pr.sample_latencies.push_back(5000 + i);
  std::mt19937 rng(5);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  pr.queries_issued = n;
  pr.final_query_issued_time = 0.25;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.early_stopping_met);
  int64_t t = 1;
  while (n >= SlowMinPassing(t + 1, 0.90) + t + 1) ++t;
  const std::string want =
      " * Processed at least 64 queries (200).\n * Would discard " + std::to_string(t - 1) +
      " highest latency queries.\n * Early stopping 90.0th percentile estimate: " + std::to_string(5000 + n - t) +
      "\n * Not enough queries processed for 99.0th percentile\n early stopping estimate "
      "(would need to process at\n least " +
      std::to_string(SlowMinPassing(1, 0.99) + 1) + " total queries).";
  CHECK_EQ(s.early_stopping_text, want);
  CHECK_EQ(s.early_stopping_latency_ss, 5000 + n - t);
  CHECK_EQ(s.early_stopping_latency_ms, 0);
  // QPS lines: (n-1)/issue time, 1/mean.
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("QPS w/ loadgen overhead         : 796.00\n") != std::string::npos);
  CHECK(text.find("QPS w/o loadgen overhead        : 196116.89\n\nMin latency (ns)") != std::string::npos);  // 1/5099ns
}

TEST_CASE("SingleStream token mode: TPOT fails first, TTFT text stays empty") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 40; ++i) {
    pr.sample_latencies.push_back(1000 + i);
    pr.first_token_latencies.push_back(100 + i);
    pr.time_per_output_token.push_back(i % 5);
    pr.tokens_per_sample.push_back(10);
  }
  pr.queries_issued = 40;
  pr.final_query_issued_time = 0.1;
  pr.final_query_all_samples_done_time = 0.2;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.early_stopping_met);
  CHECK_EQ(s.early_stopping_tpot_text,
           " * Only processed 40 queries.\n * Need to process at least 64 queries for early stopping.");
  CHECK_EQ(s.early_stopping_ttft_text, "");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("90.0th first token percentile latency (ns) : 136\n") != std::string::npos);  // ttft sorted[36]
  CHECK(text.find("TTFT Early Stopping Result:\n\nTPOT Early Stopping Result:\n * Only processed 40 queries.\n") !=
        std::string::npos);
  CHECK(text.find("TPS w/ loadgen overhead         : 4000.00\nTPS w/o loadgen overhead        : ") !=
        std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "result_completed_tokens_per_second"), "2000");  // 400 / 0.2
}

TEST_CASE("SingleStream token mode: both pass, TTFT estimates replace TPOT's") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  const int64_t n = 800;
  for (int64_t i = 0; i < n; ++i) {
    pr.sample_latencies.push_back(100000 + i);
    pr.first_token_latencies.push_back(50000 + i);
    pr.time_per_output_token.push_back(10 + i);
    pr.tokens_per_sample.push_back(3);
  }
  pr.queries_issued = n;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.early_stopping_met);
  auto largest_t = [&](double p) {
    int64_t t = 1;
    while (n >= SlowMinPassing(t + 1, p) + t + 1) ++t;
    return t;
  };
  const int64_t t90 = largest_t(0.90), t99 = largest_t(0.99);
  auto text_for = [&](int64_t base) {
    return " * Processed at least 64 queries (800).\n * Would discard " + std::to_string(t90 - 1) +
           " highest latency queries.\n * Early stopping 90.0th percentile estimate: " +
           std::to_string(base + n - t90) +
           "\n * Early stopping 99.0th percentile estimate: " + std::to_string(base + n - t99);
  };
  CHECK_EQ(s.early_stopping_tpot_text, text_for(10));
  CHECK_EQ(s.early_stopping_ttft_text, text_for(50000));
  // Both evaluations write the estimates; the TTFT one runs last.
  CHECK_EQ(s.early_stopping_latency_ss, 50000 + n - t90);
  CHECK_EQ(s.early_stopping_latency_ms, 50000 + n - t99);
}

TEST_CASE("official SingleStream run: latencies from its trace reproduce summary and detail") {
  const std::string dir = OfficialDir();
  std::string trace, summary, detail;
  if (dir.empty() || !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_trace.json", &trace) ||
      !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_summary.txt", &summary) ||
      !ReadFile(dir + "/SingleStream_PerformanceOnly/mlperf_log_detail.txt", &detail)) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  // Sample latencies: complete_ns - issue_start_ns of each traced sample.
  std::vector<std::pair<int64_t, int64_t>> by_seq;
  const std::string tag = "\"sample_seq\":";
  for (size_t pos = trace.find(tag); pos != std::string::npos; pos = trace.find(tag, pos + 1)) {
    const int64_t seq = std::atoll(trace.c_str() + pos + tag.size());
    const size_t a = trace.find("\"issue_start_ns\":", pos);
    const size_t b = trace.find("\"complete_ns\":", pos);
    if (a == std::string::npos || b == std::string::npos) break;
    const int64_t start = std::atoll(trace.c_str() + a + 17);
    const int64_t done = std::atoll(trace.c_str() + b + 14);
    by_seq.push_back({seq, done - start});
  }
  CHECK_EQ(by_seq.size(), 1000u);
  std::sort(by_seq.begin(), by_seq.end());
  PerformanceResult pr;
  for (const auto& e : by_seq) pr.sample_latencies.push_back(e.second);
  pr.queries_issued = 1000;
  // The only figure the trace cannot give: the last query's issue time.
  pr.final_query_issued_time = 999 / 1177446.77;

  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::SingleStream;
  ts.single_stream_expected_latency_ns = 1000000;
  ts.single_stream_target_latency_percentile = 0.9;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1000;
  EffectiveSettings st = Effective(ts);
  Summary s = lg::ComputeSummary("NullSUT", st, pr);
  CHECK(s.valid);
  CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
  CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
}

// ===========================================================================
// Server

TEST_CASE("Server: overlatency count, t > target, success text") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.server_target_latency_ns = 1000;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  // 2000 queries; 5 over latency, one exactly at the bound (not over).
  for (int i = 0; i < 2000; ++i) pr.sample_latencies.push_back(i < 5 ? 5000 : (i == 5 ? 1000 : 10));
  pr.queries_issued = 2000;
  pr.final_query_scheduled_time = 2;
  pr.final_query_issued_time = 2;
  pr.final_query_all_samples_done_time = 2.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.overlatency_query_count, 5u);
  CHECK(2000 >= SlowMinPassing(5, 0.99) + 5);
  CHECK(s.early_stopping_met);
  CHECK_EQ(s.early_stopping_text, " * Run successful.");
  CHECK(s.perf_constraints_met);  // sorted[1980] = 10
  CHECK(s.valid);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Completed samples per second    : 799.60\n") != std::string::npos);  // 1999 / 2.5
  CHECK(text.find("Scheduled samples per second : 999.50\nMin latency (ns)") != std::string::npos);
  CHECK(text.find("  Performance constraints satisfied : Yes\n") != std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_overlatency_query_count"), "5");
  CHECK_EQ(ValueOf(d, "result_scheduled_samples_per_sec"), "999.5");
  CHECK_EQ(ValueOf(d, "result_completed_samples_per_sec"), "799.6");
  CHECK_EQ(ValueOf(d, "result_invalid_reason"), "<absent>");
}

TEST_CASE("Server: latency bound and early stopping both fail") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.server_target_latency_ns = 1000;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 300; ++i) pr.sample_latencies.push_back(i < 10 ? 2000 : 10);
  pr.queries_issued = 300;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.perf_constraints_met);  // sorted[297] = 2000 > 1000
  CHECK(!lg::PerfConstraintsMet(s));
  CHECK(!s.early_stopping_met);
  const int64_t more = SlowMinPassing(10, 0.99) + 10 - 300;
  CHECK_EQ(s.early_stopping_text, " * Run unsuccessful.\n * Processed 300 queries.\n * Would need to run at least " +
                                      std::to_string(more) +
                                      " more queries,\n with the run being successful if every additional\n query "
                                      "were under latency.");
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.recommendations[0], "Reduce target QPS to improve latency.");
  CHECK_EQ(s.invalid_reason, "Reduce target QPS to improve latency. ");
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n"
                  "  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n * Reduce target "
                  "QPS to improve latency.\nEarly Stopping Result:\n * Run unsuccessful.\n") != std::string::npos);
}

TEST_CASE("Server token mode: TTFT/TPOT bounds replace the target latency") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.server_target_latency_ns = 1;  // every query over it; not checked in token mode
  ts.server_ttft_latency = 1000;
  ts.server_tpot_latency = 100;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) {
    pr.sample_latencies.push_back(5000);
    pr.first_token_latencies.push_back(500);
    pr.time_per_output_token.push_back(50);
    pr.tokens_per_sample.push_back(4);
  }
  pr.queries_issued = 1000;
  pr.final_query_scheduled_time = 1;
  pr.final_query_issued_time = 1;
  pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(s.perf_constraints_met);
  CHECK(s.early_stopping_met);
  CHECK(s.valid);
  CHECK_EQ(s.overlatency_query_count, 1000u);  // still reported against the target latency
  CHECK_EQ(s.early_stopping_ttft_text, " * Run successful.");
  CHECK_EQ(s.early_stopping_tpot_text, " * Run successful.");
}

TEST_CASE("Server token run: full summary text and detail lines") {
  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::Server;
  ts.server_target_qps = 400;
  ts.server_target_latency_ns = 150000;
  ts.min_duration_ms = 1000;
  ts.min_query_count = 300;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 90000;
  ts.server_tpot_latency = 5;
  ts.infer_token_latencies = true;
  ts.token_latency_scaling_factor = 3;
  EffectiveSettings st = Effective(ts);

  PerformanceResult pr;
  for (int64_t i = 0; i < 200; ++i) {
    pr.sample_latencies.push_back((i + 1) * 1000);
    pr.first_token_latencies.push_back((i + 1) * 500);
    pr.time_per_output_token.push_back(i % 7);
    pr.tokens_per_sample.push_back(i == 0 ? lg::kInvalidTokens : 10);
  }
  std::mt19937 rng(11);
  std::shuffle(pr.sample_latencies.begin(), pr.sample_latencies.end(), rng);
  std::shuffle(pr.first_token_latencies.begin(), pr.first_token_latencies.end(), rng);
  std::shuffle(pr.time_per_output_token.begin(), pr.time_per_output_token.end(), rng);
  pr.queries_issued = 200;
  pr.final_query_scheduled_time = 0.5;
  pr.final_query_issued_time = 0.5;
  pr.final_query_all_samples_done_time = 0.8;
  Summary s = lg::ComputeSummary("MySUT", st, pr);

  // TPOT values above 5: the 6s, i = 6, 13, ..., 195: 28 of them.
  const int64_t more = SlowMinPassing(28, 0.99) + 28 - 200;
  const std::string want = kRule + "\nMLPerf Results Summary\n" + kRule + "\n" +
                           "SUT name : MySUT\n"
                           "Scenario : Server\n"
                           "Mode     : PerformanceOnly\n"
                           "Completed samples per second    : 248.75\n"        // 199 / 0.8
                           "Completed tokens per second: 2487.50\n"            // 1990 / 0.8
                           "Completed tokens per second (inferred): 746.25\n"  // 199 * 3 / 0.8
                           "Result is : INVALID\n"
                           "  Performance constraints satisfied : NO\n"
                           "  Min duration satisfied : NO\n"
                           "  Min queries satisfied : NO\n"
                           "  Early stopping satisfied: NO\n"
                           "Recommendations:\n"
                           " * TTFT constrain not met: Reduce target QPS to improve latency.\n"
                           " * TPOT constrain not met: Reduce target QPS to improve latency.\n"
                           " * Increase the target QPS so the loadgen pre-generates more queries.\n"
                           " * The test exited early, before enough queries were issued.\n"
                           "   See the detailed log for why this may have occurred.\n"
                           "TTFT Early Stopping Result:\n"
                           "\n"
                           "TPOT Early Stopping Result:\n"
                           " * Run unsuccessful.\n"
                           " * Processed 200 queries.\n"
                           " * Would need to run at least " +
                           std::to_string(more) +
                           " more queries,\n"
                           " with the run being successful if every additional\n"
                           " query were under latency.\n"
                           "\n" +
                           kRule + "\nAdditional Stats\n" + kRule +
                           "\n"
                           "Scheduled samples per second : 398.00\n"
                           "Min latency (ns)                : 1000\n"
                           "Max latency (ns)                : 200000\n"
                           "Mean latency (ns)               : 100500\n"
                           "50.00 percentile latency (ns)   : 101000\n"
                           "90.00 percentile latency (ns)   : 181000\n"
                           "95.00 percentile latency (ns)   : 191000\n"
                           "97.00 percentile latency (ns)   : 195000\n"
                           "99.00 percentile latency (ns)   : 199000\n"
                           "99.90 percentile latency (ns)   : 200000\n"
                           "\n"
                           "Completed tokens per second                 : 2487.50\n"
                           "Min First Token latency (ns)                : 500\n"
                           "Max First Token latency (ns)                : 100000\n"
                           "Mean First Token latency (ns)               : 50250\n"
                           "50.00 percentile first token latency (ns)   : 50500\n"
                           "90.00 percentile first token latency (ns)   : 90500\n"
                           "95.00 percentile first token latency (ns)   : 95500\n"
                           "97.00 percentile first token latency (ns)   : 97500\n"
                           "99.00 percentile first token latency (ns)   : 99500\n"
                           "99.90 percentile first token latency (ns)   : 100000\n"
                           "\n"
                           "Min Time per Output Token (ns)                : 0\n"
                           "Max Time per Output Token (ns)                : 6\n"
                           "Mean Time per Output Token (ns)               : 2\n"
                           "50.00 percentile time to output token (ns)   : 3\n"
                           "90.00 percentile time to output token (ns)   : 6\n"
                           "95.00 percentile time to output token (ns)   : 6\n"
                           "97.00 percentile time to output token (ns)   : 6\n"
                           "99.00 percentile time to output token (ns)   : 6\n"
                           "99.90 percentile time to output token (ns)   : 6\n"
                           "\n" +
                           kRule + "\nTest Parameters Used\n" + kRule + "\n" + ParamsOf(st);
  CHECK(SameLines(SummaryOf(s, st), want));

  const std::vector<DetailEntry> d = DetailOf(s, st);
  const std::vector<std::string> want_keys = {"result_validity",
                                              "result_perf_constraints_met",
                                              "result_min_duration_met",
                                              "result_min_queries_met",
                                              "early_stopping_met",
                                              "result_invalid_reason",
                                              "early_stopping_ttft_result",
                                              "early_stopping_tpot_result",
                                              "result_query_count",
                                              "result_overlatency_query_count",
                                              "result_scheduled_samples_per_sec",
                                              "result_completed_samples_per_sec",
                                              "result_min_latency_ns",
                                              "result_max_latency_ns",
                                              "result_mean_latency_ns",
                                              "result_50.00_percentile_latency_ns",
                                              "result_90.00_percentile_latency_ns",
                                              "result_95.00_percentile_latency_ns",
                                              "result_97.00_percentile_latency_ns",
                                              "result_99.00_percentile_latency_ns",
                                              "result_99.90_percentile_latency_ns",
                                              "result_first_token_min_latency_ns",
                                              "result_first_token_max_latency_ns",
                                              "result_first_token_mean_latency_ns",
                                              "result_first_token_50.00_percentile_latency_ns",
                                              "result_first_token_90.00_percentile_latency_ns",
                                              "result_first_token_95.00_percentile_latency_ns",
                                              "result_first_token_97.00_percentile_latency_ns",
                                              "result_first_token_99.00_percentile_latency_ns",
                                              "result_first_token_99.90_percentile_latency_ns",
                                              "result_token_throughput_with_loadgen_overhead",
                                              "result_token_throughput",
                                              "result_time_per_output_token_50.00_percentile_ns",
                                              "result_time_per_output_token_90.00_percentile_ns",
                                              "result_time_per_output_token_95.00_percentile_ns",
                                              "result_time_per_output_token_97.00_percentile_ns",
                                              "result_time_per_output_token_99.00_percentile_ns",
                                              "result_time_per_output_token_99.90_percentile_ns",
                                              "result_time_to_output_token_min",
                                              "result_time_to_output_token_max",
                                              "result_time_to_output_token_mean",
                                              "result_completed_tokens_per_second",
                                              "result_inferred_completed_tokens_per_second",
                                              "num_errors"};
  CHECK(KeysOf(d) == want_keys);
  CHECK_EQ(ValueOf(d, "result_validity"), "\"INVALID\"");
  CHECK_EQ(ValueOf(d, "result_perf_constraints_met"), "false");
  CHECK_EQ(ValueOf(d, "result_invalid_reason"),
           "\"TTFT constrain not met: Reduce target QPS to improve latency.  * TPOT constrain not met: Reduce "
           "target QPS to improve latency. Increase the target QPS so the loadgen pre-generates more queries. The "
           "test exited early, before enough queries were issued.\"");
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "early_stopping_tpot_result"),
           "\" * Run unsuccessful.  * Processed 200 queries.  * Would need to run at least " + std::to_string(more) +
               " more queries,  with the run being successful if every additional  query were under latency.\"");
  CHECK_EQ(ValueOf(d, "result_query_count"), "200");
  CHECK_EQ(ValueOf(d, "result_overlatency_query_count"), "50");
  CHECK_EQ(ValueOf(d, "result_scheduled_samples_per_sec"), "398");
  CHECK_EQ(ValueOf(d, "result_completed_samples_per_sec"), "248.75");
  CHECK_EQ(ValueOf(d, "result_mean_latency_ns"), "100500");
  CHECK_EQ(ValueOf(d, "result_token_throughput_with_loadgen_overhead"), "3980");  // 1990 / 0.5
  CHECK_EQ(ValueOf(d, "result_token_throughput"), "9.9005e-05");                  // 1990 / (100500 * 200)
  CHECK_EQ(ValueOf(d, "result_token_throughput_corrected"), "<absent>");          // only in the JS result
  CHECK(std::fabs(s.token_throughput_corrected - 99004.975) < 1e-3);              // 1990 / (100.5e-6 * 200)
  CHECK_EQ(ValueOf(d, "result_time_to_output_token_mean"), "2");
  CHECK_EQ(ValueOf(d, "result_completed_tokens_per_second"), "2487.5");
  CHECK_EQ(ValueOf(d, "result_inferred_completed_tokens_per_second"), "746.25");
  CHECK_EQ(ValueOf(d, "num_errors"), "0");
}

TEST_CASE("official Server token run: crafted latencies reproduce summary and detail") {
  const std::string dir = OfficialDir();
  std::string summary, detail;
  if (dir.empty() || !ReadFile(dir + "/Server_PerformanceOnly/mlperf_log_summary.txt", &summary) ||
      !ReadFile(dir + "/Server_PerformanceOnly/mlperf_log_detail.txt", &detail)) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  const size_t n = 2068;
  PerformanceResult pr;
  pr.sample_latencies = Crafted(n, Anchors(n, 873, 4320973, {76912, 111253, 134039, 248337, 1414779, 3594297}), 116393);
  pr.first_token_latencies =
      Crafted(n, Anchors(n, 691, 4319771, {76601, 110281, 133644, 247336, 1414348, 3592975}), 115953);
  pr.time_per_output_token = Crafted(n, Anchors(n, 0, 113, {2, 10, 13, 14, 19, 25}), 4);
  pr.tokens_per_sample.assign(n, 100);
  pr.queries_issued = n;
  pr.final_query_scheduled_time = 2067 / 1033.30;
  pr.final_query_issued_time = 2.000466;
  pr.final_query_all_samples_done_time = 206800 / 103375.90;

  TestSettings ts = ConfSeeds(TestSettings());
  ts.scenario = Scenario::Server;
  ts.server_target_qps = 1000;
  ts.server_target_latency_ns = 10000000;
  ts.server_target_latency_percentile = 0.99;
  ts.min_duration_ms = 2000;
  ts.min_query_count = 100;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 2000000000;
  ts.server_tpot_latency = 200000000;
  EffectiveSettings st = Effective(ts);
  Summary s = lg::ComputeSummary("NullSUT", st, pr);
  CHECK(s.valid);
  CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
  CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
}

// ===========================================================================
// Offline

TEST_CASE("Offline: samples per second in default ostream format") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1100;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(1100, 1000);
  pr.queries_issued = 1;
  pr.max_latency = 471468e-9;
  Summary s = lg::ComputeSummary("sut", st, pr);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find("Mode     : PerformanceOnly\nSamples per second: 2.33314e+06\nResult is : VALID\n") !=
        std::string::npos);
  // No performance-constraint or early-stopping block; 99.90 line then the parameters.
  CHECK(text.find("Performance constraints") == std::string::npos);
  CHECK(text.find("Early Stopping Result") == std::string::npos);
  CHECK(text.find("99.90 percentile latency (ns)   : 1000\n\n" + kRule + "\nTest Parameters Used") !=
        std::string::npos);
  CHECK_EQ(ValueOf(DetailOf(s, st), "result_samples_per_second"), "2.33314e+06");
  CHECK_EQ(ValueOf(DetailOf(s, st), "early_stopping_result"), "\"\"");

  // A tiny max latency: large figures stay in exponent form.
  pr.max_latency = 1e-9;
  Summary big = lg::ComputeSummary("sut", st, pr);
  CHECK(SummaryOf(big, st).find("Samples per second: 1.1e+12\n") != std::string::npos);
}

TEST_CASE("Offline token mode with inferred tokens") {
  TestSettings ts;
  ts.scenario = Scenario::Offline;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  ts.use_token_latencies = true;
  ts.infer_token_latencies = true;
  ts.token_latency_scaling_factor = 7;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(10, 100);
  pr.tokens_per_sample.assign(10, 3);
  pr.queries_issued = 1;
  pr.max_latency = 0.5;
  Summary s = lg::ComputeSummary("sut", st, pr);
  const std::string text = SummaryOf(s, st);
  CHECK(text.find(
            "Samples per second: 20\nTokens per second: 60\nTokens per second (inferred): 140\nResult is : VALID\n") !=
        std::string::npos);
  // The token block of Additional Stats is a single blank line for Offline.
  CHECK(text.find("99.90 percentile latency (ns)   : 100\n\n\n" + kRule) != std::string::npos);
  const std::vector<DetailEntry> d = DetailOf(s, st);
  CHECK_EQ(ValueOf(d, "result_tokens_per_second"), "60");
  CHECK_EQ(ValueOf(d, "result_inferred_tokens_per_second"), "140");
  CHECK_EQ(ValueOf(d, "early_stopping_ttft_result"), "\"\"");
  CHECK_EQ(ValueOf(d, "result_first_token_min_latency_ns"), "<absent>");
  CHECK_EQ(KeysOf(d).back(), "num_errors");
}

TEST_CASE("official Offline runs: crafted latencies reproduce summary and detail") {
  const std::string dir = OfficialDir();
  if (dir.empty()) {
    std::printf("  (skipped: official logs not found)\n");
    return;
  }
  struct Case {
    const char* folder;
    size_t n;
    uint64_t min_query_count;
    uint64_t min_duration_ms;
    int64_t mn, mx, mean;
    std::vector<int64_t> pcts;
    bool valid;
  };
  const Case cases[] = {
      {"Offline_PerformanceOnly",
       4096,
       4096,
       0,
       62973,
       2163734,
       978239,
       {1087020, 1665176, 1742130, 1772595, 1801368, 1818343},
       true},
      {"Offline_PerformanceOnly_INVALID_minduration",
       1100,
       100,
       1000,
       16244,
       471468,
       227981,
       {242479, 380954, 454343, 461804, 469014, 471208},
       false},
  };
  for (const Case& c : cases) {
    std::string summary, detail;
    if (!ReadFile(dir + "/" + c.folder + "/mlperf_log_summary.txt", &summary) ||
        !ReadFile(dir + "/" + c.folder + "/mlperf_log_detail.txt", &detail)) {
      std::printf("  (skipped %s)\n", c.folder);
      continue;
    }
    PerformanceResult pr;
    pr.sample_latencies = Crafted(c.n, Anchors(c.n, c.mn, c.mx, c.pcts), c.mean);
    pr.tokens_per_sample.assign(c.n, 100);
    pr.queries_issued = 1;
    pr.max_latency = static_cast<double>(c.mx) / 1e9;

    TestSettings ts = ConfSeeds(TestSettings());
    ts.scenario = Scenario::Offline;
    ts.offline_expected_qps = 1000;
    ts.min_duration_ms = c.min_duration_ms;
    ts.min_query_count = c.min_query_count;
    ts.use_token_latencies = true;
    ts.server_ttft_latency = 2000000000;
    ts.server_tpot_latency = 200000000;
    EffectiveSettings st = Effective(ts);
    Summary s = lg::ComputeSummary("NullSUT", st, pr);
    CHECK_EQ(s.valid, c.valid);
    CHECK(SameLines(SummaryOf(s, st), OfficialResultsBlock(summary)));
    CompareDetail(DetailOf(s, st), OfficialResultDetail(detail));
  }
}

// ===========================================================================
// Recommendations for each failing criterion

TEST_CASE("min duration advice per scenario") {
  struct Case {
    Scenario scenario;
    const char* advice;
  };
  const Case cases[] = {
      {Scenario::SingleStream, "Decrease the expected latency so the loadgen pre-generates more queries."},
      {Scenario::MultiStream, "Decrease the expected latency so the loadgen pre-generates more queries."},
      {Scenario::Server, "Increase the target QPS so the loadgen pre-generates more queries."},
      {Scenario::Offline, "Increase expected QPS so the loadgen pre-generates a larger (coalesced) query."},
  };
  for (const Case& c : cases) {
    TestSettings ts;
    ts.scenario = c.scenario;
    ts.min_duration_ms = 5000;
    ts.min_query_count = 1;
    ts.server_target_latency_ns = 1000000;
    EffectiveSettings st = Effective(ts);
    PerformanceResult pr;
    const int n = 1000;
    for (int i = 0; i < n; ++i) pr.sample_latencies.push_back(100);
    if (c.scenario == Scenario::MultiStream) {
      pr.sample_latencies.clear();
      for (int i = 0; i < n * 8; ++i) pr.sample_latencies.push_back(100);
      pr.query_latencies.assign(n, 100);
    }
    pr.queries_issued = c.scenario == Scenario::Offline ? 1 : n;
    // 4.999 s of whichever time the scenario measures: just short.
    pr.max_latency = pr.final_query_scheduled_time = pr.final_query_issued_time = 4.999;
    pr.final_query_all_samples_done_time = 5;
    Summary s = lg::ComputeSummary("sut", st, pr);
    CHECK(!s.min_duration_met);
    CHECK(!s.valid);
    CHECK_EQ(s.recommendations.size(), 1u);
    if (!s.recommendations.empty()) CHECK_EQ(s.recommendations[0], std::string(c.advice));
    CHECK_EQ(s.invalid_reason, std::string(c.advice) + " ");
    CHECK(SummaryOf(s, st).find("Recommendations:\n * " + std::string(c.advice) + "\n") != std::string::npos);
    CHECK_EQ(ValueOf(DetailOf(s, st), "result_invalid_reason"), "\"" + std::string(c.advice) + " \"");

    // Exactly the minimum is enough.
    pr.max_latency = pr.final_query_scheduled_time = pr.final_query_issued_time = 5.0;
    CHECK(lg::ComputeSummary("sut", st, pr).min_duration_met);
  }
}

TEST_CASE("min queries and min samples") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1000;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.sample_latencies.assign(999, 10);
  pr.queries_issued = 1000;  // queries enough, samples one short
  pr.final_query_scheduled_time = pr.final_query_issued_time = pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.min_queries_met);
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.invalid_reason, "The test exited early, before enough queries were issued.");
  CHECK(SummaryOf(s, st).find("  Min queries satisfied : NO\n  Early stopping satisfied: Yes\nRecommendations:\n * The "
                              "test exited early, before enough queries were issued.\n   See the detailed log for "
                              "why this may have occurred.\nEarly Stopping Result:\n") != std::string::npos);
  pr.sample_latencies.assign(1000, 10);
  pr.queries_issued = 999;  // samples enough, queries one short
  CHECK(!lg::ComputeSummary("sut", st, pr).min_queries_met);
  pr.queries_issued = 1000;
  CHECK(lg::ComputeSummary("sut", st, pr).min_queries_met);
}

TEST_CASE("token-mode perf constraint advice: TTFT only, TPOT only") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.use_token_latencies = true;
  ts.server_ttft_latency = 100;
  ts.server_tpot_latency = 10;
  ts.min_duration_ms = 0;
  ts.min_query_count = 1;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) {
    pr.sample_latencies.push_back(50);
    pr.first_token_latencies.push_back(i >= 985 ? 101 : 100);  // sorted[990] = 101 > 100
    pr.time_per_output_token.push_back(10);                    // == bound: fine
    pr.tokens_per_sample.push_back(2);
  }
  pr.queries_issued = 1000;
  pr.final_query_scheduled_time = pr.final_query_issued_time = pr.final_query_all_samples_done_time = 1;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK(!s.perf_constraints_met);
  CHECK_EQ(s.recommendations.size(), 1u);
  CHECK_EQ(s.invalid_reason, "TTFT constrain not met: Reduce target QPS to improve latency. ");
  // TTFT early stopping: 15 over 100 among 1000 queries.
  CHECK_EQ(s.early_stopping_met, 1000 >= SlowMinPassing(15, 0.99) + 15);

  for (auto& v : pr.first_token_latencies) v = 100;
  for (auto& v : pr.time_per_output_token) v = 11;
  Summary s2 = lg::ComputeSummary("sut", st, pr);
  CHECK(!s2.perf_constraints_met);
  CHECK_EQ(s2.invalid_reason, "TPOT constrain not met: Reduce target QPS to improve latency. ");
  CHECK(!s2.early_stopping_met);  // every TPOT over its bound
  CHECK(s2.early_stopping_ttft_text.empty());
}

// ===========================================================================
// Detail log shape

TEST_CASE("every detail line is ':::MLLOG ' + JSON, ends with num_errors") {
  TestSettings ts;
  ts.scenario = Scenario::SingleStream;
  ts.min_duration_ms = 0;
  ts.min_query_count = 10;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  for (int i = 0; i < 1000; ++i) pr.sample_latencies.push_back(100 + i % 37);
  pr.queries_issued = 1000;
  pr.final_query_issued_time = 0.001;

  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  LG_LOG_ERROR(log, "error_runtime", "something \"quoted\"\n");
  Summary s = lg::ComputeSummary("sut \"x\"", st, pr);
  lg::LogSummaryDetail(s, st, &log);
  log.Close();
  const std::vector<DetailEntry> d = ParseDetail(os.str());
  CHECK(d.size() > 10);
  CHECK_EQ(d.back().key, "num_errors");
  CHECK_EQ(d.back().value, "1");
  const std::vector<std::string> keys = KeysOf(d);
  const std::vector<std::string> want = {"error_runtime",
                                         "result_validity",
                                         "result_min_duration_met",
                                         "result_min_queries_met",
                                         "early_stopping_met",
                                         "early_stopping_result",
                                         "result_query_count",
                                         "result_qps_with_loadgen_overhead",
                                         "result_qps_without_loadgen_overhead",
                                         "early_stopping_latency_ss",
                                         "early_stopping_latency_ms",
                                         "result_min_latency_ns",
                                         "result_max_latency_ns",
                                         "result_mean_latency_ns",
                                         "result_50.00_percentile_latency_ns",
                                         "result_90.00_percentile_latency_ns",
                                         "result_95.00_percentile_latency_ns",
                                         "result_97.00_percentile_latency_ns",
                                         "result_99.00_percentile_latency_ns",
                                         "result_99.90_percentile_latency_ns",
                                         "num_errors"};
  CHECK(keys == want);
  CHECK_EQ(ValueOf(d, "result_qps_with_loadgen_overhead"), "999000");
}

TEST_CASE("no samples: figures stay 0 and nothing crashes") {
  TestSettings ts;
  ts.scenario = Scenario::Server;
  ts.min_duration_ms = 0;
  EffectiveSettings st = Effective(ts);
  PerformanceResult pr;
  pr.queries_issued = 0;
  Summary s = lg::ComputeSummary("sut", st, pr);
  CHECK_EQ(s.sample_count, 0u);
  CHECK_EQ(s.query_count, 0u);
  CHECK(!s.valid);
  std::string text = SummaryOf(s, st);
  CHECK(!text.empty());
  // The rates divide by zero here, and upstream's "inf" is not JSON, so only
  // the last line is looked at.
  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  lg::LogSummaryDetail(s, st, &log);
  const std::vector<std::string> lines = SplitLines(os.str());
  CHECK(!lines.empty() && lines.back().find("{\"key\": \"num_errors\", \"value\": 0,") != std::string::npos);
}

TEST_MAIN()
