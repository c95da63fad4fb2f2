#include "enforcer/net/relay.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include "enforcer/net/socket_factory.h"

namespace cordon::enforcer::net {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// SO_ORIGINAL_DST (linux/netfilter_ipv4.h) and IP6T_SO_ORIGINAL_DST
// (linux/netfilter_ipv6/ip6_tables.h); both 80. Those headers clash with
// netinet/in.h.
constexpr int kSoOriginalDst = 80;
constexpr auto kDialTimeout = std::chrono::seconds(15);

}  // namespace

Relay::Relay(Session::Impl& s, tcp::socket in)
    : s_(s), in_(std::move(in)), out_(s.io), timer_(s.io) {}

void Relay::start() {
  auto dst = original_destination();
  if (!dst) return close();  // not redirected: someone connected to the listener itself
  auto [addr, port] = *dst;
  addr = unmapped(addr);
  port_ = port;
  if (FakePool::is_resolver(addr) && port == 53) return serve_dns();
  if (FakePool::in_pool(addr)) {
    name_ = s_.pool.lookup(addr);
    if (!name_) {
      addr_ = addr.to_string();
      return refuse("not an address the sandbox's resolver gave out");
    }
    if (!s_.record_all && !s_.rules.allows_name(*name_, port)) return refuse("no allow_tcp rule");
    if (*name_ == kHostInternal) {
      return dial({tcp::endpoint(asio::ip::address_v4::loopback(), port),
                   tcp::endpoint(asio::ip::address_v6::loopback(), port)});
    }
    return dial_name();
  }
  addr_ = addr.to_string();
  if (addr.is_loopback()) return refuse("loopback is the sandbox's own; use host.internal");
  if (!s_.record_all && !s_.rules.allows_address(addr, port)) return refuse("no allow_tcp rule");
  dial({tcp::endpoint(addr, port)});
}

void Relay::dial_name() {
  s_.resolve(*name_, [self = shared_from_this()](const Resolution& r) {
    if (!r.error.empty()) return self->fail(fmt::format("{} {}", *self->name_, r.error));
    std::vector<tcp::endpoint> eps;
    std::vector<std::string> special;
    for (const auto& a : r.addresses) {
      if (!self->s_.record_all && is_special(a) && !self->s_.rules.names_address(a)) {
        special.push_back(a.to_string());
        continue;
      }
      eps.emplace_back(a, self->port_);
    }
    if (eps.empty()) {
      std::string list;
      for (const auto& a : special) list += (list.empty() ? "" : ", ") + a;
      return self->refuse(fmt::format(
          "resolves only to local or private addresses ({}), which need a rule naming them", list));
    }
    // IPv4 first: the host's IPv6 may well have no route.
    std::stable_partition(eps.begin(), eps.end(),
                          [](const tcp::endpoint& e) { return e.address().is_v4(); });
    self->dial(eps);
  });
}

void Relay::close() {
  error_code ec;
  in_.close(ec);
  out_.close(ec);
  timer_.cancel();
}

std::optional<std::pair<asio::ip::address, uint16_t>> Relay::original_destination() {
  error_code ec;
  auto local = in_.local_endpoint(ec);
  if (ec) return std::nullopt;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  int fd = in_.native_handle();
  if (local.address().is_v4()) {
    if (::getsockopt(fd, SOL_IP, kSoOriginalDst, &ss, &len) != 0) return std::nullopt;
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    auto addr = asio::ip::address_v4(ntohl(a->sin_addr.s_addr));
    uint16_t port = ntohs(a->sin_port);
    if (addr == local.address() && port == local.port()) return std::nullopt;
    return std::pair<asio::ip::address, uint16_t>{addr, port};
  }
  if (::getsockopt(fd, SOL_IPV6, kSoOriginalDst, &ss, &len) != 0) return std::nullopt;
  auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
  asio::ip::address_v6::bytes_type b;
  std::memcpy(b.data(), &a->sin6_addr, 16);
  asio::ip::address addr = asio::ip::address_v6(b);
  uint16_t port = ntohs(a->sin6_port);
  if (addr == local.address() && port == local.port()) return std::nullopt;
  return std::pair<asio::ip::address, uint16_t>{addr, port};
}

void Relay::refuse(const std::string& reason) {
  s_.log.connect("tcp", name_, addr_, port_, false, reason);
  reset();
}

void Relay::fail(const std::string& reason) {
  s_.log.connect("tcp", name_, addr_, port_, true, reason);
  reset();
}

void Relay::dial(std::vector<tcp::endpoint> eps) {
  auto self = shared_from_this();
  timer_.expires_after(kDialTimeout);
  timer_.async_wait([self](error_code ec) {
    if (!ec) {
      error_code e;
      self->out_.close(e);
    }
  });
  asio::async_connect(out_, eps, [self](error_code ec, const tcp::endpoint& at) {
    self->timer_.cancel();
    if (ec) return self->fail("connect: " + ec.message());
    self->addr_ = at.address().to_string();
    self->s_.log.connect("tcp", self->name_, self->addr_, self->port_, true);
    self->relay_both();
  });
}

void Relay::start_exposed(uint16_t port) {
  if (!s_.factory) return close();
  s_.factory->request(kFactoryTcp4, [self = shared_from_this(), port](util::Fd fd) {
    // Only a fresh IPv4 TCP socket: the factory could be the command's by now.
    int type = 0, domain = 0;
    socklen_t len = sizeof type;
    sockaddr_in local{};
    socklen_t local_len = sizeof local;
    if (!fd || ::getsockopt(fd.get(), SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
        type != SOCK_STREAM || ::getsockopt(fd.get(), SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
        domain != AF_INET ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        local.sin_port != 0) {
      return self->reset();
    }
    error_code ec;
    self->out_.assign(tcp::v4(), fd.release(), ec);
    if (ec) return self->reset();
    self->out_.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), port),
                             [self](error_code e) {
                               if (e) return self->reset();
                               self->relay_both();
                             });
  });
}

void Relay::reset() {
  error_code ec;
  in_.set_option(asio::socket_base::linger(true, 0), ec);
  close();
}

void Relay::relay_both() {
  error_code e;
  out_.set_option(tcp::no_delay(true), e);
  in_.set_option(tcp::no_delay(true), e);
  in_.native_non_blocking(true, e);
  out_.native_non_blocking(true, e);
  pump(in_, out_, up_pipe_);
  pump(out_, in_, down_pipe_);
}

// One direction of the relay: bytes move socket -> pipe -> socket with
// splice(2), never through user space, which is what bounds a copying
// relay's throughput. The splices are non-blocking and run while there is
// data: the event loop is asked only when the source is dry or the
// destination full, since a wait per chunk costs as much as the chunk. After
// kBurst chunks the direction yields, so one busy connection cannot hold the
// loop from the others.
void Relay::pump(tcp::socket& from, tcp::socket& to, SplicePipe& pipe) {
  constexpr int kBurst = 16;
  if (!pipe.ready() && !pipe.open()) return close();
  for (int chunk = 0; chunk < kBurst; ++chunk) {
    ssize_t n = ::splice(from.native_handle(), nullptr, pipe.write_end(), nullptr, kRelayBuffer,
                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n == 0) {
      error_code e;
      to.shutdown(tcp::socket::shutdown_send, e);
      if (++halves_done_ == 2) close();
      return;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return close();
    }
    if (!drain(from, to, pipe, static_cast<size_t>(n))) return;
  }
  from.async_wait(tcp::socket::wait_read,
                  [self = shared_from_this(), &from, &to, &pipe](error_code ec) {
                    if (ec) return self->close();
                    self->pump(from, to, pipe);
                  });
}

// Empties the pipe into `to`. Returns false when it could not finish now:
// it then waits for `to` itself and resumes the pump once the pipe is
// empty (or has closed the relay).
bool Relay::drain(tcp::socket& from, tcp::socket& to, SplicePipe& pipe, size_t left) {
  while (left > 0) {
    ssize_t m = ::splice(pipe.read_end(), nullptr, to.native_handle(), nullptr, left,
                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (m > 0) {
      left -= static_cast<size_t>(m);
      continue;
    }
    if (m < 0 && errno == EINTR) continue;
    if (m < 0 && errno == EAGAIN) {
      to.async_wait(tcp::socket::wait_write,
                    [self = shared_from_this(), &from, &to, &pipe, left](error_code ec) {
                      if (ec) return self->close();
                      if (self->drain(from, to, pipe, left)) self->pump(from, to, pipe);
                    });
      return false;
    }
    close();
    return false;
  }
  return true;
}

// DNS over TCP to the sandbox's resolver address: 2-byte length, message.
void Relay::serve_dns() {
  auto self = shared_from_this();
  asio::async_read(in_, asio::buffer(len_), [self](error_code ec, size_t) {
    if (ec) return self->close();
    size_t n = (static_cast<uint8_t>(self->len_[0]) << 8) | static_cast<uint8_t>(self->len_[1]);
    self->up_.resize(n);
    asio::async_read(self->in_, asio::buffer(self->up_), [self](error_code ec2, size_t got) {
      if (ec2) return self->close();
      self->s_.answer(std::string(self->up_.data(), got), [self](std::string reply) {
        if (reply.empty()) return self->close();
        self->reply_ = std::string{static_cast<char>(reply.size() >> 8),
                                   static_cast<char>(reply.size() & 0xff)} +
                       reply;
        asio::async_write(self->in_, asio::buffer(self->reply_), [self](error_code ec3, size_t) {
          if (ec3) return self->close();
          self->serve_dns();
        });
      });
    });
  });
}

}  // namespace cordon::enforcer::net
