#include "util/process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "util/fd.h"

namespace cordon::util {

ExitStatus decode_wait_status(int status) {
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), WTERMSIG(status)};
  return {WEXITSTATUS(status), 0};
}

Child::Child(Child&& other) noexcept : pid_(std::exchange(other.pid_, -1)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    this->~Child();
    pid_ = std::exchange(other.pid_, -1);
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

Result<ExitStatus> Child::wait() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return sys_error("waitpid");
  }
  pid_ = -1;
  return decode_wait_status(status);
}

Result<bool> Child::try_wait(ExitStatus& out) {
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r < 0) return sys_error("waitpid");
  if (r == 0) return false;
  pid_ = -1;
  out = decode_wait_status(status);
  return true;
}

void Child::kill(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

void reset_signals_for_exec() {
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
}

namespace {

Result<Child> spawn_impl(const std::vector<std::string>& argv, const std::vector<int>* keep_fds) {
  // The exec's errno travels back through a close-on-exec pipe: EOF means the
  // exec succeeded, four bytes mean it failed with that errno.
  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) return sys_error("pipe2");
  Fd rd(p[0]), wr(p[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork");
  if (pid == 0) {
    reset_signals_for_exec();
    if (keep_fds) {
      // Everything from 3 up closes at exec, then the chosen few are kept;
      // that includes descriptors leaked into cordon by whoever started it.
      ::syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
      for (int fd : *keep_fds) ::fcntl(fd, F_SETFD, 0);
    }
    ::execv(args[0], args.data());
    int err = errno;
    (void)!::write(wr.get(), &err, sizeof err);
    ::_exit(127);
  }
  Child child(pid);
  wr.reset();
  int err = 0;
  ssize_t n;
  while ((n = ::read(rd.get(), &err, sizeof err)) < 0 && errno == EINTR) {
  }
  if (n == sizeof err) {
    (void)child.wait();
    return sys_error("exec " + argv[0], err);
  }
  return child;
}

}  // namespace

Result<Child> spawn(const std::vector<std::string>& argv) {
  return spawn_impl(argv, nullptr);
}

Result<Child> spawn(const std::vector<std::string>& argv, const std::vector<int>& keep_fds) {
  return spawn_impl(argv, &keep_fds);
}

}  // namespace cordon::util
