// Fixtures beyond file names: network connects, the refused io_uring and an
// unreadable path pointer.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <regex>

#include "tests/tracer/fixture_test.h"

namespace cordon::ittest {
namespace {

using ::testing::Optional;

class MiscFixtures : public FixtureTest {};

// Whether this host can bind [::1] (the fixture skips IPv6 otherwise).
bool have_ipv6_loopback() {
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  sin6.sin6_addr = in6addr_loopback;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sin6), sizeof sin6) == 0;
  ::close(fd);
  return ok;
}

TEST_F(MiscFixtures, ConnectLoopbackEveryFamily) {
  trace_fixture("connect_loopback");
  int port = std::atoi(result_.out.c_str());
  ASSERT_GT(port, 0) << result_.describe();
  std::vector<schema::EventRecord> connects;
  for (const auto& e : events_) {
    if (e.op == "connect") connects.push_back(e);
  }
  const bool v6 = have_ipv6_loopback();
  ASSERT_EQ(connects.size(), v6 ? 4u : 3u);
  for (const auto& e : connects) {
    EXPECT_EQ(e.syscall, "connect");
    EXPECT_EQ(e.pid, root_pid_);
    EXPECT_FALSE(e.fault) << *e.fault;
  }

  EXPECT_EQ(connects[0].net_family, "inet");
  EXPECT_EQ(connects[0].net_addr, "127.0.0.1");
  EXPECT_THAT(connects[0].net_port, Optional(port));

  EXPECT_EQ(connects[1].net_family, "unix");
  EXPECT_EQ(connects[1].net_addr, dir_ + "/sock");
  EXPECT_EQ(connects[1].path, dir_ + "/sock");
  EXPECT_EQ(connects[1].abs_path, dir_ + "/sock");
  EXPECT_THAT(connects[1].existed, Optional(true));
  EXPECT_FALSE(connects[1].net_port);

  EXPECT_EQ(connects[2].net_family, "unix-abstract");
  ASSERT_TRUE(connects[2].net_addr);
  // The fixture's pid inside the sandbox's pid namespace; no leading NUL.
  EXPECT_TRUE(std::regex_match(*connects[2].net_addr, std::regex("cordon-fixture-[0-9]+")))
      << *connects[2].net_addr;
  EXPECT_FALSE(connects[2].abs_path);

  if (v6) {
    EXPECT_EQ(connects[3].net_family, "inet6");
    EXPECT_EQ(connects[3].net_addr, "::1");
    ASSERT_TRUE(connects[3].net_port);
    EXPECT_GT(*connects[3].net_port, 0);
    EXPECT_LT(*connects[3].net_port, 65536);
  }
}

TEST_F(MiscFixtures, IoUringIsRefusedWithEnosys) {
  trace_fixture("io_uring_probe");  // exits 0 only when it saw ENOSYS
  std::vector<schema::EventRecord> refused;
  for (const auto& e : events_) {
    if (e.op == "refused") refused.push_back(e);
  }
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].syscall, "io_uring_setup");
  EXPECT_THAT(refused[0].error, Optional(ENOSYS));
  EXPECT_EQ(refused[0].pid, root_pid_);
  EXPECT_EQ(run_.state, "complete");
}

TEST_F(MiscFixtures, BadPointerRecordsAFault) {
  trace_fixture("bad_pointer");  // exits 0 only when the kernel said EFAULT
  std::vector<schema::EventRecord> faults;
  for (const auto& e : events_) {
    if (e.fault) faults.push_back(e);
  }
  ASSERT_EQ(faults.size(), 1u);
  const auto& e = faults[0];
  EXPECT_EQ(e.syscall, "openat");
  EXPECT_EQ(e.op, "open");
  EXPECT_EQ(e.pid, root_pid_);
  EXPECT_FALSE(e.path);  // nothing invented
  EXPECT_FALSE(e.abs_path);
  EXPECT_FALSE(e.fault->empty());
  EXPECT_THAT(e.flags, Optional(O_RDONLY));
  // The supervisor went on: the run finished normally, the exit was seen.
  EXPECT_EQ(run_.state, "complete");
  EXPECT_THAT(run_.exit_code, Optional(0));
  EXPECT_EQ(result_.err.find("cordon: trace:"), result_.err.rfind("cordon: "));  // no other message
}

}  // namespace
}  // namespace cordon::ittest
