#include "enforcer/net/setup.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "enforcer/net/drop_privileges.h"
#include "enforcer/net/socket_factory.h"
#include "util/fd.h"
#include "util/process.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

using util::Fd;

namespace {

constexpr const char* kSourceAddress4 = "10.255.255.1";
constexpr const char* kSourceAddress6 = "fd00:c0d0:ffff::1";
// The fwmark and routing table of redirected UDP; the namespace is the
// sandbox's own, so nothing else uses either.
constexpr const char* kUdpMark = "0x1";
constexpr const char* kUdpTable = "100";

// Runs a tool, its output captured; "" when it exited 0, else its output on
// one line (or the exit status).
std::string run_tool(const std::vector<std::string>& argv) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) return "pipe2: " + std::string(std::strerror(errno));
  Fd rd(p[0]), wr(p[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return "fork: " + std::string(std::strerror(errno));
  if (pid == 0) {
    util::reset_signals_for_exec();
    ::dup2(wr.get(), 1);
    ::dup2(wr.get(), 2);
    ::execv(args[0], args.data());
    fmt::print(stderr, "exec {}: {}", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  wr.reset();
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = ::read(rd.get(), buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd + ": " + (out.empty() ? fmt::format("exit status {}", WEXITSTATUS(status)) : out);
}

struct Listener {
  Fd fd;
  uint16_t port = 0;
};

// A socket bound to the namespace's loopback on a port the kernel picks.
Listener open_loopback(int family, int type) {
  Listener l;
  l.fd = Fd(::socket(family, type | SOCK_CLOEXEC, 0));
  if (!l.fd) return l;
  sockaddr_storage ss{};
  socklen_t len;
  if (family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *a;
  } else {
    int on = 1;
    ::setsockopt(l.fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    len = sizeof *a;
  }
  if (::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
      (type == SOCK_STREAM && ::listen(l.fd.get(), SOMAXCONN) != 0) ||
      ::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    l.fd.reset();
    return l;
  }
  l.port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                   : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return l;
}

// The run's seccomp filter (seccomp_policy.h), which bwrap would otherwise
// install: here it goes on last, after the calls above that it refuses.
void install_filter(int fd) {
  std::string bpf;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) bpf.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (bpf.empty() || bpf.size() % sizeof(sock_filter) != 0)
    setup_failed("the seccomp filter is missing or malformed");
  sock_fprog prog{static_cast<unsigned short>(bpf.size() / sizeof(sock_filter)),
                  reinterpret_cast<sock_filter*>(bpf.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
    setup_failed(fmt::format("installing the seccomp filter: {}", std::strerror(errno)));
  }
}

// UDP: TPROXY. A mark on the sandbox's UDP to anything but its own
// addresses and port 53 (DNAT'd to the resolver), a routing table that
// delivers marked packets locally, so they come back in through PREROUTING,
// where TPROXY hands them to one transparent socket that keeps each
// datagram's original destination. "" when done, else what failed; a
// half-done setup only loses UDP, which without it has nowhere to go anyway.
std::string redirect_udp(const std::string& ip, const std::string& ipt, Fd& out) {
  Listener l = open_loopback(AF_INET, SOCK_DGRAM);
  int on = 1;
  if (!l.fd || ::setsockopt(l.fd.get(), SOL_IP, IP_TRANSPARENT, &on, sizeof on) != 0 ||
      ::setsockopt(l.fd.get(), SOL_IP, IP_RECVORIGDSTADDR, &on, sizeof on) != 0) {
    return fmt::format("transparent socket: {}", std::strerror(errno));
  }
  for (const auto& step : std::vector<std::vector<std::string>>{
           {ipt, "-t", "mangle", "-A", "OUTPUT", "-p", "udp", "-d", "127.0.0.0/8", "-j", "RETURN"},
           {ipt, "-t", "mangle", "-A", "OUTPUT", "-p", "udp", "-d", kSourceAddress4, "-j",
            "RETURN"},
           {ipt, "-t", "mangle", "-A", "OUTPUT", "-p", "udp", "--dport", "53", "-j", "RETURN"},
           {ipt, "-t", "mangle", "-A", "OUTPUT", "-p", "udp", "-j", "MARK", "--set-mark", kUdpMark},
           {ip, "rule", "add", "fwmark", kUdpMark, "lookup", kUdpTable},
           {ip, "route", "add", "local", "default", "dev", "lo", "table", kUdpTable},
           {ipt, "-t", "mangle", "-A", "PREROUTING", "-i", "lo", "-p", "udp", "-m", "mark",
            "--mark", kUdpMark, "-j", "TPROXY", "--on-ip", "127.0.0.1", "--on-port",
            std::to_string(l.port)},
       }) {
    if (auto err = run_tool(step); !err.empty()) return err;
  }
  out = std::move(l.fd);
  return "";
}

void send(int sock, const std::string& what, int fd = -1) {
  if (auto st = util::send_message(sock, what, fd); !st)
    setup_failed("sending to the host proxy: " + st.error().message);
}

}  // namespace

void netsetup_main(int argc, char** argv) {
  if (argc < 12 || std::string(argv[10]) != "--") {
    setup_failed(
        "usage: cordon __netsetup FD FILTER_FD UID GID IP IPTABLES IP6TABLES FEATURES -- CMD...");
  }
  int ctl = std::atoi(argv[2]);
  // "-" while learning: the shim installs the learn-mode filter itself.
  const bool has_filter = std::string(argv[3]) != "-";
  int filter = has_filter ? std::atoi(argv[3]) : -1;
  auto uid = static_cast<uid_t>(std::strtoul(argv[4], nullptr, 10));
  auto gid = static_cast<gid_t>(std::strtoul(argv[5], nullptr, 10));
  std::string ip = argv[6], ipt = argv[7], ip6t = argv[8], features = argv[9];
  std::set<std::string> wanted;
  for (size_t at = 0; at <= features.size();) {
    size_t comma = std::min(features.find(',', at), features.size());
    wanted.insert(features.substr(at, comma - at));
    at = comma + 1;
  }
  const bool udp = wanted.count(kFeatureUdp) > 0;
  const bool record_udp = wanted.count(kFeatureRecordUdp) > 0;
  const bool expose = wanted.count(kFeatureExpose) > 0;
  if (::fcntl(ctl, F_SETFD, FD_CLOEXEC) != 0)
    setup_failed("no control socket from the host (fd " + std::string(argv[2]) + ")");
  if (has_filter && ::fcntl(filter, F_SETFD, FD_CLOEXEC) != 0)
    setup_failed("no seccomp filter (fd " + std::string(argv[3]) + ")");

  Listener tcp4 = open_loopback(AF_INET, SOCK_STREAM);
  Listener dns4 = open_loopback(AF_INET, SOCK_DGRAM);
  if (!tcp4.fd || !dns4.fd)
    setup_failed(fmt::format("cannot listen on the sandbox's loopback: {}", std::strerror(errno)));
  for (const auto& step : std::vector<std::vector<std::string>>{
           {ip, "link", "set", "lo", "up"},
           // A source address for the default route: without one the
           // kernel picks 0.0.0.0 for a non-loopback destination (lo's
           // 127.0.0.1 is host-scoped), and replies never match.
           {ip, "addr", "add", fmt::format("{}/32", kSourceAddress4), "dev", "lo"},
           {ip, "route", "add", "default", "dev", "lo", "src", kSourceAddress4},
           {ipt, "-t", "nat", "-A", "OUTPUT", "-p", "udp", "!", "-d", "127.0.0.0/8", "--dport",
            "53", "-j", "DNAT", "--to-destination", fmt::format("127.0.0.1:{}", dns4.port)},
           {ipt, "-t", "nat", "-A", "OUTPUT", "-p", "tcp", "!", "-d", "127.0.0.0/8", "-j", "DNAT",
            "--to-destination", fmt::format("127.0.0.1:{}", tcp4.port)},
       }) {
    if (auto err = run_tool(step); !err.empty()) setup_failed(err);
  }

  // IPv6: the same, or withdrawn entirely so a v6 connect fails at once.
  std::string v6_problem;
  Listener tcp6, dns6;
  if (ip6t == "-") {
    v6_problem = "no ip6tables on this host";
  } else {
    tcp6 = open_loopback(AF_INET6, SOCK_STREAM);
    dns6 = open_loopback(AF_INET6, SOCK_DGRAM);
    if (!tcp6.fd || !dns6.fd)
      v6_problem = fmt::format("no IPv6 loopback: {}", std::strerror(errno));
  }
  if (v6_problem.empty()) {
    for (const auto& step : std::vector<std::vector<std::string>>{
             {ip, "-6", "addr", "add", fmt::format("{}/128", kSourceAddress6), "dev", "lo",
              "nodad"},
             {ip, "-6", "route", "add", "default", "dev", "lo", "src", kSourceAddress6},
             {ip6t, "-t", "nat", "-A", "OUTPUT", "-p", "udp", "!", "-d", "::1/128", "--dport", "53",
              "-j", "DNAT", "--to-destination", fmt::format("[::1]:{}", dns6.port)},
             {ip6t, "-t", "nat", "-A", "OUTPUT", "-p", "tcp", "!", "-d", "::1/128", "-j", "DNAT",
              "--to-destination", fmt::format("[::1]:{}", tcp6.port)},
         }) {
      if (auto err = run_tool(step); !err.empty()) {
        v6_problem = err;
        break;
      }
    }
  }
  if (!v6_problem.empty()) {
    tcp6.fd.reset();
    dns6.fd.reset();
    (void)run_tool({ip, "-6", "route", "del", "default", "dev", "lo"});
    if (ip6t != "-") {
      (void)run_tool({ip6t, "-t", "nat", "-F", "OUTPUT"});
      (void)run_tool({ip6t, "-A", "OUTPUT", "!", "-o", "lo", "-j", "REJECT"});
    }
    fmt::print(
        stderr,
        "cordon: IPv6 is not redirected in this sandbox ({}); IPv6 destinations are unreachable\n",
        v6_problem);
  }

  Fd udp4;
  if (udp || record_udp) {
    if (auto err = redirect_udp(ip, ipt, udp4); !err.empty()) {
      if (udp) {
        setup_failed(
            fmt::format("allow_udp needs TPROXY, which could not be set up here ({}); "
                        "refusing to run rather than run with it unenforced",
                        err));
      }
      fmt::print(stderr, "cordon: UDP other than DNS goes nowhere while learning here ({})\n", err);
    }
  }
  // Before this process gives up what the factory gives up too.
  Fd factory = udp4 || expose ? start_socket_factory(uid, gid) : Fd();

  enter_user_namespace_and_drop(uid, gid);

  send(ctl, kMsgTcp4, tcp4.fd.get());
  if (udp4) send(ctl, kMsgUdp4, udp4.get());
  if (factory) send(ctl, kMsgFactory, factory.get());
  send(ctl, kMsgDns4, dns4.fd.get());
  if (tcp6.fd) send(ctl, kMsgTcp6, tcp6.fd.get());
  if (dns6.fd) send(ctl, kMsgDns6, dns6.fd.get());
  send(ctl, kMsgReady);
  ::close(ctl);
  tcp4.fd.reset();
  dns4.fd.reset();
  tcp6.fd.reset();
  dns6.fd.reset();
  udp4.reset();
  factory.reset();

  if (has_filter) install_filter(filter);
  char** cmd = argv + 11;
  ::execvp(cmd[0], cmd);
  int err = errno;
  fmt::print(stderr, "cordon: cannot run {}: {}\n", cmd[0], std::strerror(err));
  std::fflush(stderr);
  ::_exit(err == ENOENT ? 127 : 126);
}

}  // namespace cordon::enforcer::net
