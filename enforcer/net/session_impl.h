// The proxy's state, shared by the session and the handlers on its event
// loop (relay.h, lookup.h). Everything here is touched only on the proxy's
// thread while it runs, and read by the session after it has joined it.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>

#include "enforcer/net/factory_client.h"
#include "enforcer/net/fake_pool.h"
#include "enforcer/net/net_log.h"
#include "enforcer/net/rules.h"
#include "enforcer/net/session.h"
#include "util/fd.h"

namespace cordon::enforcer::net {

class Relay;
class UdpRelay;

// What the upstream resolver said about one name: its addresses, or why
// there are none ("" only with addresses) and the response code.
struct Resolution {
  std::vector<boost::asio::ip::address> addresses;
  std::string error;
  int rcode = 0;
};
using ResolveDone = std::function<void(const Resolution&)>;
// A reply for the sandbox's resolver to send; "" to send none.
using ReplyDone = std::function<void(std::string)>;

struct Session::Impl {
  Rules rules;      // allow_tcp
  Rules udp_rules;  // allow_udp
  // Learning: every name resolves and every destination is dialled.
  bool record_all = false;
  std::optional<boost::asio::ip::udp::endpoint> upstream;
  util::Fd control;
  FakePool pool;
  bool v6 = false;
  NetLog log;
  // While learning, each name is asked upstream once (resolver.cc).
  std::map<std::string, Resolution> resolved;
  std::map<std::string, std::vector<ResolveDone>> resolving;
  std::list<std::weak_ptr<Relay>> relays;
  std::mt19937 rng{std::random_device{}()};
  // Declared last: destroyed first, with the handlers that hold relays.
  boost::asio::io_context io{1};
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors;
  std::vector<std::unique_ptr<boost::asio::ip::udp::socket>> dns_sockets;
  std::unique_ptr<FactoryClient> factory;  // with allow_udp only
  std::unique_ptr<UdpRelay> udp;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> exposed;  // on the host
  std::thread thread;
  std::mutex mu;
  bool started = false, stopped = false;

  void run();
  void accept(boost::asio::ip::tcp::acceptor& acc, bool exposed);
  void serve_udp(boost::asio::ip::udp::socket& s);
  // The sandbox's resolver: the reply to one DNS message (resolver.cc).
  void answer(std::string query, ReplyDone reply);
  // The upstream resolver's answer for `name` (resolver.cc).
  void resolve(const std::string& name, ResolveDone done);
  void close_all();
};

// "ADDR:PORT", or "[ADDR]:PORT" for IPv6.
std::string show(const boost::asio::ip::address& a, uint16_t port);

}  // namespace cordon::enforcer::net
