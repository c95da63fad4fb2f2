// Network learning end to end: `cordon learn` with the network through the
// proxy records names (a test DNS server on loopback is the upstream) and
// the draft proposes them; `--net host` keeps the host's network.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "schema/trace_db.h"
#include "tests/enforcer/net/servers.h"
#include "tests/tracer/support.h"

namespace cordon {
namespace {

using nettest::DnsServer;
using nettest::EchoServer;
using nettest::kClient;
using nettest::kUdpClient;
using nettest::UdpEchoServer;

class LearnNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
    ::mkdir((dir_ / "home").c_str(), 0700);
  }
  // `cordon learn` of the client; stdout is the draft.
  ittest::RunResult learn(const std::vector<std::string>& opts, const std::string& host,
                          uint16_t port, const char* client = kClient) {
    std::vector<std::string> argv = {ittest::cordon_bin(), "learn", "--trace", trace_};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.insert(argv.end(), {"--", "/usr/bin/python3", "-c", client, host, std::to_string(port)});
    return ittest::run(argv, {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}, .timeout = 60});
  }
  std::vector<schema::NetRecord> records() {
    std::vector<schema::NetRecord> out;
    auto db = schema::TraceDb::open_for_reading(trace_);
    if (!db) throw std::runtime_error(db.error().message);
    auto st = db->for_each_net({}, [&](int64_t, const schema::NetRecord& r) { out.push_back(r); });
    if (!st) throw std::runtime_error(st.error().message);
    return out;
  }
  ittest::ScratchDir dir_{"cordon-learn-net"};
  std::string trace_ = dir_ / "trace.db";
};

TEST_F(LearnNetTest, DraftNamesTheHostAndPortALookedUpNameReached) {
  EchoServer echo;
  DnsServer dns(std::map<std::string, std::string>{{"svc.test", "127.0.0.1"}});
  auto r =
      learn({"--dns-upstream", "127.0.0.1:" + std::to_string(dns.port())}, "svc.test", echo.port());
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
  std::string rule = "allow_tcp \"svc.test:" + std::to_string(echo.port()) + "\"";
  EXPECT_NE(r.out.find(rule), std::string::npos) << r.describe();
  // Not the fake address the sandbox connected to, nor the real one.
  EXPECT_EQ(r.out.find("198.18."), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("allow_tcp \"127.0.0.1"), std::string::npos) << r.describe();
  // svc.test reached a loopback address: enforcing needs a rule naming it.
  EXPECT_NE(r.out.find("reached at 127.0.0.1, a local or private address"), std::string::npos)
      << r.describe();

  bool looked_up = false, connected = false;
  for (const auto& n : records()) {
    looked_up |= n.kind == "lookup" && n.name == "svc.test";
    if (n.kind == "connect" && n.name == "svc.test") {
      connected = true;
      EXPECT_EQ(n.addr, "127.0.0.1");
      EXPECT_EQ(n.port, echo.port());
      EXPECT_TRUE(n.allowed);
    }
  }
  EXPECT_TRUE(looked_up);
  EXPECT_TRUE(connected);
}

TEST_F(LearnNetTest, HostInternalIsDraftedWithoutReview) {
  EchoServer echo;
  auto r = learn({}, "host.internal", echo.port());
  ASSERT_EQ(r.code, 0) << r.describe();
  std::string rule = "allow_tcp \"host.internal:" + std::to_string(echo.port()) + "\"";
  EXPECT_NE(r.out.find("  # connect\n  " + rule), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("REVIEW"), std::string::npos) << r.describe();
}

// The loop closed over the network: the drafted net rule is enough for the
// audited verify run, and a port the draft does not cover is named.
TEST_F(LearnNetTest, VerifyChecksTheDraftedNetRule) {
  EchoServer echo;
  auto r = learn({"--verify"}, "host.internal", echo.port());
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("the draft is complete"), std::string::npos) << r.describe();
  EXPECT_EQ(echo.accepted.load(), 2);  // learned, then verified

  // Verified with another port: refused by the proxy, but the learn run
  // never went there, so it is reported and not failed on.
  EchoServer other;
  auto again = learn({"--verify-cmd", std::string("/usr/bin/python3 -c '") + kClient +
                                          "' host.internal " + std::to_string(other.port())},
                     "host.internal", echo.port());
  EXPECT_EQ(again.code, 0) << again.describe();
  EXPECT_NE(again.err.find("never did"), std::string::npos) << again.describe();
  EXPECT_NE(again.err.find("host.internal:" + std::to_string(other.port())), std::string::npos)
      << again.describe();
}

TEST_F(LearnNetTest, UdpIsRelayedAndDraftedAsAllowUdp) {
  UdpEchoServer echo;
  auto r = learn({}, "host.internal", echo.port(), kUdpClient);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(echo.received.load(), 2);
  EXPECT_NE(r.out.find("allow_udp \"host.internal:" + std::to_string(echo.port()) + "\""),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(r.out.find("allow_tcp"), std::string::npos) << r.describe();
}

TEST_F(LearnNetTest, ANameThatDoesNotExistUpstreamDoesNotResolve) {
  DnsServer dns(std::map<std::string, std::string>{});
  auto r = learn({"--dns-upstream", "127.0.0.1:" + std::to_string(dns.port())}, "gone.test", 9);
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_GE(dns.queries.load(), 1);
  bool looked_up = false;
  for (const auto& n : records()) looked_up |= n.kind == "lookup" && n.name == "gone.test";
  EXPECT_TRUE(looked_up);
}

TEST_F(LearnNetTest, ABadUpstreamStopsBeforeTheCommandRuns) {
  auto r = learn({"--dns-upstream", "not-an-address"}, "host.internal", 9);
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("bad DNS upstream"), std::string::npos) << r.describe();
  EXPECT_FALSE(ittest::exists(trace_));
}

TEST_F(LearnNetTest, HostNetworkKeepsTheHostsLoopbackAndRecordsNoNames) {
  EchoServer echo;
  auto r = learn({"--net", "host"}, "127.0.0.1", echo.port());
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
  EXPECT_TRUE(records().empty());
  // Through the proxy the same connect stays in the sandbox's loopback.
  r = learn({}, "127.0.0.1", echo.port());
  EXPECT_EQ(r.code, 4) << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
}

}  // namespace
}  // namespace cordon
