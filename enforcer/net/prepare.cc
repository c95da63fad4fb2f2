#include "enforcer/net/prepare.h"

#include <unistd.h>

#include <fmt/format.h>

#include "enforcer/net/setup.h"
#include "schema/policy/destination.h"
#include "util/path.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

using schema::RuleKind;
using util::Error;

util::Result<std::optional<NetLaunch>> prepare_net(const schema::EffectivePolicy& policy,
                                                   const std::string& dns_upstream) {
  for (auto [kind, what] : {std::pair{RuleKind::kAllowUdp, "allow_udp is not supported yet"},
                            std::pair{RuleKind::kExpose, "expose is not supported yet"}}) {
    auto rules = policy.rules_of(kind);
    if (!rules.empty()) {
      const auto& o = rules.front()->origin;
      return Error{fmt::format("{}:{}: {}; refusing to run rather than run with it unenforced",
                               util::printable(o.file), o.line, what)};
    }
  }
  auto tcp = policy.rules_of(RuleKind::kAllowTcp);
  if (tcp.empty()) return std::optional<NetLaunch>{};

  NetLaunch net;
  net.tools = find_net_tools();
  if (net.tools.ip.empty() || net.tools.iptables.empty()) {
    return Error{fmt::format(
        "the policy has allow_tcp rules, which need {} to set up the sandbox's network; "
        "refusing to run without them",
        net.tools.ip.empty() && net.tools.iptables.empty() ? "ip (iproute2) and iptables"
        : net.tools.ip.empty()                             ? "ip (iproute2)"
                                                           : "iptables")};
  }
  std::vector<schema::NetDestination> dests;
  for (const auto* r : tcp) {
    if (!r->destination) continue;
    const auto& d = *r->destination;
    dests.push_back(d);
    std::string shown = schema::format_destination(d);
    if (std::find(net.allowed.begin(), net.allowed.end(), shown) == net.allowed.end())
      net.allowed.push_back(shown);
    bool loopback =
        (d.host_kind == schema::NetDestination::HostKind::kIpv4 && d.host.rfind("127.", 0) == 0) ||
        (d.host_kind == schema::NetDestination::HostKind::kIpv6 && d.host == "::1");
    if (loopback) {
      net.warnings.push_back(
          fmt::format("{}:{}: allow_tcp {}: loopback inside the sandbox is the sandbox's own, so "
                      "this only lets an allowed name that resolves there be dialled; "
                      "write host.internal:PORT to reach the host's",
                      util::printable(r->origin.file), r->origin.line, shown));
    }
  }
  auto pair = util::seqpacket_pair();
  if (!pair) return pair.error();
  auto session = Session::create(SessionOptions{Rules(std::move(dests)), dns_upstream},
                                 std::move(pair->first));
  if (!session) return session.error();
  net.session = std::move(*session);
  net.sandbox_end = std::move(pair->second);
  net.resolv_conf = fmt::format(
      "# Written by cordon: names are answered by cordon's proxy, for the names the policy "
      "allows.\n"
      "nameserver {}\n",
      kResolverAddress);
  return std::optional<NetLaunch>(std::move(net));
}

std::vector<std::string> helper_argv(const NetLaunch& net, int filter_fd) {
  return {kHelperPath,
          "__netsetup",
          std::to_string(net.sandbox_end.get()),
          std::to_string(filter_fd),
          std::to_string(::getuid()),
          std::to_string(::getgid()),
          net.tools.ip,
          net.tools.iptables,
          net.tools.ip6tables.empty() ? "-" : net.tools.ip6tables,
          "--"};
}

}  // namespace cordon::enforcer::net
