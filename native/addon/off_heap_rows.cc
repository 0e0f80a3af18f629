#include "off_heap_rows.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace lgaddon {

void OffHeapRows::Append(const double* values, size_t n) {
  while (n > 0) {
    const size_t at = size_ % kBlock;
    if (at == 0 && size_ / kBlock == blocks_.size()) blocks_.emplace_back(new double[kBlock]);
    const size_t take = std::min(n, kBlock - at);
    std::memcpy(blocks_[size_ / kBlock].get() + at, values, take * sizeof(double));
    size_ += take;
    values += take;
    n -= take;
  }
}

void OffHeapRows::CopyTo(double* out) const {
  for (size_t done = 0, b = 0; done < size_; b++) {
    const size_t take = std::min(kBlock, size_ - done);
    std::memcpy(out + done, blocks_[b].get(), take * sizeof(double));
    done += take;
  }
}

namespace {

OffHeapRows* RowsArg(const Napi::CallbackInfo& info, const char* fn) {
  if (info.Length() < 1 || !info[0].IsExternal())
    throw Napi::TypeError::New(info.Env(), std::string(fn) + ": expected the handle from offHeapCreate");
  return info[0].As<Napi::External<OffHeapRows>>().Data();
}

}  // namespace

void RegisterOffHeapRows(Napi::Env env, Napi::Object exports) {
  // () -> handle; the storage is freed when the handle is garbage-collected.
  exports.Set("offHeapCreate", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                return Napi::External<OffHeapRows>::New(info.Env(), new OffHeapRows,
                                                        [](Napi::Env, OffHeapRows* rows) { delete rows; });
              }));
  // (handle, Float64Array, n) -> undefined: appends the array's first n values.
  exports.Set("offHeapAppend", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                OffHeapRows* rows = RowsArg(info, "offHeapAppend");
                if (info.Length() < 3 || !info[1].IsTypedArray() ||
                    info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array || !info[2].IsNumber()) {
                  throw Napi::TypeError::New(info.Env(), "offHeapAppend(handle, Float64Array, n)");
                }
                Napi::Float64Array values = info[1].As<Napi::Float64Array>();
                const double n = info[2].As<Napi::Number>().DoubleValue();
                if (!(n >= 0) || n > static_cast<double>(values.ElementLength()))
                  throw Napi::RangeError::New(info.Env(), "offHeapAppend: n is not within the array");
                rows->Append(values.Data(), static_cast<size_t>(n));
                return info.Env().Undefined();
              }));
  // (handle) -> a new Float64Array holding every value stored, in order.
  exports.Set("offHeapCopy", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
                OffHeapRows* rows = RowsArg(info, "offHeapCopy");
                Napi::Float64Array out = Napi::Float64Array::New(info.Env(), rows->size());
                rows->CopyTo(out.Data());
                return out;
              }));
}

}  // namespace lgaddon
