// The settings of the official mlperf.conf (LoadGen 6.0.17), one row per
// entry, grouped by benchmark. Units are those of the file: ms for durations
// and latencies, percent for percentiles.
#include <set>

#include "config.h"

namespace lg {

namespace {

constexpr const char* kAny = "*";
constexpr const char* kSS = "SingleStream";
constexpr const char* kMS = "MultiStream";
constexpr const char* kSrv = "Server";
constexpr const char* kOff = "Offline";

const MlperfConfRow kRows[] = {
    // ---- Every benchmark ----
    {kAny, kAny, "qsl_rng_seed", "2085463073848966840"},
    {kAny, kAny, "sample_index_rng_seed", "2747215439041700203"},
    {kAny, kAny, "schedule_rng_seed", "16159082839903944936"},
    {kAny, kAny, "test05_qsl_rng_seed", "7975553102935885558"},
    {kAny, kAny, "test05_sample_index_rng_seed", "11403566307062068064"},
    {kAny, kAny, "test05_schedule_rng_seed", "15816800565822761601"},

    {kAny, kSS, "target_latency_percentile", "90"},
    {kAny, kSS, "min_duration", "600000"},
    {kAny, kSS, "target_latency", "10"},

    {kAny, kMS, "target_latency_percentile", "99"},
    {kAny, kMS, "samples_per_query", "8"},
    {kAny, kMS, "min_duration", "600000"},
    {kAny, kMS, "min_query_count", "662"},
    {kAny, kMS, "target_latency", "80"},

    {kAny, kSrv, "target_latency", "10"},
    {kAny, kSrv, "target_latency_percentile", "99"},
    {kAny, kSrv, "target_duration", "0"},  // not a key FromConfig reads
    {kAny, kSrv, "min_duration", "600000"},
    {kAny, kSrv, "target_qps", "1.0"},

    {kAny, kOff, "target_latency_percentile", "90"},  // never read for Offline
    {kAny, kOff, "min_duration", "600000"},
    {kAny, kOff, "target_qps", "1.0"},

    // ---- Vision ----
    {"resnet50", kAny, "performance_sample_count_override", "1024"},
    {"resnet50", kSrv, "target_latency", "15"},
    {"resnet50", kOff, "min_query_count", "24576"},

    {"ssd-mobilenet", kAny, "performance_sample_count_override", "256"},

    {"retinanet", kAny, "performance_sample_count_override", "64"},
    {"retinanet", kMS, "target_latency", "528"},
    {"retinanet", kSrv, "target_latency", "100"},
    {"retinanet", kOff, "min_query_count", "24576"},

    {"yolo", kAny, "performance_sample_count_override", "64"},

    {"3d-unet", kAny, "performance_sample_count_override", "0"},  // 0: the whole data set
    {"3d-unet", kAny, "sample_concatenate_permutation", "1"},
    {"3d-unet", kOff, "min_query_count", "43"},

    {"pointpainting", kAny, "performance_sample_count_override", "1024"},
    {"pointpainting", kSS, "target_latency_percentile", "99.9"},

    {"stable-diffusion-xl", kAny, "performance_sample_count_override", "5000"},
    {"stable-diffusion-xl", kSrv, "target_latency", "20000"},
    {"stable-diffusion-xl", kOff, "min_query_count", "5000"},

    {"wan-2.2-t2v-a14b", kAny, "performance_sample_count_override", "248"},
    {"wan-2.2-t2v-a14b", kOff, "min_query_count", "248"},

    // ---- Language (non-generative), speech, recommendation, graph ----
    {"bert", kAny, "performance_sample_count_override", "10833"},
    {"bert", kSrv, "target_latency", "130"},
    {"bert", kOff, "min_query_count", "10833"},

    {"rnnt", kAny, "performance_sample_count_override", "2513"},
    {"rnnt", kSrv, "target_latency", "1000"},
    {"rnnt", kOff, "min_query_count", "2513"},

    {"whisper", kAny, "performance_sample_count_override", "1633"},
    {"whisper", kAny, "sample_concatenate_permutation", "1"},
    {"whisper", kAny, "use_token_latencies", "1"},
    {"whisper", kOff, "min_query_count", "1633"},

    {"dlrm", kAny, "performance_sample_count_override", "204800"},
    {"dlrm", kSrv, "target_latency", "60"},

    {"dlrm-v2", kAny, "performance_sample_count_override", "204800"},
    {"dlrm-v2", kSrv, "target_latency", "60"},
    {"dlrm-v2", kOff, "min_query_count", "24576"},

    {"dlrm-v3", kSrv, "target_latency", "80"},

    {"rgat", kAny, "performance_sample_count_override", "788379"},
    {"rgat", kAny, "sample_concatenate_permutation", "1"},
    {"rgat", kOff, "min_query_count", "788379"},

    // ---- Generative language models ----
    // gptj infers its token latencies instead of measuring them.
    {"gptj", kAny, "performance_sample_count_override", "13368"},
    {"gptj", kAny, "sample_concatenate_permutation", "1"},
    {"gptj", kAny, "infer_token_latencies", "1"},
    {"gptj", kAny, "token_latency_scaling_factor", "69"},
    {"gptj", kSrv, "target_latency", "20000"},
    {"gptj", kOff, "min_query_count", "13368"},

    {"llama2-70b", kAny, "performance_sample_count_override", "24576"},
    {"llama2-70b", kAny, "sample_concatenate_permutation", "1"},
    {"llama2-70b", kAny, "use_token_latencies", "1"},
    {"llama2-70b", kSrv, "target_latency", "0"},
    {"llama2-70b", kSrv, "ttft_latency", "2000"},
    {"llama2-70b", kSrv, "tpot_latency", "200"},
    {"llama2-70b", kOff, "min_query_count", "24576"},

    {"llama2-70b-interactive", kAny, "performance_sample_count_override", "24576"},
    {"llama2-70b-interactive", kAny, "sample_concatenate_permutation", "1"},
    {"llama2-70b-interactive", kAny, "use_token_latencies", "1"},
    {"llama2-70b-interactive", kSrv, "target_latency", "0"},
    {"llama2-70b-interactive", kSrv, "ttft_latency", "450"},
    {"llama2-70b-interactive", kSrv, "tpot_latency", "40"},

    {"mixtral-8x7b", kAny, "performance_sample_count_override", "15000"},
    {"mixtral-8x7b", kAny, "sample_concatenate_permutation", "1"},
    {"mixtral-8x7b", kAny, "use_token_latencies", "1"},
    {"mixtral-8x7b", kSrv, "target_latency", "0"},
    {"mixtral-8x7b", kSrv, "ttft_latency", "2000"},
    {"mixtral-8x7b", kSrv, "tpot_latency", "200"},
    {"mixtral-8x7b", kOff, "min_query_count", "15000"},

    {"llama3_1-405b", kAny, "performance_sample_count_override", "8313"},
    {"llama3_1-405b", kAny, "sample_concatenate_permutation", "1"},
    {"llama3_1-405b", kAny, "use_token_latencies", "1"},
    {"llama3_1-405b", kSrv, "target_latency", "0"},
    {"llama3_1-405b", kSrv, "ttft_latency", "6000"},
    {"llama3_1-405b", kSrv, "tpot_latency", "175"},
    {"llama3_1-405b", kOff, "min_query_count", "8313"},

    {"llama3_1-405b-interactive", kAny, "performance_sample_count_override", "8313"},
    {"llama3_1-405b-interactive", kAny, "sample_concatenate_permutation", "1"},
    {"llama3_1-405b-interactive", kAny, "use_token_latencies", "1"},
    {"llama3_1-405b-interactive", kSrv, "target_latency", "0"},
    {"llama3_1-405b-interactive", kSrv, "ttft_latency", "4500"},
    {"llama3_1-405b-interactive", kSrv, "tpot_latency", "80"},

    {"llama3_1-8b", kAny, "performance_sample_count_override", "13368"},
    {"llama3_1-8b", kAny, "sample_concatenate_permutation", "1"},
    {"llama3_1-8b", kAny, "use_token_latencies", "1"},
    {"llama3_1-8b", kSrv, "target_latency", "0"},
    {"llama3_1-8b", kSrv, "ttft_latency", "2000"},
    {"llama3_1-8b", kSrv, "tpot_latency", "100"},
    {"llama3_1-8b", kOff, "min_query_count", "13368"},

    {"llama3_1-8b-interactive", kAny, "performance_sample_count_override", "13368"},
    {"llama3_1-8b-interactive", kAny, "sample_concatenate_permutation", "1"},
    {"llama3_1-8b-interactive", kAny, "use_token_latencies", "1"},
    {"llama3_1-8b-interactive", kSrv, "target_latency", "0"},
    {"llama3_1-8b-interactive", kSrv, "ttft_latency", "500"},
    {"llama3_1-8b-interactive", kSrv, "tpot_latency", "30"},

    // The edge variant has no Server bounds of its own.
    {"llama3_1-8b-edge", kAny, "performance_sample_count_override", "5000"},
    {"llama3_1-8b-edge", kAny, "sample_concatenate_permutation", "1"},
    {"llama3_1-8b-edge", kAny, "use_token_latencies", "1"},
    {"llama3_1-8b-edge", kOff, "min_query_count", "5000"},

    {"deepseek-r1", kAny, "performance_sample_count_override", "4388"},
    {"deepseek-r1", kAny, "sample_concatenate_permutation", "1"},
    {"deepseek-r1", kAny, "use_token_latencies", "1"},
    {"deepseek-r1", kSrv, "target_latency", "0"},
    {"deepseek-r1", kSrv, "ttft_latency", "2000"},
    {"deepseek-r1", kSrv, "tpot_latency", "80"},
    {"deepseek-r1", kOff, "min_query_count", "4388"},

    {"deepseek-r1-interactive", kAny, "performance_sample_count_override", "4388"},
    {"deepseek-r1-interactive", kAny, "sample_concatenate_permutation", "1"},
    {"deepseek-r1-interactive", kAny, "use_token_latencies", "1"},
    {"deepseek-r1-interactive", kSrv, "target_latency", "0"},
    {"deepseek-r1-interactive", kSrv, "ttft_latency", "1500"},
    {"deepseek-r1-interactive", kSrv, "tpot_latency", "15"},

    {"gpt-oss-120b", kAny, "performance_sample_count_override", "6396"},
    {"gpt-oss-120b", kAny, "accuracy_sample_count_override", "4395"},
    {"gpt-oss-120b", kAny, "sample_concatenate_permutation", "1"},
    {"gpt-oss-120b", kAny, "use_token_latencies", "1"},
    {"gpt-oss-120b", kSrv, "target_latency", "0"},
    {"gpt-oss-120b", kSrv, "ttft_latency", "3000"},
    {"gpt-oss-120b", kSrv, "tpot_latency", "80"},

    {"gpt-oss-120b-interactive", kAny, "performance_sample_count_override", "6396"},
    {"gpt-oss-120b-interactive", kAny, "accuracy_sample_count_override", "4395"},
    {"gpt-oss-120b-interactive", kAny, "sample_concatenate_permutation", "1"},
    {"gpt-oss-120b-interactive", kAny, "use_token_latencies", "1"},
    {"gpt-oss-120b-interactive", kSrv, "target_latency", "0"},
    {"gpt-oss-120b-interactive", kSrv, "ttft_latency", "2000"},
    {"gpt-oss-120b-interactive", kSrv, "tpot_latency", "15"},

    // A vision-language model with short answers: end-to-end latency, no token bounds.
    {"qwen3-vl-235b-a22b", kAny, "performance_sample_count_override", "48289"},
    {"qwen3-vl-235b-a22b", kAny, "sample_concatenate_permutation", "1"},
    {"qwen3-vl-235b-a22b", kAny, "use_token_latencies", "0"},
    {"qwen3-vl-235b-a22b", kSrv, "target_latency", "12000"},
    {"qwen3-vl-235b-a22b", kOff, "min_query_count", "48289"},
};

}  // namespace

const MlperfConfRow* BuiltinMlperfConfRows(size_t* count) {
  if (count) *count = sizeof(kRows) / sizeof(kRows[0]);
  return kRows;
}

const ConfigMap& BuiltinMlperfConf() {
  static const ConfigMap map = [] {
    ConfigMap m;
    for (const MlperfConfRow& row : kRows) {
      m[std::string(row.model) + "." + row.scenario + "." + row.key] = row.value;
    }
    return m;
  }();
  return map;
}

const std::vector<std::string>& BuiltinBenchmarkNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const MlperfConfRow& row : kRows) {
      const std::string model = row.model;
      if (model != kAny && seen.insert(model).second) out.push_back(model);
    }
    return out;
  }();
  return names;
}

}  // namespace lg
