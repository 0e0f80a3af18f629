// The official LoadGen's configuration files: mlperf.conf (built in, or given
// as a file), user.conf and the compliance tests' audit.config.
//
// Syntax: one `model.scenario.key = value` entry a line, tokens separated by
// whitespace; a `#` token (outside the value position) ends the line; the
// value must read in full as an integer (strtoul, base 0) or as a double.
// Lookup of a key for (model, scenario) tries model.scenario, *.scenario,
// model.* and *.* in that order. Some keys are read only from mlperf.conf
// (the RNG seeds, accuracy_log_probability, test05*). See ApplyConfig for
// units and for which scenario each key is looked up under.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "test_settings.h"

namespace lg {

// Which file a map came from; decides which keys it may set.
enum class ConfType { MlperfConf = 0, UserConf = 1, AuditConfig = 2 };

struct ConfigResult {
  bool ok = true;                   // false iff errors is not empty
  std::vector<std::string> errors;  // "path:line: message" (or "can't open file path: reason")
  // Entries the official engine ignores without a word (a seed in user.conf,
  // an unknown key, "a=1" without spaces...). Meant for the user's console:
  // writing them to the detail log would change its warning count.
  std::vector<std::string> warnings;
};

// Full key ("model.scenario.key") -> value text, as written in the file.
using ConfigMap = std::map<std::string, std::string>;
// Full key -> "source:line" of the entry whose value the map holds.
using ConfigOrigins = std::map<std::string, std::string>;

// Parses config text. A later entry for the same key replaces an earlier one.
// Errors name `source_name` and the 1-based line; returns false if there was
// any (the official engine then applies nothing from that file). Warnings,
// if wanted, report lines that are ignored without an error.
bool ParseConfigText(const std::string& text, const std::string& source_name, ConfigMap* kv,
                     std::vector<std::string>* errors, std::vector<std::string>* warnings = nullptr,
                     ConfigOrigins* origins = nullptr);

// Finds `key` for model/scenario with the wildcard precedence above. On a hit
// sets *value (and *matched_key, the full key that matched, when given).
bool LookupConfigValue(const ConfigMap& kv, const std::string& model, const std::string& scenario,
                       const std::string& key, std::string* value, std::string* matched_key = nullptr);

// Applies the entries of `kv` that concern model/scenario to *s, following the
// rules of the official TestSettings::FromConfig for a file of `type`:
//  * mlperf.conf only: qsl_rng_seed, sample_index_rng_seed, schedule_rng_seed,
//    accuracy_log_probability (percent -> fraction), test05 and its seeds;
//  * latencies (target_latency, ttft_latency, tpot_latency) are ms -> ns;
//    percentiles are percent -> fraction; durations stay in ms;
//  * looked up under "Server" whatever the scenario: target_latency (into
//    server_target_latency_ns), target_latency_percentile (server's),
//    ttft_latency / tpot_latency (only while use_token_latencies is on),
//    coalesce_queries, max_async_queries, target_qps (server's);
//    under "SingleStream"/"MultiStream"/"Offline" likewise for those
//    scenarios' own target_latency / percentile / samples_per_query /
//    target_qps; everything else under `scenario`.
// An invalid `mode` adds an error (naming the entry's origin when `origins`
// is given) and the other keys are still applied, as the official engine does.
void ApplyConfig(const ConfigMap& kv, const std::string& model, const std::string& scenario, ConfType type,
                 TestSettings* s, std::vector<std::string>* errors, const ConfigOrigins* origins = nullptr);

// The official FromConfig flow for one model and scenario: mlperf.conf first
// (the built-in table, or the file at *mlperf_conf_path when given) as
// ConfType::MlperfConf, then, when given, the user.conf file as
// ConfType::UserConf. A file that cannot be read or parsed contributes nothing.
// Within one file the wildcard precedence applies; across files, any entry of
// user.conf that matches replaces mlperf.conf's value, however specific that
// was. Unlike the official FromConfig this keeps no process-wide count: each
// call applies mlperf.conf again, and the official "Multiple conf files are
// used" error is left to the caller.
ConfigResult LoadSettingsFromConfig(const std::string* mlperf_conf_path, const std::string* user_conf_path,
                                    const std::string& model, const std::string& scenario, TestSettings* s);

// Applies an audit.config file (ConfType::AuditConfig) on top of *s, looked up
// with model "*" and the name of s->scenario, as StartTest does. Returns
// whether the file exists (then the caller logs the official warning
// "Found Audit Config file (audit.config). Overriding TestSettings from
// audit.config file."). Problems go to *errors, which the caller logs as
// error_invalid_config. Model-specific entries never match: the model is "*".
// A file that exists but cannot be read is reported as an error (the official
// engine treats it as absent).
bool ApplyAuditConfig(const std::string& path, TestSettings* s, std::vector<std::string>* errors,
                      std::vector<std::string>* warnings = nullptr);

// Reads a whole file; false (with a message in *error) if it cannot be read.
bool ReadConfigFile(const std::string& path, std::string* text, std::string* error);

// ---- The built-in mlperf.conf (mlperf_conf_table.cc) ----

struct MlperfConfRow {
  const char* model;     // a benchmark name or "*"
  const char* scenario;  // a scenario name or "*"
  const char* key;
  const char* value;  // as the file writes it
};

// Every row of the official mlperf.conf.
const MlperfConfRow* BuiltinMlperfConfRows(size_t* count);
// The same rows as a ConfigMap ("model.scenario.key" -> value).
const ConfigMap& BuiltinMlperfConf();
// The benchmark names (models other than "*") that the table mentions, in
// the order they first appear.
const std::vector<std::string>& BuiltinBenchmarkNames();

}  // namespace lg
