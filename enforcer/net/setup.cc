#include "enforcer/net/setup.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/fd.h"
#include "util/process.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

using util::Fd;

namespace {

constexpr const char* kSourceAddress4 = "10.255.255.1";
constexpr const char* kSourceAddress6 = "fd00:c0d0:ffff::1";

[[noreturn]] void fail(const std::string& why) {
  fmt::print(stderr, "cordon: network setup failed: {}\n", why);
  std::fflush(stderr);
  ::_exit(125);
}

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

void write_proc(const char* path, const std::string& text) {
  Fd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    fail(fmt::format("write {}: {}", path, std::strerror(errno)));
  }
}

// The command's own user namespace, nested in the one bwrap made (where
// this helper is uid 0 and holds CAP_NET_ADMIN over the network namespace),
// mapping the invoking user's uid and gid back in: the command runs as the
// user, and holds nothing over the network namespace even if it were to
// regain capabilities in its own.
//
// Then capabilities, gone for good: securebits locked so uid 0 regains
// nothing at exec, ambient set cleared, bounding set emptied (needs
// CAP_SETPCAP, so before the uid changes), permitted/effective/inheritable
// zeroed, no_new_privs. Checked after.
void enter_user_namespace_and_drop(uid_t uid, gid_t gid) {
  if (::unshare(CLONE_NEWUSER) != 0)
    fail(fmt::format("unshare(CLONE_NEWUSER): {}", std::strerror(errno)));
  write_proc("/proc/self/setgroups", "deny");
  write_proc("/proc/self/uid_map", fmt::format("{} 0 1\n", uid));
  write_proc("/proc/self/gid_map", fmt::format("{} 0 1\n", gid));
  if (::prctl(PR_SET_SECUREBITS,
              SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
                  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                  SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
              0, 0, 0) != 0) {
    fail(fmt::format("prctl(PR_SET_SECUREBITS): {}", std::strerror(errno)));
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
    fail(fmt::format("prctl(PR_CAP_AMBIENT_CLEAR_ALL): {}", std::strerror(errno)));
  }
  for (int cap = 0; cap < 64; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;  // past the last capability this kernel has
      fail(fmt::format("prctl(PR_CAPBSET_DROP, {}): {}", cap, std::strerror(errno)));
    }
  }
  if (::setresgid(gid, gid, gid) != 0) fail(fmt::format("setresgid: {}", std::strerror(errno)));
  if (::setresuid(uid, uid, uid) != 0) fail(fmt::format("setresuid: {}", std::strerror(errno)));
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &hdr, data) != 0) fail(fmt::format("capset: {}", std::strerror(errno)));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    fail(fmt::format("no_new_privs: {}", std::strerror(errno)));
  std::ifstream status("/proc/self/status");
  std::string line;
  int checked = 0;
  while (std::getline(status, line)) {
    for (const char* field : {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"}) {
      if (line.rfind(field, 0) != 0) continue;
      ++checked;
      if (line.find_first_not_of("0 \t", std::strlen(field)) != std::string::npos) {
        fail("capabilities remain after dropping them: " + line);
      }
    }
  }
  if (checked != 5) fail("cannot verify that capabilities were dropped (/proc/self/status)");
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
    fail("the seccomp filter is missing or malformed");
  sock_fprog prog{static_cast<unsigned short>(bpf.size() / sizeof(sock_filter)),
                  reinterpret_cast<sock_filter*>(bpf.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
    fail(fmt::format("installing the seccomp filter: {}", std::strerror(errno)));
  }
}

void send(int sock, const std::string& what, int fd = -1) {
  if (auto st = util::send_message(sock, what, fd); !st)
    fail("sending to the host proxy: " + st.error().message);
}

}  // namespace

void netsetup_main(int argc, char** argv) {
  if (argc < 11 || std::string(argv[9]) != "--") {
    fail("usage: cordon __netsetup FD FILTER_FD UID GID IP IPTABLES IP6TABLES -- CMD...");
  }
  int ctl = std::atoi(argv[2]);
  int filter = std::atoi(argv[3]);
  auto uid = static_cast<uid_t>(std::strtoul(argv[4], nullptr, 10));
  auto gid = static_cast<gid_t>(std::strtoul(argv[5], nullptr, 10));
  std::string ip = argv[6], ipt = argv[7], ip6t = argv[8];
  if (::fcntl(ctl, F_SETFD, FD_CLOEXEC) != 0)
    fail("no control socket from the host (fd " + std::string(argv[2]) + ")");
  if (::fcntl(filter, F_SETFD, FD_CLOEXEC) != 0)
    fail("no seccomp filter (fd " + std::string(argv[3]) + ")");

  Listener tcp4 = open_loopback(AF_INET, SOCK_STREAM);
  Listener dns4 = open_loopback(AF_INET, SOCK_DGRAM);
  if (!tcp4.fd || !dns4.fd)
    fail(fmt::format("cannot listen on the sandbox's loopback: {}", std::strerror(errno)));
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
    if (auto err = run_tool(step); !err.empty()) fail(err);
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

  enter_user_namespace_and_drop(uid, gid);

  send(ctl, kMsgTcp4, tcp4.fd.get());
  send(ctl, kMsgDns4, dns4.fd.get());
  if (tcp6.fd) send(ctl, kMsgTcp6, tcp6.fd.get());
  if (dns6.fd) send(ctl, kMsgDns6, dns6.fd.get());
  send(ctl, kMsgReady);
  ::close(ctl);
  tcp4.fd.reset();
  dns4.fd.reset();
  tcp6.fd.reset();
  dns6.fd.reset();

  install_filter(filter);
  char** cmd = argv + 10;
  ::execvp(cmd[0], cmd);
  int err = errno;
  fmt::print(stderr, "cordon: cannot run {}: {}\n", cmd[0], std::strerror(err));
  std::fflush(stderr);
  ::_exit(err == ENOENT ? 127 : 126);
}

}  // namespace cordon::enforcer::net
