#include "enforcer/net/rules.h"

#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

namespace cordon::enforcer::net {

namespace asio_ip = boost::asio::ip;
using schema::NetDestination;

namespace {

bool in_v4(const asio_ip::address_v4& a, const char* net) {
  auto n = asio_ip::make_network_v4(net);
  return (a.to_uint() & n.netmask().to_uint()) == n.network().to_uint();
}

bool in_v6(const asio_ip::address_v6& a, const char* net) {
  auto n = asio_ip::make_network_v6(net);
  auto bytes = a.to_bytes();
  auto want = n.network().to_bytes();
  unsigned bits = n.prefix_length();
  for (unsigned i = 0; i < 16 && bits > 0; ++i, bits = bits >= 8 ? bits - 8 : 0) {
    unsigned char mask = bits >= 8 ? 0xff : static_cast<unsigned char>(0xff << (8 - bits));
    if ((bytes[i] & mask) != (want[i] & mask)) return false;
  }
  return true;
}

bool port_in(const NetDestination& d, uint16_t port) {
  return port >= d.port_first && port <= d.port_last;
}

}  // namespace

address unmapped(const address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    return asio_ip::make_address_v4(asio_ip::v4_mapped, a.to_v6());
  }
  return a;
}

bool is_special(const address& raw) {
  address a = unmapped(raw);
  if (a.is_v4()) {
    auto v4 = a.to_v4();
    for (const char* net : {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
                            "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16",
                            "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4"}) {
      if (in_v4(v4, net)) return true;
    }
    return false;
  }
  auto v6 = a.to_v6();
  for (const char* net :
       {"::/128", "::1/128", "fe80::/10", "fc00::/7", "ff00::/8", "64:ff9b:1::/48"}) {
    if (in_v6(v6, net)) return true;
  }
  return false;
}

bool Rules::name_known(const std::string& name) const {
  for (const auto& r : rules_) {
    if (r.host_kind == NetDestination::HostKind::kName && r.host == name) return true;
    if (r.host_kind == NetDestination::HostKind::kInternal && name == kHostInternal) return true;
  }
  return false;
}

bool Rules::allows_name(const std::string& name, uint16_t port) const {
  for (const auto& r : rules_) {
    if (!port_in(r, port)) continue;
    if (r.host_kind == NetDestination::HostKind::kName && r.host == name) return true;
    if (r.host_kind == NetDestination::HostKind::kInternal && name == kHostInternal) return true;
  }
  return false;
}

namespace {

// Whether rule `r` names the address `a` literally.
bool names_literally(const NetDestination& r, const address& a) {
  if (r.host_kind != NetDestination::HostKind::kIpv4 &&
      r.host_kind != NetDestination::HostKind::kIpv6) {
    return false;
  }
  boost::system::error_code ec;
  address ra = asio_ip::make_address(r.host, ec);
  return !ec && unmapped(ra) == a;
}

}  // namespace

bool Rules::names_address(const address& raw) const {
  address a = unmapped(raw);
  for (const auto& r : rules_) {
    if (names_literally(r, a)) return true;
  }
  return false;
}

bool Rules::allows_address(const address& raw, uint16_t port) const {
  address a = unmapped(raw);
  for (const auto& r : rules_) {
    if (port_in(r, port) && names_literally(r, a)) return true;
  }
  return false;
}

}  // namespace cordon::enforcer::net
