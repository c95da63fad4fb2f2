// NetLog: every lookup and connection the proxy handled, one record per
// distinct (kind, proto, name, address, port, verdict, reason), counted.
// The end-of-run report and the trace's `net` table are both read from it,
// so what stderr says and what an audit records cannot disagree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "schema/trace_db.h"

namespace cordon::enforcer::net {

class NetLog {
 public:
  // A DNS question for `name` the sandbox's resolver answered.
  void lookup(const std::string& name, bool allowed, const std::string& reason = "");
  // A connection from the sandbox: `name` when it went to an address the
  // resolver minted, `addr` the address dialled (or the literal one
  // refused). An allowed connection with a reason could not be reached.
  void connect(const std::string& proto, const std::optional<std::string>& name,
               const std::optional<std::string>& addr, uint16_t port, bool allowed,
               const std::string& reason = "");

  // In the order each was first seen.
  const std::vector<schema::NetRecord>& records() const { return records_; }
  // One line per refused destination or name and per allowed destination
  // that could not be reached, with counts.
  std::vector<std::string> report() const;

 private:
  using Key =
      std::tuple<std::string, std::string, std::optional<std::string>, std::optional<std::string>,
                 std::optional<int64_t>, bool, std::optional<std::string>>;
  void add(schema::NetRecord record);

  std::vector<schema::NetRecord> records_;
  std::map<Key, size_t> index_;
};

}  // namespace cordon::enforcer::net
