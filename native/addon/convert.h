// Conversions between JS values and engine structs.
#pragma once

#include <napi.h>

#include "loadgen.h"
#include "test_settings.h"

namespace lgaddon {

// Reads the settings object the TS layer has already validated and mapped to
// the official snake_case names (seeds as decimal strings).
lg::TestSettings SettingsFromJs(const Napi::Object& o);
lg::LogSettings LogSettingsFromJs(const Napi::Object& o);
Napi::Object OutcomeToJs(Napi::Env env, const lg::TestOutcome& out);
Napi::Object SettingsToJs(Napi::Env env, const lg::TestSettings& s);

}  // namespace lgaddon
