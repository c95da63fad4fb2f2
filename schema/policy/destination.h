// Network destinations of allow_tcp / allow_udp: "HOST:PORT".
//
// HOST is a DNS name, a dotted-quad IPv4 address, an IPv6 address in
// brackets, or "host.internal". PORT is a number (1-65535), a range
// "FIRST-LAST", or "*" for any port.
#pragma once

#include <string>
#include <string_view>

#include "schema/policy/model.h"
#include "util/result.h"

namespace cordon::schema {

// On failure the Error message is the bare reason ("port out of range: ...",
// "bad destination ..."); the parser adds the position.
util::Result<NetDestination> parse_destination(std::string_view text);

// Canonical text: lower-case name, inet_ntop form in brackets for IPv6,
// "*" for 1-65535, a single port when first == last.
std::string format_destination(const NetDestination& dest);

// Parses a decimal port 1-65535 (no sign, no spaces). The reason on failure
// is "port out of range: N (must be 1-65535)" or "bad port ...".
util::Result<uint16_t> parse_port(std::string_view text);

}  // namespace cordon::schema
