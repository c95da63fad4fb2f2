// cordon on a terminal: the traced program keeps the terminal (reads what is
// typed), and Ctrl-C reaches the command, which decides; cordon reports how it
// ended.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

// A child on the slave side of a new pseudo-terminal, as its session leader
// with the terminal as its controlling tty (like a login shell's job).
class PtyChild {
 public:
  PtyChild(const std::vector<std::string>& argv, const std::string& cwd) {
    std::vector<std::string> copy = argv;
    std::vector<char*> args;
    for (auto& a : copy) args.push_back(a.data());
    args.push_back(nullptr);
    winsize ws{24, 80, 0, 0};
    pid_ = ::forkpty(&master_, nullptr, nullptr, &ws);
    if (pid_ < 0) throw std::runtime_error(std::string("forkpty: ") + std::strerror(errno));
    if (pid_ == 0) {
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
      if (::chdir(cwd.c_str()) != 0) ::_exit(126);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
  }
  ~PtyChild() {
    if (!status_) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
    ::close(master_);
  }

  void type(const std::string& keys) {
    ASSERT_EQ(::write(master_, keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
  }

  // Reads until `needle` has appeared (true) or `seconds` pass.
  bool read_until(const std::string& needle, double seconds) {
    double end = now_seconds() + seconds;
    while (screen_.find(needle) == std::string::npos) {
      if (now_seconds() > end) return false;
      drain(0.05);
    }
    return true;
  }

  // Waits for the child, draining its output; the shell-style exit code.
  int wait(double seconds) {
    double end = now_seconds() + seconds;
    while (!status_) {
      drain(0.02);
      int st;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        status_ = st;
      } else if (now_seconds() > end) {
        return -1;
      }
    }
    drain(0.05);
    return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
  }

  const std::string& screen() const { return screen_; }

 private:
  void drain(double seconds) {
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) return;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(master_, buf, sizeof buf)) > 0) screen_.append(buf, static_cast<size_t>(n));
    // EIO once the slave side is closed by everyone: nothing more will come.
    if (n < 0 && errno == EIO) sleep_seconds(seconds);
  }

  pid_t pid_ = -1;
  int master_ = -1;
  std::optional<int> status_;
  std::string screen_;
};

class Terminal : public ::testing::Test {
 protected:
  ScratchDir scratch_{"cordon-tty"};
  std::string db_ = scratch_ / "trace.db";
};

TEST_F(Terminal, TypedLineReachesTheProgram) {
  PtyChild child({cordon_bin(), "trace", "-o", db_, "--", fixture("tty_read"), scratch_.path()},
                 scratch_.path());
  child.type("hello through cordon\n");
  EXPECT_TRUE(child.read_until("got: hello through cordon", 30)) << child.screen();
  EXPECT_EQ(child.wait(30), 0) << child.screen();
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "complete");
  EXPECT_THAT(runs[0].exit_code, Optional(0));
}

TEST_F(Terminal, CtrlCReachesTheCommand) {
  // `ready` is printed just before the shell becomes `sleep 30`; a Ctrl-C
  // in between kills the shell with SIGINT instead, the same ending.
  PtyChild child(
      {cordon_bin(), "trace", "-o", db_, "--", "/bin/sh", "-c", "echo ready; exec sleep 30"},
      scratch_.path());
  ASSERT_TRUE(child.read_until("ready", 30)) << child.screen();
  sleep_seconds(0.3);
  double typed = now_seconds();
  child.type("\x03");
  int code = child.wait(20);
  EXPECT_EQ(code, 130) << child.screen();
  EXPECT_LT(now_seconds() - typed, 20);
  // The command died of SIGINT itself: a complete run, not an interrupted one.
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "complete");
  EXPECT_THAT(runs[0].exit_code, Optional(130));
  EXPECT_THAT(runs[0].exit_signal, Optional(SIGINT));
  EXPECT_THAT(child.screen(), Not(HasSubstr("interrupted")));
}

}  // namespace
}  // namespace cordon::ittest
