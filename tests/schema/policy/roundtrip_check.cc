#include "tests/schema/policy/roundtrip_check.h"

#include <fmt/core.h>

#include <algorithm>

#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::schema::testing {
namespace {

const ParseContext kInput{"input.sbx", "/home/u", "/work/proj"};
const ParseContext kPrinted{"printed.sbx", "/home/u", "/work/proj"};

// Reads a decimal number at s[i], advancing i; -1 if there is none.
long read_number(std::string_view s, size_t& i) {
  size_t start = i;
  long value = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 9)
    value = value * 10 + (s[i++] - '0');
  return i == start ? -1 : value;
}

// Hand-parsed rather than std::regex, whose recursion overflows the stack on
// the long messages fuzzed input can produce.
std::string check_error(std::string_view input, std::string_view message) {
  constexpr std::string_view kPrefix = "input.sbx:";
  size_t i = kPrefix.size();
  long line = message.starts_with(kPrefix) ? read_number(message, i) : -1;
  long column = -1;
  if (line >= 0 && i < message.size() && message[i] == ':') column = read_number(message, ++i);
  if (column < 0 || message.substr(i, 2) != ": " || message.size() == i + 2) {
    return "malformed error: " + util::printable(message);
  }
  long lines = 1 + std::count(input.begin(), input.end(), '\n');
  if (line < 1 || line > lines || column < 1) {
    return fmt::format("error position out of range ({} lines): {}", lines,
                       util::printable(message));
  }
  return "";
}

}  // namespace

std::string check_round_trip(std::string_view input) {
  util::Result<Policy> first = parse_policy(input, kInput);
  if (!first) return check_error(input, first.error().message);
  const std::string printed = print_policy(*first);
  util::Result<Policy> second = parse_policy(printed, kPrinted);
  if (!second) {
    return "printed text does not parse: " + second.error().message + "\n" +
           util::printable(printed);
  }
  if (!equivalent(*first, *second)) return "reparsed policy differs:\n" + util::printable(printed);
  const std::string reprinted = print_policy(*second);
  if (reprinted != printed) {
    return "printing is not a fixed point:\n" + util::printable(printed) + "\nvs\n" +
           util::printable(reprinted);
  }
  return "";
}

}  // namespace cordon::schema::testing
