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

// Every TestSettings field by its official name, one table for each type,
// so reading and writing cannot drift apart.
struct DoubleField {
  const char* name;
  double lg::TestSettings::*member;
};
struct U64Field {
  const char* name;
  uint64_t lg::TestSettings::*member;
};
struct BoolField {
  const char* name;
  bool lg::TestSettings::*member;
};

const DoubleField kDoubleFields[] = {
    {"single_stream_expected_latency_ns", &lg::TestSettings::single_stream_expected_latency_ns},
    {"single_stream_target_latency_percentile", &lg::TestSettings::single_stream_target_latency_percentile},
    {"multi_stream_expected_latency_ns", &lg::TestSettings::multi_stream_expected_latency_ns},
    {"multi_stream_target_latency_percentile", &lg::TestSettings::multi_stream_target_latency_percentile},
    {"server_target_qps", &lg::TestSettings::server_target_qps},
    {"server_target_latency_percentile", &lg::TestSettings::server_target_latency_percentile},
    {"server_find_peak_qps_boundary_step_size", &lg::TestSettings::server_find_peak_qps_boundary_step_size},
    {"offline_expected_qps", &lg::TestSettings::offline_expected_qps},
    {"accuracy_log_probability", &lg::TestSettings::accuracy_log_probability},
    {"server_burstiness", &lg::TestSettings::server_burstiness},
    {"ramp_start_qps", &lg::TestSettings::ramp_start_qps},
};
const U64Field kU64Fields[] = {
    {"multi_stream_samples_per_query", &lg::TestSettings::multi_stream_samples_per_query},
    {"server_target_latency_ns", &lg::TestSettings::server_target_latency_ns},
    {"server_max_async_queries", &lg::TestSettings::server_max_async_queries},
    {"server_num_issue_query_threads", &lg::TestSettings::server_num_issue_query_threads},
    {"min_duration_ms", &lg::TestSettings::min_duration_ms},
    {"max_duration_ms", &lg::TestSettings::max_duration_ms},
    {"min_query_count", &lg::TestSettings::min_query_count},
    {"max_query_count", &lg::TestSettings::max_query_count},
    {"qsl_rng_seed", &lg::TestSettings::qsl_rng_seed},
    {"sample_index_rng_seed", &lg::TestSettings::sample_index_rng_seed},
    {"schedule_rng_seed", &lg::TestSettings::schedule_rng_seed},
    {"accuracy_log_rng_seed", &lg::TestSettings::accuracy_log_rng_seed},
    {"accuracy_log_sampling_target", &lg::TestSettings::accuracy_log_sampling_target},
    {"test05_qsl_rng_seed", &lg::TestSettings::test05_qsl_rng_seed},
    {"test05_sample_index_rng_seed", &lg::TestSettings::test05_sample_index_rng_seed},
    {"test05_schedule_rng_seed", &lg::TestSettings::test05_schedule_rng_seed},
    {"performance_issue_same_index", &lg::TestSettings::performance_issue_same_index},
    {"performance_sample_count_override", &lg::TestSettings::performance_sample_count_override},
    {"accuracy_sample_count_override", &lg::TestSettings::accuracy_sample_count_override},
    {"server_ttft_latency", &lg::TestSettings::server_ttft_latency},
    {"server_tpot_latency", &lg::TestSettings::server_tpot_latency},
    {"token_latency_scaling_factor", &lg::TestSettings::token_latency_scaling_factor},
    {"closed_loop_concurrency", &lg::TestSettings::closed_loop_concurrency},
    {"ramp_duration_ms", &lg::TestSettings::ramp_duration_ms},
};
const BoolField kBoolFields[] = {
    {"server_coalesce_queries", &lg::TestSettings::server_coalesce_queries},
    {"sample_concatenate_permutation", &lg::TestSettings::sample_concatenate_permutation},
    {"test05", &lg::TestSettings::test05},
    {"print_timestamps", &lg::TestSettings::print_timestamps},
    {"performance_issue_unique", &lg::TestSettings::performance_issue_unique},
    {"performance_issue_same", &lg::TestSettings::performance_issue_same},
    {"use_token_latencies", &lg::TestSettings::use_token_latencies},
    {"infer_token_latencies", &lg::TestSettings::infer_token_latencies},
    {"ramp_exponential", &lg::TestSettings::ramp_exponential},
};

}  // namespace

lg::TestSettings SettingsFromJs(const Napi::Object& o) {
  lg::TestSettings s;
  int scenario = static_cast<int>(s.scenario), mode = static_cast<int>(s.mode);
  ReadInt(o, "scenario", &scenario);
  ReadInt(o, "mode", &mode);
  s.scenario = static_cast<lg::Scenario>(scenario);
  s.mode = static_cast<lg::Mode>(mode);
  ReadInt(o, "server_find_peak_qps_decimals_of_precision", &s.server_find_peak_qps_decimals_of_precision);
  for (const auto& f : kDoubleFields) ReadDouble(o, f.name, &(s.*f.member));
  for (const auto& f : kU64Fields) ReadU64(o, f.name, &(s.*f.member));
  for (const auto& f : kBoolFields) ReadBool(o, f.name, &(s.*f.member));
  return s;
}

// 64-bit values go to JS as decimal strings (seeds do not fit a double).
Napi::Object SettingsToJs(Napi::Env env, const lg::TestSettings& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("scenario", static_cast<int>(s.scenario));
  o.Set("mode", static_cast<int>(s.mode));
  o.Set("server_find_peak_qps_decimals_of_precision", s.server_find_peak_qps_decimals_of_precision);
  for (const auto& f : kDoubleFields) o.Set(f.name, s.*f.member);
  for (const auto& f : kU64Fields) o.Set(f.name, std::to_string(s.*f.member));
  for (const auto& f : kBoolFields) o.Set(f.name, s.*f.member);
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
