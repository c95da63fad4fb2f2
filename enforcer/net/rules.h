// The allow_tcp rules as the host proxy applies them, and the address
// classes it never dials unless a rule names the address literally.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "schema/policy/model.h"

namespace cordon::enforcer::net {

using boost::asio::ip::address;

// The reserved name of the host's own loopback.
inline constexpr const char* kHostInternal = "host.internal";

// Loopback, link-local, private (RFC 1918, CGNAT 100.64/10, ULA fc00::/7),
// unspecified, multicast and the like: addresses that name this machine or
// its local networks rather than the Internet. A v4-mapped IPv6 address is
// judged as the IPv4 address it maps.
bool is_special(const address& a);

// A v4-mapped IPv6 address as IPv4; anything else unchanged.
address unmapped(const address& a);

class Rules {
 public:
  Rules() = default;
  explicit Rules(std::vector<schema::NetDestination> rules) : rules_(std::move(rules)) {}

  // Some rule names `name` (lower-case, no trailing dot), at any port;
  // "host.internal" counts when a rule names it.
  bool name_known(const std::string& name) const;
  // A rule allows `name`:port (host.internal included).
  bool allows_name(const std::string& name, uint16_t port) const;
  // A rule names this address literally and allows the port.
  bool allows_address(const address& a, uint16_t port) const;
  // A rule names this address literally, at any port (a resolved address in
  // a special range is dialled only then).
  bool names_address(const address& a) const;
  const std::vector<schema::NetDestination>& all() const { return rules_; }

 private:
  std::vector<schema::NetDestination> rules_;
};

}  // namespace cordon::enforcer::net
