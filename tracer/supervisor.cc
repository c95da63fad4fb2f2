#include "tracer/supervisor.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tracer/decoder.h"
#include "tracer/remote.h"
#include "util/process.h"
#include "util/seccomp_compat.h"

namespace cordon::tracer {

namespace {

constexpr uint64_t kStopTag = ~0ull;
// Interrupts the receiver's blocking ioctl at shutdown. The handler does
// nothing; what matters is that it is installed without SA_RESTART, so the
// ioctl returns EINTR instead of resuming.
constexpr int kWakeSignal = SIGUSR1;

void ignore_signal(int) {}

[[noreturn]] void fatal(const char* what) {
  // The supervisor cannot go on; dying takes the sandbox with it (bwrap runs
  // with --die-with-parent), so nothing continues untraced.
  std::perror(what);
  std::abort();
}

}  // namespace

bool enable_sync_wakeup(int listener) {
  return ::ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
}

Supervisor::Supervisor(util::Fd listener, pid_t ignore_pid, TraceWriter& writer,
                       std::chrono::steady_clock::time_point start, const Auditor* auditor)
    : listener_(std::move(listener)),
      ignore_pid_(ignore_pid),
      writer_(writer),
      start_(start),
      auditor_(auditor) {
  // The kernel says how large its notification structures are; our headers'
  // sizes would break on a kernel that grew them.
  if (seccomp_notify_alloc(&req_, &resp_) != 0) fatal("cordon: seccomp_notify_alloc");
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    fatal("cordon: SECCOMP_GET_NOTIF_SIZES");
  }
  notif_size_ = sizes.seccomp_notif;
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  stop_event_.reset(::eventfd(0, EFD_CLOEXEC));
  if (!epoll_ || !stop_event_) fatal("cordon: epoll_create1/eventfd");
  epoll_event ev{EPOLLIN, {.u64 = kStopTag}};
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, stop_event_.get(), &ev) < 0)
    fatal("cordon: epoll_ctl");
  struct sigaction sa {};
  sa.sa_handler = ignore_signal;
  ::sigaction(kWakeSignal, &sa, nullptr);
}

Supervisor::~Supervisor() {
  stop();
  seccomp_notify_free(req_, resp_);
}

void Supervisor::start() {
  receiver_ = std::thread([this] { receive_loop(); });
  reaper_ = std::thread([this] { reap_loop(); });
}

void Supervisor::stop() {
  if (!receiver_.joinable()) return;
  stopping_.store(true);
  // The receiver may sit in the ioctl, or be about to enter it: keep
  // knocking until it has left, so a signal landing just before the ioctl
  // cannot strand it.
  while (!receiver_done_.load()) {
    ::pthread_kill(receiver_.native_handle(), kWakeSignal);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  receiver_.join();
  uint64_t one = 1;
  (void)!::write(stop_event_.get(), &one, sizeof one);
  reaper_.join();
}

int64_t Supervisor::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

void Supervisor::receive_loop() {
  while (!stopping_.load(std::memory_order_relaxed)) handle_notification();
  receiver_done_.store(true);
}

void Supervisor::reap_loop() {
  epoll_event events[64];
  for (;;) {
    int n = ::epoll_wait(epoll_.get(), events, 64, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      fatal("cordon: epoll_wait");
    }
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kStopTag) {
        // Everything in the sandbox has ended: record the ends not yet seen.
        std::vector<pid_t> left;
        {
          std::lock_guard lock(table_mu_);
          left = table_.tgids();
        }
        for (pid_t tgid : left) process_ended(tgid);
        return;
      }
      process_ended(static_cast<pid_t>(events[i].data.u64));
    }
  }
}

void Supervisor::handle_notification() {
  // The kernel refuses (EINVAL) a receive buffer that is not zeroed.
  std::memset(req_, 0, notif_size_);
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, req_) != 0) {
    // ENOENT: the task was killed before we got to it; EINTR: stop() knocks.
    if (errno == ENOENT || errno == EINTR) return;
    fatal("cordon: SECCOMP_IOCTL_NOTIF_RECV");
  }
  resp_->id = req_->id;
  resp_->val = 0;
  resp_->error = 0;
  resp_->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  auto respond = [&] { (void)seccomp_notify_respond(listener_.get(), resp_); };

  const SyscallSpec* spec = nullptr;
  if (req_->data.arch == seccomp_arch_native()) spec = spec_for(req_->data.nr);
  if (!spec || req_->pid == static_cast<__u32>(ignore_pid_)) return respond();

  const pid_t tid = static_cast<pid_t>(req_->pid);
  std::unique_lock lock(table_mu_);
  bool is_new = false;
  auto process = table_.lookup(tid, is_new);
  if (!process) return respond();
  TracedProcess& p = **process;
  if (is_new) {
    processes_.fetch_add(1, std::memory_order_relaxed);
    epoll_event ev{EPOLLIN, {.u64 = static_cast<uint64_t>(p.tgid)}};
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, p.pidfd.get(), &ev);
    schema::ProcessRecord rec;
    rec.pid = p.tgid;
    rec.ppid = p.ppid;
    rec.first_seen = now_ns();
    writer_.push(std::move(rec));
  }
  if (!is_new && p.pending_exec) confirm_exec(p);
  if (spec->op == Op::kExit) {
    p.exit_group_code = static_cast<int>(req_->data.args[0] & 0xff);
    return respond();
  }
  if (spec->op == Op::kRefused) {
    resp_->flags = 0;
    resp_->error = -ENOSYS;
  }

  schema::EventRecord ev = decode_event(req_->data, *spec, p, tid);
  const pid_t tgid = p.tgid;
  lock.unlock();
  // What we read from its memory is only meaningful if the task is still
  // waiting in this very call: a task killed meanwhile, or a reused pid,
  // fails this check. A call on a descriptor alone (getdents64, fchdir)
  // reads no memory, and skipping the check there saves a system call on
  // the most frequent notification of a directory walk.
  const bool read_memory = spec->path >= 0 || spec->path2 >= 0 || spec->argv >= 0 ||
                           spec->op == Op::kConnect || spec->flags_kind == FlagsKind::kOpenHow;
  if (read_memory && seccomp_notify_id_valid(listener_.get(), req_->id) != 0) return;
  respond();

  ev.seq = ++seq_;
  ev.time_ns = now_ns();
  ev.pid = tgid;
  ev.tid = tid;
  if (spec->op == Op::kRefused) ev.error = ENOSYS;
  if (spec->op == Op::kExec && ev.existed.value_or(false) && ev.abs_path) {
    // Remember what the exec would run; confirm_exec() records it once the
    // process is seen running it.
    struct stat st;
    std::lock_guard relock(table_mu_);
    TracedProcess* q = table_.find_by_tgid(tgid);
    if (q && q->root && ::fstatat(q->root.get(), ev.abs_path->c_str() + 1, &st, 0) == 0) {
      q->pending_exec = PendingExec{*ev.abs_path, ev.argv.value_or(std::vector<std::string>{}),
                                    st.st_dev, st.st_ino};
    }
  }
  if (auditor_) {
    std::lock_guard relock(table_mu_);
    TracedProcess* q = table_.find_by_tgid(tgid);
    if (!q || !q->root || !auditor_->judge(ev, q->root.get())) return;
  }
  writer_.push(std::move(ev));
  events_.fetch_add(1, std::memory_order_relaxed);
}

void Supervisor::confirm_exec(TracedProcess& p) {
  PendingExec exec = std::move(*p.pending_exec);
  p.pending_exec.reset();
  struct stat st;
  if (::fstatat(p.procdir.get(), "exe", &st, 0) != 0 || st.st_dev != exec.dev ||
      st.st_ino != exec.ino) {
    return;  // the exec failed: the process still runs what it ran before
  }
  schema::ProcessRecord rec;
  rec.pid = p.tgid;
  rec.exe = std::move(exec.path);
  rec.argv = std::move(exec.argv);
  rec.first_seen = now_ns();
  writer_.push(std::move(rec));
}

void Supervisor::process_ended(pid_t tgid) {
  std::optional<TracedProcess> p;
  {
    std::lock_guard lock(table_mu_);
    p = table_.remove(tgid);
  }
  if (!p) return;
  schema::ProcessRecord rec;
  rec.pid = tgid;
  rec.first_seen = now_ns();
  auto status = read_zombie_exit_status(p->procdir.get());
  if (!status) status = reaped_exit_status(p->pidfd.get());
  if (status) {
    util::ExitStatus st = util::decode_wait_status(*status);
    rec.exit_code = st.code;
    if (st.signal) rec.exit_signal = st.signal;
  } else if (p->exit_group_code) {
    rec.exit_code = *p->exit_group_code;
  }
  writer_.push(std::move(rec));
}

}  // namespace cordon::tracer
