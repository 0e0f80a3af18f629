#pragma once
#include <string>

namespace lg {
// Escapes a string for use inside JSON double quotes.
std::string JsonEscape(const std::string& in);
}  // namespace lg
