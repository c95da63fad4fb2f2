// Minimal JSON output. Strings are bytes: they pass through util::printable
// first (so a path with a newline or invalid UTF-8 survives as an escape a
// reader can undo), then JSON-quoted.
#pragma once

#include <string>
#include <string_view>

namespace cordon::util {

std::string json_string(std::string_view bytes);

}  // namespace cordon::util
