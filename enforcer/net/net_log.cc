#include "enforcer/net/net_log.h"

#include <fmt/format.h>

namespace cordon::enforcer::net {

void NetLog::lookup(const std::string& name, bool allowed, const std::string& reason) {
  schema::NetRecord r;
  r.kind = "lookup";
  r.proto = "dns";
  r.name = name;
  r.allowed = allowed;
  if (!reason.empty()) r.reason = reason;
  add(std::move(r));
}

void NetLog::connect(const std::string& proto, const std::optional<std::string>& name,
                     const std::optional<std::string>& addr, uint16_t port, bool allowed,
                     const std::string& reason) {
  schema::NetRecord r;
  r.kind = "connect";
  r.proto = proto;
  r.name = name;
  r.addr = addr;
  r.port = port;
  r.allowed = allowed;
  if (!reason.empty()) r.reason = reason;
  add(std::move(r));
}

void NetLog::add(schema::NetRecord r) {
  Key key{r.kind, r.proto, r.name, r.addr, r.port, r.allowed, r.reason};
  auto [it, fresh] = index_.try_emplace(key, records_.size());
  if (fresh) {
    r.count = 0;
    records_.push_back(std::move(r));
  }
  ++records_[it->second].count;
}

std::vector<std::string> NetLog::report() const {
  auto times = [](int64_t n) { return n == 1 ? std::string("once") : fmt::format("{} times", n); };
  auto dest = [](const schema::NetRecord& r) {
    std::string host = r.name ? *r.name : r.addr.value_or("?");
    if (!r.name && host.find(':') != std::string::npos) host = "[" + host + "]";
    std::string shown = fmt::format("{}:{}", host, r.port.value_or(0));
    return r.proto == "udp" ? "udp " + shown : shown;
  };
  std::vector<std::string> refused, names, failed;
  for (const auto& r : records_) {
    if (r.kind == "lookup") {
      if (!r.allowed) {
        names.push_back(fmt::format("network: refused to resolve {} ({} {}): {}",
                                    r.name.value_or(""), r.count,
                                    r.count == 1 ? "query" : "queries", r.reason.value_or("")));
      }
    } else if (!r.allowed) {
      refused.push_back(fmt::format("network: refused {} {}: {}", dest(r), times(r.count),
                                    r.reason.value_or("")));
    } else if (r.reason) {
      failed.push_back(
          fmt::format("network: could not reach {} ({}): {}", dest(r), times(r.count), *r.reason));
    }
  }
  refused.insert(refused.end(), names.begin(), names.end());
  refused.insert(refused.end(), failed.begin(), failed.end());
  return refused;
}

}  // namespace cordon::enforcer::net
