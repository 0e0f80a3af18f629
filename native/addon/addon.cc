// Module entry point: the functions lib/ calls. Settings arrive already
// validated by the TypeScript layer; this file only moves data.
#include <napi.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "busy_poll.h"
#include "clock.h"
#include "config.h"
#include "convert.h"
#include "loadgen.h"
#include "native_null_sut.h"
#include "off_heap_rows.h"
#include "sse_binding.h"
#include "test_context.h"
#include "worker_queues.h"

namespace lgaddon {

namespace {

constexpr size_t kSharedCapacity = 1 << 14;  // responses per call through the shared buffer

// Per JS environment (main thread and each worker): the buffer JS packs
// completions into, so a completion call passes no objects.
struct InstanceData {
  Napi::Reference<Napi::Float64Array> shared;
  double* shared_data = nullptr;
};

std::unique_ptr<TestContext> g_context;  // the running (or last) test; JS thread of its owner only

// How long an exiting process waits for an aborted test to write its logs.
constexpr std::chrono::milliseconds kExitGrace{700};

// process.exit(), an uncaught exception or an unhandled rejection ends the
// process through exit(): static destruction would join a test thread that
// waits for samples nobody will complete. Abort the test instead, let the
// engine finish its logs for a bounded time, and leave the context alive so
// that no destructor blocks or frees what a late engine thread still uses.
void EndTestAtExit() {
  TestContext* ctx = g_context.release();
  if (ctx) ctx->AbandonOnExit(kExitGrace);
}

// A JS environment torn down with its test running (a worker thread that
// started the test and is terminated or calls process.exit).
std::mutex g_hooked_mu;
std::set<napi_env> g_hooked_envs;

void EndTestAtEnvCleanup(void* arg) {
  napi_env env = static_cast<napi_env>(arg);
  {
    std::lock_guard<std::mutex> lock(g_hooked_mu);
    g_hooked_envs.erase(env);
  }
  if (g_context && !g_context->finished_ && g_context->OnOwnerThread()) EndTestAtExit();
}

void InstallExitHooks(Napi::Env env) {
  static bool at_exit = false;
  if (!at_exit) {
    at_exit = true;
    // Registered after the engine's own statics exist (TestRunning() built
    // them), so this runs before they are destroyed.
    lg::TestRunning();
    std::atexit(EndTestAtExit);
  }
  std::lock_guard<std::mutex> lock(g_hooked_mu);
  if (g_hooked_envs.insert(env).second) napi_add_env_cleanup_hook(env, EndTestAtEnvCleanup, env);
}

uint64_t IdFromDouble(double d) {
  if (!(d >= 0) || d >= 18446744073709551616.0 || std::floor(d) != d) return UINT64_MAX;
  return static_cast<uint64_t>(d);
}

thread_local std::vector<lg::SampleResponse> t_responses;
thread_local int t_depth = 0;

// The per-thread response buffer, or a fresh one when a completion re-enters
// (a SUT completing from inside an issueQuery that a completion triggered).
class ResponseBuffer {
 public:
  ResponseBuffer() : nested_(t_depth++ > 0) {}
  ~ResponseBuffer() { t_depth--; }
  std::vector<lg::SampleResponse>& get() { return nested_ ? local_ : t_responses; }

 private:
  bool nested_;
  std::vector<lg::SampleResponse> local_;
};

// A completion on the JS thread may have issued the next SingleStream query
// into the mailbox; deliver it if no dispatcher loop is there to pick it up.
void AfterCompletion() {
  if (g_context && g_context->OnOwnerThread()) g_context->FlushMailboxIfIdle();
}

// [id, nTokens] pairs.
void CompletePairs(const double* words, size_t n, bool first_token) {
  ResponseBuffer buffer;
  std::vector<lg::SampleResponse>& responses = buffer.get();
  responses.resize(n);
  for (size_t i = 0; i < n; i++) {
    responses[i].id = IdFromDouble(words[2 * i]);
    responses[i].data = nullptr;
    responses[i].size = 0;
    const double tokens = words[2 * i + 1];
    responses[i].n_tokens = std::isfinite(tokens) ? static_cast<int64_t>(tokens) : 0;
  }
  if (first_token) {
    lg::FirstTokenComplete(responses.data(), n);
  } else {
    lg::QuerySamplesComplete(responses.data(), n);
    AfterCompletion();
  }
}

Napi::Value CompleteShared(const Napi::CallbackInfo& info, bool first_token) {
  InstanceData* data = info.Env().GetInstanceData<InstanceData>();
  size_t n = info[0].As<Napi::Number>().Uint32Value();
  if (n > kSharedCapacity) n = kSharedCapacity;
  CompletePairs(data->shared_data, n, first_token);
  return info.Env().Undefined();
}

Napi::Value CompleteArray(const Napi::CallbackInfo& info, bool first_token) {
  Napi::Float64Array arr = info[0].As<Napi::Float64Array>();
  size_t n = info[1].As<Napi::Number>().Uint32Value();
  if (2 * n > arr.ElementLength()) n = arr.ElementLength() / 2;
  CompletePairs(arr.Data(), n, first_token);
  return info.Env().Undefined();
}

// Generic form: an array of { id, data?, nTokens? } objects.
Napi::Value CompleteObjects(const Napi::CallbackInfo& info, bool first_token) {
  Napi::Array arr = info[0].As<Napi::Array>();
  const uint32_t n = arr.Length();
  ResponseBuffer buffer;
  std::vector<lg::SampleResponse>& responses = buffer.get();
  responses.assign(n, lg::SampleResponse{});
  for (uint32_t i = 0; i < n; i++) {
    Napi::Value item = arr.Get(i);
    if (!item.IsObject()) {
      responses[i].id = UINT64_MAX;
      continue;
    }
    Napi::Object o = item.As<Napi::Object>();
    Napi::Value id = o.Get("id");
    responses[i].id = id.IsNumber() ? IdFromDouble(id.As<Napi::Number>().DoubleValue()) : UINT64_MAX;
    Napi::Value tokens = o.Get("nTokens");
    responses[i].n_tokens = tokens.IsNumber() ? tokens.As<Napi::Number>().Int64Value() : 0;
    Napi::Value d = o.Get("data");
    if (d.IsTypedArray()) {
      Napi::TypedArray t = d.As<Napi::TypedArray>();
      responses[i].data = static_cast<const uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
      responses[i].size = t.ByteLength();
    } else if (d.IsDataView()) {
      Napi::DataView v = d.As<Napi::DataView>();
      responses[i].data = static_cast<const uint8_t*>(v.ArrayBuffer().Data()) + v.ByteOffset();
      responses[i].size = v.ByteLength();
    } else if (d.IsArrayBuffer()) {
      Napi::ArrayBuffer b = d.As<Napi::ArrayBuffer>();
      responses[i].data = static_cast<const uint8_t*>(b.Data());
      responses[i].size = b.ByteLength();
    }
  }
  if (first_token) {
    lg::FirstTokenComplete(responses.data(), n);
  } else {
    lg::QuerySamplesComplete(responses.data(), n);
    AfterCompletion();
  }
  return info.Env().Undefined();
}

// One sample with response bytes: completeBytes(id, nTokens, view?, byteLength?)
// and firstTokenBytes(id, view?, byteLength?). The
// adapters' hot path: no object to read properties from, and byteLength lets
// a reused token buffer be passed without a subarray.
Napi::Value CompleteBytes(const Napi::CallbackInfo& info, bool first_token) {
  lg::SampleResponse r{};
  r.id = IdFromDouble(info[0].As<Napi::Number>().DoubleValue());
  if (!first_token) {
    const double tokens = info[1].As<Napi::Number>().DoubleValue();
    r.n_tokens = std::isfinite(tokens) ? static_cast<int64_t>(tokens) : 0;
  }
  const size_t at = first_token ? 1 : 2;  // firstTokenBytes has no nTokens
  if (info.Length() > at && info[at].IsTypedArray()) {
    Napi::TypedArray t = info[at].As<Napi::TypedArray>();
    size_t size = t.ByteLength();
    if (info.Length() > at + 1 && info[at + 1].IsNumber()) {
      const double want = info[at + 1].As<Napi::Number>().DoubleValue();
      if (want >= 0 && want < static_cast<double>(size)) size = static_cast<size_t>(want);
    }
    r.data = static_cast<const uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
    r.size = size;
  }
  if (first_token) {
    lg::FirstTokenComplete(&r, 1);
  } else {
    lg::QuerySamplesComplete(&r, 1);
    AfterCompletion();
  }
  return info.Env().Undefined();
}

// issueTimes(id, out Float64Array(2)) -> bool: [scheduledNs, issuedNs].
Napi::Value IssueTimes(const Napi::CallbackInfo& info) {
  const uint64_t id = IdFromDouble(info[0].As<Napi::Number>().DoubleValue());
  Napi::Float64Array out = info[1].As<Napi::Float64Array>();
  int64_t scheduled = 0, issued = 0;
  const bool ok = out.ElementLength() >= 2 && lg::SampleIssueTimes(id, &scheduled, &issued);
  if (ok) {
    out[0] = static_cast<double>(scheduled);
    out[1] = static_cast<double>(issued);
  }
  return Napi::Boolean::New(info.Env(), ok);
}

// (key, message, level 0 info | 1 warning | 2 error) -> written?
Napi::Value LogSutMessage(const Napi::CallbackInfo& info) {
  const std::string key = info[0].As<Napi::String>().Utf8Value();
  const std::string message = info[1].As<Napi::String>().Utf8Value();
  const uint32_t level = info.Length() > 2 ? info[2].As<Napi::Number>().Uint32Value() : 0;
  const lg::SutLogLevel l = level == 2   ? lg::SutLogLevel::Error
                            : level == 1 ? lg::SutLogLevel::Warning
                                         : lg::SutLogLevel::Info;
  return Napi::Boolean::New(info.Env(), lg::LogSutMessage(key, message, l));
}

Napi::Value StartTest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (lg::TestRunning() || (g_context && !g_context->finished_)) {
    throw Napi::Error::New(env, "a test is already running; wait for its promise to settle before starting another");
  }
  lg::TestSettings settings = SettingsFromJs(info[0].As<Napi::Object>());
  lg::LogSettings log_settings = LogSettingsFromJs(info[1].As<Napi::Object>());
  Napi::Object meta = info[2].As<Napi::Object>();
  Napi::Object dispatcher = info[3].As<Napi::Object>();
  // A trace's schedule (ns offsets, non-decreasing), checked by startTest in JS.
  Napi::Value schedule = meta.Get("traceScheduleNs");
  if (schedule.IsTypedArray() && schedule.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array) {
    Napi::Float64Array a = schedule.As<Napi::Float64Array>();
    settings.trace_schedule_ns.reserve(a.ElementLength());
    for (size_t i = 0; i < a.ElementLength(); i++) settings.trace_schedule_ns.push_back(static_cast<int64_t>(a[i]));
  }
  lg::TestOptions options;
  Napi::Value audit = meta.Get("auditConfig");
  if (audit.IsString()) options.audit_config_path = audit.As<Napi::String>().Utf8Value();
  const std::string sut_name = meta.Get("sutName").As<Napi::String>().Utf8Value();
  const std::string qsl_name = meta.Get("qslName").As<Napi::String>().Utf8Value();
  const uint64_t total = static_cast<uint64_t>(meta.Get("totalSampleCount").As<Napi::Number>().DoubleValue());
  const uint64_t perf = static_cast<uint64_t>(meta.Get("performanceSampleCount").As<Napi::Number>().DoubleValue());

  Napi::Value worker_queues = meta.Get("workerQueues");
  std::shared_ptr<WorkerQueueGroup> group;
  if (worker_queues.IsNumber()) {
    group = FindWorkerQueueGroup(worker_queues.As<Napi::Number>().Uint32Value());
    if (!group) throw Napi::Error::New(env, "the SUT's worker queues were released (was the adapter closed?)");
  }
  InstallExitHooks(env);
  g_context.reset();  // the previous test has finished: join and release it
  g_context.reset(new TestContext(env, dispatcher));
  TestContext* ctx = g_context.get();
  Napi::Value native_sut = meta.Get("nativeSut");
  if (group) {
    // The adapter's workers take issued samples straight from the engine's thread.
    auto sut = std::make_unique<WorkerQueueSut>(group, sut_name);
    auto qsl = std::make_unique<JsQsl>(ctx, qsl_name, total, perf);
    lg::SystemUnderTest* s = sut.get();
    lg::QuerySampleLibrary* q = qsl.get();
    ctx->Start(s, q, settings, log_settings, options, std::move(sut), std::move(qsl));
  } else if (native_sut.IsObject()) {
    const int64_t tokens = native_sut.As<Napi::Object>().Get("tokens").As<Napi::Number>().Int64Value();
    auto sut = std::make_unique<NativeNullSut>(tokens);
    auto qsl = std::make_unique<NativeNullQsl>(total, perf);
    lg::SystemUnderTest* s = sut.get();
    lg::QuerySampleLibrary* q = qsl.get();
    ctx->Start(s, q, settings, log_settings, options, std::move(sut), std::move(qsl));
  } else {
    auto sut = std::make_unique<JsSut>(ctx, sut_name);
    auto qsl = std::make_unique<JsQsl>(ctx, qsl_name, total, perf);
    lg::SystemUnderTest* s = sut.get();
    lg::QuerySampleLibrary* q = qsl.get();
    ctx->Start(s, q, settings, log_settings, options, std::move(sut), std::move(qsl));
  }
  return env.Undefined();
}

Napi::Value QslDone(const Napi::CallbackInfo& info) {
  if (g_context) {
    const uint64_t token = static_cast<uint64_t>(info[0].As<Napi::Number>().DoubleValue());
    std::string error = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
    g_context->SettleQslCall(token, error);
  }
  return info.Env().Undefined();
}

Napi::Value AbortTest(const Napi::CallbackInfo& info) {
  std::string reason = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "aborted";
  lg::AbortTest(reason);
  return info.Env().Undefined();
}

Napi::Value Progress(const Napi::CallbackInfo& info) {
  lg::Progress p = lg::GetProgress();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("running", p.running);
  o.Set("issuedSamples", static_cast<double>(p.issued_samples));
  o.Set("completedSamples", static_cast<double>(p.completed_samples));
  o.Set("elapsedNs", static_cast<double>(p.elapsed_ns));
  return o;
}

Napi::Value LoadSettings(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string model = info[0].As<Napi::String>().Utf8Value();
  const std::string scenario = info[1].As<Napi::String>().Utf8Value();
  std::string mlperf_path, user_path;
  const bool has_mlperf = info[2].IsString();
  const bool has_user = info[3].IsString();
  if (has_mlperf) mlperf_path = info[2].As<Napi::String>().Utf8Value();
  if (has_user) user_path = info[3].As<Napi::String>().Utf8Value();
  lg::TestSettings s;
  lg::Scenario sc;
  if (lg::ParseScenario(scenario, &sc)) s.scenario = sc;
  lg::ConfigResult r = lg::LoadSettingsFromConfig(has_mlperf ? &mlperf_path : nullptr, has_user ? &user_path : nullptr,
                                                  model, scenario, &s);
  Napi::Object o = Napi::Object::New(env);
  o.Set("settings", SettingsToJs(env, s));
  Napi::Array errors = Napi::Array::New(env, r.errors.size());
  for (size_t i = 0; i < r.errors.size(); i++) errors.Set(static_cast<uint32_t>(i), r.errors[i]);
  Napi::Array warnings = Napi::Array::New(env, r.warnings.size());
  for (size_t i = 0; i < r.warnings.size(); i++) warnings.Set(static_cast<uint32_t>(i), r.warnings[i]);
  o.Set("errors", errors);
  o.Set("warnings", warnings);
  return o;
}

Napi::Value BenchmarkNames(const Napi::CallbackInfo& info) {
  const auto& names = lg::BuiltinBenchmarkNames();
  Napi::Array a = Napi::Array::New(info.Env(), names.size());
  for (size_t i = 0; i < names.size(); i++) a.Set(static_cast<uint32_t>(i), names[i]);
  return a;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new InstanceData;
  Napi::Float64Array shared = Napi::Float64Array::New(env, 2 * kSharedCapacity);
  data->shared_data = shared.Data();
  data->shared = Napi::Persistent(shared);
  env.SetInstanceData(data);

  exports.Set("engineVersion", Napi::String::New(env, lg::kEngineVersion));
  exports.Set("compatibleLoadgenVersion", Napi::String::New(env, lg::kCompatibleLoadgenVersion));
  exports.Set("sharedBuffer", shared);
  exports.Set("sharedCapacity", Napi::Number::New(env, kSharedCapacity));
  exports.Set("startTest", Napi::Function::New(env, StartTest));
  exports.Set("qslDone", Napi::Function::New(env, QslDone));
  exports.Set("abortTest", Napi::Function::New(env, AbortTest));
  exports.Set("progress", Napi::Function::New(env, Progress));
  exports.Set("testRunning", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::Boolean::New(info.Env(), lg::TestRunning());
              }));
  exports.Set("completeShared",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteShared(i, false); }));
  exports.Set("firstTokenShared",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteShared(i, true); }));
  exports.Set("completeArray",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteArray(i, false); }));
  exports.Set("firstTokenArray",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteArray(i, true); }));
  exports.Set("completeObjects",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteObjects(i, false); }));
  exports.Set("firstTokenObjects",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteObjects(i, true); }));
  exports.Set("completeBytes",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteBytes(i, false); }));
  exports.Set("firstTokenBytes",
              Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return CompleteBytes(i, true); }));
  exports.Set("issueTimes", Napi::Function::New(env, IssueTimes));
  exports.Set("nowNs", Napi::Function::New(env, [](const Napi::CallbackInfo& i) {
                return Napi::Number::New(i.Env(), static_cast<double>(lg::NowNs()));
              }));
  exports.Set("logSutMessage", Napi::Function::New(env, LogSutMessage));
  RegisterSse(env, exports);
  RegisterWorkerQueues(env, exports);
  RegisterOffHeapRows(env, exports);
  RegisterBusyPoll(env, exports);
  exports.Set("loadSettings", Napi::Function::New(env, LoadSettings));
  exports.Set("benchmarkNames", Napi::Function::New(env, BenchmarkNames));
  return exports;
}

}  // namespace

}  // namespace lgaddon

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return lgaddon::Init(env, exports); }

NODE_API_MODULE(loadgen, InitModule)
