#include "util/json.h"

#include "util/path.h"

namespace cordon::util {

std::string json_string(std::string_view bytes) {
  std::string out = "\"";
  for (char c : printable(bytes)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace cordon::util
