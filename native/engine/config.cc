#include "config.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace lg {

namespace {

// The whitespace of `istream >> std::string` in the classic locale.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

std::vector<std::string> SplitTokens(const std::string& line) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) i++;
    const size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) i++;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

// A value is accepted when one of strtoul (base 0) or strtod consumes all of it.
bool IsNumericValue(const std::string& token) {
  const char* begin = token.c_str();
  const char* const end = begin + token.size();
  char* stop = nullptr;
  (void)std::strtoul(begin, &stop, 0);
  if (stop == end) return true;
  (void)std::strtod(begin, &stop);
  return stop == end;
}

std::string Where(const std::string& source, int line) { return source + ":" + std::to_string(line); }

const std::set<std::string>& MlperfConfOnlyKeys() {
  static const std::set<std::string> keys = {"qsl_rng_seed",
                                             "sample_index_rng_seed",
                                             "schedule_rng_seed",
                                             "accuracy_log_probability",
                                             "test05",
                                             "test05_qsl_rng_seed",
                                             "test05_sample_index_rng_seed",
                                             "test05_schedule_rng_seed"};
  return keys;
}

// Every key name FromConfig reads from some file type.
const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k = {"mode",
                               "use_token_latencies",
                               "ttft_latency",
                               "tpot_latency",
                               "infer_token_latencies",
                               "token_latency_scaling_factor",
                               "target_latency_percentile",
                               "samples_per_query",
                               "target_latency",
                               "performance_issue_unique",
                               "performance_issue_same",
                               "performance_issue_same_index",
                               "sample_concatenate_permutation",
                               "coalesce_queries",
                               "max_async_queries",
                               "min_duration",
                               "max_duration",
                               "min_query_count",
                               "max_query_count",
                               "performance_sample_count_override",
                               "accuracy_sample_count_override",
                               "target_qps",
                               "print_timestamps",
                               "accuracy_log_rng_seed",
                               "accuracy_log_sampling_target"};
    k.insert(MlperfConfOnlyKeys().begin(), MlperfConfOnlyKeys().end());
    return k;
  }();
  return keys;
}

bool IsScenarioField(const std::string& s) {
  return s == "*" || s == "SingleStream" || s == "MultiStream" || s == "Server" || s == "Offline";
}

// Reads typed values out of a ConfigMap for one model.
class Lookup {
 public:
  Lookup(const ConfigMap& kv, const std::string& model, const ConfigOrigins* origins)
      : kv_(kv), model_(model), origins_(origins) {}

  bool Text(const std::string& scenario, const std::string& key, std::string* value,
            std::string* matched = nullptr) const {
    return LookupConfigValue(kv_, model_, scenario, key, value, matched);
  }

  // Integer keys: strtoull base 0 of the text, times an integer multiplier
  // (so "1.5" reads as 1 and "010" as 8, as in the official engine).
  bool U64(const std::string& scenario, const std::string& key, uint64_t* out, uint64_t multiplier = 1) const {
    std::string v;
    if (!Text(scenario, key, &v)) return false;
    *out = std::strtoull(v.c_str(), nullptr, 0) * multiplier;
    return true;
  }

  bool Double(const std::string& scenario, const std::string& key, double* out, double multiplier = 1.0) const {
    std::string v;
    if (!Text(scenario, key, &v)) return false;
    *out = std::strtod(v.c_str(), nullptr) * multiplier;
    return true;
  }

  // A "source:line" (or the full key) for messages about an entry.
  std::string Describe(const std::string& matched_key) const {
    if (origins_) {
      auto it = origins_->find(matched_key);
      if (it != origins_->end()) return it->second;
    }
    return "'" + matched_key + "'";
  }

 private:
  const ConfigMap& kv_;
  const std::string& model_;
  const ConfigOrigins* origins_;
};

constexpr uint64_t kMsToNs = 1000 * 1000;
constexpr double kMsToNsD = 1000.0 * 1000.0;
constexpr double kPercent = 0.01;

// Warnings about entries of a user.conf / audit.config that can never take effect.
void WarnAboutEntries(const ConfigMap& kv, const ConfigOrigins& origins, ConfType type,
                      std::vector<std::string>* warnings) {
  if (!warnings || type == ConfType::MlperfConf) return;
  for (const auto& entry : kv) {
    const std::string& full = entry.first;
    auto o = origins.find(full);
    const std::string where = o != origins.end() ? o->second : full;
    const size_t last = full.rfind('.');
    const size_t prev = last == std::string::npos || last == 0 ? std::string::npos : full.rfind('.', last - 1);
    if (prev == std::string::npos) {
      warnings->push_back(where + ": '" + full + "' is not of the form model.scenario.key; ignored");
      continue;
    }
    const std::string name = full.substr(last + 1);
    const std::string scenario = full.substr(prev + 1, last - prev - 1);
    const std::string model = full.substr(0, prev);
    if (MlperfConfOnlyKeys().count(name)) {
      warnings->push_back(where + ": '" + name + "' is only read from mlperf.conf; ignored");
    } else if (!KnownKeys().count(name)) {
      // audit.config files carry keys for the verification scripts (test07_*, test09_*).
      if (type == ConfType::UserConf) warnings->push_back(where + ": unknown key '" + name + "'; ignored");
    } else if (!IsScenarioField(scenario)) {
      warnings->push_back(where + ": unknown scenario '" + scenario + "' in '" + full + "'; ignored");
    } else if (type == ConfType::AuditConfig && model != "*") {
      warnings->push_back(where + ": '" + full + "' never applies: audit.config is read with model '*'");
    }
  }
}

}  // namespace

bool ParseConfigText(const std::string& text, const std::string& source_name, ConfigMap* kv,
                     std::vector<std::string>* errors, std::vector<std::string>* warnings, ConfigOrigins* origins) {
  ConfigMap discarded;
  if (!kv) kv = &discarded;
  bool ok = true;
  int line_nr = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    line_nr++;

    const std::vector<std::string> tokens = SplitTokens(line);
    enum { kKey, kEquals, kValue } expect = kKey;
    std::string key;
    int values = 0;
    bool line_failed = false;
    for (const std::string& tok : tokens) {
      if (expect != kValue && tok == "#") break;  // comment; a '#' where a value belongs is not one
      if (expect == kValue) {
        if (!IsNumericValue(tok)) {
          ok = false;
          line_failed = true;
          if (errors) {
            errors->push_back(Where(source_name, line_nr) + ": value needs to be integer or double, got '" + tok +
                              "' for '" + key + "'");
          }
          break;
        }
        (*kv)[key] = tok;
        if (origins) (*origins)[key] = Where(source_name, line_nr);
        values++;
        continue;
      }
      if (expect == kEquals && tok != "=") {
        ok = false;
        line_failed = true;
        if (errors) {
          std::string message =
              Where(source_name, line_nr) + ": expected 'key = value', found '" + tok + "' after '" + key + "'";
          if (key[0] == '#') message += " ('#' starts a comment only as a token of its own)";
          errors->push_back(message);
        }
        break;
      }
      if (expect == kKey) {
        key = tok;
        expect = kEquals;
      } else {
        expect = kValue;
      }
    }
    if (!warnings || line_failed) continue;
    if (expect != kKey && key[0] == '#') {
      warnings->push_back(Where(source_name, line_nr) + ": '" + key +
                          "' is read as a key, not a comment: '#' starts a comment only as a token of its own");
    } else if (expect == kEquals) {
      if (key.find('=') != std::string::npos) {
        warnings->push_back(Where(source_name, line_nr) + ": ignored '" + key +
                            "': '=' must be separated from key and value by spaces");
      } else {
        warnings->push_back(Where(source_name, line_nr) + ": ignored '" + key + "': no '= value' follows");
      }
    } else if (expect == kValue && values == 0) {
      warnings->push_back(Where(source_name, line_nr) + ": ignored '" + key + " =': no value");
    } else if (values > 1) {
      warnings->push_back(Where(source_name, line_nr) + ": '" + key + "' has " + std::to_string(values) +
                          " values; the last one is used");
    }
  }
  return ok;
}

bool LookupConfigValue(const ConfigMap& kv, const std::string& model, const std::string& scenario,
                       const std::string& key, std::string* value, std::string* matched_key) {
  const std::string candidates[] = {model + "." + scenario + "." + key, "*." + scenario + "." + key,
                                    model + ".*." + key, "*.*." + key};
  for (const std::string& candidate : candidates) {
    auto it = kv.find(candidate);
    if (it == kv.end()) continue;
    if (value) *value = it->second;
    if (matched_key) *matched_key = candidate;
    return true;
  }
  return false;
}

void ApplyConfig(const ConfigMap& kv, const std::string& model, const std::string& scenario, ConfType type,
                 TestSettings* s, std::vector<std::string>* errors, const ConfigOrigins* origins) {
  const Lookup get(kv, model, origins);
  uint64_t v = 0;

  {
    std::string text, matched;
    if (get.Text(scenario, "mode", &text, &matched)) {
      const uint64_t m = std::strtoull(text.c_str(), nullptr, 0);
      if (m <= 3) {
        s->mode = static_cast<Mode>(m);
      } else if (errors) {
        errors->push_back(get.Describe(matched) + ": Invalid value passed to Mode key in config: '" + text +
                          "' (0 = SubmissionRun, 1 = AccuracyOnly, 2 = PerformanceOnly, 3 = FindPeakPerformance)");
      }
    }
  }

  if (type == ConfType::MlperfConf) {
    get.U64(scenario, "qsl_rng_seed", &s->qsl_rng_seed);
    get.U64(scenario, "sample_index_rng_seed", &s->sample_index_rng_seed);
    get.U64(scenario, "schedule_rng_seed", &s->schedule_rng_seed);
    get.Double(scenario, "accuracy_log_probability", &s->accuracy_log_probability, kPercent);
    if (get.U64(scenario, "test05", &v)) s->test05 = v == 1;
    get.U64(scenario, "test05_qsl_rng_seed", &s->test05_qsl_rng_seed);
    get.U64(scenario, "test05_sample_index_rng_seed", &s->test05_sample_index_rng_seed);
    get.U64(scenario, "test05_schedule_rng_seed", &s->test05_schedule_rng_seed);
  }

  // Token metrics. The first-token and per-token bounds are Server keys, read
  // for every scenario while token latencies are on (by now or from earlier).
  if (get.U64(scenario, "use_token_latencies", &v)) s->use_token_latencies = v == 1;
  if (s->use_token_latencies) {
    get.U64("Server", "ttft_latency", &s->server_ttft_latency, kMsToNs);
    get.U64("Server", "tpot_latency", &s->server_tpot_latency, kMsToNs);
  }
  if (get.U64(scenario, "infer_token_latencies", &v)) s->infer_token_latencies = v == 1;
  if (s->infer_token_latencies) get.U64(scenario, "token_latency_scaling_factor", &s->token_latency_scaling_factor);

  // Fields of one scenario are read under that scenario's name.
  get.Double("SingleStream", "target_latency_percentile", &s->single_stream_target_latency_percentile, kPercent);
  get.Double("MultiStream", "target_latency_percentile", &s->multi_stream_target_latency_percentile, kPercent);
  get.U64("MultiStream", "samples_per_query", &s->multi_stream_samples_per_query);
  get.Double("Server", "target_latency_percentile", &s->server_target_latency_percentile, kPercent);
  get.U64("Server", "target_latency", &s->server_target_latency_ns, kMsToNs);

  if (get.U64(scenario, "performance_issue_unique", &v)) s->performance_issue_unique = v != 0;
  if (get.U64(scenario, "performance_issue_same", &v)) s->performance_issue_same = v != 0;
  get.U64(scenario, "performance_issue_same_index", &s->performance_issue_same_index);
  if (get.U64(scenario, "sample_concatenate_permutation", &v)) s->sample_concatenate_permutation = v == 1;
  if (get.U64("Server", "coalesce_queries", &v)) s->server_coalesce_queries = v != 0;
  // Passes through an int on the way, as in the official engine.
  if (get.U64("Server", "max_async_queries", &v)) s->server_max_async_queries = static_cast<int>(v);

  get.U64(scenario, "min_duration", &s->min_duration_ms);
  get.U64(scenario, "max_duration", &s->max_duration_ms);
  get.U64(scenario, "min_query_count", &s->min_query_count);
  get.U64(scenario, "max_query_count", &s->max_query_count);
  get.U64(scenario, "performance_sample_count_override", &s->performance_sample_count_override);
  get.U64(scenario, "accuracy_sample_count_override", &s->accuracy_sample_count_override);
  get.Double("SingleStream", "target_latency", &s->single_stream_expected_latency_ns, kMsToNsD);
  get.Double("MultiStream", "target_latency", &s->multi_stream_expected_latency_ns, kMsToNsD);
  get.Double("Server", "target_qps", &s->server_target_qps);
  get.Double("Offline", "target_qps", &s->offline_expected_qps);

  if (get.U64(scenario, "print_timestamps", &v)) s->print_timestamps = v != 0;

  // The keys the compliance tests' audit.config files set.
  get.U64(scenario, "accuracy_log_rng_seed", &s->accuracy_log_rng_seed);
  get.U64(scenario, "accuracy_log_sampling_target", &s->accuracy_log_sampling_target);
}

bool ReadConfigFile(const std::string& path, std::string* text, std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (error) *error = "can't open file " + path + ": " + std::strerror(err);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    if (error) *error = "can't open file " + path + ": it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in.is_open()) {
    const int err = errno;
    if (error) *error = "can't open file " + path + ": " + std::strerror(err);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    if (error) *error = "can't read file " + path;
    return false;
  }
  *text = ss.str();
  return true;
}

namespace {

// Reads, parses and applies one file; false if it could not be read or parsed.
bool ApplyConfigFile(const std::string& path, const std::string& model, const std::string& scenario, ConfType type,
                     TestSettings* s, std::vector<std::string>* errors, std::vector<std::string>* warnings) {
  std::string text, error;
  if (!ReadConfigFile(path, &text, &error)) {
    if (errors) errors->push_back(error);
    return false;
  }
  ConfigMap kv;
  ConfigOrigins origins;
  if (!ParseConfigText(text, path, &kv, errors, warnings, &origins)) return false;
  WarnAboutEntries(kv, origins, type, warnings);
  ApplyConfig(kv, model, scenario, type, s, errors, &origins);
  return true;
}

}  // namespace

ConfigResult LoadSettingsFromConfig(const std::string* mlperf_conf_path, const std::string* user_conf_path,
                                    const std::string& model, const std::string& scenario, TestSettings* s) {
  ConfigResult result;
  if (mlperf_conf_path) {
    ApplyConfigFile(*mlperf_conf_path, model, scenario, ConfType::MlperfConf, s, &result.errors, &result.warnings);
  } else {
    ApplyConfig(BuiltinMlperfConf(), model, scenario, ConfType::MlperfConf, s, &result.errors);
  }
  if (user_conf_path) {
    ApplyConfigFile(*user_conf_path, model, scenario, ConfType::UserConf, s, &result.errors, &result.warnings);
  }
  result.ok = result.errors.empty();
  return result;
}

bool ApplyAuditConfig(const std::string& path, TestSettings* s, std::vector<std::string>* errors,
                      std::vector<std::string>* warnings) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  ApplyConfigFile(path, "*", ToString(s->scenario), ConfType::AuditConfig, s, errors, warnings);
  return true;
}

}  // namespace lg
