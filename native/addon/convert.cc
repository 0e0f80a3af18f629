#include "convert.h"

#include <cstdlib>
#include <string>

namespace lgaddon {

namespace {

void ReadDouble(const Napi::Object& o, const char* key, double* out) {
  Napi::Value v = o.Get(key);
  if (v.IsNumber()) *out = v.As<Napi::Number>().DoubleValue();
}
void ReadBool(const Napi::Object& o, const char* key, bool* out) {
  Napi::Value v = o.Get(key);
  if (v.IsBoolean()) *out = v.As<Napi::Boolean>().Value();
}
void ReadInt(const Napi::Object& o, const char* key, int* out) {
  Napi::Value v = o.Get(key);
  if (v.IsNumber()) *out = v.As<Napi::Number>().Int32Value();
}
// Unsigned 64-bit values come as numbers or, for seeds, decimal strings.
void ReadU64(const Napi::Object& o, const char* key, uint64_t* out) {
  Napi::Value v = o.Get(key);
  if (v.IsString()) {
    *out = std::strtoull(v.As<Napi::String>().Utf8Value().c_str(), nullptr, 10);
  } else if (v.IsNumber()) {
    *out = static_cast<uint64_t>(v.As<Napi::Number>().DoubleValue());
  }
}
void ReadString(const Napi::Object& o, const char* key, std::string* out) {
  Napi::Value v = o.Get(key);
  if (v.IsString()) *out = v.As<Napi::String>().Utf8Value();
}

Napi::Array Percentiles(Napi::Env env, const std::vector<lg::PercentileValue>& list) {
  Napi::Array a = Napi::Array::New(env, list.size());
  for (size_t i = 0; i < list.size(); i++) {
    Napi::Object p = Napi::Object::New(env);
    p.Set("percentile", list[i].percentile);
    p.Set("value", static_cast<double>(list[i].value));
    a.Set(static_cast<uint32_t>(i), p);
  }
  return a;
}

Napi::Array Strings(Napi::Env env, const std::vector<std::string>& list) {
  Napi::Array a = Napi::Array::New(env, list.size());
  for (size_t i = 0; i < list.size(); i++) a.Set(static_cast<uint32_t>(i), list[i]);
  return a;
}

}  // namespace

lg::TestSettings SettingsFromJs(const Napi::Object& o) {
  lg::TestSettings s;
  int scenario = static_cast<int>(s.scenario), mode = static_cast<int>(s.mode);
  ReadInt(o, "scenario", &scenario);
  ReadInt(o, "mode", &mode);
  s.scenario = static_cast<lg::Scenario>(scenario);
  s.mode = static_cast<lg::Mode>(mode);
  ReadDouble(o, "single_stream_expected_latency_ns", &s.single_stream_expected_latency_ns);
  ReadDouble(o, "single_stream_target_latency_percentile", &s.single_stream_target_latency_percentile);
  ReadDouble(o, "multi_stream_expected_latency_ns", &s.multi_stream_expected_latency_ns);
  ReadDouble(o, "multi_stream_target_latency_percentile", &s.multi_stream_target_latency_percentile);
  ReadU64(o, "multi_stream_samples_per_query", &s.multi_stream_samples_per_query);
  ReadDouble(o, "server_target_qps", &s.server_target_qps);
  ReadU64(o, "server_target_latency_ns", &s.server_target_latency_ns);
  ReadDouble(o, "server_target_latency_percentile", &s.server_target_latency_percentile);
  ReadBool(o, "server_coalesce_queries", &s.server_coalesce_queries);
  ReadInt(o, "server_find_peak_qps_decimals_of_precision", &s.server_find_peak_qps_decimals_of_precision);
  ReadDouble(o, "server_find_peak_qps_boundary_step_size", &s.server_find_peak_qps_boundary_step_size);
  ReadU64(o, "server_max_async_queries", &s.server_max_async_queries);
  ReadU64(o, "server_num_issue_query_threads", &s.server_num_issue_query_threads);
  ReadDouble(o, "offline_expected_qps", &s.offline_expected_qps);
  ReadBool(o, "sample_concatenate_permutation", &s.sample_concatenate_permutation);
  ReadU64(o, "min_duration_ms", &s.min_duration_ms);
  ReadU64(o, "max_duration_ms", &s.max_duration_ms);
  ReadU64(o, "min_query_count", &s.min_query_count);
  ReadU64(o, "max_query_count", &s.max_query_count);
  ReadU64(o, "qsl_rng_seed", &s.qsl_rng_seed);
  ReadU64(o, "sample_index_rng_seed", &s.sample_index_rng_seed);
  ReadU64(o, "schedule_rng_seed", &s.schedule_rng_seed);
  ReadU64(o, "accuracy_log_rng_seed", &s.accuracy_log_rng_seed);
  ReadDouble(o, "accuracy_log_probability", &s.accuracy_log_probability);
  ReadU64(o, "accuracy_log_sampling_target", &s.accuracy_log_sampling_target);
  ReadBool(o, "test05", &s.test05);
  ReadU64(o, "test05_qsl_rng_seed", &s.test05_qsl_rng_seed);
  ReadU64(o, "test05_sample_index_rng_seed", &s.test05_sample_index_rng_seed);
  ReadU64(o, "test05_schedule_rng_seed", &s.test05_schedule_rng_seed);
  ReadBool(o, "print_timestamps", &s.print_timestamps);
  ReadBool(o, "performance_issue_unique", &s.performance_issue_unique);
  ReadBool(o, "performance_issue_same", &s.performance_issue_same);
  ReadU64(o, "performance_issue_same_index", &s.performance_issue_same_index);
  ReadU64(o, "performance_sample_count_override", &s.performance_sample_count_override);
  ReadU64(o, "accuracy_sample_count_override", &s.accuracy_sample_count_override);
  ReadBool(o, "use_token_latencies", &s.use_token_latencies);
  ReadU64(o, "server_ttft_latency", &s.server_ttft_latency);
  ReadU64(o, "server_tpot_latency", &s.server_tpot_latency);
  ReadBool(o, "infer_token_latencies", &s.infer_token_latencies);
  ReadU64(o, "token_latency_scaling_factor", &s.token_latency_scaling_factor);
  return s;
}

Napi::Object SettingsToJs(Napi::Env env, const lg::TestSettings& s) {
  Napi::Object o = Napi::Object::New(env);
  auto u64 = [](uint64_t v) { return std::to_string(v); };
  o.Set("scenario", static_cast<int>(s.scenario));
  o.Set("mode", static_cast<int>(s.mode));
  o.Set("single_stream_expected_latency_ns", s.single_stream_expected_latency_ns);
  o.Set("single_stream_target_latency_percentile", s.single_stream_target_latency_percentile);
  o.Set("multi_stream_expected_latency_ns", s.multi_stream_expected_latency_ns);
  o.Set("multi_stream_target_latency_percentile", s.multi_stream_target_latency_percentile);
  o.Set("multi_stream_samples_per_query", u64(s.multi_stream_samples_per_query));
  o.Set("server_target_qps", s.server_target_qps);
  o.Set("server_target_latency_ns", u64(s.server_target_latency_ns));
  o.Set("server_target_latency_percentile", s.server_target_latency_percentile);
  o.Set("server_coalesce_queries", s.server_coalesce_queries);
  o.Set("server_find_peak_qps_decimals_of_precision", s.server_find_peak_qps_decimals_of_precision);
  o.Set("server_find_peak_qps_boundary_step_size", s.server_find_peak_qps_boundary_step_size);
  o.Set("server_max_async_queries", u64(s.server_max_async_queries));
  o.Set("server_num_issue_query_threads", u64(s.server_num_issue_query_threads));
  o.Set("offline_expected_qps", s.offline_expected_qps);
  o.Set("sample_concatenate_permutation", s.sample_concatenate_permutation);
  o.Set("min_duration_ms", u64(s.min_duration_ms));
  o.Set("max_duration_ms", u64(s.max_duration_ms));
  o.Set("min_query_count", u64(s.min_query_count));
  o.Set("max_query_count", u64(s.max_query_count));
  o.Set("qsl_rng_seed", u64(s.qsl_rng_seed));
  o.Set("sample_index_rng_seed", u64(s.sample_index_rng_seed));
  o.Set("schedule_rng_seed", u64(s.schedule_rng_seed));
  o.Set("accuracy_log_rng_seed", u64(s.accuracy_log_rng_seed));
  o.Set("accuracy_log_probability", s.accuracy_log_probability);
  o.Set("accuracy_log_sampling_target", u64(s.accuracy_log_sampling_target));
  o.Set("test05", s.test05);
  o.Set("test05_qsl_rng_seed", u64(s.test05_qsl_rng_seed));
  o.Set("test05_sample_index_rng_seed", u64(s.test05_sample_index_rng_seed));
  o.Set("test05_schedule_rng_seed", u64(s.test05_schedule_rng_seed));
  o.Set("print_timestamps", s.print_timestamps);
  o.Set("performance_issue_unique", s.performance_issue_unique);
  o.Set("performance_issue_same", s.performance_issue_same);
  o.Set("performance_issue_same_index", u64(s.performance_issue_same_index));
  o.Set("performance_sample_count_override", u64(s.performance_sample_count_override));
  o.Set("accuracy_sample_count_override", u64(s.accuracy_sample_count_override));
  o.Set("use_token_latencies", s.use_token_latencies);
  o.Set("server_ttft_latency", u64(s.server_ttft_latency));
  o.Set("server_tpot_latency", u64(s.server_tpot_latency));
  o.Set("infer_token_latencies", s.infer_token_latencies);
  o.Set("token_latency_scaling_factor", u64(s.token_latency_scaling_factor));
  return o;
}

lg::LogSettings LogSettingsFromJs(const Napi::Object& o) {
  lg::LogSettings s;
  ReadString(o, "outdir", &s.outdir);
  ReadString(o, "prefix", &s.prefix);
  ReadString(o, "suffix", &s.suffix);
  ReadBool(o, "prefixWithDatetime", &s.prefix_with_datetime);
  ReadBool(o, "copySummaryToStdout", &s.copy_summary_to_stdout);
  ReadBool(o, "copyDetailToStdout", &s.copy_detail_to_stdout);
  ReadBool(o, "enableTrace", &s.enable_trace);
  int mode = static_cast<int>(s.log_mode);
  ReadInt(o, "logMode", &mode);
  s.log_mode = static_cast<lg::LoggingMode>(mode);
  return s;
}

Napi::Object OutcomeToJs(Napi::Env env, const lg::TestOutcome& out) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("hasSummary", out.has_summary);
  o.Set("summaryText", out.summary_text);
  o.Set("warnings", static_cast<double>(out.warnings));
  o.Set("errors", static_cast<double>(out.errors));
  o.Set("errorMessages", Strings(env, out.error_messages));
  o.Set("unknownIds", static_cast<double>(out.unknown_ids));
  o.Set("duplicateCompletions", static_cast<double>(out.duplicate_completions));
  o.Set("duplicateFirstTokens", static_cast<double>(out.duplicate_first_tokens));
  o.Set("lateFirstTokens", static_cast<double>(out.late_first_tokens));
  o.Set("tokenCountErrors", static_cast<double>(out.token_count_errors));
  o.Set("missingFirstTokens", static_cast<double>(out.missing_first_tokens));
  o.Set("accuracyLogEntries", static_cast<double>(out.accuracy_log_entries));
  o.Set("aborted", out.aborted);
  o.Set("abortReason", out.abort_reason);
  o.Set("summaryPath", out.summary_path);
  o.Set("detailPath", out.detail_path);
  o.Set("accuracyPath", out.accuracy_path);
  o.Set("tracePath", out.trace_path);
  o.Set("effectiveSamplesPerQuery", static_cast<double>(out.effective_samples_per_query));
  o.Set("effectiveMinQueryCount", static_cast<double>(out.effective_min_query_count));
  o.Set("effectiveTargetQps", out.effective_target_qps);
  o.Set("performanceSampleCount", static_cast<double>(out.performance_sample_count));
  o.Set("accuracySampleCount", static_cast<double>(out.accuracy_sample_count));
  o.Set("peakTargetQps", out.peak_target_qps);
  if (out.has_summary) {
    const lg::Summary& s = out.summary;
    Napi::Object r = Napi::Object::New(env);
    r.Set("sutName", s.sut_name);
    r.Set("valid", s.valid);
    r.Set("perfConstraintsMet", s.perf_constraints_met);
    r.Set("hasPerfConstraints", s.has_perf_constraints);
    r.Set("minDurationMet", s.min_duration_met);
    r.Set("minQueriesMet", s.min_queries_met);
    r.Set("earlyStoppingMet", s.early_stopping_met);
    r.Set("recommendations", Strings(env, s.recommendations));
    r.Set("earlyStoppingText", s.early_stopping_text);
    r.Set("earlyStoppingTtftText", s.early_stopping_ttft_text);
    r.Set("earlyStoppingTpotText", s.early_stopping_tpot_text);
    r.Set("sampleCount", static_cast<double>(s.sample_count));
    r.Set("queryCount", static_cast<double>(s.query_count));
    r.Set("overlatencyQueryCount", static_cast<double>(s.overlatency_query_count));
    r.Set("completedSamplesPerSec", s.completed_samples_per_sec);
    r.Set("scheduledSamplesPerSec", s.scheduled_samples_per_sec);
    r.Set("samplesPerSec", s.samples_per_sec);
    r.Set("qpsWithLoadgenOverhead", s.qps_with_loadgen_overhead);
    r.Set("qpsWithoutLoadgenOverhead", s.qps_without_loadgen_overhead);
    r.Set("tokensPerSec", s.tokens_per_sec);
    r.Set("tokenThroughputWithOverhead", s.token_throughput_with_overhead);
    r.Set("tokenThroughputOfficial", s.token_throughput_official);
    r.Set("tokenThroughputCorrected", s.token_throughput_corrected);
    r.Set("inferredTokensPerSec", s.inferred_tokens_per_sec);
    r.Set("targetLatencyPercentileValue", static_cast<double>(s.target_latency_percentile_value));
    r.Set("ttftTargetPercentileValue", static_cast<double>(s.token_target_percentile_value));
    r.Set("tpotTargetPercentileValue", static_cast<double>(s.tpot_target_percentile_value));
    r.Set("earlyStoppingLatencySs", static_cast<double>(s.early_stopping_latency_ss));
    r.Set("earlyStoppingLatencyMs", static_cast<double>(s.early_stopping_latency_ms));
    r.Set("latencyMin", static_cast<double>(s.latency_min));
    r.Set("latencyMax", static_cast<double>(s.latency_max));
    r.Set("latencyMean", static_cast<double>(s.latency_mean));
    r.Set("latencyPercentiles", Percentiles(env, s.latency_percentiles));
    r.Set("queryLatencyMin", static_cast<double>(s.query_latency_min));
    r.Set("queryLatencyMax", static_cast<double>(s.query_latency_max));
    r.Set("queryLatencyMean", static_cast<double>(s.query_latency_mean));
    r.Set("queryLatencyPercentiles", Percentiles(env, s.query_latency_percentiles));
    r.Set("tokenCount", static_cast<double>(s.token_count));
    r.Set("ttftMin", static_cast<double>(s.ttft_min));
    r.Set("ttftMax", static_cast<double>(s.ttft_max));
    r.Set("ttftMean", static_cast<double>(s.ttft_mean));
    r.Set("ttftPercentiles", Percentiles(env, s.ttft_percentiles));
    r.Set("tpotMin", static_cast<double>(s.tpot_min));
    r.Set("tpotMax", static_cast<double>(s.tpot_max));
    r.Set("tpotMean", static_cast<double>(s.tpot_mean));
    r.Set("tpotPercentiles", Percentiles(env, s.tpot_percentiles));
    o.Set("summary", r);
  }
  return o;
}

}  // namespace lgaddon
