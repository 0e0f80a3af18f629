// Tests of the config-file reader (mlperf.conf / user.conf): parsing, lookup
// precedence, which keys each file type may set, units and quirks of the
// official reader, and errors and warnings of user.conf.
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "config.h"
#include "config_support.h"

using lg::ConfigMap;
using lg::ConfigOrigins;
using lg::TestSettings;
using namespace config_support;

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

TEST_MAIN()
