#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include <fmt/format.h>

#include "enforcer/context.h"
#include "enforcer/enforcer.h"
#include "enforcer/seccomp_policy.h"
#include "util/bwrap.h"
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
  if (S_ISLNK(st.st_mode)) return Error{"refusing to run: " + util::printable(path) + " became a symlink"};
  return fd;
}

// A descriptor bwrap reads a file's contents from (--ro-bind-data).
util::Result<Fd> data_fd(const std::string& contents) {
  Fd fd(::memfd_create("cordon-data", MFD_CLOEXEC));
  if (!fd) return util::sys_error("memfd_create");
  if (::write(fd.get(), contents.data(), contents.size()) != static_cast<ssize_t>(contents.size()) ||
      ::lseek(fd.get(), 0, SEEK_SET) != 0) {
    return util::sys_error("memfd write");
  }
  return fd;
}

}  // namespace

util::Result<Launch> prepare(const RunRequest& req) {
  for (RuleKind k : {RuleKind::kAllowTcp, RuleKind::kAllowUdp, RuleKind::kExpose}) {
    auto rules = req.policy->rules_of(k);
    if (!rules.empty()) {
      const auto& o = rules.front()->origin;
      return Error{fmt::format("{}:{}: network rules are not enforced yet (issue #5); refusing to run "
                               "rather than run with them unenforced",
                               util::printable(o.file), o.line)};
    }
  }
  auto bwrap = util::find_bwrap();
  if (!bwrap) return bwrap.error();
  auto plan = plan_mounts(*req.policy, PlanInput{req.cwd, req.home, req.workspace_policy});
  if (!plan) return plan.error();

  Launch l;
  l.bwrap = *bwrap;
  l.plan = std::move(*plan);
  auto& a = l.argv;
  a = {l.bwrap,
       // Own namespaces for everything; the user namespace is what lets an
       // unprivileged user mount, and no capability survives into it.
       "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
       "--unshare-net", "--disable-userns", "--die-with-parent", "--cap-drop", "ALL"};
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
    ContextInput in{&l.plan, req.cwd, req.home, {}, {}};
    for (const auto* r : req.policy->rules_of(RuleKind::kDeny)) in.denied.push_back(r->value);
    for (const auto& [name, value] : env) in.passed_env.push_back(name);
    l.context = render_context(in);
    l.context_file = context_path(l.plan, req.home);
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
      case MountKind::kDev: a.insert(a.end(), {"--dev", op.dest}); break;
      case MountKind::kProc: a.insert(a.end(), {"--proc", op.dest}); break;
      case MountKind::kTmpfs: a.insert(a.end(), {"--tmpfs", op.dest}); break;
      case MountKind::kEmptyDir: a.insert(a.end(), {"--tmpfs", op.dest, "--remount-ro", op.dest}); break;
      case MountKind::kEmptyFile: {
        auto fd = data_fd("");
        if (!fd) return fd.error();
        a.insert(a.end(), {"--perms", "0444", "--ro-bind-data"});
        keep(std::move(*fd));
        a.push_back(op.dest);
        break;
      }
      case MountKind::kDir: a.insert(a.end(), {"--dir", op.dest}); break;
      case MountKind::kSymlink: a.insert(a.end(), {"--symlink", op.source, op.dest}); break;
      case MountKind::kRemountRo:
        // The context file goes in before the root turns read-only, since
        // bwrap creates its mount point (and ~/.cordon) on the root tmpfs.
        if (op.dest == "/" && !l.context.empty()) {
          auto fd = data_fd(l.context);
          if (!fd) return fd.error();
          a.insert(a.end(), {"--perms", "0444", "--ro-bind-data"});
          keep(std::move(*fd));
          a.push_back(l.context_file);
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
  a.push_back("--seccomp");
  keep(std::move(*filter));
  a.push_back("--");
  a.insert(a.end(), req.command.begin(), req.command.end());
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
  const bool stub_existed = l.plan.workspace_stub && ::access(l.plan.workspace_stub->c_str(), F_OK) == 0;
  auto child = util::spawn(l.argv, keep);
  if (!child) return child.error();
  l.fds.clear();

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
        out.message = fmt::format("interrupted by {}", ::sigabbrev_np(static_cast<int>(si.ssi_signo)));
        // --die-with-parent takes the namespace's init, and so every
        // process of the sandbox, with bwrap.
        child->kill(SIGKILL);
      }
      continue;
    }
    if (auto done = child->try_wait(status); !done) return done.error();
  }
  out.exit_code = forced ? *forced : status.code;

  // bwrap made an empty file on the host to mount /dev/null over; take it
  // away unless something was written into it since.
  if (l.plan.workspace_stub && !stub_existed) {
    struct stat st;
    if (::lstat(l.plan.workspace_stub->c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
      ::unlink(l.plan.workspace_stub->c_str());
    }
  }
  return out;
}

}  // namespace cordon::enforcer
