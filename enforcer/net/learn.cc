#include "enforcer/net/learn.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "enforcer/net/prepare.h"
#include "util/memfd.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

util::Result<LearnNet> prepare_learning(const std::string& dns_upstream) {
  NetLaunch net;
  net.tools = find_net_tools();
  if (net.tools.ip.empty() || net.tools.iptables.empty()) {
    return util::Error{
        fmt::format("no {} on this host", net.tools.ip.empty() && net.tools.iptables.empty()
                                              ? "ip (iproute2) or iptables"
                                          : net.tools.ip.empty() ? "ip (iproute2)"
                                                                 : "iptables")};
  }
  char exe[PATH_MAX];
  ssize_t len = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len < 0) return util::sys_error("readlink /proc/self/exe");
  exe[len] = '\0';

  auto pair = util::seqpacket_pair();
  if (!pair) return pair.error();
  SessionOptions options;
  options.upstream = dns_upstream;
  options.record_all = true;
  auto session = Session::create(std::move(options), std::move(pair->first));
  if (!session) return session.error();
  net.sandbox_end = std::move(pair->second);
  net.record_udp = true;

  LearnNet out;
  out.session = std::move(*session);
  // The learn sandbox shows the host's filesystem, cordon included, so the
  // helper runs from where it is. CAP_SETFCAP: see enforcer/launch.cc.
  out.bwrap_args = {
      "--unshare-user", "--unshare-net", "--uid",     "0",           "--gid",     "0",
      "--cap-add",      "CAP_NET_ADMIN", "--cap-add", "CAP_NET_RAW", "--cap-add", "CAP_SETPCAP",
      "--cap-add",      "CAP_SETFCAP"};
  // The host's resolv.conf may name a resolver on the host's loopback,
  // which inside is the sandbox's own; the proxy's takes its place. Where it
  // is a symlink, the file it names is covered: bwrap would follow it.
  char real[PATH_MAX];
  if (::realpath("/etc/resolv.conf", real) != nullptr) {
    auto fd = util::memfd_with(
        "cordon-resolv",
        fmt::format(
            "# Written by cordon while learning: cordon's proxy answers and records every name.\n"
            "nameserver {}\n",
            kResolverAddress));
    if (!fd) return fd.error();
    out.bwrap_args.insert(out.bwrap_args.end(),
                          {"--perms", "0444", "--ro-bind-data", std::to_string(fd->get()), real});
    out.fds.push_back(std::move(*fd));
  }
  out.prefix = helper_argv(net, -1, exe);
  out.fds.push_back(std::move(net.sandbox_end));
  return out;
}

}  // namespace cordon::enforcer::net
