#include "cli/shell_quote.h"

#include "util/path.h"

namespace cordon::cli {

std::string shell_quote(const std::string& arg) {
  bool plain = !arg.empty();
  for (char c : arg) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    plain = plain && ok;
  }
  if (plain) return arg;
  if (!util::is_clean_utf8(arg)) {
    std::string out = "$'";
    for (char c : util::printable(arg)) {
      if (c == '\'') out += '\\';
      out += c;
    }
    return out + "'";
  }
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

}  // namespace cordon::cli
