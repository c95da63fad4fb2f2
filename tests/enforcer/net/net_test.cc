// Network confinement end to end: `cordon run` sandboxes reaching (or not)
// servers this test runs on the host's loopback, with a test DNS server on
// loopback as the proxy's upstream resolver. No traffic leaves the machine.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "enforcer/enforcer.h"
#include "enforcer/net/session.h"
#include "schema/policy/policy.h"
#include "tests/enforcer/net/servers.h"
#include "tests/tracer/support.h"

namespace cordon {
namespace {

using nettest::DnsServer;
using nettest::EchoServer;
using nettest::kClient;

std::string fmt_rule(const std::string& host, uint16_t port) {
  return "allow_tcp [\"" + host + ":" + std::to_string(port) + "\"]";
}

class NetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ittest::find_program("python3").empty() || ::access("/usr/bin/python3", X_OK) != 0) {
      GTEST_SKIP() << "needs /usr/bin/python3";
    }
    ::mkdir((dir_ / "home").c_str(), 0700);
  }
  std::string policy(const std::string& body) {
    std::string path = dir_ / ("p" + std::to_string(++n_) + ".sbx");
    ittest::write_file(path, "net {\n" + body + "\n}\n");
    return path;
  }
  ittest::RunResult run(const std::vector<std::string>& pol, const std::vector<std::string>& cmd,
                        const std::string& upstream = "") {
    std::vector<std::string> argv = {ittest::cordon_bin(), "run", "--no-workspace-policy"};
    for (const auto& p : pol) argv.insert(argv.end(), {"--policy", p});
    if (!upstream.empty()) argv.insert(argv.end(), {"--dns-upstream", upstream});
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return ittest::run(argv, {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}, .timeout = 60});
  }
  ittest::RunResult client(const std::vector<std::string>& pol, const std::string& host,
                           uint16_t port, const std::string& upstream = "") {
    return run(pol, {"/usr/bin/python3", "-c", kClient, host, std::to_string(port)}, upstream);
  }
  // What `cordon run` would launch for the base policy plus `net_body`,
  // for tests that hold the proxy session themselves.
  enforcer::RunRequest request(const std::string& net_body, std::vector<std::string> command) {
    std::string home = dir_ / "home";
    std::vector<schema::Layer> layers;
    layers.push_back({"base", *schema::base_policy(dir_.path(), home)});
    auto extra = schema::parse_policy("net {\n" + net_body + "\n}\n",
                                      schema::ParseContext{"test", home, dir_.path()});
    if (!extra) throw std::runtime_error(extra.error().message);
    layers.push_back({"test", std::move(*extra)});
    policy_.emplace(std::move(layers));
    enforcer::RunRequest req;
    req.command = std::move(command);
    req.policy = &*policy_;
    req.cwd = dir_.path();
    req.home = home;
    req.workspace_policy = dir_ / ".cordon.sbx";
    req.environ = {"PATH=/usr/bin:/bin"};
    req.cordon_exe = ittest::cordon_bin();
    return req;
  }
  ittest::ScratchDir dir_{"cordon-net"};
  int n_ = 0;
  std::optional<schema::EffectivePolicy> policy_;
};

TEST_F(NetTest, HostInternalReachesTheHostsLoopback) {
  EchoServer echo;
  auto r = client({policy(fmt_rule("host.internal", echo.port()))}, "host.internal", echo.port());
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(r.out, "reply:ping\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
}

TEST_F(NetTest, WithoutARuleTheConnectionIsRefusedAndReported) {
  EchoServer echo;
  auto r =
      client({policy(fmt_rule("host.internal", static_cast<uint16_t>(echo.port() == 1 ? 2 : 1)))},
             "host.internal", echo.port());
  EXPECT_NE(r.out, "reply:ping\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 0);
  EXPECT_NE(r.err.find("refused host.internal:" + std::to_string(echo.port())), std::string::npos)
      << r.describe();
}

TEST_F(NetTest, LiteralLoopbackIsTheSandboxsOwn) {
  EchoServer echo;
  // Even with the host's port allowed through host.internal, 127.0.0.1 is
  // the sandbox's loopback, where nothing listens.
  auto r = client({policy(fmt_rule("host.internal", echo.port()))}, "127.0.0.1", echo.port());
  EXPECT_EQ(r.out, "error:111\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 0);
  // Without network rules too.
  r = client({}, "127.0.0.1", echo.port());
  EXPECT_EQ(r.out, "error:111\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 0);
}

TEST_F(NetTest, SandboxReachesItsOwnLoopbackServerWithoutRules) {
  constexpr const char* kSelf = R"py(
import socket, threading
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
def serve():
    c, _ = l.accept(); c.sendall(c.recv(16)); c.close()
threading.Thread(target=serve, daemon=True).start()
s = socket.create_connection(("127.0.0.1", l.getsockname()[1]), timeout=5); s.sendall(b"self")
print(s.recv(16).decode())
)py";
  for (const auto& pol : {std::vector<std::string>{},
                          std::vector<std::string>{policy("allow_tcp [\"host.internal:9\"]")}}) {
    auto r = run(pol, {"/usr/bin/python3", "-c", kSelf});
    EXPECT_EQ(r.code, 0) << r.describe();
    EXPECT_EQ(r.out, "self\n") << r.describe();
  }
}

TEST_F(NetTest, NoRulesMeansNoNetworkAtAll) {
  auto r = run({}, {"/usr/bin/python3", "-c",
                    "import socket\ntry:\n socket.create_connection(('198.51.100.1', 80), "
                    "timeout=3)\n print('connected')\n"
                    "except OSError as e: print('error:%d' % e.errno)"});
  EXPECT_EQ(r.out, "error:101\n") << r.describe();  // ENETUNREACH
}

TEST_F(NetTest, AllowedNamesResolveOthersDoNot) {
  EchoServer echo;
  DnsServer dns(
      {{"svc.test", "127.0.0.1"}, {"priv.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}});
  std::string up = "127.0.0.1:" + std::to_string(dns.port());
  // svc.test resolves to loopback; the literal rule lets that address be dialled.
  auto pol = policy(fmt_rule("svc.test", echo.port()) + "\n" + fmt_rule("127.0.0.1", echo.port()) +
                    "\n" + fmt_rule("priv.test", echo.port()));
  auto r = client({pol}, "svc.test", echo.port(), up);
  EXPECT_EQ(r.out, "reply:ping\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);

  // Not named by the policy: no answer at all, and upstream never asked.
  int asked = dns.queries.load();
  r = client({pol}, "other.test", echo.port(), up);
  EXPECT_EQ(r.out, "noname\n") << r.describe();
  EXPECT_EQ(dns.queries.load(), asked);
  EXPECT_NE(r.err.find("refused to resolve other.test"), std::string::npos) << r.describe();

  // Allowed by name, but it resolves to loopback and no rule names that.
  auto pol2 = policy(fmt_rule("priv.test", echo.port()));
  r = client({pol2}, "priv.test", echo.port(), up);
  EXPECT_NE(r.out, "reply:ping\n") << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
  EXPECT_NE(r.err.find("local or private"), std::string::npos) << r.describe();
}

// Resolves HOST for IPv4 and IPv6, prints both, then connects over IPv6
// and prints what the echo server sent back.
constexpr const char* kBothFamilies = R"py(
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
v4 = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)[0][4]
v6 = socket.getaddrinfo(host, port, socket.AF_INET6, socket.SOCK_STREAM)[0][4]
print("v4 " + v4[0]); print("v6 " + v6[0])
s = socket.socket(socket.AF_INET6); s.settimeout(10); s.connect(v6); s.sendall(b"ping")
print("reply:" + s.recv(16).decode())
)py";

// One name, one grant: the A and AAAA answers the sandbox gets are one
// allocation, and a connection over IPv6 (ip6tables DNAT) reaches the same
// destination as over IPv4.
TEST_F(NetTest, AAndAaaaOfANameReachTheSameGrant) {
  EchoServer echo;
  DnsServer dns(std::map<std::string, std::string>{{"svc.test", "127.0.0.1"}});
  std::string up = "127.0.0.1:" + std::to_string(dns.port());
  auto pol = policy(fmt_rule("svc.test", echo.port()) + "\n" + fmt_rule("127.0.0.1", echo.port()));
  auto r =
      run({pol}, {"/usr/bin/python3", "-c", kBothFamilies, "svc.test", std::to_string(echo.port())},
          up);
  if (r.err.find("IPv6 is not redirected") != std::string::npos) {
    GTEST_SKIP() << "no IPv6 nat here: " << r.err;
  }
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("v4 "), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("v6 "), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("reply:ping\n"), std::string::npos) << r.describe();
  EXPECT_EQ(echo.accepted.load(), 1);
  // Asked upstream once for the name, whichever family the sandbox asked.
  EXPECT_LE(dns.queries.load(), 2);
}

TEST_F(NetTest, CommandHasNoCapabilitiesAndCannotMakeNamespaces) {
  auto r = run({policy("allow_tcp [\"host.internal:9\"]")},
               {"/bin/sh", "-c",
                "grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status; id -u; "
                "/usr/bin/unshare -U true && echo UNSHARED; "
                "/usr/sbin/iptables -t nat -F OUTPUT 2>/dev/null && echo FLUSHED; true"});
  EXPECT_EQ(r.code, 0) << r.describe();
  for (const char* f : {"CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
    EXPECT_NE(r.out.find(std::string(f) + ":\t0000000000000000"), std::string::npos)
        << r.describe();
  }
  EXPECT_NE(r.out.find(std::to_string(::getuid()) + "\n"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("UNSHARED"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("FLUSHED"), std::string::npos) << r.describe();
}

TEST_F(NetTest, ContextListsTheAllowedDestinations) {
  auto r = run({policy("allow_tcp [\"host.internal:5432\", \"example.com:443\"]")}, {"/bin/true"});
  EXPECT_EQ(r.code, 0) << r.describe();
  std::vector<std::string> argv = {
      ittest::cordon_bin(),
      "run",
      "--no-workspace-policy",
      "--dry-run",
      "--policy",
      policy("allow_tcp [\"host.internal:5432\", \"example.com:443\"]\n"
             "allow_udp \"host.internal:9999\"\nexpose 18123"),
      "--",
      "/bin/true"};
  r = ittest::run(argv, {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}});
  EXPECT_NE(r.out.find("- host.internal:5432\n- example.com:443\n- host.internal:9999 (udp)\n"),
            std::string::npos)
      << r.describe();
  EXPECT_NE(r.out.find("reachable from the host's loopback: 18123."), std::string::npos)
      << r.describe();
}

std::optional<schema::NetRecord> find_record(const std::vector<schema::NetRecord>& records,
                                             const std::string& kind,
                                             const std::optional<std::string>& name, bool allowed) {
  for (const auto& r : records) {
    if (r.kind == kind && r.name == name && r.allowed == allowed) return r;
  }
  return std::nullopt;
}

// What run --audit writes into the trace: every lookup and connection,
// counted, with the name each connection was attributed to.
TEST_F(NetTest, SessionRecordsEveryLookupAndConnection) {
  EchoServer echo;
  auto closed = static_cast<uint16_t>(echo.port() == 1 ? 2 : 1);
  std::string script = R"py(
import socket, sys
port, closed = int(sys.argv[1]), int(sys.argv[2])
for _ in range(2):
    s = socket.create_connection(("host.internal", port), timeout=10); s.sendall(b"x"); s.recv(4)
for host, p in (("host.internal", closed), ("nope.test", port)):
    try: socket.create_connection((host, p), timeout=5)
    except OSError: pass
)py";
  auto req = request(
      fmt_rule("host.internal", echo.port()),
      {"/usr/bin/python3", "-c", script, std::to_string(echo.port()), std::to_string(closed)});
  auto launch = enforcer::prepare(req);
  ASSERT_TRUE(launch) << launch.error().message;
  auto session = launch->net;
  auto outcome = enforcer::execute(std::move(*launch));
  ASSERT_TRUE(outcome) << outcome.error().message;
  auto records = session->records();
  auto ok = find_record(records, "connect", "host.internal", true);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->proto, "tcp");
  EXPECT_EQ(ok->port, echo.port());
  EXPECT_EQ(ok->addr, "127.0.0.1");
  EXPECT_EQ(ok->count, 2);
  EXPECT_FALSE(ok->reason);
  auto refused = find_record(records, "connect", "host.internal", false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->port, closed);
  EXPECT_EQ(refused->reason, "no allow_tcp rule");
  auto lookup = find_record(records, "lookup", "host.internal", true);
  ASSERT_TRUE(lookup);
  EXPECT_EQ(lookup->proto, "dns");
  auto name = find_record(records, "lookup", "nope.test", false);
  ASSERT_TRUE(name);
  EXPECT_GE(name->count, 1);
  auto report = session->report();
  EXPECT_EQ(report.size(), 2u);
}

// The proxy stopping mid-run: established connections end, new ones fail,
// and nothing else becomes reachable.
TEST_F(NetTest, ProxyGoneMeansNothingGetsOut) {
  EchoServer echo;
  std::string flag = dir_ / "first", go = dir_ / "go";
  std::string script = std::string(R"py(
import socket, sys, os, time
port = int(sys.argv[1])
s = socket.create_connection(("host.internal", port), timeout=10); s.sendall(b"one")
print("first:" + s.recv(16).decode(), flush=True)
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]): time.sleep(0.02)
try:
    d = s.recv(16); print("old:" + ("eof" if not d else d.decode()))
except OSError as e: print("old:error:%d" % e.errno)
try:
    t = socket.create_connection(("host.internal", port), timeout=5); t.sendall(b"two")
    d = t.recv(16); print("new:" + ("eof" if not d else d.decode()))
except OSError as e: print("new:error:%d" % (e.errno or 0))
)py");
  auto req = request(fmt_rule("host.internal", echo.port()),
                     {"/bin/sh", "-c", "exec /usr/bin/python3 -c \"$0\" \"$@\" > out.txt 2>&1",
                      script, std::to_string(echo.port()), flag, go});
  auto launch = enforcer::prepare(req);
  ASSERT_TRUE(launch) << launch.error().message;
  auto session = launch->net;
  ASSERT_TRUE(session);
  auto done = std::async(std::launch::async, [l = std::move(*launch)]() mutable {
    return enforcer::execute(std::move(l));
  });
  ASSERT_TRUE(ittest::eventually([&] { return ittest::exists(flag); }, 30))
      << ittest::read_file(dir_ / "out.txt");
  session->stop();
  ittest::write_file(go, "");
  auto outcome = done.get();
  ASSERT_TRUE(outcome) << outcome.error().message;
  std::string out = ittest::read_file(dir_ / "out.txt");
  EXPECT_NE(out.find("first:one"), std::string::npos) << out;
  EXPECT_EQ(out.find("old:one"), std::string::npos) << out;
  EXPECT_NE(out.find("old:"), std::string::npos) << out;
  EXPECT_TRUE(out.find("new:error") != std::string::npos ||
              out.find("new:eof") != std::string::npos)
      << out;
  EXPECT_EQ(echo.accepted.load(), 1);
}

}  // namespace
}  // namespace cordon
