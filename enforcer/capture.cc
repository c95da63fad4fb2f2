#include "enforcer/capture.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "util/fd.h"

namespace cordon::enforcer {

namespace {

constexpr size_t kKeep = 64 * 1024;

// Reads what is available; false at EOF. Bytes past kKeep are drained and
// dropped so a chatty helper cannot block on a full pipe.
util::Result<bool> drain(int fd, std::string& into) {
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) {
    if (errno == EINTR || errno == EAGAIN) return true;
    return util::sys_error("read");
  }
  if (n == 0) return false;
  into.append(buf, std::min(static_cast<size_t>(n), kKeep - std::min(kKeep, into.size())));
  return true;
}

}  // namespace

util::Result<Captured> run_captured(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout) {
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) < 0) return util::sys_error("pipe2");
  util::Fd out_rd(out_pipe[0]), out_wr(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) < 0) return util::sys_error("pipe2");
  util::Fd err_rd(err_pipe[0]), err_wr(err_pipe[1]);
  // The exec's errno comes back through a close-on-exec pipe, as in
  // util::spawn: EOF means the exec succeeded.
  if (::pipe2(exec_pipe, O_CLOEXEC) < 0) return util::sys_error("pipe2");
  util::Fd exec_rd(exec_pipe[0]), exec_wr(exec_pipe[1]);
  util::Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null) return util::sys_error("open /dev/null");

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) return util::sys_error("fork");
  if (pid == 0) {
    // The copies dup2 makes lack O_CLOEXEC, so they survive the exec and the
    // pipes' originals do not.
    if (::dup2(null.get(), 0) < 0 || ::dup2(out_wr.get(), 1) < 0 || ::dup2(err_wr.get(), 2) < 0) {
      int err = errno;
      (void)!::write(exec_wr.get(), &err, sizeof err);
      ::_exit(127);
    }
    util::reset_signals_for_exec();
    ::execv(args[0], args.data());
    int err = errno;
    (void)!::write(exec_wr.get(), &err, sizeof err);
    ::_exit(127);
  }
  util::Child child(pid);
  out_wr.reset();
  err_wr.reset();
  exec_wr.reset();
  int exec_err = 0;
  ssize_t n;
  while ((n = ::read(exec_rd.get(), &exec_err, sizeof exec_err)) < 0 && errno == EINTR) {
  }
  if (n == sizeof exec_err) {
    (void)child.wait();
    return util::sys_error("exec " + argv[0], exec_err);
  }

  Captured result;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_rd.get(), POLLIN, 0}, {err_rd.get(), POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      // The Child destructor kills and reaps it.
      return util::Error{
          argv[0] + " did not finish within " + std::to_string(timeout.count() / 1000) + " s",
          ETIMEDOUT};
    }
    int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return util::sys_error("poll");
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      auto more = drain(fds[i].fd, *sinks[i]);
      if (!more.ok()) return more.error();
      if (!*more) fds[i].fd = -1;
    }
  }
  auto status = child.wait();
  if (!status.ok()) return status.error();
  result.status = *status;
  return result;
}

std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      line += "; ";
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace cordon::enforcer
