#include "enforcer/net_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "enforcer/capture.h"
#include "util/fd.h"
#include "util/path.h"

namespace cordon::enforcer {

namespace {

constexpr std::chrono::seconds kProbeTimeout{30};

// Prints one line per step tried, "STEP ok" or "STEP fail MESSAGE". The tools
// arrive as $1..$3 (empty when absent) so no path is ever quoted into code.
constexpr const char* kNetScript = R"sh(
try() {
  step=$1; shift
  if out=$("$@" 2>&1); then echo "$step ok"; else echo "$step fail $(printf '%s' "$out" | tr '\n' ' ')"; fi
}
ip=$1 ipt=$2 ip6t=$3
if [ -n "$ip" ]; then
  try dummy "$ip" link add cordon0 type dummy
  try lo_route /bin/sh -c '"$0" link set lo up && "$0" route add default dev lo && "$0" -6 route add default dev lo' "$ip"
fi
if [ -n "$ipt" ]; then
  try nat "$ipt" -t nat -A OUTPUT -p tcp ! -d 127.0.0.0/8 -j DNAT --to-destination 127.0.0.1:9
  try tproxy "$ipt" -t mangle -A PREROUTING -p udp -j TPROXY --on-port 9 --tproxy-mark 1
fi
if [ -n "$ip6t" ]; then
  try nat6 "$ip6t" -t nat -A OUTPUT -p tcp ! -d ::1/128 -j DNAT --to-destination [::1]:9
fi
)sh";

std::string first_executable(std::initializer_list<const char*> candidates) {
  for (const char* c : candidates) {
    if (::access(c, X_OK) == 0) return c;
  }
  return "";
}

}  // namespace

NetTools find_net_tools() {
  if (const char* dir = std::getenv("CORDON_NET_TOOLS_DIR"); dir && *dir) {
    // Only an absolute directory: the paths are used inside the sandbox.
    auto in_dir = [&](const char* name) {
      std::string path = util::join_path(dir, name);
      return dir[0] == '/' && ::access(path.c_str(), X_OK) == 0 ? path : std::string();
    };
    return {in_dir("ip"), in_dir("iptables"), in_dir("ip6tables")};
  }
  return {first_executable({"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}),
          first_executable({"/usr/sbin/iptables", "/sbin/iptables", "/usr/bin/iptables"}),
          first_executable({"/usr/sbin/ip6tables", "/sbin/ip6tables", "/usr/bin/ip6tables"})};
}

util::Result<NetProbe> probe_net(const std::string& bwrap, const NetTools& tools) {
  // uid 0 inside the namespace so the added capability is effective for the
  // tools; /run is private because iptables-legacy takes its lock there and
  // the rest of the host stays read-only.
  std::vector<std::string> argv = {bwrap,
                                   "--unshare-user",
                                   "--uid",
                                   "0",
                                   "--gid",
                                   "0",
                                   "--unshare-net",
                                   "--cap-add",
                                   "CAP_NET_ADMIN",
                                   "--die-with-parent",
                                   "--ro-bind",
                                   "/",
                                   "/",
                                   "--tmpfs",
                                   "/run",
                                   "--tmpfs",
                                   "/tmp",
                                   "/bin/sh",
                                   "-c",
                                   kNetScript,
                                   "sh",
                                   tools.ip,
                                   tools.iptables,
                                   tools.ip6tables};
  auto run = run_captured(argv, kProbeTimeout);
  if (!run.ok()) return run.error();
  if (run->status.code != 0) {
    std::string err = one_line(run->err);
    return util::Error{"bwrap could not build a user + network namespace: " +
                           (err.empty() ? "exit status " + std::to_string(run->status.code) : err),
                       EPERM};
  }
  NetProbe probe;
  std::istringstream lines(run->out);
  std::string line;
  while (std::getline(lines, line)) {
    auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    std::string step = line.substr(0, sp), rest = line.substr(sp + 1);
    std::string outcome;
    if (rest.rfind("fail", 0) == 0) {
      outcome = one_line(rest.substr(4));
      outcome.erase(0, outcome.find_first_not_of(' '));
      if (outcome.empty()) outcome = "failed without a message";
    } else if (rest != "ok") {
      continue;
    }
    if (step == "dummy") probe.dummy = outcome;
    if (step == "lo_route") probe.lo_route = outcome;
    if (step == "nat") probe.nat = outcome;
    if (step == "nat6") probe.nat6 = outcome;
    if (step == "tproxy") probe.tproxy = outcome;
  }
  return probe;
}

bool tproxy_target_loaded() {
  util::Fd fd(::open("/proc/net/ip_tables_targets", O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line == "TPROXY") return true;
  }
  return false;
}

}  // namespace cordon::enforcer
