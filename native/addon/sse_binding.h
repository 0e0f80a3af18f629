#pragma once

#include <napi.h>

namespace lgaddon {

// Adds sseScan and sseSlotCount to the addon's exports.
void RegisterSse(Napi::Env env, Napi::Object exports);

}  // namespace lgaddon
