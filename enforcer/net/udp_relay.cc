#include "enforcer/net/udp_relay.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/steady_timer.hpp>

#include "enforcer/net/factory_client.h"
#include "enforcer/net/socket_factory.h"

namespace cordon::enforcer::net {

namespace asio = boost::asio;
using asio::ip::udp;
using boost::system::error_code;

namespace {

constexpr auto kIdle = std::chrono::seconds(60);
constexpr size_t kMaxDatagram = 65535;
constexpr size_t kMaxQueued = 64;  // datagrams held while a flow is being decided

// Makes the factory's socket the flow's reply socket: transparent, bound to
// the original destination and connected to the sandbox's source. Checked
// first to be what was asked for: a fresh, unbound IPv4 UDP socket.
std::string make_reply_socket(int fd, const udp::endpoint& dst, const udp::endpoint& client) {
  int type = 0, domain = 0;
  socklen_t len = sizeof type;
  sockaddr_in self{};
  socklen_t self_len = sizeof self;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_DGRAM ||
      ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_INET ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &self_len) != 0 || self.sin_port != 0) {
    return "the socket factory handed over something else than a fresh UDP socket";
  }
  int on = 1;
  if (::setsockopt(fd, SOL_IP, IP_TRANSPARENT, &on, sizeof on) != 0 ||
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) {
    return fmt::format("reply socket: {}", std::strerror(errno));
  }
  if (::bind(fd, dst.data(), static_cast<socklen_t>(dst.size())) != 0 ||
      ::connect(fd, client.data(), static_cast<socklen_t>(client.size())) != 0) {
    return fmt::format("reply socket: {}", std::strerror(errno));
  }
  return "";
}

}  // namespace

// One flow: decided once, then relayed both ways until idle.
class UdpFlow : public std::enable_shared_from_this<UdpFlow> {
 public:
  UdpFlow(Session::Impl& s, udp::endpoint client, udp::endpoint dst, std::function<void()> gone)
      : s_(s),
        client_(client),
        dst_(dst),
        gone_(std::move(gone)),
        inner_(s.io),
        outer_(s.io),
        idle_(s.io) {}

  void start() {
    port_ = dst_.port();
    auto addr = unmapped(dst_.address());
    touch();
    if (FakePool::in_pool(addr)) {
      name_ = s_.pool.lookup(addr);
      if (!name_) {
        addr_ = addr.to_string();
        return refuse("not an address the sandbox's resolver gave out");
      }
      if (!s_.record_all && !s_.udp_rules.allows_name(*name_, port_))
        return refuse("no allow_udp rule");
      if (*name_ == kHostInternal)
        return open({udp::endpoint(asio::ip::address_v4::loopback(), port_)});
      s_.resolve(*name_, [self = shared_from_this()](const Resolution& r) {
        if (self->done_) return;
        if (!r.error.empty()) return self->fail(fmt::format("{} {}", *self->name_, r.error));
        std::vector<udp::endpoint> eps;
        for (const auto& a : r.addresses) {
          if (self->s_.record_all || !is_special(a) || self->s_.udp_rules.names_address(a))
            eps.emplace_back(a, self->port_);
        }
        if (eps.empty())
          return self->refuse(
              "resolves only to local or private addresses, which need a rule naming them");
        std::stable_partition(eps.begin(), eps.end(),
                              [](const udp::endpoint& e) { return e.address().is_v4(); });
        self->open(eps);
      });
      return;
    }
    addr_ = addr.to_string();
    if (addr.is_loopback()) return refuse("loopback is the sandbox's own; use host.internal");
    if (!s_.record_all && !s_.udp_rules.allows_address(addr, port_))
      return refuse("no allow_udp rule");
    open({udp::endpoint(addr, port_)});
  }

  // A datagram from the sandbox that reached the transparent socket.
  void send(std::string data) {
    if (done_ || refused_) return;
    touch();
    if (!inner_.is_open()) {
      if (queued_.size() < kMaxQueued) queued_.push_back(std::move(data));
      return;
    }
    error_code ec;
    outer_.send(asio::buffer(data), 0, ec);
  }

  void close() {
    if (done_) return;
    done_ = true;
    error_code ec;
    inner_.close(ec);
    outer_.close(ec);
    idle_.cancel();
    auto gone = std::move(gone_);
    if (gone) gone();
  }

 private:
  void touch() {
    idle_.expires_after(kIdle);
    idle_.async_wait([self = weak_from_this()](error_code ec) {
      if (auto f = self.lock(); f && !ec) f->close();
    });
  }

  void refuse(const std::string& reason) {
    s_.log.connect("udp", name_, addr_, port_, false, reason);
    refused_ = true;  // kept until idle, so a retry is dropped, not counted again
    queued_.clear();
  }

  void fail(const std::string& reason) {
    s_.log.connect("udp", name_, addr_, port_, true, reason);
    refused_ = true;
    queued_.clear();
  }

  void open(const std::vector<udp::endpoint>& eps) {
    error_code ec;
    const udp::endpoint& to = eps.front();
    outer_.open(to.protocol(), ec);
    if (!ec) outer_.connect(to, ec);
    if (ec) return fail("connect: " + ec.message());
    addr_ = to.address().to_string();
    if (!s_.factory) return fail("no socket factory in the sandbox");
    s_.factory->request(kFactoryUdp4, [self = shared_from_this()](util::Fd fd) {
      if (self->done_) return;
      if (!fd) return self->fail("the sandbox's socket factory is gone");
      if (auto err = make_reply_socket(fd.get(), self->dst_, self->client_); !err.empty())
        return self->fail(err);
      error_code e;
      self->inner_.assign(udp::v4(), fd.release(), e);
      if (e) return self->fail("reply socket: " + e.message());
      self->s_.log.connect("udp", self->name_, self->addr_, self->port_, true);
      for (auto& d : self->queued_) self->outer_.send(asio::buffer(d), 0, e);
      self->queued_.clear();
      self->pump(self->inner_, self->outer_, self->up_);
      self->pump(self->outer_, self->inner_, self->down_);
    });
  }

  void pump(udp::socket& from, udp::socket& to, std::vector<char>& buf) {
    buf.resize(kMaxDatagram);
    from.async_receive(asio::buffer(buf),
                       [self = shared_from_this(), &from, &to, &buf](error_code ec, size_t n) {
                         if (self->done_) return;
                         // A refused datagram (ICMP) on a connected socket is not the end.
                         if (ec && ec != asio::error::connection_refused) return self->close();
                         if (!ec) {
                           self->touch();
                           error_code e;
                           to.send(asio::buffer(buf.data(), n), 0, e);
                         }
                         self->pump(from, to, buf);
                       });
  }

  Session::Impl& s_;
  udp::endpoint client_, dst_;
  std::function<void()> gone_;
  udp::socket inner_, outer_;
  asio::steady_timer idle_;
  std::optional<std::string> name_, addr_;
  uint16_t port_ = 0;
  bool refused_ = false, done_ = false;
  std::deque<std::string> queued_;
  std::vector<char> up_, down_;
};

UdpRelay::UdpRelay(Session::Impl& s, int fd) : s_(s), tproxy_(s.io) {
  error_code ec;
  tproxy_.assign(udp::v4(), fd, ec);
  if (ec) ::close(fd);
}

void UdpRelay::start() {
  if (tproxy_.is_open()) receive();
}

void UdpRelay::close() {
  error_code ec;
  tproxy_.close(ec);
  auto flows = std::move(flows_);
  flows_.clear();
  for (auto& [key, flow] : flows) flow->close();
}

// recvmsg by hand: the original destination comes as a control message.
void UdpRelay::receive() {
  tproxy_.async_wait(udp::socket::wait_read, [this](error_code ec) {
    if (ec || !tproxy_.is_open()) return;
    std::string data(kMaxDatagram, '\0');
    sockaddr_in from{};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(sockaddr_in))> control{};
    iovec iov{data.data(), data.size()};
    msghdr msg{};
    msg.msg_name = &from;
    msg.msg_namelen = sizeof from;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    ssize_t n = ::recvmsg(tproxy_.native_handle(), &msg, MSG_DONTWAIT);
    std::optional<sockaddr_in> dst;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_ORIGDSTADDR) {
        sockaddr_in a;
        std::memcpy(&a, CMSG_DATA(c), sizeof a);
        dst = a;
      }
    }
    if (n >= 0 && dst) {
      data.resize(static_cast<size_t>(n));
      udp::endpoint client(asio::ip::address_v4(ntohl(from.sin_addr.s_addr)), ntohs(from.sin_port));
      udp::endpoint to(asio::ip::address_v4(ntohl(dst->sin_addr.s_addr)), ntohs(dst->sin_port));
      auto key = std::make_pair(client, to);
      auto it = flows_.find(key);
      if (it == flows_.end()) {
        auto flow = std::make_shared<UdpFlow>(s_, client, to, [this, key] { flows_.erase(key); });
        it = flows_.emplace(key, flow).first;
        flow->start();
      }
      if (auto f = flows_.find(key); f != flows_.end()) f->second->send(std::move(data));
    }
    receive();
  });
}

}  // namespace cordon::enforcer::net
