// escape_probe run natively: each action reports what the kernel said, so the
// sandbox tests can trust a difference they see under cordon.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon {
namespace {

int probe(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ittest::fixture("escape_probe")};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = ittest::run(argv, {.timeout = 30});
  EXPECT_FALSE(r.timed_out) << r.describe();
  return r.code;
}

class EscapeProbe : public ::testing::Test {
 protected:
  ittest::ScratchDir dir_{"cordon-escape"};
};

TEST_F(EscapeProbe, FileActionsSucceedInAScratchDirectory) {
  std::string a = dir_ / "a", b = dir_ / "b";
  EXPECT_EQ(probe({"write", a}), 0);
  EXPECT_EQ(probe({"read", a}), 0);
  EXPECT_EQ(probe({"truncate", a}), 0);
  EXPECT_EQ(probe({"chmod", a}), 0);
  EXPECT_EQ(probe({"rename", a, b}), 0);
  EXPECT_EQ(probe({"link", b, a}), 0);
  EXPECT_EQ(probe({"unlink", a}), 0);
  EXPECT_EQ(probe({"symlink", b, dir_ / "s"}), 0);
  EXPECT_EQ(probe({"mkfifo", dir_ / "f"}), 0);
  EXPECT_TRUE(ittest::exists(b));
  EXPECT_FALSE(ittest::exists(a));
}

TEST_F(EscapeProbe, ReportsTheErrno) {
  EXPECT_EQ(probe({"read", "/nonexistent"}), ENOENT);
  EXPECT_EQ(probe({"write", dir_ / "missing/dir/file"}), ENOENT);
  EXPECT_EQ(probe({"unlink", dir_ / "nothing"}), ENOENT);
  EXPECT_EQ(probe({"fd", "99"}), EBADF);
  EXPECT_EQ(probe({"fd", "2"}), 0);
  EXPECT_EQ(probe({"tiocsti"}), ENOTTY);  // stdin is /dev/null, not a terminal
  EXPECT_EQ(probe({"tiocsti-high"}), ENOTTY);
  EXPECT_EQ(probe({"kill", std::to_string(::getpid())}), 0);
  EXPECT_EQ(probe({"shmget-attach", "2147480000"}), ENOENT);
}

TEST_F(EscapeProbe, ConnectToAClosedPortIsRefused) {
  // A port that was free a moment ago: bind to 0, learn it, close.
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(s);
  EXPECT_EQ(probe({"connect-tcp", "127.0.0.1", std::to_string(ntohs(addr.sin_port))}),
            ECONNREFUSED);
}

TEST_F(EscapeProbe, SyscallsASandboxMustFilterWorkNatively) {
  // Natively these reach the kernel; a container's own seccomp profile may
  // already answer clone3 with ENOSYS, which is what cordon will arrange.
  int clone3 = probe({"clone3"});
  EXPECT_TRUE(clone3 == 0 || clone3 == ENOSYS) << clone3;
  EXPECT_EQ(probe({"io-uring-setup"}), 0);
  EXPECT_EQ(probe({"unshare-user"}), 0);
#if defined(__x86_64__)
  EXPECT_EQ(probe({"int80"}), 0);
#endif
}

TEST_F(EscapeProbe, BackgroundSleepReturnsAtOnceAndLeavesTheChild) {
  std::string token = "4" + std::to_string(::getpid() % 1000);  // seconds, unique enough
  ittest::RunResult r =
      ittest::run({ittest::fixture("escape_probe"), "background-sleep", token}, {.timeout = 10});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_LT(r.seconds, 5);
  // Only our own probe's child: both the token and the action in its argv.
  std::vector<pid_t> ours;
  for (pid_t pid : ittest::pids_with_arg(token)) {
    for (pid_t sleeper : ittest::pids_with_arg("background-sleep")) {
      if (pid == sleeper) ours.push_back(pid);
    }
  }
  EXPECT_EQ(ours.size(), 1u);
  for (pid_t pid : ours) ::kill(pid, SIGKILL);
}

TEST_F(EscapeProbe, BadUsageIs255) {
  EXPECT_EQ(probe({}), 255);
  EXPECT_EQ(probe({"no-such-action"}), 255);
  EXPECT_EQ(probe({"write"}), 255);
  EXPECT_EQ(probe({"fd", "not-a-number"}), 255);
}

}  // namespace
}  // namespace cordon
