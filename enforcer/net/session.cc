#include "enforcer/net/session.h"

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <boost/asio/post.hpp>

#include "enforcer/net/relay.h"
#include "enforcer/net/session_impl.h"
#include "enforcer/net/setup.h"
#include "enforcer/net/udp_relay.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;
using boost::system::error_code;

std::string show(const asio::ip::address& a, uint16_t port) {
  return a.is_v6() ? fmt::format("[{}]:{}", a.to_string(), port)
                   : fmt::format("{}:{}", a.to_string(), port);
}

// Accepts on `acc` until it closes. Connections from the sandbox go out by
// policy; with `exposed`, they come from the host's loopback and go into the
// sandbox at the listener's own port.
void Session::Impl::accept(tcp::acceptor& acc, bool exposed) {
  acc.async_accept([this, &acc, exposed](error_code ec, tcp::socket sock) {
    if (ec == asio::error::operation_aborted || !acc.is_open()) return;
    if (!ec) {
      auto r = std::make_shared<Relay>(*this, std::move(sock));
      relays.remove_if([](const std::weak_ptr<Relay>& w) { return w.expired(); });
      relays.push_back(r);
      if (exposed) {
        r->start_exposed(acc.local_endpoint(ec).port());
      } else {
        r->start();
      }
    }
    accept(acc, exposed);
  });
}

void Session::Impl::serve_udp(udp::socket& s) {
  auto buf = std::make_shared<std::array<char, 1500>>();
  auto from = std::make_shared<udp::endpoint>();
  s.async_receive_from(asio::buffer(*buf), *from, [this, &s, buf, from](error_code ec, size_t n) {
    if (ec == asio::error::operation_aborted || !s.is_open()) return;
    if (!ec) {
      answer(std::string(buf->data(), n), [&s, from](std::string reply) {
        error_code e;
        if (!reply.empty() && s.is_open()) s.send_to(asio::buffer(reply), *from, 0, e);
      });
    }
    serve_udp(s);
  });
}

void Session::Impl::close_all() {
  error_code ec;
  for (auto& a : acceptors) a->close(ec);
  for (auto& d : dns_sockets) d->close(ec);
  if (udp) udp->close();
  for (auto& a : exposed) a->close(ec);
  if (factory) factory->close();
  for (auto& w : relays) {
    if (auto r = w.lock()) r->close();
  }
}

void Session::Impl::run() {
  // The listeners arrive first, then "ready"; EOF before that means the
  // sandbox's setup failed (it says why) and there is nothing to serve.
  for (;;) {
    auto msg = util::receive_message(control.get());
    if (!msg || msg->data.empty()) return;
    if (msg->data == kMsgReady) break;
    if (!msg->fd) continue;
    error_code ec;
    int fd = msg->fd.release();
    if (msg->data == kMsgTcp4 || msg->data == kMsgTcp6) {
      auto acc = std::make_unique<tcp::acceptor>(io);
      acc->assign(msg->data == kMsgTcp4 ? tcp::v4() : tcp::v6(), fd, ec);
      if (ec) {
        ::close(fd);
        continue;
      }
      if (msg->data == kMsgTcp6) v6 = true;
      acceptors.push_back(std::move(acc));
    } else if (msg->data == kMsgDns4 || msg->data == kMsgDns6) {
      auto s = std::make_unique<udp::socket>(io);
      s->assign(msg->data == kMsgDns4 ? udp::v4() : udp::v6(), fd, ec);
      if (ec) {
        ::close(fd);
        continue;
      }
      dns_sockets.push_back(std::move(s));
    } else if (msg->data == kMsgUdp4) {
      udp = std::make_unique<UdpRelay>(*this, fd);
    } else if (msg->data == kMsgFactory) {
      factory = std::make_unique<FactoryClient>(io, util::Fd(fd));
    } else {
      ::close(fd);
    }
  }
  {
    std::lock_guard lock(mu);
    control.reset();
    if (stopped) return;
  }
  for (auto& a : acceptors) accept(*a, false);
  for (auto& d : dns_sockets) serve_udp(*d);
  if (udp) udp->start();
  for (auto& a : exposed) accept(*a, true);
  io.run();
}

util::Result<std::pair<std::string, uint16_t>> parse_upstream(const std::string& text_in) {
  std::string text = text_in;
  if (text.empty()) {
    std::ifstream rc("/etc/resolv.conf");
    std::string line;
    while (std::getline(rc, line)) {
      std::istringstream words(line);
      std::string key, value;
      if (words >> key >> value && key == "nameserver") {
        text = value;
        break;
      }
    }
    if (text.empty()) return util::Error{"no nameserver in /etc/resolv.conf"};
    if (text.find(':') != std::string::npos) text = "[" + text + "]";
  }
  std::string host = text, port = "53";
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos) return util::Error{"bad DNS upstream: " + text_in};
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return util::Error{"bad DNS upstream: " + text_in};
      port = text.substr(close + 2);
    }
  } else if (auto colon = text.find(':'); colon != std::string::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  error_code ec;
  asio::ip::make_address(host, ec);
  char* end = nullptr;
  long p = std::strtol(port.c_str(), &end, 10);
  if (ec || port.empty() || *end || p < 1 || p > 65535) {
    return util::Error{"bad DNS upstream \"" + text_in + "\" (expected ADDRESS[:PORT])"};
  }
  return std::pair<std::string, uint16_t>{host, static_cast<uint16_t>(p)};
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

util::Result<std::shared_ptr<Session>> Session::create(SessionOptions options, util::Fd control) {
  auto impl = std::make_unique<Impl>();
  impl->rules = std::move(options.rules);
  impl->record_all = options.record_all;
  impl->udp_rules = std::move(options.udp_rules);
  for (auto& fd : options.exposed) {
    auto acc = std::make_unique<tcp::acceptor>(impl->io);
    boost::system::error_code ec;
    int raw = fd.release();
    acc->assign(tcp::v4(), raw, ec);
    if (ec) {
      ::close(raw);
      return util::Error{"expose: " + ec.message()};
    }
    impl->exposed.push_back(std::move(acc));
  }
  impl->control = std::move(control);
  auto up = parse_upstream(options.upstream);
  if (up) {
    impl->upstream = udp::endpoint(asio::ip::make_address(up->first), up->second);
  } else if (!options.upstream.empty()) {
    return up.error();
  }
  return std::shared_ptr<Session>(new Session(std::move(impl)));
}

Session::~Session() {
  stop();
}

void Session::start() {
  std::lock_guard lock(impl_->mu);
  if (impl_->started || impl_->stopped) return;
  impl_->started = true;
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

void Session::stop() {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    if (!impl_->started) return;
    if (impl_->control) ::shutdown(impl_->control.get(), SHUT_RDWR);
    asio::post(impl_->io, [impl = impl_.get()] {
      impl->close_all();
      impl->io.stop();
    });
  }
  impl_->thread.join();
  impl_->close_all();
}

std::string Session::upstream() const {
  if (!impl_->upstream) return "";
  return show(impl_->upstream->address(), impl_->upstream->port());
}

std::vector<std::string> Session::report() const {
  return impl_->log.report();
}

std::vector<schema::NetRecord> Session::records() const {
  return impl_->log.records();
}

}  // namespace cordon::enforcer::net
