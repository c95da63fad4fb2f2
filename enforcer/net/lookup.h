// Lookup: asks the upstream resolver for the A and AAAA records of one name,
// on the proxy's event loop, and hands the resolution to a callback exactly
// once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "enforcer/net/session_impl.h"

namespace cordon::enforcer::net {

class Lookup : public std::enable_shared_from_this<Lookup> {
 public:
  Lookup(Session::Impl& s, std::string name, ResolveDone done);
  void start();

 private:
  void receive();
  void finish(const std::string& err);

  Session::Impl& s_;
  std::string name_;
  ResolveDone done_;
  boost::asio::ip::udp::socket sock_;
  boost::asio::steady_timer timer_;
  std::vector<uint16_t> ids_;
  std::vector<boost::asio::ip::address> addrs_;
  int rcode_ = 0;
  std::array<char, 4096> buf_;
};

}  // namespace cordon::enforcer::net
