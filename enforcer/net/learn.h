// Network learning: what `cordon trace` and `cordon learn` add to the learn
// sandbox so the network goes through the same topology as `cordon run`, in
// record-everything mode (docs/network.md, "Learning"). The sandbox gets its
// own network namespace and the setup helper, which execs the tracer's shim
// instead of installing a filter; the proxy resolves every name through the
// upstream, dials every destination and records each lookup and connection
// with the name it was attributed to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "enforcer/net/session.h"
#include "util/fd.h"
#include "util/result.h"

namespace cordon::enforcer::net {

struct LearnNet {
  std::shared_ptr<Session> session;  // record_all; start it before the sandbox
  // For the learn sandbox's bwrap, before its `--`: the namespaces and
  // capabilities the helper needs, and the sandbox's resolv.conf.
  std::vector<std::string> bwrap_args;
  // The helper's command line, to put ahead of the shim's.
  std::vector<std::string> prefix;
  // What bwrap must pass on; the caller keeps them open until it has started.
  std::vector<util::Fd> fds;
};

// Errors when the host cannot do it (no ip or iptables: the message says
// which) or the DNS upstream is malformed.
util::Result<LearnNet> prepare_learning(const std::string& dns_upstream);

}  // namespace cordon::enforcer::net
