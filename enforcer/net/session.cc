#include "enforcer/net/session.h"

#include "enforcer/net/fake_pool.h"
#include "enforcer/net/splice_pipe.h"

#include "util/fd.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "enforcer/net/dns.h"
#include "enforcer/net/setup.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;
using boost::system::error_code;

namespace {

// SO_ORIGINAL_DST (linux/netfilter_ipv4.h) and IP6T_SO_ORIGINAL_DST
// (linux/netfilter_ipv6/ip6_tables.h); both 80. Those headers clash with
// netinet/in.h.
constexpr int kSoOriginalDst = 80;
constexpr uint32_t kFakeTtl = 60;
constexpr auto kDialTimeout = std::chrono::seconds(15);
constexpr auto kLookupTimeout = std::chrono::seconds(5);

std::string show(const asio::ip::address& a, uint16_t port) {
  return a.is_v6() ? fmt::format("[{}]:{}", a.to_string(), port)
                   : fmt::format("{}:{}", a.to_string(), port);
}

class Relay;

}  // namespace

struct Session::Impl {
  Rules rules;
  std::optional<udp::endpoint> upstream;
  util::Fd control;
  FakePool pool;
  bool v6 = false;
  std::map<std::string, std::pair<std::string, int>> refused;  // destination -> (reason, count)
  std::map<std::string, int> refused_names;
  std::map<std::string, std::pair<std::string, int>> failed;  // allowed, but could not be reached
  std::list<std::weak_ptr<Relay>> relays;
  std::mt19937 rng{std::random_device{}()};
  // Declared last: destroyed first, with the handlers that hold relays.
  asio::io_context io{1};
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::vector<std::unique_ptr<udp::socket>> dns_sockets;
  std::thread thread;
  std::mutex mu;
  bool started = false, stopped = false;

  void run();
  void accept(tcp::acceptor& acc);
  void serve_udp(udp::socket& s);
  std::string answer(std::string_view query);
  void refuse(const std::string& dest, const std::string& reason) {
    auto& e = refused[dest];
    e.first = reason;
    ++e.second;
  }
  void close_all();
};

namespace {

// Asks the upstream resolver for A and AAAA of one name.
class Lookup : public std::enable_shared_from_this<Lookup> {
 public:
  using Done = std::function<void(std::vector<asio::ip::address>, std::string)>;
  Lookup(Session::Impl& s, std::string name, Done done)
      : s_(s), name_(std::move(name)), done_(std::move(done)), sock_(s.io), timer_(s.io) {}

  void start() {
    if (!s_.upstream)
      return finish("no upstream resolver (set --dns-upstream or CORDON_DNS_UPSTREAM)");
    error_code ec;
    sock_.open(s_.upstream->protocol(), ec);
    if (!ec) sock_.connect(*s_.upstream, ec);
    if (ec) return finish("upstream resolver: " + ec.message());
    for (uint16_t type : {dns::kTypeA, dns::kTypeAAAA}) {
      uint16_t id = static_cast<uint16_t>(s_.rng());
      ids_.push_back(id);
      sock_.send(asio::buffer(dns::build_query(id, name_, type)), 0, ec);
    }
    timer_.expires_after(kLookupTimeout);
    timer_.async_wait([self = shared_from_this()](error_code e) {
      if (!e) self->finish("upstream resolver did not answer");
    });
    receive();
  }

 private:
  void receive() {
    sock_.async_receive(asio::buffer(buf_), [self = shared_from_this()](error_code ec, size_t n) {
      if (self->done_ == nullptr) return;
      if (ec) return self->finish("upstream resolver: " + ec.message());
      auto reply = dns::parse_reply(std::string_view(self->buf_.data(), n));
      if (reply) {
        auto it = std::find(self->ids_.begin(), self->ids_.end(), reply->id);
        if (it != self->ids_.end()) {
          self->ids_.erase(it);
          if (reply->rcode != dns::kNoError) self->rcode_ = reply->rcode;
          self->addrs_.insert(self->addrs_.end(), reply->addresses.begin(), reply->addresses.end());
          if (self->ids_.empty()) return self->finish("");
        }
      }
      self->receive();
    });
  }
  void finish(const std::string& err) {
    if (!done_) return;
    auto done = std::move(done_);
    done_ = nullptr;
    timer_.cancel();
    error_code ec;
    sock_.close(ec);
    if (err.empty() && addrs_.empty()) {
      done({}, rcode_ == dns::kNxDomain ? "does not exist (upstream NXDOMAIN)" : "has no address");
    } else {
      done(addrs_, err);
    }
  }

  Session::Impl& s_;
  std::string name_;
  Done done_;
  udp::socket sock_;
  asio::steady_timer timer_;
  std::vector<uint16_t> ids_;
  std::vector<asio::ip::address> addrs_;
  int rcode_ = 0;
  std::array<char, 4096> buf_;
};

// One connection from the sandbox: decided, dialled, then relayed.
class Relay : public std::enable_shared_from_this<Relay> {
 public:
  Relay(Session::Impl& s, tcp::socket in) : s_(s), in_(std::move(in)), out_(s.io), timer_(s.io) {}

  void start() {
    auto dst = original_destination();
    if (!dst) return close();  // not redirected: someone connected to the listener itself
    auto [addr, port] = *dst;
    addr = unmapped(addr);
    if (FakePool::is_resolver(addr) && port == 53) return serve_dns();
    if (FakePool::in_pool(addr)) {
      auto name = s_.pool.lookup(addr);
      if (!name) return refuse(show(addr, port), "not an address the sandbox's resolver gave out");
      dest_ = fmt::format("{}:{}", *name, port);
      if (!s_.rules.allows_name(*name, port)) return refuse(dest_, "no allow_tcp rule");
      if (*name == kHostInternal) {
        return dial({tcp::endpoint(asio::ip::address_v4::loopback(), port),
                     tcp::endpoint(asio::ip::address_v6::loopback(), port)});
      }
      auto self = shared_from_this();
      auto lookup = std::make_shared<Lookup>(
          s_, *name,
          [self, port, name = *name](std::vector<asio::ip::address> addrs, std::string err) {
            if (!err.empty()) return self->fail(fmt::format("{} {}", name, err));
            std::vector<tcp::endpoint> eps;
            std::vector<std::string> special;
            for (const auto& a : addrs) {
              if (is_special(a) && !self->s_.rules.names_address(a)) {
                special.push_back(a.to_string());
                continue;
              }
              eps.emplace_back(a, port);
            }
            if (eps.empty()) {
              std::string list;
              for (const auto& a : special) list += (list.empty() ? "" : ", ") + a;
              return self->refuse(self->dest_,
                                  fmt::format("resolves only to local or private addresses ({}), "
                                              "which need a rule naming them",
                                              list));
            }
            // IPv4 first: the host's IPv6 may well have no route.
            std::stable_partition(eps.begin(), eps.end(),
                                  [](const tcp::endpoint& e) { return e.address().is_v4(); });
            self->dial(eps);
          });
      lookup->start();
      return;
    }
    dest_ = show(addr, port);
    if (addr.is_loopback())
      return refuse(dest_, "loopback is the sandbox's own; use host.internal");
    if (!s_.rules.allows_address(addr, port)) return refuse(dest_, "no allow_tcp rule");
    dial({tcp::endpoint(addr, port)});
  }

  void close() {
    error_code ec;
    in_.close(ec);
    out_.close(ec);
    timer_.cancel();
  }

 private:
  std::optional<std::pair<asio::ip::address, uint16_t>> original_destination() {
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

  void refuse(const std::string& dest, const std::string& reason) {
    s_.refuse(dest, reason);
    // A reset, so the client sees the refusal at once rather than an EOF.
    error_code ec;
    in_.set_option(asio::socket_base::linger(true, 0), ec);
    close();
  }

  void fail(const std::string& reason) {
    auto& e = s_.failed[dest_];
    e.first = reason;
    ++e.second;
    error_code ec;
    in_.set_option(asio::socket_base::linger(true, 0), ec);
    close();
  }

  void dial(std::vector<tcp::endpoint> eps) {
    auto self = shared_from_this();
    timer_.expires_after(kDialTimeout);
    timer_.async_wait([self](error_code ec) {
      if (!ec) {
        error_code e;
        self->out_.close(e);
      }
    });
    asio::async_connect(out_, eps, [self](error_code ec, const tcp::endpoint&) {
      self->timer_.cancel();
      if (ec) return self->fail("connect: " + ec.message());
      error_code e;
      self->out_.set_option(tcp::no_delay(true), e);
      self->in_.set_option(tcp::no_delay(true), e);
      self->in_.native_non_blocking(true, e);
      self->out_.native_non_blocking(true, e);
      self->pump(self->in_, self->out_, self->up_pipe_, 0);
      self->pump(self->out_, self->in_, self->down_pipe_, 1);
    });
  }

  // One direction of the relay: bytes move socket -> pipe -> socket with
  // splice(2), never through user space, which is what bounds a copying
  // relay's throughput. Readiness comes from the event loop; the splices
  // themselves are non-blocking.
  void pump(tcp::socket& from, tcp::socket& to, SplicePipe& pipe, int dir) {
    if (!pipe.ready() && !pipe.open()) return close();
    from.async_wait(tcp::socket::wait_read,
                    [self = shared_from_this(), &from, &to, &pipe, dir](error_code ec) {
                      if (ec) return self->close();
                      ssize_t n = ::splice(from.native_handle(), nullptr, pipe.write_end(), nullptr,
                                           kRelayBuffer, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                      if (n == 0) {
                        error_code e;
                        to.shutdown(tcp::socket::shutdown_send, e);
                        if (++self->halves_done_ == 2) self->close();
                        return;
                      }
                      if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                          return self->pump(from, to, pipe, dir);
                        return self->close();
                      }
                      self->drain(from, to, pipe, static_cast<size_t>(n), dir);
                    });
  }

  void drain(tcp::socket& from, tcp::socket& to, SplicePipe& pipe, size_t left, int dir) {
    while (left > 0) {
      ssize_t m = ::splice(pipe.read_end(), nullptr, to.native_handle(), nullptr, left,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (m > 0) {
        left -= static_cast<size_t>(m);
        continue;
      }
      if (m < 0 && (errno == EAGAIN || errno == EINTR)) {
        to.async_wait(tcp::socket::wait_write,
                      [self = shared_from_this(), &from, &to, &pipe, left, dir](error_code ec) {
                        if (ec) return self->close();
                        self->drain(from, to, pipe, left, dir);
                      });
        return;
      }
      return close();
    }
    pump(from, to, pipe, dir);
  }

  // DNS over TCP to the sandbox's resolver address: 2-byte length, message.
  void serve_dns() {
    auto self = shared_from_this();
    asio::async_read(in_, asio::buffer(len_), [self](error_code ec, size_t) {
      if (ec) return self->close();
      size_t n = (static_cast<uint8_t>(self->len_[0]) << 8) | static_cast<uint8_t>(self->len_[1]);
      self->up_.resize(n);
      asio::async_read(self->in_, asio::buffer(self->up_), [self](error_code ec2, size_t got) {
        if (ec2) return self->close();
        std::string reply = self->s_.answer(std::string_view(self->up_.data(), got));
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
  }

  Session::Impl& s_;
  tcp::socket in_, out_;
  asio::steady_timer timer_;
  std::string dest_;
  std::vector<char> up_;
  SplicePipe up_pipe_, down_pipe_;
  int halves_done_ = 0;
  std::array<char, 2> len_{};
  std::string reply_;
};

}  // namespace

std::string Session::Impl::answer(std::string_view query) {
  auto q = dns::parse_query(query);
  if (!q) return "";
  if (q->qclass != 1) return dns::build_response(query, *q, dns::kNotImp, {}, 0);
  if (!rules.name_known(q->name)) {
    if (q->qtype == dns::kTypeA || q->qtype == dns::kTypeAAAA) ++refused_names[q->name];
    return dns::build_response(query, *q, dns::kNxDomain, {}, 0);
  }
  uint32_t i = pool.index(q->name);
  std::vector<asio::ip::address> out;
  if (q->qtype == dns::kTypeA) out.push_back(FakePool::v4(i));
  if (q->qtype == dns::kTypeAAAA && v6) out.push_back(FakePool::v6(i));
  return dns::build_response(query, *q, dns::kNoError, out, kFakeTtl);
}

void Session::Impl::accept(tcp::acceptor& acc) {
  acc.async_accept([this, &acc](error_code ec, tcp::socket sock) {
    if (ec == asio::error::operation_aborted || !acc.is_open()) return;
    if (!ec) {
      auto r = std::make_shared<Relay>(*this, std::move(sock));
      relays.remove_if([](const std::weak_ptr<Relay>& w) { return w.expired(); });
      relays.push_back(r);
      r->start();
    }
    accept(acc);
  });
}

void Session::Impl::serve_udp(udp::socket& s) {
  auto buf = std::make_shared<std::array<char, 1500>>();
  auto from = std::make_shared<udp::endpoint>();
  s.async_receive_from(asio::buffer(*buf), *from, [this, &s, buf, from](error_code ec, size_t n) {
    if (ec == asio::error::operation_aborted || !s.is_open()) return;
    if (!ec) {
      std::string reply = answer(std::string_view(buf->data(), n));
      error_code e;
      if (!reply.empty()) s.send_to(asio::buffer(reply), *from, 0, e);
    }
    serve_udp(s);
  });
}

void Session::Impl::close_all() {
  error_code ec;
  for (auto& a : acceptors) a->close(ec);
  for (auto& d : dns_sockets) d->close(ec);
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
    } else {
      ::close(fd);
    }
  }
  {
    std::lock_guard lock(mu);
    control.reset();
    if (stopped) return;
  }
  for (auto& a : acceptors) accept(*a);
  for (auto& d : dns_sockets) serve_udp(*d);
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
  std::vector<std::string> out;
  auto times = [](int n) { return n == 1 ? std::string("once") : fmt::format("{} times", n); };
  for (const auto& [dest, e] : impl_->refused) {
    out.push_back(fmt::format("network: refused {} {}: {}", dest, times(e.second), e.first));
  }
  for (const auto& [name, n] : impl_->refused_names) {
    out.push_back(
        fmt::format("network: refused to resolve {} ({} {}): not named by any allow_tcp rule", name,
                    n, n == 1 ? "query" : "queries"));
  }
  for (const auto& [dest, e] : impl_->failed) {
    out.push_back(
        fmt::format("network: could not reach {} ({}): {}", dest, times(e.second), e.first));
  }
  return out;
}

}  // namespace cordon::enforcer::net
