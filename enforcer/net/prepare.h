// What `cordon run` adds to a launch for a policy with network rules: the
// control socket pair, the proxy session, the capabilities the setup helper
// needs, the sandbox's resolv.conf, and what the context file lists.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "enforcer/net/session.h"
#include "enforcer/net/setup.h"
#include "enforcer/net_probe.h"
#include "schema/policy/effective.h"
#include "util/fd.h"
#include "util/result.h"

namespace cordon::enforcer::net {

struct NetLaunch {
  std::shared_ptr<Session> session;
  util::Fd sandbox_end;              // the control socket's sandbox end, for bwrap to pass on
  NetTools tools;                    // absolute paths; ip6tables may be empty
  std::string resolv_conf;           // the sandbox's /etc/resolv.conf
  std::vector<std::string> allowed;  // destinations as written canonically, " (udp)" after UDP ones
  bool udp = false;                  // allow_udp: the helper sets up TPROXY, or refuses
  bool expose = false;               // expose: the helper leaves the socket factory
  bool record_udp = false;           // learning: UDP through the proxy where TPROXY works
  std::vector<std::string> warnings;  // for stderr before the run
};

// nullopt when the policy has no network rules (the sandbox keeps only its
// own loopback). Refuses, rather than running unenforced: a host without ip
// or iptables, an exposed port taken on the host, a bad DNS upstream. (No
// TPROXY for allow_udp is found out, and refused, by the helper.)
util::Result<std::optional<NetLaunch>> prepare_net(const schema::EffectivePolicy& policy,
                                                   const std::string& dns_upstream);

// The arguments that run the setup helper ahead of the command:
// `HELPER __netsetup FD FILTER_FD UID GID IP IPTABLES IP6TABLES FEATURES --`, the
// filter being the run's seccomp filter, which the helper installs last
// (none when `filter_fd` is negative: learning, see learn.h). `helper` is
// where the sandbox sees the cordon executable.
std::vector<std::string> helper_argv(const NetLaunch& net, int filter_fd,
                                     const std::string& helper = kHelperPath);

}  // namespace cordon::enforcer::net
