#include "enforcer/net/lookup.h"

#include <algorithm>

#include "enforcer/net/dns.h"

namespace cordon::enforcer::net {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {
constexpr auto kLookupTimeout = std::chrono::seconds(5);
}  // namespace

Lookup::Lookup(Session::Impl& s, std::string name, ResolveDone done)
    : s_(s), name_(std::move(name)), done_(std::move(done)), sock_(s.io), timer_(s.io) {}

void Lookup::start() {
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

void Lookup::receive() {
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

void Lookup::finish(const std::string& err) {
  if (!done_) return;
  auto done = std::move(done_);
  done_ = nullptr;
  timer_.cancel();
  error_code ec;
  sock_.close(ec);
  Resolution r{addrs_, err, err.empty() ? rcode_ : dns::kServFail};
  if (err.empty() && addrs_.empty()) {
    r.error = rcode_ == dns::kNxDomain ? "does not exist (upstream NXDOMAIN)" : "has no address";
  }
  done(r);
}

}  // namespace cordon::enforcer::net
