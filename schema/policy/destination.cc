#include "schema/policy/destination.h"

#include <arpa/inet.h>
#include <fmt/core.h>

#include <algorithm>

#include "util/path.h"

namespace cordon::schema {
namespace {

constexpr std::string_view kInternalHost = "host.internal";

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

// RFC 1123 labels, plus "_" which real internal names (service records,
// container names) use.
bool is_host_name(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t start = 0;
  while (start <= host.size()) {
    size_t end = host.find('.', start);
    if (end == std::string_view::npos) end = host.size();
    std::string_view label = host.substr(start, end - start);
    if (label.empty() || label.size() > 63) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      bool ok =
          is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
      if (!ok) return false;
    }
    start = end + 1;
  }
  return true;
}

util::Error bad(std::string_view text, std::string_view why) {
  return util::Error{fmt::format("bad destination \"{}\": {}", util::printable(text), why)};
}

util::Result<NetDestination> parse_host(std::string_view text, std::string_view host) {
  NetDestination dest;
  if (host.find('\0') != std::string_view::npos) return bad(text, "host contains a NUL byte");
  if (iequals(host, kInternalHost)) {
    dest.host_kind = NetDestination::HostKind::kInternal;
    dest.host = kInternalHost;
    return dest;
  }
  // All digits and dots can only be meant as an IPv4 address; letting it
  // through as a name would accept typos such as "10.0.0".
  if (!host.empty() &&
      std::all_of(host.begin(), host.end(), [](char c) { return is_digit(c) || c == '.'; })) {
    in_addr addr{};
    if (inet_pton(AF_INET, std::string(host).c_str(), &addr) != 1) {
      return bad(text, fmt::format("bad IPv4 address \"{}\"", util::printable(host)));
    }
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr, buf, sizeof buf);
    dest.host_kind = NetDestination::HostKind::kIpv4;
    dest.host = buf;
    return dest;
  }
  if (!is_host_name(host)) {
    return bad(text, fmt::format("bad host name \"{}\"", util::printable(host)));
  }
  dest.host_kind = NetDestination::HostKind::kName;
  std::transform(host.begin(), host.end(), std::back_inserter(dest.host), ascii_lower);
  return dest;
}

util::Result<NetDestination> parse_ipv6_host(std::string_view text, std::string_view host) {
  if (host.find('\0') != std::string_view::npos) return bad(text, "host contains a NUL byte");
  in6_addr addr{};
  if (inet_pton(AF_INET6, std::string(host).c_str(), &addr) != 1) {
    return bad(text, fmt::format("bad IPv6 address \"{}\"", util::printable(host)));
  }
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, &addr, buf, sizeof buf);
  NetDestination dest;
  dest.host_kind = NetDestination::HostKind::kIpv6;
  dest.host = buf;
  return dest;
}

}  // namespace

util::Result<uint16_t> parse_port(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), is_digit)) {
    return util::Error{fmt::format("bad port \"{}\"", util::printable(text))};
  }
  size_t first_nonzero = text.find_first_not_of('0');
  std::string_view digits =
      first_nonzero == std::string_view::npos ? "0" : text.substr(first_nonzero);
  unsigned long value = digits.size() > 5 ? 0 : std::stoul(std::string(digits));
  if (digits.size() > 5 || value < 1 || value > 65535) {
    return util::Error{
        fmt::format("port out of range: {} (must be 1-65535)", util::printable(text))};
  }
  return static_cast<uint16_t>(value);
}

util::Result<NetDestination> parse_destination(std::string_view text) {
  std::string_view host;
  std::string_view port;
  util::Result<NetDestination> parsed = NetDestination{};
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos) return bad(text, "missing \"]\" after IPv6 address");
    if (close + 1 >= text.size() || text[close + 1] != ':') return bad(text, "expected HOST:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    parsed = parse_ipv6_host(text, host);
  } else {
    size_t colon = text.find(':');
    if (colon == std::string_view::npos) return bad(text, "expected HOST:PORT");
    if (text.find(':', colon + 1) != std::string_view::npos) {
      return bad(text, "an IPv6 address needs brackets: [ADDRESS]:PORT");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    parsed = parse_host(text, host);
  }
  if (!parsed) return parsed;
  NetDestination dest = std::move(parsed.value());

  if (port == "*") {
    dest.port_first = 1;
    dest.port_last = 65535;
    return dest;
  }
  size_t dash = port.find('-');
  std::string_view first = port.substr(0, dash);
  std::string_view last = dash == std::string_view::npos ? first : port.substr(dash + 1);
  for (std::string_view part : {first, last}) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), is_digit)) {
      return bad(text, fmt::format("bad port \"{}\" (expected a number, FIRST-LAST or *)",
                                   util::printable(port)));
    }
  }
  util::Result<uint16_t> first_port = parse_port(first);
  if (!first_port) return first_port.error();
  util::Result<uint16_t> last_port = parse_port(last);
  if (!last_port) return last_port.error();
  if (*first_port > *last_port) {
    return bad(text, fmt::format("port range {}-{} is backwards", *first_port, *last_port));
  }
  dest.port_first = *first_port;
  dest.port_last = *last_port;
  return dest;
}

std::string format_destination(const NetDestination& dest) {
  std::string host =
      dest.host_kind == NetDestination::HostKind::kIpv6 ? "[" + dest.host + "]" : dest.host;
  if (dest.port_first == 1 && dest.port_last == 65535) return host + ":*";
  if (dest.port_first == dest.port_last) return fmt::format("{}:{}", host, dest.port_first);
  return fmt::format("{}:{}-{}", host, dest.port_first, dest.port_last);
}

}  // namespace cordon::schema
