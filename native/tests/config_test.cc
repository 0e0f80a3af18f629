// Tests of the config-file reader (mlperf.conf / user.conf / audit.config)
// and of the built-in mlperf.conf table.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "config.h"

using lg::ConfigMap;
using lg::ConfigOrigins;
using lg::ConfType;
using lg::TestSettings;

namespace {

// A fresh directory under $TMPDIR (or /tmp) for the files tests write,
// removed with them when the program ends.
class TempFiles {
 public:
  TempFiles() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/lg_config_test_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) dir_ = buf.data();
  }
  ~TempFiles() {
    for (const std::string& f : files_) std::remove(f.c_str());
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  const std::string& dir() const { return dir_; }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    files_.insert(path);
    return path;
  }

 private:
  std::string dir_;
  std::set<std::string> files_;
};

TempFiles& Temp() {
  static TempFiles temp;
  return temp;
}

const std::string& TempDir() { return Temp().dir(); }

std::string WriteFile(const std::string& name, const std::string& text) { return Temp().Write(name, text); }

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

bool AnyContains(const std::vector<std::string>& list, const std::string& needle) {
  for (const auto& s : list) {
    if (Contains(s, needle)) return true;
  }
  return false;
}

// Settings after the built-in mlperf.conf alone.
TestSettings FromBuiltin(const std::string& model, const std::string& scenario) {
  TestSettings s;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(nullptr, nullptr, model, scenario, &s);
  CHECK(r.ok);
  CHECK(r.errors.empty());
  return s;
}

// Settings after the built-in mlperf.conf and a user.conf with `text`.
TestSettings WithUserConf(const std::string& text, const std::string& model, const std::string& scenario,
                          lg::ConfigResult* result = nullptr) {
  const std::string path = WriteFile("user.conf", text);
  TestSettings s;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(nullptr, &path, model, scenario, &s);
  if (result) *result = r;
  return s;
}

const uint64_t kQslSeed = 2085463073848966840ULL;
const uint64_t kSampleSeed = 2747215439041700203ULL;
const uint64_t kScheduleSeed = 16159082839903944936ULL;

}  // namespace

// ---------------------------------------------------------------- parsing

TEST_CASE("parse: entries, comments, blank lines, CRLF, last entry wins") {
  const std::string text =
      "# a comment line\n"
      "\n"
      "   \t\n"
      "resnet50.Offline.min_query_count = 24576\r\n"
      "*.*.target_qps\t=\t12.5   # a comment after the value is NOT allowed, see below\n";
  ConfigMap kv;
  std::vector<std::string> errors;
  // The trailing comment makes line 5 an error.
  CHECK(!lg::ParseConfigText(text, "x.conf", &kv, &errors));
  CHECK_EQ(errors.size(), size_t(1));
  CHECK(AnyContains(errors, "x.conf:5: value needs to be integer or double"));

  kv.clear();
  errors.clear();
  const std::string good =
      "# comment\n"
      "a.b.c = 1\n"
      "\n"
      "m.Server.target_qps =   0x10\r\n"
      "a.b.c = 2.5\n"
      "z.*.k = -3\n"
      "z.*.e = 1e3";  // no newline at the end
  ConfigOrigins origins;
  CHECK(lg::ParseConfigText(good, "g.conf", &kv, &errors, nullptr, &origins));
  CHECK(errors.empty());
  CHECK_EQ(kv.size(), size_t(4));
  CHECK_EQ(kv["a.b.c"], std::string("2.5"));
  CHECK_EQ(origins["a.b.c"], std::string("g.conf:5"));
  CHECK_EQ(kv["m.Server.target_qps"], std::string("0x10"));
  CHECK_EQ(kv["z.*.k"], std::string("-3"));
  CHECK_EQ(kv["z.*.e"], std::string("1e3"));
  CHECK_EQ(origins["z.*.e"], std::string("g.conf:7"));
}

TEST_CASE("parse: errors name the source and the line") {
  const std::string text =
      "a.b.c = 1\n"
      "a.b.d = abc\n"
      "a.b.e : 3\n"
      "a.b.f = 4\n"
      "#note here\n"
      "a.b.g = 12ms\n";
  ConfigMap kv;
  std::vector<std::string> errors;
  CHECK(!lg::ParseConfigText(text, "/etc/user.conf", &kv, &errors));
  CHECK_EQ(errors.size(), size_t(4));
  CHECK(AnyContains(errors, "/etc/user.conf:2: value needs to be integer or double, got 'abc'"));
  CHECK(AnyContains(errors, "/etc/user.conf:3: expected 'key = value', found ':'"));
  CHECK(AnyContains(errors, "/etc/user.conf:5: expected 'key = value', found 'here' after '#note'"));
  CHECK(AnyContains(errors, "/etc/user.conf:6: value needs to be integer or double, got '12ms'"));
  // Good lines are still parsed (but a caller applies nothing from a file with errors).
  CHECK_EQ(kv["a.b.f"], std::string("4"));
}

TEST_CASE("parse: silently ignored lines become warnings") {
  const std::string text =
      "a.b.c=1\n"
      "lonely\n"
      "a.b.d =\n"
      "a.b.e = 1 2 3\n"
      "#a.b.f = 5\n";
  ConfigMap kv;
  std::vector<std::string> errors, warnings;
  CHECK(lg::ParseConfigText(text, "w.conf", &kv, &errors, &warnings));
  CHECK(errors.empty());
  CHECK_EQ(warnings.size(), size_t(5));
  CHECK(AnyContains(warnings, "w.conf:1: ignored 'a.b.c=1': '=' must be separated"));
  CHECK(AnyContains(warnings, "w.conf:2: ignored 'lonely'"));
  CHECK(AnyContains(warnings, "w.conf:3: ignored 'a.b.d ='"));
  CHECK(AnyContains(warnings, "w.conf:4: 'a.b.e' has 3 values; the last one is used"));
  CHECK(AnyContains(warnings, "w.conf:5: '#a.b.f' is read as a key, not a comment"));
  // As in the official parser: the last value wins, and '#a.b.f' is a (useless) key.
  CHECK_EQ(kv["a.b.e"], std::string("3"));
  CHECK_EQ(kv.count("#a.b.f"), size_t(1));
  CHECK_EQ(kv.count("a.b.c"), size_t(0));
}

// ---------------------------------------------------------------- lookup

TEST_CASE("lookup precedence: model.scenario > *.scenario > model.* > *.*") {
  ConfigMap kv = {{"m.Server.k", "1"}, {"*.Server.k", "2"}, {"m.*.k", "3"}, {"*.*.k", "4"}};
  std::string v, matched;
  CHECK(lg::LookupConfigValue(kv, "m", "Server", "k", &v, &matched));
  CHECK_EQ(v, std::string("1"));
  CHECK_EQ(matched, std::string("m.Server.k"));
  kv.erase("m.Server.k");
  CHECK(lg::LookupConfigValue(kv, "m", "Server", "k", &v, &matched));
  CHECK_EQ(v, std::string("2"));
  kv.erase("*.Server.k");
  CHECK(lg::LookupConfigValue(kv, "m", "Server", "k", &v, &matched));
  CHECK_EQ(v, std::string("3"));
  kv.erase("m.*.k");
  CHECK(lg::LookupConfigValue(kv, "m", "Server", "k", &v, &matched));
  CHECK_EQ(v, std::string("4"));
  CHECK_EQ(matched, std::string("*.*.k"));
  kv.erase("*.*.k");
  CHECK(!lg::LookupConfigValue(kv, "m", "Server", "k", &v, &matched));

  // Precedence works within one file. Each file is a map of its own, so any
  // matching user.conf entry overrides mlperf.conf, however specific that was.
  TestSettings s = WithUserConf("*.*.min_query_count = 5\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(5));  // beats resnet50.Offline.min_query_count = 24576
  s = WithUserConf("*.Offline.min_query_count = 5\nresnet50.*.min_query_count = 6\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(5));
  s = WithUserConf("*.Offline.min_query_count = 5\nbert.*.min_query_count = 6\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(5));
  s = WithUserConf("*.Offline.min_query_count = 5\nresnet50.Offline.min_query_count = 7\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(7));
  s = WithUserConf("*.Server.min_query_count = 5\nresnet50.*.min_query_count = 6\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(6));
  s = WithUserConf("bert.*.min_query_count = 6\n", "resnet50", "Offline");
  CHECK_EQ(s.min_query_count, uint64_t(24576));  // no match in user.conf: mlperf.conf's value stays
}

// ---------------------------------------------------------------- file-type rules

TEST_CASE("seeds, accuracy_log_probability and test05 are read only from mlperf.conf") {
  const std::string user =
      "*.*.qsl_rng_seed = 1\n"
      "*.*.sample_index_rng_seed = 2\n"
      "*.*.schedule_rng_seed = 3\n"
      "*.*.accuracy_log_probability = 50\n"
      "*.*.test05 = 1\n"
      "*.*.test05_qsl_rng_seed = 4\n";
  lg::ConfigResult r;
  TestSettings s = WithUserConf(user, "resnet50", "Offline", &r);
  CHECK(r.ok);
  CHECK_EQ(s.qsl_rng_seed, kQslSeed);
  CHECK_EQ(s.sample_index_rng_seed, kSampleSeed);
  CHECK_EQ(s.schedule_rng_seed, kScheduleSeed);
  CHECK_EQ(s.accuracy_log_probability, 0.0);
  CHECK(!s.test05);
  CHECK_EQ(s.test05_qsl_rng_seed, uint64_t(7975553102935885558ULL));
  CHECK(AnyContains(r.warnings, "user.conf:1: 'qsl_rng_seed' is only read from mlperf.conf; ignored"));
  CHECK(AnyContains(r.warnings, "user.conf:4: 'accuracy_log_probability' is only read from mlperf.conf"));

  // The same keys in a given mlperf.conf are applied (accuracy_log_probability: percent).
  const std::string mlperf = WriteFile("mlperf.conf", user);
  TestSettings t;
  r = lg::LoadSettingsFromConfig(&mlperf, nullptr, "resnet50", "Offline", &t);
  CHECK(r.ok);
  CHECK_EQ(t.qsl_rng_seed, uint64_t(1));
  CHECK_EQ(t.sample_index_rng_seed, uint64_t(2));
  CHECK_EQ(t.schedule_rng_seed, uint64_t(3));
  CHECK_EQ(t.accuracy_log_probability, 50 * 0.01);
  CHECK(t.test05);
  CHECK_EQ(t.test05_qsl_rng_seed, uint64_t(4));

  // Audit configs follow the user.conf rules.
  const std::string audit = WriteFile("audit_seed.config", "*.*.schedule_rng_seed = 9\n*.*.min_query_count = 9\n");
  TestSettings a;
  std::vector<std::string> errors, warnings;
  CHECK(lg::ApplyAuditConfig(audit, &a, &errors, &warnings));
  CHECK(errors.empty());
  CHECK_EQ(a.schedule_rng_seed, uint64_t(0));
  CHECK_EQ(a.min_query_count, uint64_t(9));
  CHECK(AnyContains(warnings, "'schedule_rng_seed' is only read from mlperf.conf"));
}

TEST_CASE("a given mlperf.conf file replaces the built-in table") {
  const std::string mlperf = WriteFile("mlperf_small.conf", "*.*.min_duration = 1234\n");
  TestSettings s;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(&mlperf, nullptr, "resnet50", "Offline", &s);
  CHECK(r.ok);
  CHECK_EQ(s.min_duration_ms, uint64_t(1234));
  CHECK_EQ(s.qsl_rng_seed, uint64_t(0));  // no seeds in that file
  CHECK_EQ(s.performance_sample_count_override, uint64_t(0));
  // Unknown keys in an mlperf.conf (like the official *.Server.target_duration) draw no warning.
  CHECK(r.warnings.empty());
}

// ---------------------------------------------------------------- units and scenario quirks

TEST_CASE("units: latencies ms -> ns, percentiles percent -> fraction, durations stay ms") {
  const std::string user =
      "*.SingleStream.target_latency = 0.25\n"
      "*.MultiStream.target_latency = 7\n"
      "*.Server.target_latency = 30\n"
      "*.SingleStream.target_latency_percentile = 97.5\n"
      "*.MultiStream.target_latency_percentile = 95\n"
      "*.Server.target_latency_percentile = 99.9\n"
      "*.*.min_duration = 1500\n"
      "*.*.max_duration = 90000\n"
      "*.Server.target_qps = 12.5\n"
      "*.Offline.target_qps = 0x10\n";
  TestSettings s = WithUserConf(user, "resnet50", "Server");
  CHECK_EQ(s.single_stream_expected_latency_ns, 0.25 * 1e6);
  CHECK_EQ(s.multi_stream_expected_latency_ns, 7e6);
  CHECK_EQ(s.server_target_latency_ns, uint64_t(30000000));
  CHECK_EQ(s.single_stream_target_latency_percentile, 97.5 * 0.01);
  CHECK_EQ(s.multi_stream_target_latency_percentile, 95 * 0.01);
  CHECK_EQ(s.server_target_latency_percentile, 99.9 * 0.01);
  CHECK_EQ(s.min_duration_ms, uint64_t(1500));
  CHECK_EQ(s.max_duration_ms, uint64_t(90000));
  CHECK_EQ(s.server_target_qps, 12.5);
  CHECK_EQ(s.offline_expected_qps, 16.0);
}

TEST_CASE("integer keys read the integer prefix (strtoull base 0) times an integer multiplier") {
  const std::string user =
      "*.*.min_query_count = 1.9\n"
      "*.*.max_query_count = 1e3\n"
      "*.*.min_duration = 010\n"
      "*.Server.target_latency = 0.5\n"
      "*.*.performance_issue_same_index = 0x20\n";
  TestSettings s = WithUserConf(user, "resnet50", "Server");
  CHECK_EQ(s.min_query_count, uint64_t(1));
  CHECK_EQ(s.max_query_count, uint64_t(1));
  CHECK_EQ(s.min_duration_ms, uint64_t(8));  // octal
  CHECK_EQ(s.server_target_latency_ns, uint64_t(0));
  CHECK_EQ(s.performance_issue_same_index, uint64_t(32));
}

TEST_CASE("keys looked up under a fixed scenario, whatever the test's scenario") {
  // Running Offline, the Server-only keys still come from *.Server.* entries.
  const std::string user =
      "*.Server.target_latency = 42\n"
      "*.Server.coalesce_queries = 1\n"
      "*.Server.max_async_queries = 7\n"
      "*.Server.target_qps = 33\n"
      "*.SingleStream.target_latency = 3\n"
      "*.MultiStream.samples_per_query = 4\n"
      "*.Offline.min_query_count = 55\n";
  TestSettings s = WithUserConf(user, "resnet50", "Offline");
  CHECK_EQ(s.server_target_latency_ns, uint64_t(42000000));
  CHECK(s.server_coalesce_queries);
  CHECK_EQ(s.server_max_async_queries, uint64_t(7));
  CHECK_EQ(s.server_target_qps, 33.0);
  CHECK_EQ(s.single_stream_expected_latency_ns, 3e6);
  CHECK_EQ(s.multi_stream_samples_per_query, uint64_t(4));
  CHECK_EQ(s.min_query_count, uint64_t(55));

  // Scenario-dependent keys follow the test's scenario.
  s = WithUserConf("*.Server.min_duration = 5\n*.Offline.min_duration = 6\n", "resnet50", "Offline");
  CHECK_EQ(s.min_duration_ms, uint64_t(6));
  s = WithUserConf("*.Server.min_duration = 5\n*.Offline.min_duration = 6\n", "resnet50", "Server");
  CHECK_EQ(s.min_duration_ms, uint64_t(5));

  // max_async_queries passes through an int.
  s = WithUserConf("*.Server.max_async_queries = 5000000000\n", "resnet50", "Server");
  CHECK_EQ(s.server_max_async_queries, uint64_t(705032704));
}

TEST_CASE("boolean keys: some mean '== 1', others '!= 0'") {
  const std::string user =
      "*.*.sample_concatenate_permutation = 2\n"
      "*.*.use_token_latencies = 2\n"
      "*.*.performance_issue_unique = 2\n"
      "*.*.performance_issue_same = 3\n"
      "*.*.print_timestamps = 5\n"
      "*.Server.coalesce_queries = 9\n";
  TestSettings s = WithUserConf(user, "gptj", "Server");
  CHECK(!s.sample_concatenate_permutation);  // gptj has it on in mlperf.conf; 2 turns it off
  CHECK(!s.use_token_latencies);
  CHECK(s.performance_issue_unique);
  CHECK(s.performance_issue_same);
  CHECK(s.print_timestamps);
  CHECK(s.server_coalesce_queries);
}

TEST_CASE("ttft/tpot are read only while token latencies are on") {
  TestSettings s = WithUserConf("*.Server.ttft_latency = 5\n*.Server.tpot_latency = 6\n", "resnet50", "Server");
  CHECK(!s.use_token_latencies);
  CHECK_EQ(s.server_ttft_latency, uint64_t(100000000));
  CHECK_EQ(s.server_tpot_latency, uint64_t(100000000));
  s = WithUserConf("*.*.use_token_latencies = 1\n*.Server.ttft_latency = 5\n*.*.tpot_latency = 6\n", "resnet50",
                   "Offline");
  CHECK(s.use_token_latencies);
  CHECK_EQ(s.server_ttft_latency, uint64_t(5000000));
  CHECK_EQ(s.server_tpot_latency, uint64_t(6000000));
  // On from mlperf.conf (llama2-70b) is enough for user.conf bounds to apply.
  s = WithUserConf("llama2-70b.Server.ttft_latency = 1000\n", "llama2-70b", "Offline");
  CHECK_EQ(s.server_ttft_latency, uint64_t(1000000000));
  CHECK_EQ(s.server_tpot_latency, uint64_t(200000000));
  // token_latency_scaling_factor likewise needs infer_token_latencies.
  s = WithUserConf("*.*.token_latency_scaling_factor = 5\n", "resnet50", "Offline");
  CHECK_EQ(s.token_latency_scaling_factor, uint64_t(0));
  s = WithUserConf("*.*.token_latency_scaling_factor = 5\n", "gptj", "Offline");
  CHECK_EQ(s.token_latency_scaling_factor, uint64_t(5));
}

TEST_CASE("mode: 0..3 map to the Mode enum; anything else is an error naming file and line") {
  TestSettings s = WithUserConf("*.*.mode = 1\n", "resnet50", "Offline");
  CHECK(s.mode == lg::Mode::AccuracyOnly);
  s = WithUserConf("*.*.mode = 3\n", "resnet50", "Server");
  CHECK(s.mode == lg::Mode::FindPeakPerformance);
  s = WithUserConf("*.*.mode = 0\n", "resnet50", "Server");
  CHECK(s.mode == lg::Mode::SubmissionRun);

  lg::ConfigResult r;
  s = WithUserConf("# modes\n*.*.min_query_count = 77\n*.Server.mode = 4\n", "resnet50", "Server", &r);
  CHECK(!r.ok);
  CHECK_EQ(r.errors.size(), size_t(1));
  CHECK(AnyContains(r.errors, "user.conf:3: Invalid value passed to Mode key in config: '4'"));
  CHECK(s.mode == lg::Mode::PerformanceOnly);  // unchanged
  CHECK_EQ(s.min_query_count, uint64_t(77));   // the other keys still apply
}

TEST_CASE("unreadable or invalid user.conf: error, nothing of it applied, mlperf.conf still applied") {
  TestSettings s;
  const std::string missing = TempDir() + "/does_not_exist.conf";
  lg::ConfigResult r = lg::LoadSettingsFromConfig(nullptr, &missing, "resnet50", "Offline", &s);
  CHECK(!r.ok);
  CHECK(AnyContains(r.errors, "can't open file " + missing));
  CHECK_EQ(s.min_query_count, uint64_t(24576));
  CHECK_EQ(s.qsl_rng_seed, kQslSeed);

  const std::string dir = TempDir();
  TestSettings d;
  r = lg::LoadSettingsFromConfig(nullptr, &dir, "resnet50", "Offline", &d);
  CHECK(!r.ok);
  CHECK(AnyContains(r.errors, "directory"));

  TestSettings b = WithUserConf("*.*.min_duration = 5\n*.*.max_duration = five\n", "resnet50", "Offline", &r);
  CHECK(!r.ok);
  CHECK(AnyContains(r.errors, "user.conf:2: value needs to be integer or double"));
  CHECK_EQ(b.min_duration_ms, uint64_t(600000));  // line 1 not applied either
}

TEST_CASE("user.conf warnings: unknown keys and scenarios") {
  lg::ConfigResult r;
  WithUserConf("*.*.min_durration = 5\n*.server.target_qps = 3\n*.*.server_num_issue_query_threads = 2\nfoo = 1\n",
               "resnet50", "Server", &r);
  CHECK(r.ok);
  CHECK(AnyContains(r.warnings, "user.conf:1: unknown key 'min_durration'"));
  CHECK(AnyContains(r.warnings, "user.conf:2: unknown scenario 'server'"));
  CHECK(AnyContains(r.warnings, "user.conf:3: unknown key 'server_num_issue_query_threads'"));
  CHECK(AnyContains(r.warnings, "user.conf:4: 'foo' is not of the form model.scenario.key"));
}

// ---------------------------------------------------------------- the built-in table

TEST_CASE("built-in table: size, benchmark names, round trip through the parser") {
  size_t n = 0;
  const lg::MlperfConfRow* rows = lg::BuiltinMlperfConfRows(&n);
  CHECK(rows != nullptr);
  CHECK_EQ(n, size_t(148));
  CHECK_EQ(lg::BuiltinMlperfConf().size(), n);  // no key twice

  const std::vector<std::string>& names = lg::BuiltinBenchmarkNames();
  const std::set<std::string> got(names.begin(), names.end());
  const std::set<std::string> want = {"resnet50",
                                      "ssd-mobilenet",
                                      "retinanet",
                                      "bert",
                                      "dlrm",
                                      "dlrm-v2",
                                      "dlrm-v3",
                                      "rnnt",
                                      "gptj",
                                      "mixtral-8x7b",
                                      "llama2-70b",
                                      "llama2-70b-interactive",
                                      "llama3_1-405b",
                                      "llama3_1-405b-interactive",
                                      "llama3_1-8b",
                                      "llama3_1-8b-edge",
                                      "llama3_1-8b-interactive",
                                      "stable-diffusion-xl",
                                      "wan-2.2-t2v-a14b",
                                      "rgat",
                                      "pointpainting",
                                      "deepseek-r1",
                                      "deepseek-r1-interactive",
                                      "whisper",
                                      "qwen3-vl-235b-a22b",
                                      "yolo",
                                      "3d-unet",
                                      "gpt-oss-120b",
                                      "gpt-oss-120b-interactive"};
  CHECK(got == want);
  CHECK_EQ(names.size(), want.size());

  // Written out as a conf file, the table parses back to the same map, with no warnings.
  std::string text = "# generated\n";
  for (size_t i = 0; i < n; i++) {
    text += std::string(rows[i].model) + "." + rows[i].scenario + "." + rows[i].key + " = " + rows[i].value + "\n";
  }
  ConfigMap kv;
  std::vector<std::string> errors, warnings;
  CHECK(lg::ParseConfigText(text, "table", &kv, &errors, &warnings));
  CHECK(errors.empty());
  CHECK(warnings.empty());
  CHECK(kv == lg::BuiltinMlperfConf());
}

TEST_CASE("built-in table: common values") {
  for (const char* scenario : {"SingleStream", "MultiStream", "Server", "Offline"}) {
    TestSettings s = FromBuiltin("resnet50", scenario);
    CHECK_EQ(s.qsl_rng_seed, kQslSeed);
    CHECK_EQ(s.sample_index_rng_seed, kSampleSeed);
    CHECK_EQ(s.schedule_rng_seed, kScheduleSeed);
    CHECK_EQ(s.test05_qsl_rng_seed, uint64_t(7975553102935885558ULL));
    CHECK_EQ(s.test05_sample_index_rng_seed, uint64_t(11403566307062068064ULL));
    CHECK_EQ(s.test05_schedule_rng_seed, uint64_t(15816800565822761601ULL));
    CHECK_EQ(s.min_duration_ms, uint64_t(600000));
    CHECK_EQ(s.single_stream_target_latency_percentile, 90 * 0.01);
    CHECK_EQ(s.multi_stream_target_latency_percentile, 99 * 0.01);
    CHECK_EQ(s.server_target_latency_percentile, 99 * 0.01);
    CHECK_EQ(s.multi_stream_samples_per_query, uint64_t(8));
    CHECK_EQ(s.single_stream_expected_latency_ns, 10e6);
    CHECK_EQ(s.multi_stream_expected_latency_ns, 80e6);
    CHECK_EQ(s.server_target_qps, 1.0);
    CHECK_EQ(s.offline_expected_qps, 1.0);
    CHECK_EQ(s.server_target_latency_ns, uint64_t(15000000));
    CHECK_EQ(s.performance_sample_count_override, uint64_t(1024));
    CHECK(s.mode == lg::Mode::PerformanceOnly);
    CHECK(!s.use_token_latencies);
    CHECK(!s.sample_concatenate_permutation);
  }
  CHECK_EQ(FromBuiltin("resnet50", "MultiStream").min_query_count, uint64_t(662));
  CHECK_EQ(FromBuiltin("resnet50", "Offline").min_query_count, uint64_t(24576));
  CHECK_EQ(FromBuiltin("resnet50", "Server").min_query_count, uint64_t(100));  // the TestSettings default
  CHECK_EQ(FromBuiltin("retinanet", "MultiStream").multi_stream_expected_latency_ns, 528e6);
  CHECK_EQ(FromBuiltin("pointpainting", "SingleStream").single_stream_target_latency_percentile, 99.9 * 0.01);
  CHECK_EQ(FromBuiltin("bert", "Server").server_target_latency_ns, uint64_t(130000000));
  CHECK_EQ(FromBuiltin("dlrm-v3", "Server").server_target_latency_ns, uint64_t(80000000));
  CHECK_EQ(FromBuiltin("3d-unet", "Offline").performance_sample_count_override, uint64_t(0));
  CHECK(FromBuiltin("3d-unet", "SingleStream").sample_concatenate_permutation);
  CHECK_EQ(FromBuiltin("3d-unet", "Offline").min_query_count, uint64_t(43));
  CHECK_EQ(FromBuiltin("wan-2.2-t2v-a14b", "Offline").performance_sample_count_override, uint64_t(248));
  CHECK_EQ(FromBuiltin("rgat", "Offline").min_query_count, uint64_t(788379));
  // A model the table does not know gets the wildcard rows only.
  TestSettings u = FromBuiltin("my-model", "Server");
  CHECK_EQ(u.server_target_latency_ns, uint64_t(10000000));
  CHECK_EQ(u.performance_sample_count_override, uint64_t(0));
  CHECK_EQ(u.qsl_rng_seed, kQslSeed);
}

namespace {

struct LlmFacts {
  const char* model;
  bool tokens;
  uint64_t ttft_ms;  // Server bounds as read (100 ms when the table has none)
  uint64_t tpot_ms;
  uint64_t server_target_latency_ms;
  uint64_t performance_count;
  uint64_t accuracy_count;
  uint64_t offline_min_query_count;  // 100 (the default) when the table has none
  bool concat;
};

const LlmFacts kLlms[] = {
    {"llama2-70b", true, 2000, 200, 0, 24576, 0, 24576, true},
    {"llama2-70b-interactive", true, 450, 40, 0, 24576, 0, 100, true},
    {"mixtral-8x7b", true, 2000, 200, 0, 15000, 0, 15000, true},
    {"llama3_1-405b", true, 6000, 175, 0, 8313, 0, 8313, true},
    {"llama3_1-405b-interactive", true, 4500, 80, 0, 8313, 0, 100, true},
    {"llama3_1-8b", true, 2000, 100, 0, 13368, 0, 13368, true},
    {"llama3_1-8b-interactive", true, 500, 30, 0, 13368, 0, 100, true},
    {"llama3_1-8b-edge", true, 100, 100, 10, 5000, 0, 5000, true},
    {"deepseek-r1", true, 2000, 80, 0, 4388, 0, 4388, true},
    {"deepseek-r1-interactive", true, 1500, 15, 0, 4388, 0, 100, true},
    {"gpt-oss-120b", true, 3000, 80, 0, 6396, 4395, 100, true},
    {"gpt-oss-120b-interactive", true, 2000, 15, 0, 6396, 4395, 100, true},
    {"whisper", true, 100, 100, 10, 1633, 0, 1633, true},
    {"gptj", false, 100, 100, 20000, 13368, 0, 13368, true},
    {"qwen3-vl-235b-a22b", false, 100, 100, 12000, 48289, 0, 48289, true},
};

}  // namespace

TEST_CASE("built-in table: every generative benchmark, every scenario") {
  for (const LlmFacts& f : kLlms) {
    for (const char* scenario : {"SingleStream", "MultiStream", "Server", "Offline"}) {
      const int failures_before = lgtest::Failures();
      TestSettings s = FromBuiltin(f.model, scenario);
      CHECK_EQ(s.use_token_latencies, f.tokens);
      // The bounds are Server keys, read in every scenario.
      CHECK_EQ(s.server_ttft_latency, f.ttft_ms * 1000000);
      CHECK_EQ(s.server_tpot_latency, f.tpot_ms * 1000000);
      CHECK_EQ(s.server_target_latency_ns, f.server_target_latency_ms * 1000000);
      CHECK_EQ(s.performance_sample_count_override, f.performance_count);
      CHECK_EQ(s.accuracy_sample_count_override, f.accuracy_count);
      CHECK_EQ(s.sample_concatenate_permutation, f.concat);
      CHECK_EQ(s.min_duration_ms, uint64_t(600000));
      if (std::string(scenario) == "Offline") CHECK_EQ(s.min_query_count, f.offline_min_query_count);
      if (std::string(scenario) == "MultiStream") CHECK_EQ(s.min_query_count, uint64_t(662));
      if (std::string(scenario) == "Server") CHECK_EQ(s.min_query_count, uint64_t(100));
      if (lgtest::Failures() != failures_before) std::printf("  (in %s %s)\n", f.model, scenario);
    }
  }
  TestSettings g = FromBuiltin("gptj", "Offline");
  CHECK(g.infer_token_latencies);
  CHECK_EQ(g.token_latency_scaling_factor, uint64_t(69));
  TestSettings l = FromBuiltin("llama3_1-8b", "Server");
  CHECK(!l.infer_token_latencies);
  CHECK_EQ(l.token_latency_scaling_factor, uint64_t(0));
}

TEST_CASE("llama3_1-8b, as the brief states it") {
  TestSettings s = FromBuiltin("llama3_1-8b", "Server");
  CHECK(s.use_token_latencies);
  CHECK_EQ(s.server_ttft_latency, uint64_t(2000000000));
  CHECK_EQ(s.server_tpot_latency, uint64_t(100000000));
  CHECK_EQ(s.server_target_latency_ns, uint64_t(0));
  CHECK_EQ(s.min_duration_ms, uint64_t(600000));
  CHECK(s.sample_concatenate_permutation);
  CHECK_EQ(s.performance_sample_count_override, uint64_t(13368));
  CHECK_EQ(FromBuiltin("llama3_1-8b", "Offline").min_query_count, uint64_t(13368));
}

TEST_CASE("user.conf on top of the table, as a submitter writes it") {
  const std::string user =
      "llama3_1-8b.Server.target_qps = 42.5\n"
      "llama3_1-8b.Offline.target_qps = 1200\n"
      "llama3_1-8b.*.performance_sample_count_override = 20000\n"
      "*.*.min_duration = 1000\n";
  lg::ConfigResult r;
  TestSettings s = WithUserConf(user, "llama3_1-8b", "Server", &r);
  CHECK(r.ok);
  CHECK(r.warnings.empty());
  CHECK_EQ(s.server_target_qps, 42.5);
  CHECK_EQ(s.offline_expected_qps, 1200.0);
  CHECK_EQ(s.performance_sample_count_override, uint64_t(20000));
  // The user's *.*.min_duration replaces mlperf.conf's *.Server.min_duration.
  CHECK_EQ(s.min_duration_ms, uint64_t(1000));
  CHECK_EQ(s.server_ttft_latency, uint64_t(2000000000));
}

// ---------------------------------------------------------------- audit.config

namespace {

// The entries of the official compliance audit.config files (comments are our own).
const char* kTest01Audit =
    "# TEST01: performance run that also logs a sample of responses\n"
    "\n"
    "*.*.mode = 2\n"
    "*.*.accuracy_log_rng_seed = 720381539243781796\n"
    "*.*.accuracy_log_sampling_target = 4096\n";

const char* kTest04Audit =
    "# TEST04: issue the same sample again and again\n"
    "*.MultiStream.mode = 2\n"
    "*.MultiStream.performance_issue_unique = 0\n"
    "*.MultiStream.performance_issue_same = 1\n"
    "*.MultiStream.performance_issue_same_index = 3\n"
    "*.Offline.mode = 2\n"
    "*.Offline.performance_issue_unique = 0\n"
    "*.Offline.performance_issue_same = 1\n"
    "*.Offline.performance_issue_same_index = 3\n"
    "*.SingleStream.mode = 2\n"
    "*.SingleStream.performance_issue_unique = 0\n"
    "*.SingleStream.performance_issue_same = 1\n"
    "*.SingleStream.performance_issue_same_index = 3\n"
    "*.Server.mode = 2\n"
    "*.Server.performance_issue_unique = 0\n"
    "*.Server.performance_issue_same = 1\n"
    "*.Server.performance_issue_same_index = 3\n"
    "stable-diffusion-xl.Offline.min_query_count = 500\n"
    "wan-2.2-t2v-a14b.Offline.min_query_count = 20\n"
    "wan-2.2-t2v-a14b.SingleStream.min_query_count = 20\n"
    "# stable-diffusion-xl.Offline.target_qps = 0.75\n";

const char* kTest06Audit =
    "# TEST06: LLM output consistency\n"
    "*.*.mode = 2\n"
    "*.*.accuracy_log_rng_seed = 720381539243781796\n"
    "*.*.accuracy_log_sampling_target = 100\n"
    "*.*.min_query_count = 100\n"
    "*.*.min_duration = 0\n"
    "*.*.sample_concatenate_permutation = 0";  // the official file has no final newline

}  // namespace

TEST_CASE("audit.config: missing file is not an error") {
  TestSettings s;
  std::vector<std::string> errors;
  CHECK(!lg::ApplyAuditConfig(TempDir() + "/no_audit.config", &s, &errors));
  CHECK(errors.empty());
  CHECK(s.mode == lg::Mode::PerformanceOnly);
}

TEST_CASE("audit.config: TEST01") {
  const std::string path = WriteFile("test01_audit.config", kTest01Audit);
  for (lg::Scenario sc :
       {lg::Scenario::SingleStream, lg::Scenario::MultiStream, lg::Scenario::Server, lg::Scenario::Offline}) {
    TestSettings s = FromBuiltin("resnet50", lg::ToString(sc));
    s.scenario = sc;
    s.mode = lg::Mode::AccuracyOnly;
    std::vector<std::string> errors, warnings;
    CHECK(lg::ApplyAuditConfig(path, &s, &errors, &warnings));
    CHECK(errors.empty());
    CHECK(warnings.empty());
    CHECK(s.mode == lg::Mode::PerformanceOnly);
    CHECK_EQ(s.accuracy_log_rng_seed, uint64_t(720381539243781796ULL));
    CHECK_EQ(s.accuracy_log_sampling_target, uint64_t(4096));
    CHECK_EQ(s.min_duration_ms, uint64_t(600000));  // untouched
  }
}

TEST_CASE("audit.config: TEST04 (per-scenario entries; model-specific ones never match)") {
  const std::string path = WriteFile("test04_audit.config", kTest04Audit);
  for (lg::Scenario sc :
       {lg::Scenario::SingleStream, lg::Scenario::MultiStream, lg::Scenario::Server, lg::Scenario::Offline}) {
    TestSettings s = FromBuiltin("stable-diffusion-xl", lg::ToString(sc));
    s.scenario = sc;
    s.performance_issue_unique = true;
    const uint64_t min_queries_before = s.min_query_count;
    std::vector<std::string> errors, warnings;
    CHECK(lg::ApplyAuditConfig(path, &s, &errors, &warnings));
    CHECK(errors.empty());
    CHECK(s.mode == lg::Mode::PerformanceOnly);
    CHECK(!s.performance_issue_unique);
    CHECK(s.performance_issue_same);
    CHECK_EQ(s.performance_issue_same_index, uint64_t(3));
    // Looked up with model "*", so "stable-diffusion-xl.Offline.min_query_count" is dead.
    CHECK_EQ(s.min_query_count, min_queries_before);
    CHECK_EQ(warnings.size(), size_t(3));
    CHECK(AnyContains(warnings, "test04_audit.config:18: 'stable-diffusion-xl.Offline.min_query_count' never applies"));
  }
}

TEST_CASE("audit.config: TEST06 on an LLM") {
  const std::string path = WriteFile("test06_audit.config", kTest06Audit);
  for (lg::Scenario sc : {lg::Scenario::Server, lg::Scenario::Offline, lg::Scenario::SingleStream}) {
    TestSettings s = FromBuiltin("llama2-70b", lg::ToString(sc));
    s.scenario = sc;
    s.mode = lg::Mode::SubmissionRun;
    CHECK(s.sample_concatenate_permutation);
    std::vector<std::string> errors;
    CHECK(lg::ApplyAuditConfig(path, &s, &errors));
    CHECK(errors.empty());
    CHECK(s.mode == lg::Mode::PerformanceOnly);
    CHECK_EQ(s.accuracy_log_rng_seed, uint64_t(720381539243781796ULL));
    CHECK_EQ(s.accuracy_log_sampling_target, uint64_t(100));
    CHECK_EQ(s.min_query_count, uint64_t(100));
    CHECK_EQ(s.min_duration_ms, uint64_t(0));
    CHECK(!s.sample_concatenate_permutation);
    // Token settings from mlperf.conf survive.
    CHECK(s.use_token_latencies);
    CHECK_EQ(s.server_ttft_latency, uint64_t(2000000000));
  }
}

TEST_CASE("audit.config: verification-script keys are ignored quietly; bad files report errors") {
  const std::string path = WriteFile(
      "test09_audit.config", "*.*.mode = 2\n\n*.*.min_query_count = 6396\n*.*.test09_min_output_tokens = 1150.38\n");
  TestSettings s;
  std::vector<std::string> errors, warnings;
  CHECK(lg::ApplyAuditConfig(path, &s, &errors, &warnings));
  CHECK(errors.empty());
  CHECK(warnings.empty());
  CHECK_EQ(s.min_query_count, uint64_t(6396));

  const std::string bad = WriteFile("bad_audit.config", "*.*.mode = 1\n*.*.min_query_count = lots\n");
  TestSettings b;
  errors.clear();
  CHECK(lg::ApplyAuditConfig(bad, &b, &errors));
  CHECK_EQ(errors.size(), size_t(1));
  CHECK(AnyContains(errors, "bad_audit.config:2: value needs to be integer or double"));
  CHECK(b.mode == lg::Mode::PerformanceOnly);  // nothing applied

  const std::string bad_mode = WriteFile("mode_audit.config", "*.*.mode = 7\n");
  errors.clear();
  CHECK(lg::ApplyAuditConfig(bad_mode, &b, &errors));
  CHECK(AnyContains(errors, "mode_audit.config:1: Invalid value passed to Mode key"));
}

TEST_MAIN()
