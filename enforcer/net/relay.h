// Relay: one TCP connection from the sandbox, accepted on the namespace's
// redirect listener. Its original destination (read here, on the trusted
// side) is decided against the rules, dialled from the host and relayed
// both ways; refused ones are reset. Every outcome goes to the session's log.
// Or the other way (`expose`): a connection to the host's loopback, relayed
// to a port on the sandbox's, through a socket the sandbox's factory made.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "enforcer/net/session_impl.h"
#include "enforcer/net/splice_pipe.h"

namespace cordon::enforcer::net {

class Relay : public std::enable_shared_from_this<Relay> {
 public:
  Relay(Session::Impl& s, boost::asio::ip::tcp::socket in);
  // `in` came from the sandbox's redirect listener.
  void start();
  // `in` came from the host's listener for the exposed `port`.
  void start_exposed(uint16_t port);
  void close();

 private:
  using tcp = boost::asio::ip::tcp;
  std::optional<std::pair<boost::asio::ip::address, uint16_t>> original_destination();
  void dial_name();
  void refuse(const std::string& reason);
  void fail(const std::string& reason);
  void dial(std::vector<tcp::endpoint> eps);
  void relay_both();
  // Closes with a reset, so the client sees the failure at once, not an EOF.
  void reset();
  void pump(tcp::socket& from, tcp::socket& to, SplicePipe& pipe);
  bool drain(tcp::socket& from, tcp::socket& to, SplicePipe& pipe, size_t left);
  void serve_dns();

  Session::Impl& s_;
  tcp::socket in_, out_;
  boost::asio::steady_timer timer_;
  // What the log says: the attributed name, or the literal address.
  std::optional<std::string> name_, addr_;
  uint16_t port_ = 0;
  std::vector<char> up_;
  SplicePipe up_pipe_, down_pipe_;
  int halves_done_ = 0;
  std::array<char, 2> len_{};
  std::string reply_;
};

}  // namespace cordon::enforcer::net
