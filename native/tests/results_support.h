// Helpers shared by the results tests (results_stats_test.cc,
// results_server_test.cc, results_offline_test.cc): summary and detail text
// of a computed Summary, a small JSON check of MLLOG lines, crafted latency
// sets, the official sample logs, and an independent early-stopping reference.
// Functions are inline so a test that leaves one unused gets no warning.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
#include "effective_settings.h"
#include "performance_result.h"
#include "results.h"

namespace results_support {

using lg::EffectiveSettings;
using lg::Summary;
using lg::TestSettings;

constexpr uint64_t kConfQslSeed = 2085463073848966840ULL;
constexpr uint64_t kConfSampleSeed = 2747215439041700203ULL;
constexpr uint64_t kConfScheduleSeed = 16159082839903944936ULL;

inline EffectiveSettings Effective(const TestSettings& ts, uint64_t perf = 1024, uint64_t total = 1024) {
  return EffectiveSettings(ts, perf, total, nullptr);
}

inline std::vector<std::string> SplitLines(const std::string& text) {
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
inline bool SameLines(const std::string& got, const std::string& want) {
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

inline std::string SummaryOf(const Summary& s, const EffectiveSettings& st) {
  std::string out;
  lg::AppendSummaryText(s, st, &out);
  return out;
}

inline const std::string kRule = "================================================";

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
inline std::vector<DetailEntry> ParseDetail(const std::string& text) {
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

inline std::vector<DetailEntry> DetailOf(const Summary& s, const EffectiveSettings& st) {
  std::ostringstream os;
  lg::DetailLog log;
  log.Open(&os, false, 0);
  lg::LogSummaryDetail(s, st, &log);
  log.Close();
  return ParseDetail(os.str());
}

inline std::string ValueOf(const std::vector<DetailEntry>& d, const std::string& key) {
  for (const DetailEntry& e : d) {
    if (e.key == key) return e.value;
  }
  return "<absent>";
}

inline std::vector<std::string> KeysOf(const std::vector<DetailEntry>& d) {
  std::vector<std::string> keys;
  for (const DetailEntry& e : d) keys.push_back(e.key);
  return keys;
}

// A sorted vector of n values with the given values at the given indices
// (index 0 and n-1 must be among them), the other values placed between
// their neighbouring anchors so that sum / n truncates to `mean`.
inline std::vector<int64_t> Crafted(size_t n, const std::map<size_t, int64_t>& anchors, int64_t mean) {
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
inline size_t IndexOf(size_t n, double p) { return static_cast<size_t>(static_cast<double>(n) * p); }

inline std::map<size_t, int64_t> Anchors(size_t n, int64_t mn, int64_t mx, const std::vector<int64_t>& pcts) {
  const double ps[] = {0.50, 0.90, 0.95, 0.97, 0.99, 0.999};
  std::map<size_t, int64_t> a;
  a[0] = mn;
  a[n - 1] = mx;
  for (size_t k = 0; k < 6; ++k) a[IndexOf(n, ps[k])] = pcts[k];
  return a;
}

// ---- official sample logs ----

inline std::string OfficialDir() {
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

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

// The official summary without its warning/error tail (the last four lines:
// blank, warnings, blank, errors), i.e. what AppendSummaryText produces.
inline std::string OfficialResultsBlock(const std::string& summary) {
  std::vector<std::string> lines = SplitLines(summary);
  if (lines.size() < 4) return "";
  lines.resize(lines.size() - 4);
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The official result lines: from result_validity to num_errors.
inline std::vector<DetailEntry> OfficialResultDetail(const std::string& detail) {
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
inline void CompareDetail(const std::vector<DetailEntry>& ours, const std::vector<DetailEntry>& official) {
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

inline long double BinomialCdf(int64_t h, int64_t t, long double p) {
  const int64_t n = h + t;
  long double total = 0;
  for (int64_t k = 0; k <= t; ++k) {
    const long double lc = std::lgamma(static_cast<long double>(n + 1)) - std::lgamma(static_cast<long double>(k + 1)) -
                           std::lgamma(static_cast<long double>(n - k + 1));
    total += std::exp(lc + k * std::log(1.0L - p) + (n - k) * std::log(p));
  }
  return total;
}

inline int64_t SlowMinPassing(int64_t t, double p) {
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

inline TestSettings ConfSeeds(TestSettings ts) {
  ts.qsl_rng_seed = kConfQslSeed;
  ts.sample_index_rng_seed = kConfSampleSeed;
  ts.schedule_rng_seed = kConfScheduleSeed;
  return ts;
}

}  // namespace results_support
