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
#include "enforcer/net/dns.h"
#include "enforcer/net/session.h"
#include "schema/policy/policy.h"
#include "tests/tracer/support.h"

namespace cordon {
namespace {

namespace ip = boost::asio::ip;

// A socket on 127.0.0.1 at a port the kernel picks.
int loopback_socket(int type, uint16_t& port) {
  int s = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (type == SOCK_STREAM && ::listen(s, 64) != 0) ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw std::runtime_error("cannot open a loopback socket");
  }
  port = ntohs(a.sin_port);
  return s;
}

// Serves until destroyed, polling so it can stop.
class Server {
 public:
  virtual ~Server() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }

 protected:
  void run(int type) {
    fd_ = loopback_socket(type, port_);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) > 0) serve_one();
      }
    });
  }
  virtual void serve_one() = 0;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// TCP: echoes what arrives on each connection until EOF.
class EchoServer : public Server {
 public:
  EchoServer() { run(SOCK_STREAM); }
  ~EchoServer() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (auto& t : conns_) t.join();
  }
  std::atomic<int> accepted{0};

 private:
  void serve_one() override {
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    ++accepted;
    conns_.emplace_back([c] {
      char buf[65536];
      ssize_t n;
      while ((n = ::read(c, buf, sizeof buf)) > 0) {
        if (::write(c, buf, static_cast<size_t>(n)) != n) break;
      }
      ::close(c);
    });
  }
  std::vector<std::thread> conns_;
};

// UDP DNS: A records from a table, NXDOMAIN for the rest.
class DnsServer : public Server {
 public:
  explicit DnsServer(std::map<std::string, std::string> a) : table_(std::move(a)) {
    run(SOCK_DGRAM);
  }
  ~DnsServer() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::atomic<int> queries{0};

 private:
  void serve_one() override {
    char buf[1500];
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n <= 0) return;
    ++queries;
    std::string_view msg(buf, static_cast<size_t>(n));
    auto q = enforcer::net::dns::parse_query(msg);
    if (!q) return;
    auto it = table_.find(q->name);
    std::string reply;
    if (it == table_.end()) {
      reply = enforcer::net::dns::build_response(msg, *q, enforcer::net::dns::kNxDomain, {}, 0);
    } else {
      std::vector<ip::address> out;
      if (q->qtype == enforcer::net::dns::kTypeA) out.push_back(ip::make_address(it->second));
      reply = enforcer::net::dns::build_response(msg, *q, enforcer::net::dns::kNoError, out, 5);
    }
    ::sendto(fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
  }
  std::map<std::string, std::string> table_;
};

std::string fmt_rule(const std::string& host, uint16_t port) {
  return "allow_tcp [\"" + host + ":" + std::to_string(port) + "\"]";
}

// Connects to HOST PORT, sends "ping", prints what came back:
// "reply:ping", "eof", "noname" (exit 3) or "error:ERRNO" (exit 4).
constexpr const char* kClient = R"py(
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"ping")
    d = s.recv(16)
    print("reply:" + d.decode() if d else "eof")
except socket.gaierror:
    print("noname"); sys.exit(3)
except OSError as e:
    print("error:%d" % (e.errno or 0)); sys.exit(4)
)py";

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
  ittest::ScratchDir dir_{"cordon-net"};
  int n_ = 0;
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

TEST_F(NetTest, UnsupportedRulesAreRefusedNotIgnored) {
  auto r = run({policy("allow_udp [\"example.com:53\"]")}, {"/bin/true"});
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("allow_udp is not supported yet"), std::string::npos) << r.describe();
  r = run({policy("expose [8080]")}, {"/bin/true"});
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("expose is not supported yet"), std::string::npos) << r.describe();
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
      policy("allow_tcp [\"host.internal:5432\", \"example.com:443\"]"),
      "--",
      "/bin/true"};
  r = ittest::run(argv, {.cwd = dir_.path(), .env = {{"HOME", dir_ / "home"}}});
  EXPECT_NE(r.out.find("- host.internal:5432\n- example.com:443\n"), std::string::npos)
      << r.describe();
}

// The proxy stopping mid-run: established connections end, new ones fail,
// and nothing else becomes reachable.
TEST_F(NetTest, ProxyGoneMeansNothingGetsOut) {
  EchoServer echo;
  std::string home = dir_ / "home";
  std::vector<schema::Layer> layers;
  layers.push_back({"base", *schema::base_policy(dir_.path(), home)});
  auto extra = schema::parse_policy("net {\n" + fmt_rule("host.internal", echo.port()) + "\n}\n",
                                    schema::ParseContext{"test", home, dir_.path()});
  ASSERT_TRUE(extra) << extra.error().message;
  layers.push_back({"test", std::move(*extra)});
  schema::EffectivePolicy policy(std::move(layers));
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
  enforcer::RunRequest req;
  req.command = {"/bin/sh",
                 "-c",
                 "exec /usr/bin/python3 -c \"$0\" \"$@\" > out.txt 2>&1",
                 script,
                 std::to_string(echo.port()),
                 flag,
                 go};
  req.policy = &policy;
  req.cwd = dir_.path();
  req.home = home;
  req.workspace_policy = dir_ / ".cordon.sbx";
  req.environ = {"PATH=/usr/bin:/bin"};
  req.cordon_exe = ittest::cordon_bin();
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
