#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "enforcer/context.h"
#include "enforcer/context_loader.h"
#include "enforcer/enforcer.h"
#include "enforcer/net/prepare.h"
#include "enforcer/net/setup.h"
#include "enforcer/probe.h"
#include "enforcer/seccomp_policy.h"
#include "util/bwrap.h"
#include "util/memfd.h"
#include "util/path.h"
#include "util/process.h"

namespace cordon::enforcer {

using schema::RuleKind;
using util::Error;
using util::Fd;

namespace {

// Opens a mount source once; bwrap binds the descriptor, so a source swapped
// for a symlink between planning and mounting cannot redirect the mount.
util::Result<Fd> open_source(const std::string& path) {
  Fd fd(::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return util::sys_error("open " + util::printable(path));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return util::sys_error("stat " + util::printable(path));
  if (S_ISLNK(st.st_mode))
    return Error{"refusing to run: " + util::printable(path) + " became a symlink"};
  return fd;
}

}  // namespace

util::Result<Launch> prepare(const RunRequest& req) {
  // Network rules: refused when they cannot be enforced (docs/network.md).
  auto net = net::prepare_net(*req.policy, req.dns_upstream);
  if (!net) return net.error();
  auto bwrap = util::find_bwrap();
  if (!bwrap) return bwrap.error();
  // Fail closed: run only where bwrap was seen to apply the full base.
  std::string why;
  auto grade = probe_grade(*bwrap, &why);
  if (!grade) return grade.error();
  if (*grade != Grade::kFull) {
    return Error{fmt::format("refusing to run: bwrap here is {} ({}); see `cordon doctor`",
                             grade_name(*grade), why.empty() ? "cached" : why)};
  }
  auto plan =
      plan_mounts(*req.policy, PlanInput{req.cwd, req.home, req.workspace_policy, req.context});
  if (!plan) return plan.error();

  Launch l;
  l.bwrap = *bwrap;
  l.plan = std::move(*plan);
  Fd self_exe;
  const bool audit = !req.audit_output.empty();
  if (*net || audit) {
    // The setup helper and the audit shim are cordon itself, mounted on the
    // sandbox's own /run.
    bool own_run = false;
    for (const auto& op : l.plan.ops) own_run |= op.kind == MountKind::kTmpfs && op.dest == "/run";
    if (!own_run)
      return Error{fmt::format(
          "{} needs the sandbox's own /run, which a grant of /run replaces; refusing to run",
          *net ? "allow_tcp" : "--audit")};
    std::string exe = req.cordon_exe.empty() ? "/proc/self/exe" : req.cordon_exe;
    self_exe = Fd(::open(exe.c_str(), O_PATH | O_CLOEXEC));
    if (!self_exe) return util::sys_error("open " + util::printable(exe));
  }
  if (*net) {
    for (auto& w : (*net)->warnings) l.plan.warnings.push_back(std::move(w));
    l.net = (*net)->session;
  }
  if (audit) {
    tracer::AuditOptions options{req.audit_output, req.command, static_cast<bool>(*net), {}};
    for (const auto& op : l.plan.ops) {
      if (op.kind == MountKind::kEmptyFile) options.stand_ins.push_back(op.dest);
    }
    auto session = tracer::AuditSession::open(options);
    if (!session) return session.error();
    l.audit = std::move(*session);
  }
  auto& a = l.argv;
  a = {l.bwrap,
       // Own namespaces for everything; the user namespace is what lets an
       // unprivileged user mount, and no capability survives into it.
       "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
       "--unshare-net", "--disable-userns", "--die-with-parent", "--cap-drop", "ALL"};
  // With network rules the first program is the setup helper, which needs
  // these inside the sandbox's own namespaces and drops them before the
  // command runs (enforcer/net/setup.h).
  // bwrap 0.8 implements --disable-userns (and --dev for a sandbox uid
  // other than 0) by moving the sandbox into a second, nested user
  // namespace, whose capabilities do not cover the network namespace. So the
  // helper runs as uid 0 of bwrap's namespace and nests the command's
  // namespace itself, and the run filter, which it installs last, refusing
  // unshare, setns, clone(CLONE_NEWUSER) and clone3, is what keeps the
  // command from making more (docs/network.md).
  if (*net) {
    a.erase(std::find(a.begin(), a.end(), "--disable-userns"));
    // CAP_SETFCAP: the kernel lets a new user namespace map the parent's
    // uid 0 (here, the helper itself) only if its creator held it.
    a.insert(a.end(), {"--uid", "0", "--gid", "0", "--cap-add", "CAP_NET_ADMIN", "--cap-add",
                       "CAP_NET_RAW", "--cap-add", "CAP_SETPCAP", "--cap-add", "CAP_SETFCAP"});
  }
  auto keep = [&](Fd fd) {
    a.push_back(std::to_string(fd.get()));
    l.fds.push_back(std::move(fd));
  };
  std::set<std::string> pass;
  for (const auto* r : req.policy->rules_of(RuleKind::kPass)) pass.insert(r->value);
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& entry : req.environ) {
    size_t eq = entry.find('=');
    if (eq != std::string::npos && pass.count(entry.substr(0, eq))) {
      env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
  }
  if (req.context) {
    ContextInput in;
    in.plan = &l.plan;
    in.cwd = req.cwd;
    in.home = req.home;
    if (*net) in.net_allowed = (*net)->allowed;
    for (const auto* r : req.policy->rules_of(RuleKind::kDeny)) in.denied.push_back(r->value);
    if (*net) {
      for (const auto* r : req.policy->rules_of(RuleKind::kExpose)) in.exposed.push_back(r->port);
    }
    for (const auto& [name, value] : env) in.passed_env.push_back(name);
    l.context = render_context(in);
    l.context_file = l.plan.context_file;
  }
  std::vector<std::string> command = req.command;
  if (!req.context_for.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, value] : env) names.push_back(name);
    auto load = load_context_for(req.context_for, req.command, l.context_file, names);
    if (!load) return load.error();
    command = std::move(load->command);
    env.insert(env.end(), load->environ.begin(), load->environ.end());
  }
  for (const auto& op : l.plan.ops) {
    switch (op.kind) {
      case MountKind::kBind:
      case MountKind::kRoBind: {
        if (op.source == "/dev/null") {
          a.insert(a.end(), {"--ro-bind", op.source, op.dest});
          break;
        }
        auto fd = open_source(op.source);
        if (!fd) return fd.error();
        a.push_back(op.kind == MountKind::kBind ? "--bind-fd" : "--ro-bind-fd");
        keep(std::move(*fd));
        a.push_back(op.dest);
        break;
      }
      case MountKind::kDev:
        a.insert(a.end(), {"--dev", op.dest});
        break;
      case MountKind::kProc:
        a.insert(a.end(), {"--proc", op.dest});
        break;
      case MountKind::kTmpfs:
        a.insert(a.end(), {"--tmpfs", op.dest});
        break;
      case MountKind::kEmptyDir:
        a.insert(a.end(), {"--tmpfs", op.dest, "--remount-ro", op.dest});
        break;
      case MountKind::kEmptyFile: {
        auto fd = util::memfd_with("cordon-data", "");
        if (!fd) return fd.error();
        a.insert(a.end(), {"--perms", "0444", "--ro-bind-data"});
        keep(std::move(*fd));
        a.push_back(op.dest);
        break;
      }
      case MountKind::kDir:
        a.insert(a.end(), {"--dir", op.dest});
        break;
      case MountKind::kSymlink:
        a.insert(a.end(), {"--symlink", op.source, op.dest});
        break;
      case MountKind::kContext: {
        auto fd = util::memfd_with("cordon-data", l.context);
        if (!fd) return fd.error();
        a.insert(a.end(), {"--perms", "0444", "--ro-bind-data"});
        keep(std::move(*fd));
        a.push_back(op.dest);
        break;
      }
      case MountKind::kRemountRo:
        if (op.dest == "/" && self_exe) {
          a.push_back("--ro-bind-fd");
          keep(std::move(self_exe));
          a.push_back(net::kHelperPath);
        }
        if (op.dest == "/" && *net) {
          auto fd = util::memfd_with("cordon-data", (*net)->resolv_conf);
          if (!fd) return fd.error();
          a.insert(a.end(), {"--perms", "0444", "--ro-bind-data"});
          keep(std::move(*fd));
          a.push_back("/etc/resolv.conf");
        }
        a.insert(a.end(), {"--remount-ro", op.dest});
        break;
    }
  }
  // The environment is built, not inherited: only the names the policy
  // passes get in, so SSH_AUTH_SOCK and the like stay out unless named.
  a.push_back("--clearenv");
  for (const auto& [name, value] : env) a.insert(a.end(), {"--setenv", name, value});
  a.insert(a.end(), {"--setenv", "CORDON_SANDBOX", "1"});
  if (!l.context.empty()) a.insert(a.end(), {"--setenv", "CORDON_SANDBOX_CONTEXT", l.context_file});
  a.insert(a.end(), {"--chdir", req.cwd});
  auto filter = build_run_filter();
  if (!filter) return filter.error();
  int filter_fd = filter->get();
  if (*net) {
    l.fds.push_back(std::move(*filter));  // the helper installs it (net/setup.h)
  } else {
    a.push_back("--seccomp");
    keep(std::move(*filter));
  }
  a.push_back("--");
  if (*net) {
    auto helper = net::helper_argv(**net, filter_fd);
    a.insert(a.end(), helper.begin(), helper.end());
    l.fds.push_back(std::move((*net)->sandbox_end));
  }
  if (l.audit) {
    // The shim installs the audit filter over the run filter (installed
    // before it by bwrap or the network helper), so every refusal the run
    // filter makes stays a refusal, unseen by the supervisor.
    auto shim = l.audit->shim_argv(net::kHelperPath);
    a.insert(a.end(), shim.begin(), shim.end());
    l.fds.push_back(l.audit->take_sandbox_end());
  }
  a.insert(a.end(), command.begin(), command.end());
  return l;
}

util::Result<RunOutcome> execute(Launch l) {
  sigset_t mask, old;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, sig);
  ::pthread_sigmask(SIG_BLOCK, &mask, &old);
  struct Restore {
    sigset_t m;
    ~Restore() { ::pthread_sigmask(SIG_SETMASK, &m, nullptr); }
  } restore{old};
  Fd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC));

  std::vector<int> keep;
  for (const auto& fd : l.fds) keep.push_back(fd.get());
  const bool stub_existed =
      l.plan.workspace_stub && ::access(l.plan.workspace_stub->c_str(), F_OK) == 0;
  if (l.net) l.net->start();
  auto child = util::spawn(l.argv, keep);
  if (!child) return child.error();
  // Closing our copies matters for the audit channel: it lets attach() see
  // the sandbox end before the shim ran as end of file.
  l.fds.clear();
  if (l.audit) {
    if (auto st = l.audit->attach(); !st) {
      child->kill(SIGKILL);
      (void)child->wait();
      return st.error();
    }
  }

  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, child->pid(), 0)));
  Fd ep(::epoll_create1(EPOLL_CLOEXEC));
  epoll_event ev{EPOLLIN, {.u64 = 0}};
  ::epoll_ctl(ep.get(), EPOLL_CTL_ADD, sigfd.get(), &ev);
  ev.data.u64 = 1;
  ::epoll_ctl(ep.get(), EPOLL_CTL_ADD, pidfd.get(), &ev);
  RunOutcome out;
  std::optional<int> forced;
  util::ExitStatus status;
  while (child->running()) {
    epoll_event got;
    if (::epoll_wait(ep.get(), &got, 1, -1) <= 0) continue;
    if (got.data.u64 == 0) {
      signalfd_siginfo si;
      if (::read(sigfd.get(), &si, sizeof si) != sizeof si) continue;
      // Ctrl-C at the terminal reaches the command too, which decides.
      if (si.ssi_code == SI_KERNEL && (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT)) continue;
      if (!forced) {
        forced = 128 + static_cast<int>(si.ssi_signo);
        out.message =
            fmt::format("interrupted by {}", ::sigabbrev_np(static_cast<int>(si.ssi_signo)));
        // --die-with-parent takes the namespace's init, and so every
        // process of the sandbox, with bwrap.
        child->kill(SIGKILL);
      }
      continue;
    }
    if (auto done = child->try_wait(status); !done) return done.error();
  }
  out.exit_code = forced ? *forced : status.code;
  if (l.net) {
    l.net->stop();
    // An audited run reports refused connections with its other denials.
    if (!l.audit) {
      for (const auto& line : l.net->report()) fmt::print(stderr, "cordon: {}\n", line);
    }
  }
  if (l.audit) {
    auto denials = l.audit->finish(out.exit_code, forced.has_value(),
                                   l.net ? l.net->records() : std::vector<schema::NetRecord>{});
    if (!denials) return denials.error();
    out.denials = std::move(*denials);
  }

  // bwrap made an empty file on the host to mount /dev/null over; take it
  // away unless something was written into it since.
  if (l.plan.workspace_stub && !stub_existed) {
    struct stat st;
    if (::lstat(l.plan.workspace_stub->c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size == 0) {
      ::unlink(l.plan.workspace_stub->c_str());
    }
  }
  return out;
}

}  // namespace cordon::enforcer
