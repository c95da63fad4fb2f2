// run_trace: start the sandbox, hold the supervisor and the writer, and turn
// however the run ends into an outcome with the trace committed.
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "tracer/run_info.h"
#include "tracer/supervisor.h"
#include "tracer/tracer.h"
#include "util/bwrap.h"
#include "util/path.h"
#include "util/process.h"
#include "util/unix_socket.h"

namespace cordon::tracer {

using util::Error;
using util::Fd;
using util::Result;

namespace {

enum Tag : uint64_t { kSignal, kSandbox, kTick, kTimeout, kShim };

util::Status make_parent_dirs(const std::string& path) {
  std::string dir = util::parent_path(util::clean_path(path));
  std::string at;
  size_t pos = 1;
  while (pos <= dir.size()) {
    size_t next = dir.find('/', pos);
    if (next == std::string::npos) next = dir.size();
    at = dir.substr(0, next);
    if (::mkdir(at.c_str(), 0700) < 0 && errno != EEXIST) {
      return util::sys_error("cannot create " + util::printable(at));
    }
    pos = next + 1;
  }
  return {};
}

// The learn-mode sandbox: the host's filesystem as it is, read-write, with
// its own /dev and /proc; only the policy's denies are laid over it.
std::vector<std::string> bwrap_argv(const std::string& bwrap, const std::string& self, int shim_fd,
                                    const TraceOptions& opt, const std::string& cwd) {
  std::vector<std::string> a = {bwrap, "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                // --proc needs its own pid namespace, or the sandbox
                                // reaches host processes through /proc/<pid>/root.
                                "--unshare-pid", "--die-with-parent"};
  for (const auto& path : opt.deny) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;  // nothing there to hide
    if (S_ISDIR(st.st_mode)) {
      a.insert(a.end(), {"--tmpfs", path, "--remount-ro", path});
    } else {
      a.insert(a.end(), {"--ro-bind", "/dev/null", path});
    }
  }
  std::vector<std::string> prefix;
  if (opt.hook) {
    auto extra = opt.hook->bwrap_args();
    a.insert(a.end(), extra.begin(), extra.end());
    prefix = opt.hook->prefix();
  }
  a.insert(a.end(), {"--chdir", cwd, "--"});
  a.insert(a.end(), prefix.begin(), prefix.end());
  a.insert(a.end(), {self, "__shim", std::to_string(shim_fd), "--"});
  a.insert(a.end(), opt.command.begin(), opt.command.end());
  return a;
}

Fd timer(double seconds, bool periodic) {
  Fd fd(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(seconds);
  spec.it_value.tv_nsec =
      static_cast<long>((seconds - static_cast<double>(spec.it_value.tv_sec)) * 1e9);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  if (periodic) spec.it_interval = spec.it_value;
  ::timerfd_settime(fd.get(), 0, &spec, nullptr);
  return fd;
}

void watch(int ep, int fd, Tag tag) {
  epoll_event ev{EPOLLIN, {.u64 = tag}};
  ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

std::string status_text(double secs, uint64_t processes, uint64_t events) {
  return fmt::format("\r\033[Kcordon: tracing {:.1f}s, {} process{}, {} event{}", secs, processes,
                     processes == 1 ? "" : "es", events, events == 1 ? "" : "s");
}

}  // namespace

Result<TraceOutcome> run_trace(const TraceOptions& opt) {
  auto bwrap = util::find_bwrap();
  if (!bwrap) return bwrap.error();
  char self[4096];
  ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (len < 0) return util::sys_error("readlink /proc/self/exe");
  self[len] = '\0';

  if (auto st = make_parent_dirs(opt.output); !st) return st.error();
  auto db = schema::TraceDb::open_for_writing(opt.output);
  if (!db) return db.error();

  auto pair = util::seqpacket_pair();
  if (!pair) return pair.error();
  auto& [ours, theirs] = *pair;
  int on = 1;
  ::setsockopt(ours.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  // What bwrap passes on: the shim's socket, and the hook's descriptors.
  ::fcntl(theirs.get(), F_SETFD, 0);
  if (opt.hook) {
    for (int fd : opt.hook->fds()) ::fcntl(fd, F_SETFD, 0);
  }

  // Signals arrive through a signalfd so the main loop sees them in order
  // with the sandbox's end; the threads started below inherit the mask.
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, sig);
  sigset_t old_mask;
  ::pthread_sigmask(SIG_BLOCK, &mask, &old_mask);
  struct RestoreMask {
    sigset_t m;
    ~RestoreMask() { ::pthread_sigmask(SIG_SETMASK, &m, nullptr); }
  } restore{old_mask};
  Fd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC));

  schema::RunInfo info = collect_run_info(opt.command);
  if (opt.hook) opt.hook->start();
  auto sandbox = util::spawn(bwrap_argv(*bwrap, self, theirs.get(), opt, info.cwd));
  theirs.reset();
  if (!sandbox) return sandbox.error();

  auto hello = util::receive_message(ours.get());
  if (!hello || hello->data != "listener" || !hello->fd) {
    auto status = sandbox->wait();
    if (hello && hello->data.rfind("error ", 0) == 0) {
      return Error{"learn-mode filter: " + hello->data.substr(6)};
    }
    return Error{fmt::format("bwrap could not start the sandbox (exit {}); run `cordon doctor`",
                             status ? status->code : -1)};
  }
  const auto start = std::chrono::steady_clock::now();
  TraceOutcome out;
  out.output = opt.output;
  Fd listener = std::move(hello->fd);
  info.sync_wakeup = enable_sync_wakeup(listener.get());
  auto run_id = db->begin_run(info);
  if (!run_id) return run_id.error();
  out.run_id = *run_id;

  TraceWriter writer(*db, *run_id);
  Supervisor supervisor(std::move(listener), hello->sender, writer, start);
  supervisor.start();

  Fd ep(::epoll_create1(EPOLL_CLOEXEC));
  Fd sandbox_pidfd(static_cast<int>(::syscall(SYS_pidfd_open, sandbox->pid(), 0)));
  Fd tick = timer(0.2, true);
  Fd deadline;
  watch(ep.get(), sigfd.get(), kSignal);
  watch(ep.get(), sandbox_pidfd.get(), kSandbox);
  watch(ep.get(), tick.get(), kTick);
  watch(ep.get(), ours.get(), kShim);
  if (opt.timeout_seconds) {
    deadline = timer(*opt.timeout_seconds, false);
    watch(ep.get(), deadline.get(), kTimeout);
  }

  std::optional<util::ExitStatus> command_status;
  int exec_errno = 0;
  std::optional<int> forced_code;  // set when cordon ended the run itself
  bool shown = false;
  auto end_sandbox = [&](schema::RunState state, int code, std::string message) {
    if (forced_code) return;
    out.state = state;
    out.message = std::move(message);
    forced_code = code;
    // SIGKILL to bwrap: --die-with-parent then kills the namespace's init,
    // and with it every process in the sandbox.
    sandbox->kill(SIGKILL);
  };

  while (sandbox->running()) {
    epoll_event evs[8];
    int n = ::epoll_wait(ep.get(), evs, 8, -1);
    if (n < 0 && errno != EINTR) return util::sys_error("epoll_wait");
    for (int i = 0; i < n; ++i) {
      switch (evs[i].data.u64) {
        case kSignal: {
          signalfd_siginfo si;
          if (::read(sigfd.get(), &si, sizeof si) != sizeof si) break;
          // A terminal's Ctrl-C or Ctrl-\ reaches the command too (same
          // foreground group), and the command decides. A signal sent to
          // cordon alone ends the run.
          if (si.ssi_code == SI_KERNEL && (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT))
            break;
          end_sandbox(
              schema::RunState::kInterrupted, 128 + static_cast<int>(si.ssi_signo),
              fmt::format("interrupted by {}", ::sigabbrev_np(static_cast<int>(si.ssi_signo))));
          break;
        }
        case kTimeout:
          end_sandbox(schema::RunState::kTimeout, 124,
                      fmt::format("timed out after {}s; partial trace kept", *opt.timeout_seconds));
          break;
        case kTick: {
          uint64_t ticks;
          (void)!::read(tick.get(), &ticks, sizeof ticks);
          if (writer.failed()) {
            end_sandbox(schema::RunState::kFailed, 125, "writing the trace: " + *writer.failure());
          } else if (opt.status_line) {
            double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::string line = status_text(secs, supervisor.processes(), supervisor.events());
            (void)!::write(STDERR_FILENO, line.data(), line.size());
            shown = true;
          }
          break;
        }
        case kShim: {
          auto msg = util::receive_message(ours.get());
          if (!msg || msg->data.empty()) {
            ::epoll_ctl(ep.get(), EPOLL_CTL_DEL, ours.get(), nullptr);
          } else if (msg->data.rfind("exec-failed ", 0) == 0) {
            exec_errno = std::atoi(msg->data.c_str() + 12);
          } else if (msg->data.rfind("exit ", 0) == 0) {
            int code = 0, sig = 0;
            std::sscanf(msg->data.c_str() + 5, "%d %d", &code, &sig);
            command_status = util::ExitStatus{code, sig};
          }
          break;
        }
        case kSandbox: {
          util::ExitStatus st;
          if (auto done = sandbox->try_wait(st); done && *done && !command_status) {
            command_status = st;  // bwrap's own status: the shim never reported
          }
          break;
        }
      }
    }
  }
  if (shown) (void)!::write(STDERR_FILENO, "\r\033[K", 4);

  supervisor.stop();
  writer.finish();
  out.events = supervisor.events();
  out.processes = supervisor.processes();

  std::optional<int64_t> code, sig;
  if (forced_code) {
    out.exit_code = *forced_code;
  } else if (exec_errno) {
    out.state = schema::RunState::kFailed;
    out.exit_code = exec_errno == ENOENT ? 127 : 126;
    out.message =
        fmt::format("{}: {}", util::printable(opt.command[0]),
                    exec_errno == ENOENT ? "command not found" : std::strerror(exec_errno));
  } else if (command_status) {
    out.exit_code = command_status->code;
    code = command_status->code;
    if (command_status->signal) sig = command_status->signal;
  }
  if (opt.hook) {
    if (auto st = opt.hook->finish(*db, *run_id); !st && out.message.empty()) {
      out.message = st.error().message;
      if (out.exit_code == 0) out.exit_code = 125;
    }
  }
  if (auto failure = writer.failure(); failure && !forced_code) {
    out.state = schema::RunState::kFailed;
    out.exit_code = 125;
    out.message = "writing the trace: " + *failure;
  }
  if (auto st = db->finish_run(*run_id, out.state, code, sig, unix_now_ns(), out.message); !st) {
    if (out.message.empty()) out.message = "finishing the trace: " + st.error().message;
    if (out.exit_code == 0) out.exit_code = 125;
  }
  return out;
}

}  // namespace cordon::tracer
