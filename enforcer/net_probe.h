// What the sandbox's network setup can do on this host, found by doing it:
// inside a fresh user + network namespace, as an unprivileged user holding
// CAP_NET_ADMIN only there, the probe tries each step the setup takes.
// Nothing outside that namespace is touched, and it dies with the probe.
#pragma once

#include <optional>
#include <string>

#include "util/result.h"

namespace cordon::enforcer {

// Absolute paths, empty where the host has none (never looked up in PATH).
// $CORDON_NET_TOOLS_DIR, when set, is the one directory searched instead of
// the standard ones: for an unusual install, and for tests of a host that
// lacks a tool. The tools run inside the sandbox, so it must be visible there.
struct NetTools {
  std::string ip;
  std::string iptables;
  std::string ip6tables;
};
NetTools find_net_tools();

// Each step: nullopt when not tried (its tool is missing), "" when it
// worked, else the tool's error message on one line.
struct NetProbe {
  std::optional<std::string> dummy;     // ip link add TYPE dummy
  std::optional<std::string> lo_route;  // lo up, IPv4 and IPv6 default routes via lo
  std::optional<std::string> nat;       // iptables nat OUTPUT DNAT to loopback
  std::optional<std::string> nat6;      // the same with ip6tables
  std::optional<std::string> tproxy;    // iptables mangle PREROUTING TPROXY
};

// Errors: bwrap could not build the namespace (its message), or hung.
util::Result<NetProbe> probe_net(const std::string& bwrap, const NetTools& tools);

// Whether /proc/net/ip_tables_targets names TPROXY: the host has the target
// loaded (or built in). When it does not, it may still load on demand, which
// only privileged code can find out.
bool tproxy_target_loaded();

}  // namespace cordon::enforcer
