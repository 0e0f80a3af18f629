// Module entry point of the @x/loadgen addon (placeholder until the bridge lands).
#include <napi.h>

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("engineVersion", Napi::String::New(env, "0.1.0"));
  return exports;
}

NODE_API_MODULE(loadgen, Init)
