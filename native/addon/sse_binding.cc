// sseScan(buf) -> steady-clock ns: the adapters' per-read call. One N-API
// call per socket read does the SSE framing and token-id extraction
// (native/sse) and returns the read's timestamp, which the adapter would
// otherwise fetch with a call of its own. The state and the ids go through
// two typed arrays made once per thread (sseState, sseIds): passing them as
// arguments would cost more than the scan. bodyScan does the same for a
// whole non-streaming body.
#include <napi.h>

#include "clock.h"
#include "dechunk.h"
#include "sse_binding.h"
#include "sse_scan.h"

namespace lgaddon {

namespace {

constexpr size_t kIdsCapacity = 1 << 16;

// Each JS thread (main or worker) has its own env and its own scratch.
thread_local int32_t* t_state = nullptr;
thread_local int32_t* t_ids = nullptr;

// The Uint8Array argument's bytes, or false (with a TypeError thrown).
bool BytesArg(napi_env env, napi_callback_info info, const char* usage, const uint8_t** data, size_t* length) {
  size_t argc = 1;
  napi_value arg;
  napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr);
  napi_typedarray_type type;
  void* raw = nullptr;
  if (argc < 1 || napi_get_typedarray_info(env, arg, &type, length, &raw, nullptr, nullptr) != napi_ok ||
      type != napi_uint8_array || t_state == nullptr) {
    napi_throw_type_error(env, nullptr, usage);
    return false;
  }
  *data = static_cast<const uint8_t*>(raw);
  return true;
}

napi_value SseScan(napi_env env, napi_callback_info info) {
  const uint8_t* data = nullptr;
  size_t length = 0;
  if (!BytesArg(env, info, "sseScan(buf: Uint8Array)", &data, &length)) return nullptr;
  const double now = static_cast<double>(lg::NowNs());
  lgsse::Scan(data, length, t_state, t_ids, kIdsCapacity);
  napi_value result;
  napi_create_double(env, now, &result);
  return result;
}

// bodyScan(buf): the same for a whole non-streaming body (ScanBody).
napi_value BodyScan(napi_env env, napi_callback_info info) {
  const uint8_t* data = nullptr;
  size_t length = 0;
  if (!BytesArg(env, info, "bodyScan(buf: Uint8Array)", &data, &length)) return nullptr;
  lgsse::ScanBody(data, length, t_state, t_ids, kIdsCapacity);
  return nullptr;
}

// dechunk(buf, state Int32Array(kChSlotCount)): one body read of a chunked
// response, its framing stripped in place (native/sse/dechunk.h).
napi_value Dechunk(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  size_t slots = 0;
  void* state = nullptr;
  napi_typedarray_type state_type;
  if (argc < 2 || napi_get_typedarray_info(env, args[0], &type, &length, &data, nullptr, nullptr) != napi_ok || type != napi_uint8_array ||
      napi_get_typedarray_info(env, args[1], &state_type, &slots, &state, nullptr, nullptr) != napi_ok || state_type != napi_int32_array ||
      slots < lgsse::kChSlotCount) {
    napi_throw_type_error(env, nullptr, "dechunk(buf: Uint8Array, state: Int32Array(8))");
    return nullptr;
  }
  lgsse::Dechunk(static_cast<uint8_t*>(data), length, static_cast<int32_t*>(state));
  return nullptr;
}

}  // namespace

void RegisterSse(Napi::Env env, Napi::Object exports) {
  Napi::Int32Array state = Napi::Int32Array::New(env, lgsse::kSlotCount);
  Napi::Int32Array ids = Napi::Int32Array::New(env, kIdsCapacity);
  t_state = state.Data();
  t_ids = ids.Data();
  exports.Set("sseState", state);  // kept alive by the exports object
  exports.Set("sseIds", ids);
  napi_value fn;
  napi_create_function(env, "sseScan", NAPI_AUTO_LENGTH, SseScan, nullptr, &fn);
  exports.Set("sseScan", Napi::Value(env, fn));
  napi_create_function(env, "bodyScan", NAPI_AUTO_LENGTH, BodyScan, nullptr, &fn);
  exports.Set("bodyScan", Napi::Value(env, fn));
  napi_create_function(env, "dechunk", NAPI_AUTO_LENGTH, Dechunk, nullptr, &fn);
  exports.Set("dechunk", Napi::Value(env, fn));
}

}  // namespace lgaddon
