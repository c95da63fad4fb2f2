// FakePool: the fake addresses the proxy's resolver hands out, one
// allocation per allowed name for A and AAAA alike, so a later connection to
// one is attributed to the exact name that was looked up.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cordon::enforcer::net {

// One allocation per allowed name: 198.18.0.2 + i and fd00:c0d0::2 + i
// (198.18.0.1 is the resolver the sandbox is told about).
class FakePool {
 public:
  uint32_t index(const std::string& name) {
    auto [it, fresh] = by_name_.try_emplace(name, static_cast<uint32_t>(names_.size()));
    if (fresh) names_.push_back(name);
    return it->second;
  }
  static boost::asio::ip::address v4(uint32_t i) {
    return boost::asio::ip::address_v4(base4() + 2 + i);
  }
  static boost::asio::ip::address v6(uint32_t i) {
    auto b = base6();
    uint32_t n = 2 + i;
    for (int k = 0; k < 4; ++k) b[15 - k] = static_cast<unsigned char>(n >> (8 * k));
    return boost::asio::ip::address_v6(b);
  }
  static bool is_resolver(const boost::asio::ip::address& a) {
    return (a.is_v4() && a.to_v4().to_uint() == base4() + 1) || (a.is_v6() && a == v6(UINT32_MAX));
  }
  // The name a fake address was minted for.
  std::optional<std::string> lookup(const boost::asio::ip::address& a) const {
    uint64_t n;
    if (a.is_v4()) {
      uint32_t v = a.to_v4().to_uint();
      if ((v & 0xfffe0000u) != base4()) return std::nullopt;
      n = v - base4();
    } else {
      auto b = a.to_v6().to_bytes(), want = base6();
      if (!std::equal(b.begin(), b.begin() + 12, want.begin())) return std::nullopt;
      n = (uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) | (uint32_t{b[14]} << 8) | b[15];
    }
    if (n < 2 || n - 2 >= names_.size()) return std::nullopt;
    return names_[n - 2];
  }
  static bool in_pool(const boost::asio::ip::address& a) {
    if (a.is_v4()) return (a.to_v4().to_uint() & 0xfffe0000u) == base4();
    auto b = a.to_v6().to_bytes(), want = base6();
    return std::equal(b.begin(), b.begin() + 12, want.begin());
  }

 private:
  static uint32_t base4() { return (198u << 24) | (18u << 16); }
  static boost::asio::ip::address_v6::bytes_type base6() {
    boost::asio::ip::address_v6::bytes_type b{};
    b[0] = 0xfd;
    b[2] = 0xc0;
    b[3] = 0xd0;
    return b;
  }
  std::map<std::string, uint32_t> by_name_;
  std::vector<std::string> names_;
};

}  // namespace cordon::enforcer::net
