// expose end to end: a server the sandboxed command runs on its own
// loopback, reached from the host's loopback on the same port.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon {
namespace {

// Listens on the sandbox's 127.0.0.1:PORT, touches FLAG, answers one
// connection with "in:" and what it read, then exits.
constexpr const char* kServer = R"py(
import socket, sys
port, flag = int(sys.argv[1]), sys.argv[2]
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", port)); l.listen()
open(flag, "w").close()
c, _ = l.accept(); c.sendall(b"in:" + c.recv(16)); c.close()
)py";

// A port free on the host's loopback just now.
uint16_t free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

// Connects to the host's 127.0.0.1:PORT, sends "ping", returns the reply
// ("" when the connection failed or closed empty).
std::string ping(uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  std::string out;
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(s, "ping", 4) == 4) {
    char buf[64];
    ssize_t n;
    while ((n = ::read(s, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  }
  ::close(s);
  return out;
}

class ExposeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
    ::mkdir((dir_ / "home").c_str(), 0700);
  }
  std::vector<std::string> argv(const std::string& rules, uint16_t port) {
    std::string pol = dir_ / "p.sbx";
    ittest::write_file(pol, "net {\n" + rules + "\n}\n");
    return {ittest::cordon_bin(), "run", "--no-workspace-policy",
            "--policy",           pol,   "--",
            "/usr/bin/python3",   "-c",  kServer,
            std::to_string(port), flag_};
  }
  ittest::RunOptions options() {
    return {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}, .timeout = 60};
  }
  ittest::ScratchDir dir_{"cordon-expose"};
  std::string flag_ = dir_ / "listening";
};

TEST_F(ExposeTest, TheHostReachesTheSandboxsListenerOnThePort) {
  uint16_t port = free_port();
  auto p = ittest::start(argv("expose [" + std::to_string(port) + "]", port), options());
  ASSERT_TRUE(ittest::eventually([&] { return ittest::exists(flag_); }, 30))
      << p.finish().describe();
  EXPECT_EQ(ping(port), "in:ping");
  auto r = p.finish();
  EXPECT_EQ(r.code, 0) << r.describe();
}

TEST_F(ExposeTest, WithoutExposeTheListenerStaysInside) {
  uint16_t port = free_port();
  auto p = ittest::start(argv("allow_tcp [\"host.internal:9\"]", port), options());
  ASSERT_TRUE(ittest::eventually([&] { return ittest::exists(flag_); }, 30))
      << p.finish().describe();
  EXPECT_EQ(ping(port), "");
  // The server still waits; ending cordon ends the sandbox.
  ::kill(p.pid(), SIGTERM);
  p.finish();
}

TEST_F(ExposeTest, APortTakenOnTheHostRefusesTheRun) {
  uint16_t port = 0;
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(s, 1), 0);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  auto r = ittest::run(argv("expose [" + std::to_string(port) + "]", port), options());
  ::close(s);
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("cannot listen on the host's 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << r.describe();
  EXPECT_FALSE(ittest::exists(flag_));
}

}  // namespace
}  // namespace cordon
