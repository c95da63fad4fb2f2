// allow_udp end to end: datagrams from a `cordon run` sandbox to a UDP echo
// server on the host's loopback, through TPROXY and the proxy.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/enforcer/net/servers.h"
#include "tests/tracer/support.h"

namespace cordon {
namespace {

using nettest::kUdpClient;
using nettest::UdpEchoServer;

class UdpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
    ::mkdir((dir_ / "home").c_str(), 0700);
  }
  ittest::RunResult client(const std::string& rules, const std::string& host, uint16_t port) {
    std::string pol = dir_ / ("p" + std::to_string(++n_) + ".sbx");
    ittest::write_file(pol, "net {\n" + rules + "\n}\n");
    return ittest::run({ittest::cordon_bin(), "run", "--no-workspace-policy", "--policy", pol, "--",
                        "/usr/bin/python3", "-c", kUdpClient, host, std::to_string(port)},
                       {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}, .timeout = 60});
  }
  ittest::ScratchDir dir_{"cordon-udp"};
  int n_ = 0;
};

TEST_F(UdpTest, AllowedDatagramsReachTheHostAndRepliesComeFromTheirDestination) {
  UdpEchoServer echo;
  auto r = client("allow_udp [\"host.internal:" + std::to_string(echo.port()) + "\"]",
                  "host.internal", echo.port());
  EXPECT_EQ(r.code, 0) << r.describe();
  // The reply comes from the address and port the datagram was sent to.
  EXPECT_EQ(r.out, "echo:ping0 True\necho:ping1 True\n") << r.describe();
  EXPECT_EQ(echo.received.load(), 2);
}

TEST_F(UdpTest, WithoutARuleDatagramsAreDroppedAndReported) {
  UdpEchoServer echo;
  auto other = static_cast<uint16_t>(echo.port() == 1 ? 2 : 1);
  auto r = client("allow_udp [\"host.internal:" + std::to_string(other) + "\"]", "host.internal",
                  echo.port());
  EXPECT_EQ(r.code, 5) << r.describe();
  EXPECT_EQ(echo.received.load(), 0);
  EXPECT_NE(r.err.find("refused udp host.internal:" + std::to_string(echo.port())),
            std::string::npos)
      << r.describe();
  // allow_tcp does not cover UDP.
  r = client("allow_tcp [\"host.internal:" + std::to_string(echo.port()) + "\"]", "host.internal",
             echo.port());
  EXPECT_EQ(r.code, 5) << r.describe();
  EXPECT_EQ(echo.received.load(), 0);
}

}  // namespace
}  // namespace cordon
