// Tests of the built-in mlperf.conf table (its rows, the generative
// benchmarks, user.conf on top of it) and of audit.config.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "config.h"
#include "config_support.h"

using lg::ConfigMap;
using lg::TestSettings;
using namespace config_support;

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
