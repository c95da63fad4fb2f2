// UdpRelay: allow_udp. The sandbox's UDP to anything but its loopback and
// port 53 reaches one transparent socket in its namespace through TPROXY
// (setup.cc); each datagram carries its original destination
// (IP_ORIGDSTADDR). Per flow (sandbox source, original destination) the
// proxy decides once, like a TCP connection, then relays through a host
// socket connected to the real destination. Replies must come from the
// original destination's address and port, which only a transparent socket
// bound there, in the sandbox's namespace, can send from: the socket
// factory makes it, the proxy binds it. Idle flows end after a minute.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio/ip/udp.hpp>

#include "enforcer/net/session_impl.h"

namespace cordon::enforcer::net {

class UdpFlow;

class UdpRelay {
 public:
  // `fd`: the transparent socket, taken over.
  UdpRelay(Session::Impl& s, int fd);
  void start();
  void close();

 private:
  void receive();
  Session::Impl& s_;
  boost::asio::ip::udp::socket tproxy_;
  std::map<std::pair<boost::asio::ip::udp::endpoint, boost::asio::ip::udp::endpoint>,
           std::shared_ptr<UdpFlow>>
      flows_;
};

}  // namespace cordon::enforcer::net
