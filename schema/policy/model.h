// The policy model: what a parsed policy file says, rule by rule.
//
// A Policy is an ordered list of rules. Each rule keeps both its expanded
// value (what enforcement uses) and the value as written plus where it was
// written (what error messages and `cordon policy show` use). Two policies are
// equivalent when they hold the same kinds and expanded values in the same
// order; origins and spellings do not matter (see `equivalent`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon::schema {

enum class RuleKind {
  kAllowRead,   // fs: path is visible, read-only
  kAllowWrite,  // fs: path is visible and writable (implies read)
  kDenyWrite,   // fs: path stays read-only whatever grants cover it
  kDeny,        // fs: path is absent whatever grants cover it
  kAllowTcp,    // net: outgoing TCP to a destination
  kAllowUdp,    // net: outgoing UDP to a destination
  kExpose,      // net: a port the sandbox may listen on
  kPass,        // env: a variable passed into the sandbox
};

enum class Block { kFs, kNet, kEnv };

// Keyword as written in the language ("allow_read") and the block it lives in.
std::string_view rule_kind_name(RuleKind kind);
Block rule_block(RuleKind kind);
std::string_view block_name(Block block);
bool is_fs_rule(RuleKind kind);

struct Origin {
  std::string file;  // as the caller named it; bytes, not necessarily UTF-8
  int line = 0;      // 1-based
  int column = 0;    // 1-based, counted in bytes
  bool operator==(const Origin&) const = default;
};

// A parsed `host:port` of allow_tcp / allow_udp.
struct NetDestination {
  enum class HostKind {
    kName,      // DNS name, lower-cased
    kIpv4,      // dotted quad
    kIpv6,      // canonical inet_ntop form, without brackets
    kInternal,  // "host.internal": the machine running the sandbox
  };
  HostKind host_kind = HostKind::kName;
  std::string host;
  // Inclusive range; a single port has first == last; "*" is 1..65535.
  uint16_t port_first = 0;
  uint16_t port_last = 0;
  bool operator==(const NetDestination&) const = default;
};

struct Rule {
  RuleKind kind = RuleKind::kAllowRead;
  // Expanded value in canonical text form: a clean absolute path (fs rules),
  // "host:port" as `format_destination` prints it (allow_tcp/allow_udp), a
  // decimal port (expose), or a variable name (pass).
  std::string value;
  std::optional<NetDestination> destination;  // set for allow_tcp/allow_udp
  uint16_t port = 0;                          // set for expose
  std::string written;                        // the value before expansion
  Origin origin;                              // where the value was written
};

struct Policy {
  std::vector<Rule> rules;
};

// Same kinds and expanded values in the same order.
bool equivalent(const Policy& a, const Policy& b);

}  // namespace cordon::schema
