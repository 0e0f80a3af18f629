#include "busy_poll.h"

#include <uv.h>

#include <cmath>
#include <cstdint>

#include "clock.h"

namespace lgaddon {

namespace {

struct ThreadPoll {
  uv_idle_t handle;
  napi_env env = nullptr;
  int users = 0;
  int64_t idle_ns = 0;
  int64_t holds = 0;
  int64_t released_ns = 0;  // when holds last went to 0
  bool polling = false;
  double spins = 0;  // loop turns spent polling (diagnostics, tests)
};

// One event loop per thread, and an env never changes threads.
thread_local ThreadPoll* t_poll = nullptr;

void OnIdle(uv_idle_t* handle) {
  auto* p = static_cast<ThreadPoll*>(handle->data);
  p->spins++;
  if (p->holds > 0) return;
  if (lg::NowNs() - p->released_ns < p->idle_ns) return;
  uv_idle_stop(handle);
  p->polling = false;
}

void Close(ThreadPoll* p) {
  if (t_poll == p) t_poll = nullptr;
  uv_idle_stop(&p->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&p->handle),
           [](uv_handle_t* h) { delete static_cast<ThreadPoll*>(h->data); });
}

void OnEnvCleanup(void* arg) { Close(static_cast<ThreadPoll*>(arg)); }

Napi::Value Enable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber())
    throw Napi::TypeError::New(env, "busyPollEnable: expected idleMs (a number)");
  const double ms = info[0].As<Napi::Number>().DoubleValue();
  if (!(ms >= 0) || !std::isfinite(ms))
    throw Napi::RangeError::New(env, "busyPollEnable: idleMs must be a finite number >= 0");
  if (t_poll == nullptr) {
    uv_loop_t* loop = nullptr;
    if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr)
      throw Napi::Error::New(env, "busyPollEnable: no event loop");
    auto* p = new ThreadPoll;
    uv_idle_init(loop, &p->handle);
    p->handle.data = p;
    // Polling never keeps the thread (or the process) alive by itself.
    uv_unref(reinterpret_cast<uv_handle_t*>(&p->handle));
    p->env = env;
    napi_add_env_cleanup_hook(env, OnEnvCleanup, p);
    t_poll = p;
  }
  t_poll->users++;
  t_poll->idle_ns = static_cast<int64_t>(ms * 1e6);
  return env.Undefined();
}

Napi::Value Disable(const Napi::CallbackInfo& info) {
  ThreadPoll* p = t_poll;
  if (p != nullptr && --p->users <= 0) {
    napi_remove_env_cleanup_hook(p->env, OnEnvCleanup, p);
    Close(p);
  }
  return info.Env().Undefined();
}

Napi::Value Hold(const Napi::CallbackInfo& info) {
  ThreadPoll* p = t_poll;
  if (p == nullptr || info.Length() < 1 || !info[0].IsNumber()) return info.Env().Undefined();
  p->holds += info[0].As<Napi::Number>().Int64Value();
  if (p->holds <= 0) {
    p->holds = 0;
    p->released_ns = lg::NowNs();
  } else if (!p->polling) {
    uv_idle_start(&p->handle, OnIdle);
    p->polling = true;
  }
  return info.Env().Undefined();
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  ThreadPoll* p = t_poll;
  o.Set("enabled", Napi::Boolean::New(env, p != nullptr));
  o.Set("polling", Napi::Boolean::New(env, p != nullptr && p->polling));
  o.Set("holds", Napi::Number::New(env, p != nullptr ? static_cast<double>(p->holds) : 0));
  o.Set("spins", Napi::Number::New(env, p != nullptr ? p->spins : 0));
  return o;
}

}  // namespace

void RegisterBusyPoll(Napi::Env env, Napi::Object exports) {
  exports.Set("busyPollEnable", Napi::Function::New(env, Enable));
  exports.Set("busyPollDisable", Napi::Function::New(env, Disable));
  exports.Set("busyPollHold", Napi::Function::New(env, Hold));
  exports.Set("busyPollStats", Napi::Function::New(env, Stats));
}

}  // namespace lgaddon
