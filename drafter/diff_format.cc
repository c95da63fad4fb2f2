// cordon diff output: one line per change, grouped by section, in the order
// the rules appear; colour only when asked (the CLI asks when stdout is a
// terminal).
#include <fmt/core.h>

#include "drafter/drafter.h"
#include "util/json.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

std::string_view mark(const std::string& change) {
  if (change == "added") return "+";
  if (change == "removed") return "-";
  return "~";
}

std::string_view colour(const std::string& change) {
  if (change == "added") return "\033[32m";
  if (change == "removed") return "\033[31m";
  return "\033[33m";
}

void section(std::string& out, std::string_view title, const std::vector<DiffEntry>& entries,
             bool color) {
  if (entries.empty()) return;
  out += fmt::format("{}:\n", title);
  for (const DiffEntry& e : entries) {
    std::string line =
        fmt::format("  {} {:<8} {}  ({})", mark(e.change), e.change, e.rule, e.origin);
    if (!e.detail.empty()) line += ": " + e.detail;
    out += color ? fmt::format("{}{}\033[0m\n", colour(e.change), line) : line + "\n";
  }
}

std::string entries_json(const std::vector<DiffEntry>& entries) {
  std::string out = "[";
  for (size_t i = 0; i < entries.size(); ++i) {
    const DiffEntry& e = entries[i];
    out += fmt::format("{}\n    {{\"change\": {}, \"rule\": {}, \"origin\": {}, \"detail\": {}}}",
                       i ? "," : "", util::json_string(e.change), util::json_string(e.rule),
                       util::json_string(e.origin), util::json_string(e.detail));
  }
  return out + (entries.empty() ? "]" : "\n  ]");
}

}  // namespace

std::string format_diff_text(const PolicyDiff& diff, bool color) {
  if (diff.equivalent())
    return "no difference: both policies cover the same paths, destinations and variables\n";
  std::string out;
  section(out, "grants", diff.grants, color);
  section(out, "denies", diff.denies, color);
  section(out, "net", diff.net, color);
  section(out, "env", diff.env, color);
  return out;
}

std::string format_diff_json(const PolicyDiff& diff) {
  return fmt::format(
      "{{\n  \"equivalent\": {},\n  \"grants\": {},\n  \"denies\": {},\n  \"net\": {},\n  \"env\": "
      "{}\n}}\n",
      diff.equivalent() ? "true" : "false", entries_json(diff.grants), entries_json(diff.denies),
      entries_json(diff.net), entries_json(diff.env));
}

}  // namespace cordon::drafter
