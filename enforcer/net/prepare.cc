#include "enforcer/net/prepare.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include "schema/policy/destination.h"
#include "util/path.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

using schema::RuleKind;
using util::Error;

namespace {

// The rules of one kind as the proxy applies them, each listed once in
// `allowed`; loopback literals warned about.
std::vector<schema::NetDestination> destinations(const std::vector<const schema::Rule*>& rules,
                                                 const std::string& suffix, NetLaunch& net) {
  std::vector<schema::NetDestination> dests;
  for (const auto* r : rules) {
    if (!r->destination) continue;
    const auto& d = *r->destination;
    dests.push_back(d);
    std::string shown = schema::format_destination(d);
    if (std::find(net.allowed.begin(), net.allowed.end(), shown + suffix) == net.allowed.end())
      net.allowed.push_back(shown + suffix);
    bool loopback =
        (d.host_kind == schema::NetDestination::HostKind::kIpv4 && d.host.rfind("127.", 0) == 0) ||
        (d.host_kind == schema::NetDestination::HostKind::kIpv6 && d.host == "::1");
    if (loopback) {
      net.warnings.push_back(fmt::format(
          "{}:{}: {} {}: loopback inside the sandbox is the sandbox's own, so "
          "this only lets an allowed name that resolves there be dialled; "
          "write host.internal:PORT to reach the host's",
          util::printable(r->origin.file), r->origin.line, schema::rule_kind_name(r->kind), shown));
    }
  }
  return dests;
}

// The host's side of `expose PORT`: 127.0.0.1:PORT, listening already, so
// a port taken on the host refuses the run before it starts.
util::Result<util::Fd> listen_on_host(uint16_t port) {
  util::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return util::sys_error("socket");
  int on = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return util::sys_error(fmt::format("cannot listen on the host's 127.0.0.1:{}", port));
  if (::listen(fd.get(), SOMAXCONN) != 0) return util::sys_error("listen");
  return fd;
}

}  // namespace

util::Result<std::optional<NetLaunch>> prepare_net(const schema::EffectivePolicy& policy,
                                                   const std::string& dns_upstream) {
  auto tcp = policy.rules_of(RuleKind::kAllowTcp);
  auto udp = policy.rules_of(RuleKind::kAllowUdp);
  auto expose = policy.rules_of(RuleKind::kExpose);
  if (tcp.empty() && udp.empty() && expose.empty()) return std::optional<NetLaunch>{};

  NetLaunch net;
  net.tools = find_net_tools();
  if (net.tools.ip.empty() || net.tools.iptables.empty()) {
    return Error{fmt::format(
        "the policy has network rules, which need {} to set up the sandbox's network; "
        "refusing to run without them",
        net.tools.ip.empty() && net.tools.iptables.empty() ? "ip (iproute2) and iptables"
        : net.tools.ip.empty()                             ? "ip (iproute2)"
                                                           : "iptables")};
  }
  auto tcp_dests = destinations(tcp, "", net);
  auto udp_dests = destinations(udp, " (udp)", net);
  net.udp = !udp.empty();
  net.expose = !expose.empty();
  SessionOptions options;
  for (const auto* r : expose) {
    auto fd = listen_on_host(r->port);
    if (!fd) {
      return Error{fmt::format("{}:{}: expose {}: {}; refusing to run",
                               util::printable(r->origin.file), r->origin.line, r->port,
                               fd.error().message)};
    }
    options.exposed.push_back(std::move(*fd));
  }
  auto pair = util::seqpacket_pair();
  if (!pair) return pair.error();
  options.rules = Rules(std::move(tcp_dests));
  options.udp_rules = Rules(std::move(udp_dests));
  options.upstream = dns_upstream;
  auto session = Session::create(std::move(options), std::move(pair->first));
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

std::vector<std::string> helper_argv(const NetLaunch& net, int filter_fd,
                                     const std::string& helper) {
  std::string features;
  for (auto [on, name] :
       {std::pair{net.udp, kFeatureUdp}, std::pair{net.record_udp, kFeatureRecordUdp},
        std::pair{net.expose, kFeatureExpose}}) {
    if (on) features += (features.empty() ? "" : ",") + std::string(name);
  }
  return {helper,
          "__netsetup",
          std::to_string(net.sandbox_end.get()),
          filter_fd < 0 ? "-" : std::to_string(filter_fd),
          std::to_string(::getuid()),
          std::to_string(::getgid()),
          net.tools.ip,
          net.tools.iptables,
          net.tools.ip6tables.empty() ? "-" : net.tools.ip6tables,
          features.empty() ? "-" : features,
          "--"};
}

}  // namespace cordon::enforcer::net
