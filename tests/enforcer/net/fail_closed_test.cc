// Failing closed when the host lacks what network confinement needs, with
// the tools hidden through $CORDON_NET_TOOLS_DIR: no iptables refuses a run
// with net rules (and learning falls back to the host's network, saying so);
// an iptables that cannot do TPROXY refuses allow_udp but still confines TCP;
// no ip6tables withdraws IPv6, so a v6 connect fails at once.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/enforcer/net/servers.h"
#include "tests/tracer/support.h"

namespace cordon {
namespace {

using nettest::EchoServer;
using nettest::kClient;

// The first of the standard places that has `name`.
std::string system_tool(const std::string& name) {
  for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
    std::string path = dir + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

class NetFailClosed : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
    ::mkdir((dir_ / "home").c_str(), 0700);
    ::mkdir(tools().c_str(), 0755);
  }
  // Inside the working directory, which the sandbox sees: the tools run there.
  std::string tools() const { return dir_ / "tools"; }
  void link_tool(const std::string& name) {
    ASSERT_EQ(::symlink(system_tool(name).c_str(), (tools() + "/" + name).c_str()), 0) << name;
  }
  ittest::RunResult cordon(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ittest::cordon_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return ittest::run(argv, {.cwd = dir_.path(),
                              .env = {{"HOME", dir_ / "home"}, {"CORDON_NET_TOOLS_DIR", tools()}},
                              .timeout = 60});
  }
  std::string policy(const std::string& body) {
    std::string path = dir_ / ("p" + std::to_string(++n_) + ".sbx");
    ittest::write_file(path, "net {\n" + body + "\n}\n");
    return path;
  }
  // `cordon run` of the test client against host.internal:PORT, with a rule
  // allowing exactly that.
  ittest::RunResult run_client(uint16_t port) {
    return cordon({"run", "--no-workspace-policy", "--policy",
                   policy("allow_tcp \"host.internal:" + std::to_string(port) + "\""), "--",
                   "/usr/bin/python3", "-c", kClient, "host.internal", std::to_string(port)});
  }
  ittest::ScratchDir dir_{"cordon-net-closed"};
  int n_ = 0;
};

TEST_F(NetFailClosed, NoIptablesRefusesARunWithNetRules) {
  link_tool("ip");
  EchoServer echo;
  auto r = run_client(echo.port());
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("iptables"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("refusing to run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "the command must not have run";
}

TEST_F(NetFailClosed, NoIptablesLearnsOnTheHostNetworkAndSaysSo) {
  auto r = cordon({"trace", "-o", dir_ / "t.db", "--", "/bin/true"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("learning on the host's network"), std::string::npos) << r.err;
  auto asked = cordon({"trace", "--net", "proxy", "-o", dir_ / "u.db", "--", "/bin/true"});
  EXPECT_EQ(asked.code, 125) << asked.describe();
  EXPECT_FALSE(ittest::exists(dir_ / "u.db"));
}

TEST_F(NetFailClosed, WithoutTproxyAllowUdpIsRefusedButTcpIsConfined) {
  link_tool("ip");
  link_tool("ip6tables");
  // iptables that refuses every TPROXY rule, as on a kernel without the
  // module, and does everything else.
  ittest::write_file(tools() + "/iptables",
                     "#!/bin/sh\ncase \"$*\" in *TPROXY*) echo 'no TPROXY target' >&2; exit 1;; "
                     "esac\nexec " +
                         system_tool("iptables") + " \"$@\"\n",
                     0755);
  auto udp = cordon({"run", "--no-workspace-policy", "--policy",
                     policy("allow_udp \"host.internal:9999\""), "--", "/bin/echo", "ran"});
  EXPECT_EQ(udp.code, 125) << udp.describe();
  EXPECT_NE(udp.err.find("allow_udp needs TPROXY"), std::string::npos) << udp.err;
  EXPECT_EQ(udp.out, "") << "the command must not have run";

  EchoServer echo;
  auto tcp = run_client(echo.port());
  EXPECT_EQ(tcp.code, 0) << tcp.describe();
  EXPECT_EQ(tcp.out, "reply:ping\n") << tcp.describe();
}

TEST_F(NetFailClosed, NoIp6tablesWithdrawsIpv6) {
  link_tool("ip");
  link_tool("iptables");
  // A documentation address: it must fail at once, not hang, and not leave.
  auto r = cordon({"run", "--no-workspace-policy", "--policy",
                   policy("allow_tcp \"example.com:443\""), "--", "/usr/bin/python3", "-c",
                   "import socket, time\n"
                   "t = time.time()\n"
                   "try:\n"
                   "  socket.create_connection(('2001:db8::1', 443), 10)\n"
                   "  print('connected')\n"
                   "except OSError:\n"
                   "  print('refused' if time.time() - t < 5 else 'hung')\n"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(r.out, "refused\n") << r.describe();
  EXPECT_NE(r.err.find("IPv6 is not redirected"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cordon
