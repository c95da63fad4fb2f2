#include "enforcer/doctor.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>

#include "enforcer/capture.h"
#include "enforcer/net_probe.h"
#include "enforcer/probe.h"
#include "enforcer/seccomp_probe.h"
#include "enforcer/sysctl.h"
#include "enforcer/userns.h"
#include "util/bwrap.h"

namespace cordon::enforcer {

namespace {

using namespace std::chrono_literals;

// What later checks need from earlier ones.
struct Found {
  std::string bwrap;  // empty unless it ran
  std::string bwrap_help;
  std::optional<Grade> grade;
  UsernsSettings userns;
  NetTools tools;
};

Check make(std::string name, State state, bool required, std::string detail, std::string fix = "") {
  return {std::move(name), state, required, std::move(detail), std::move(fix)};
}

std::string errno_text(int err) {
  return std::strerror(err);
}

Check check_bwrap(Found& f) {
  auto path = util::find_bwrap();
  if (!path.ok()) {
    return make("bwrap", State::kMissing, true, path.error().message,
                "apt-get install bubblewrap, or set CORDON_BWRAP=/absolute/path/to/bwrap");
  }
  auto version = run_captured({*path, "--version"}, 10s);
  if (!version.ok() || version->status.code != 0) {
    std::string why = version.ok() ? one_line(version->err) : version.error().message;
    return make("bwrap", State::kMissing, true, *path + " does not run: " + why,
                "reinstall bubblewrap");
  }
  auto help = run_captured({*path, "--help"}, 10s);
  if (help.ok()) f.bwrap_help = help->out + help->err;
  f.bwrap = *path;
  return make("bwrap", State::kOk, true, *path + " (" + one_line(version->out) + ")");
}

Check check_grade(Found& f) {
  const char* name = "bwrap-grade";
  if (f.bwrap.empty()) return make(name, State::kUnknown, true, "not tried: no bwrap that runs");
  std::string why;
  auto grade = reprobe_grade(f.bwrap, &why);
  if (!grade.ok()) {
    return make(name, State::kMissing, true, "the probe failed: " + grade.error().message);
  }
  f.grade = *grade;
  switch (*grade) {
    case Grade::kFull:
      return make(
          name, State::kOk, true,
          "full: private user, pid and mount namespaces, private /dev and /proc, read-only root");
    case Grade::kPartial:
      return make(
          name, State::kMissing, true,
          "partial: the full base failed (" + why +
              "); cordon run needs a private pid namespace and /proc (without them a sandbox "
              "reaches host processes and /proc/<pid>/root), so it refuses to run here",
          "run cordon where bwrap may unshare pid and mount /proc (not an unprivileged container)");
    case Grade::kUnusable:
      break;
  }
  std::string hint = userns_hint(f.userns, why);
  return make(name, State::kMissing, true, "unusable: neither base confines anything: " + why,
              hint.empty() ? "see the userns and apparmor-userns lines, and docs/troubleshooting.md"
                           : hint);
}

Check check_userns(const Found& f) {
  const char* name = "userns";
  const UsernsSettings& s = f.userns;
  if (!s.max_user_namespaces) {
    return make(name, State::kMissing, true,
                "the kernel has no user namespaces (no user.max_user_namespaces)",
                "a kernel built with CONFIG_USER_NS");
  }
  std::string detail = "user.max_user_namespaces=" + std::to_string(*s.max_user_namespaces);
  if (s.unprivileged_userns_clone) {
    detail += ", kernel.unprivileged_userns_clone=" + std::to_string(*s.unprivileged_userns_clone);
  }
  if (userns_disabled(s)) {
    return make(name, State::kMissing, true, "disabled: " + detail, userns_fix(s));
  }
  return make(name, State::kOk, true, "unprivileged user namespaces allowed: " + detail);
}

Check check_apparmor(const Found& f) {
  const char* name = "apparmor-userns";
  if (!f.userns.apparmor_restrict_userns) {
    return make(name, State::kOk, true, "no AppArmor user-namespace restriction on this kernel");
  }
  if (!apparmor_restricts_userns(f.userns)) {
    return make(name, State::kOk, true, "kernel.apparmor_restrict_unprivileged_userns=0");
  }
  // The sysctl restricts processes no profile grants `userns`; whether that
  // includes ours only running bwrap shows.
  if (f.grade && *f.grade != Grade::kUnusable) {
    return make(
        name, State::kOk, true,
        "restricted, but bwrap got its user namespace (cordon's profile, or privilege, allows it)");
  }
  return make(name, State::kMissing, true,
              "kernel.apparmor_restrict_unprivileged_userns=1 refuses bwrap its user namespace "
              "(symptom: uid_map ... Operation not permitted)",
              apparmor_fix());
}

void add_seccomp_checks(std::vector<Check>& out) {
  auto s = probe_seccomp();
  if (!s.ok()) {
    out.push_back(make("seccomp-notify", State::kUnknown, true, s.error().message));
    out.push_back(make("seccomp-sync-wakeup", State::kUnknown, false, "not tried"));
    return;
  }
  std::string level = "libseccomp API level " + std::to_string(s->api_level);
  if (s->notify_errno != 0) {
    std::string why = s->api_level < 5
                          ? level + " (user notification needs 5)"
                          : "a NOTIFY filter did not load: " + errno_text(s->notify_errno);
    out.push_back(make("seccomp-notify", State::kMissing, true, why + "; learn mode cannot work",
                       "Linux 5.5 or later with seccomp filters, and libseccomp 2.5 or later"));
    out.push_back(
        make("seccomp-sync-wakeup", State::kUnknown, false, "not tried: no user notification"));
    return;
  }
  out.push_back(make("seccomp-notify", State::kOk, true,
                     level + "; a NOTIFY filter loads and gives a listener"));
  if (s->sync_wakeup_errno == 0) {
    out.push_back(make("seccomp-sync-wakeup", State::kOk, false,
                       "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP accepted"));
  } else {
    out.push_back(make("seccomp-sync-wakeup", State::kDegraded, false,
                       "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP refused (" +
                           errno_text(s->sync_wakeup_errno) +
                           "): learn mode is several times slower on syscall-heavy commands",
                       "Linux 6.6 or later"));
  }
}

void add_bwrap_option_checks(const Found& f, std::vector<Check>& out) {
  if (f.bwrap.empty()) {
    out.push_back(make("bwrap-bind-fd", State::kUnknown, true, "not tried: no bwrap that runs"));
    out.push_back(
        make("bwrap-disable-userns", State::kUnknown, true, "not tried: no bwrap that runs"));
    return;
  }
  if (f.bwrap_help.find("--bind-fd") != std::string::npos) {
    out.push_back(make("bwrap-bind-fd", State::kOk, true, "bwrap --help lists --bind-fd"));
  } else {
    out.push_back(
        make("bwrap-bind-fd", State::kMissing, true,
             "bwrap has no --bind-fd, which cordon binds grants through so a path swapped "
             "after it is checked cannot redirect the mount",
             "bubblewrap 0.10 or later (Debian 12's 0.8.0-2+deb12u1 has it backported)"));
  }
  if (f.bwrap_help.find("--disable-userns") != std::string::npos) {
    out.push_back(
        make("bwrap-disable-userns", State::kOk, true, "bwrap --help lists --disable-userns"));
  } else {
    out.push_back(
        make("bwrap-disable-userns", State::kMissing, true,
             "bwrap has no --disable-userns, which cordon passes so a sandboxed process cannot "
             "gain capabilities in a nested user namespace",
             "bubblewrap 0.8 or later"));
  }
}

Check check_ptrace_scope() {
  const char* name = "ptrace-scope";
  // Learn mode reads syscall arguments with process_vm_readv, which Yama
  // judges like a ptrace attach by cordon to its own descendants.
  auto scope = read_sysctl("/proc/sys/kernel/yama/ptrace_scope");
  if (!scope) return make(name, State::kOk, true, "Yama is not active");
  std::string detail = "kernel.yama.ptrace_scope=" + std::to_string(*scope);
  if (*scope <= 1) {
    return make(name, State::kOk, true, detail + ": cordon may read its own sandboxed processes");
  }
  if (*scope == 2 && ::geteuid() == 0) {
    return make(name, State::kOk, true,
                detail + ": learn mode works for root only (it needs CAP_SYS_PTRACE)");
  }
  if (*scope == 2) {
    return make(name, State::kMissing, true,
                detail + ": learn mode needs CAP_SYS_PTRACE, so only root can learn",
                "sysctl -w kernel.yama.ptrace_scope=1");
  }
  return make(name, State::kMissing, true,
              detail + ": nobody may read another process's memory, so learn mode is impossible",
              "scope 3 cannot be lowered until a reboot: set kernel.yama.ptrace_scope=1 in "
              "/etc/sysctl.d/ and reboot");
}

void add_tool_checks(const Found& f, std::vector<Check>& out) {
  if (f.tools.iptables.empty()) {
    out.push_back(
        make("iptables", State::kMissing, true,
             "no iptables in /usr/sbin, /sbin or /usr/bin: the sandbox network cannot be set up",
             "apt-get install iptables"));
  } else {
    out.push_back(make("iptables", State::kOk, true, f.tools.iptables));
  }
  if (f.tools.ip6tables.empty()) {
    out.push_back(make("ip6tables", State::kDegraded, false,
                       "no ip6tables: IPv6 connections cannot be redirected to cordon's proxy",
                       "apt-get install iptables"));
  } else {
    out.push_back(make("ip6tables", State::kOk, false, f.tools.ip6tables));
  }
}

// A step of the network probe, as a check.
struct NetStep {
  const char* name;
  bool required;
  std::optional<std::string> NetProbe::*outcome;
  const char* works;  // the detail when it worked
  const char* tool;   // whose absence leaves it untried
  const char* loss;   // what its failure costs
  const char* fix;
};

// The network probe's result, or why it failed; nullopt when it was not
// attempted because bwrap cannot build a sandbox at all.
using NetResult = std::optional<util::Result<NetProbe>>;

Check net_step(const NetStep& s, const NetResult& net) {
  State failed = s.required ? State::kMissing : State::kDegraded;
  if (!net) {
    return make(s.name, State::kUnknown, s.required,
                "not tried: bwrap cannot build a sandbox here");
  }
  if (!net->ok()) {
    return make(s.name, failed, s.required, net->error().message,
                "see the bwrap-grade and userns lines");
  }
  const auto& outcome = net->value().*s.outcome;
  if (!outcome) {
    return make(s.name, failed, s.required, std::string("no ") + s.tool + ": " + s.loss, s.fix);
  }
  if (outcome->empty()) return make(s.name, State::kOk, s.required, s.works);
  return make(s.name, failed, s.required, *outcome + ": " + s.loss, s.fix);
}

// Routing needs a device to route to: a dummy link where the kernel has
// one, else lo, which is always there.
Check routing_check(const NetResult& net) {
  NetStep lo = {"netns-routing",
                true,
                &NetProbe::lo_route,
                "",
                "ip command",
                "the sandbox's traffic cannot be routed to cordon's proxy",
                "apt-get install iproute2"};
  if (!net || !net->ok() || !net->value().dummy) return net_step(lo, net);
  const std::string& dummy = *net->value().dummy;
  if (dummy.empty()) {
    return make(lo.name, State::kOk, true, "a dummy link can be created in a user + net namespace");
  }
  Check c = net_step(lo, net);
  if (c.state == State::kOk) {
    c.detail = "no dummy links (" + dummy + "); default routes via lo will be used instead";
  } else {
    c.detail = "no dummy links (" + dummy + ") and " + c.detail;
  }
  return c;
}

// Tried in the namespace where possible; otherwise all an unprivileged
// process can see is whether the target is loaded already.
Check tproxy_check(const NetResult& net) {
  NetStep tproxy = {"tproxy",
                    false,
                    &NetProbe::tproxy,
                    "a TPROXY rule is accepted in a user + net namespace",
                    "iptables",
                    "allow_udp grants are refused rather than enforced",
                    "a kernel with xt_TPROXY (CONFIG_NETFILTER_XT_TARGET_TPROXY)"};
  if (net && net->ok() && net->value().tproxy) return net_step(tproxy, net);
  if (tproxy_target_loaded()) {
    return make(tproxy.name, State::kOk, false,
                "TPROXY is listed in /proc/net/ip_tables_targets (not tried)");
  }
  return make(
      tproxy.name, State::kUnknown, false,
      std::string(
          "not loaded, and whether it would load on demand cannot be found out unprivileged; "
          "if not, ") +
          tproxy.loss);
}

void add_net_checks(const Found& f, std::vector<Check>& out) {
  NetResult net;
  if (!f.bwrap.empty() && f.grade && *f.grade != Grade::kUnusable) {
    net = probe_net(f.bwrap, f.tools);
  }
  out.push_back(routing_check(net));
  out.push_back(
      net_step({"netns-nat", true, &NetProbe::nat,
                "iptables nat DNAT works in a user + net namespace", "iptables",
                "TCP cannot be redirected to cordon's proxy, so network grants cannot be enforced",
                "apt-get install iptables; a kernel with nf_tables nat"},
               net));
  out.push_back(net_step(
      {"netns-nat6", false, &NetProbe::nat6, "ip6tables nat DNAT works in a user + net namespace",
       "ip6tables", "IPv6 connections cannot be redirected to cordon's proxy",
       "apt-get install iptables; a kernel with IPv6 nat"},
      net));
  out.push_back(tproxy_check(net));
}

}  // namespace

std::string_view state_name(State state) {
  switch (state) {
    case State::kOk:
      return "ok";
    case State::kDegraded:
      return "degraded";
    case State::kMissing:
      return "missing";
    case State::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::vector<Check> run_checks() {
  Found f;
  f.userns = read_userns_settings();
  f.tools = find_net_tools();
  std::vector<Check> out;
  out.push_back(check_bwrap(f));
  out.push_back(check_grade(f));
  out.push_back(check_userns(f));
  out.push_back(check_apparmor(f));
  add_seccomp_checks(out);
  add_bwrap_option_checks(f, out);
  out.push_back(check_ptrace_scope());
  add_tool_checks(f, out);
  add_net_checks(f, out);
  return out;
}

bool ready(const std::vector<Check>& checks) {
  for (const auto& c : checks) {
    if (c.required && (c.state == State::kMissing || c.state == State::kUnknown)) return false;
  }
  return true;
}

}  // namespace cordon::enforcer
