#include "tracer/tracer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "tracer/filter.h"
#include "util/fd.h"
#include "util/process.h"
#include "util/unix_socket.h"

// Protocol on the inherited socket, one SEQPACKET message each, in order:
//   "listener" + the notification fd    (or "error <text>" and exit 125)
//   "exec-failed <errno>"               when the command could not start
//   "exit <code> <signal>"              the command's own status
// The shim runs after bwrap has built the namespaces, so the filter covers the
// command and nothing of bwrap's setup. It stays as a child subreaper until
// every descendant has ended, so a process that outlives the command is still
// traced; then it exits with the command's status.

namespace cordon::tracer {

[[noreturn]] void shim_main(int sock_fd, char** command) {
  util::Fd sock(sock_fd);
  // The command must not inherit the channel to the supervisor.
  ::fcntl(sock.get(), F_SETFD, FD_CLOEXEC);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // In an audited run the command shares our uid: not dumpable keeps it out
  // of our /proc/<pid>/fd while we hold the listener. exec() makes the
  // command dumpable again.
  ::prctl(PR_SET_DUMPABLE, 0);

  auto listener = install_notify_filter();
  if (!listener) {
    (void)util::send_message(sock.get(), "error " + listener.error().message);
    ::_exit(125);
  }
  // From here every watched call of ours waits for the supervisor, which
  // cannot answer until it holds the listener: send it before anything else.
  if (!util::send_message(sock.get(), "listener", listener->get())) ::_exit(125);
  listener->reset();

  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) ::_exit(125);
  util::Fd rd(p[0]), wr(p[1]);
  pid_t child = ::fork();
  if (child < 0) ::_exit(125);
  if (child == 0) {
    util::reset_signals_for_exec();
    ::execvp(command[0], command);
    int err = errno;
    (void)!::write(wr.get(), &err, sizeof err);
    ::_exit(err == ENOENT ? 127 : 126);
  }
  wr.reset();
  // Ctrl-C at the terminal reaches the whole foreground group; the command
  // decides what it means, and the shim stays to report the outcome.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGQUIT, SIG_IGN);

  int err = 0;
  ssize_t n;
  while ((n = ::read(rd.get(), &err, sizeof err)) < 0 && errno == EINTR) {
  }
  if (n == sizeof err) {
    (void)util::send_message(sock.get(), "exec-failed " + std::to_string(err));
  }

  int main_status = 0;
  for (;;) {
    int status;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: the command and everything it left behind are gone
    }
    if (pid == child) {
      main_status = status;
      util::ExitStatus st = util::decode_wait_status(status);
      (void)util::send_message(sock.get(),
                               "exit " + std::to_string(st.code) + " " + std::to_string(st.signal));
    }
  }
  ::_exit(util::decode_wait_status(main_status).code);
}

}  // namespace cordon::tracer
