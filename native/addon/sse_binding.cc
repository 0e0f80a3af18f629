// sseScan(buf) -> steady-clock ns: the adapters' per-read call. One N-API
// call per socket read does the SSE framing and token-id extraction
// (native/sse) and returns the read's timestamp, which the adapter would
// otherwise fetch with a call of its own. The state and the ids go through
// two typed arrays made once per thread (sseState, sseIds): passing them as
// arguments would cost more than the scan. bodyScan does the same for a
// whole non-streaming body. sseScanRead and dechunkRead take a read that
// landed in the thread's registered read buffer (readBuffer) as offsets;
// dechunkRead strips its chunk framing in place, with its state in
// dechunkState. Offsets instead of typed arrays, because unwrapping
// two typed arrays cost four times the decoding itself.
#include <napi.h>

#include <string>

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
thread_local int32_t* t_chunk_state = nullptr;
// The socket read buffer of this thread (readBuffer) and a reference that keeps it alive.
thread_local uint8_t* t_read = nullptr;
thread_local size_t t_read_length = 0;
thread_local napi_ref t_read_ref = nullptr;

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

// Scans one read and returns its timestamp, taken before the scan.
napi_value ScanStamped(napi_env env, const uint8_t* data, size_t length) {
  const double now = static_cast<double>(lg::NowNs());
  lgsse::Scan(data, length, t_state, t_ids, kIdsCapacity);
  napi_value result;
  napi_create_double(env, now, &result);
  return result;
}

napi_value SseScan(napi_env env, napi_callback_info info) {
  const uint8_t* data = nullptr;
  size_t length = 0;
  if (!BytesArg(env, info, "sseScan(buf: Uint8Array)", &data, &length)) return nullptr;
  return ScanStamped(env, data, length);
}

// bodyScan(buf): the same for a whole non-streaming body (ScanBody).
napi_value BodyScan(napi_env env, napi_callback_info info) {
  const uint8_t* data = nullptr;
  size_t length = 0;
  if (!BytesArg(env, info, "bodyScan(buf: Uint8Array)", &data, &length)) return nullptr;
  lgsse::ScanBody(data, length, t_state, t_ids, kIdsCapacity);
  return nullptr;
}

// readBuffer(buf: Uint8Array): the buffer this thread's sockets read into
// (net.Socket's onread option); dechunkRead's offsets point into it.
napi_value ReadBuffer(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr);
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  if (argc < 1 || napi_get_typedarray_info(env, arg, &type, &length, &data, nullptr, nullptr) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, nullptr, "readBuffer(buf: Uint8Array)");
    return nullptr;
  }
  napi_ref ref;
  if (napi_create_reference(env, arg, 1, &ref) != napi_ok) return nullptr;
  if (t_read_ref != nullptr) napi_delete_reference(env, t_read_ref);
  t_read_ref = ref;
  t_read = static_cast<uint8_t*>(data);
  t_read_length = length;
  return nullptr;
}

// The registered read buffer's bytes [offset, offset + length), or false
// (with an error thrown) when the arguments do not name such a range.
bool ReadRange(napi_env env, napi_callback_info info, const char* name, uint8_t** data, size_t* length) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  uint32_t offset = 0;
  uint32_t count = 0;
  if (argc < 2 || napi_get_value_uint32(env, args[0], &offset) != napi_ok ||
      napi_get_value_uint32(env, args[1], &count) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + "(offset: number, length: number)").c_str());
    return false;
  }
  if (t_read == nullptr) {
    napi_throw_error(env, nullptr, (std::string(name) + ": no read buffer registered (readBuffer)").c_str());
    return false;
  }
  if (offset > t_read_length || count > t_read_length - offset) {
    napi_throw_range_error(env, nullptr,
                           (std::string(name) + ": offset + length past the end of the read buffer").c_str());
    return false;
  }
  *data = t_read + offset;
  *length = count;
  return true;
}

// sseScanRead(offset, length): sseScan of the registered read buffer's bytes
// [offset, offset + length), without a typed array to unwrap.
napi_value SseScanRead(napi_env env, napi_callback_info info) {
  uint8_t* data = nullptr;
  size_t length = 0;
  if (!ReadRange(env, info, "sseScanRead", &data, &length)) return nullptr;
  return ScanStamped(env, data, length);
}

// dechunkRead(offset, length): bytes [offset, offset + length) of the read
// buffer are one body read of a chunked response; their framing is stripped
// in place, with the state in dechunkState (native/sse/dechunk.h).
napi_value DechunkRead(napi_env env, napi_callback_info info) {
  uint8_t* data = nullptr;
  size_t length = 0;
  if (!ReadRange(env, info, "dechunkRead", &data, &length)) return nullptr;
  lgsse::Dechunk(data, length, t_chunk_state);
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
  Napi::Int32Array chunk_state = Napi::Int32Array::New(env, lgsse::kChSlotCount);
  t_chunk_state = chunk_state.Data();
  exports.Set("dechunkState", chunk_state);
  napi_value fn;
  napi_create_function(env, "sseScan", NAPI_AUTO_LENGTH, SseScan, nullptr, &fn);
  exports.Set("sseScan", Napi::Value(env, fn));
  napi_create_function(env, "bodyScan", NAPI_AUTO_LENGTH, BodyScan, nullptr, &fn);
  exports.Set("bodyScan", Napi::Value(env, fn));
  napi_create_function(env, "readBuffer", NAPI_AUTO_LENGTH, ReadBuffer, nullptr, &fn);
  exports.Set("readBuffer", Napi::Value(env, fn));
  napi_create_function(env, "sseScanRead", NAPI_AUTO_LENGTH, SseScanRead, nullptr, &fn);
  exports.Set("sseScanRead", Napi::Value(env, fn));
  napi_create_function(env, "dechunkRead", NAPI_AUTO_LENGTH, DechunkRead, nullptr, &fn);
  exports.Set("dechunkRead", Napi::Value(env, fn));
}

}  // namespace lgaddon
