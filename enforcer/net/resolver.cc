// The sandbox's resolver (Session::Impl::answer) and the proxy's upstream
// lookups (Session::Impl::resolve).
//
// Enforcing, a name some rule allows gets a fake address at once and the
// upstream is asked only when a connection to it is dialled; any other name
// is NXDOMAIN. Learning, every name is asked upstream first, so the program
// sees the same existence and failures it would outside, and gets a fake
// address only when the name has real ones.
#include <fmt/format.h>

#include "enforcer/net/dns.h"
#include "enforcer/net/lookup.h"
#include "enforcer/net/session_impl.h"

namespace cordon::enforcer::net {

namespace {
constexpr uint32_t kFakeTtl = 60;
}  // namespace

void Session::Impl::answer(std::string query, ReplyDone reply) {
  auto q = dns::parse_query(query);
  if (!q) return reply("");
  if (q->qclass != 1) return reply(dns::build_response(query, *q, dns::kNotImp, {}, 0));
  const bool address = q->qtype == dns::kTypeA || q->qtype == dns::kTypeAAAA;
  auto minted = [this](const std::string& query, const dns::Question& q) {
    uint32_t i = pool.index(q.name);
    std::vector<boost::asio::ip::address> out;
    if (q.qtype == dns::kTypeA) out.push_back(FakePool::v4(i));
    if (q.qtype == dns::kTypeAAAA && v6) out.push_back(FakePool::v6(i));
    return dns::build_response(query, q, dns::kNoError, out, kFakeTtl);
  };
  if (!record_all) {
    if (!rules.name_known(q->name) && !udp_rules.name_known(q->name)) {
      if (address) log.lookup(q->name, false, "not named by any allow_tcp or allow_udp rule");
      return reply(dns::build_response(query, *q, dns::kNxDomain, {}, 0));
    }
    if (address) log.lookup(q->name, true);
    return reply(minted(query, *q));
  }
  if (!address || q->name == kHostInternal) {
    if (address) log.lookup(q->name, true);
    return reply(minted(query, *q));
  }
  resolve(q->name, [this, query = std::move(query), q = *q, reply = std::move(reply),
                    minted](const Resolution& r) {
    log.lookup(q.name, true, r.error);
    if (!r.addresses.empty()) return reply(minted(query, q));
    reply(dns::build_response(query, q, r.rcode, {}, 0));
  });
}

void Session::Impl::resolve(const std::string& name, ResolveDone done) {
  if (!record_all) return std::make_shared<Lookup>(*this, name, std::move(done))->start();
  if (auto it = resolved.find(name); it != resolved.end()) return done(it->second);
  auto& waiting = resolving[name];
  waiting.push_back(std::move(done));
  if (waiting.size() > 1) return;
  std::make_shared<Lookup>(*this, name, [this, name](const Resolution& r) {
    resolved[name] = r;
    auto waiters = std::move(resolving[name]);
    resolving.erase(name);
    for (auto& w : waiters) w(r);
  })->start();
}

}  // namespace cordon::enforcer::net
