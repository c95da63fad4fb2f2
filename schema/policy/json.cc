// JSON by hand: the output is small and fixed in shape, and Debian's JSON
// libraries would be a dependency for two dozen lines.
#include <fmt/core.h>

#include "schema/policy/effective.h"
#include "util/path.h"

namespace cordon::schema {
namespace {

// util::printable first, so bytes that are not UTF-8 never reach the JSON
// (they would make it invalid); then the JSON escapes for what is left.
std::string json_string(std::string_view bytes) {
  std::string out = "\"";
  for (char c : util::printable(bytes)) {
    unsigned char u = c;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace

std::string to_json(const EffectivePolicy& policy) {
  std::string out = "{\n  \"layers\": [";
  const auto& layers = policy.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    out += l ? ",\n" : "\n";
    out +=
        fmt::format("    {{\n      \"name\": {},\n      \"rules\": [", json_string(layers[l].name));
    const auto& rules = layers[l].policy.rules;
    for (size_t r = 0; r < rules.size(); ++r) {
      const Rule& rule = rules[r];
      out += r ? ",\n" : "\n";
      out += fmt::format(
          "        {{\"kind\": \"{}\", \"value\": {}, \"written\": {}, \"file\": {}, "
          "\"line\": {}, \"column\": {}}}",
          rule_kind_name(rule.kind), json_string(rule.value), json_string(rule.written),
          json_string(rule.origin.file), rule.origin.line, rule.origin.column);
    }
    out += rules.empty() ? "]\n    }" : "\n      ]\n    }";
  }
  out += layers.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace cordon::schema
