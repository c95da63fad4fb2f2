// `cordon run --audit`: the refusals of an enforced run recorded with the
// errno each got, reported at the end, and drafted into an amendment that
// makes the next run clean. Every refusal is provoked from inside with
// escape_probe; the test then reads the audit trace.
#include <sys/stat.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "tests/enforcer/net/servers.h"
#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

class Audit : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* d : {"cwd", "home", "secret", "ro"}) ::mkdir((root_ / d).c_str(), 0755);
    write_file(secret(), "secret\n");
    write_file(root_ / "cwd/escape_probe", read_file(fixture("escape_probe")), 0755);
    write_file(policy(), "fs {\n  allow_read \"" + root_ / "ro" + "\"\n}\n");
  }
  std::string secret() const { return root_ / "secret/s.txt"; }
  std::string policy() const { return root_ / "policy.sbx"; }

  RunOptions options() const {
    RunOptions o;
    o.cwd = root_ / "cwd";
    o.env = {
        {"HOME", root_ / "home"}, {"XDG_CONFIG_HOME", root_ / "config"}, {"PATH", "/usr/bin:/bin"}};
    o.timeout = 60;
    return o;
  }
  // Reads the secret, then writes into the read-only grant; exits 0 only
  // when both worked.
  std::vector<std::string> both() const {
    return {"/bin/sh", "-c",     "./escape_probe read \"$1\" && ./escape_probe write \"$2\"",
            "sh",      secret(), root_ / "ro/new.txt"};
  }
  RunResult audited(const std::string& db, const std::vector<std::string>& policies,
                    const std::vector<std::string>& command) const {
    std::vector<std::string> argv = {cordon_bin(), "run", "--audit", db};
    for (const auto& p : policies) argv.insert(argv.end(), {"--policy", p});
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return run(argv, options());
  }
  // Points into `events`, which must outlive the result (a temporary may not
  // be passed).
  static const schema::EventRecord* find(const std::vector<schema::EventRecord>&& events,
                                         const std::string& path) = delete;
  static const schema::EventRecord* find(const std::vector<schema::EventRecord>& events,
                                         const std::string& path) {
    for (const auto& e : events) {
      if (e.abs_path == path) return &e;
    }
    return nullptr;
  }

  ScratchOutsideTmp outside_tmp_;
  ScratchDir root_{"cordon-audit"};
};

TEST_F(Audit, EachRefusalIsRecordedWithItsErrno) {
  const std::string db = root_ / "audit.db";
  // Separately, so each attempt happens whatever the other got.
  RunResult read = audited(db, {policy()}, {"./escape_probe", "read", secret()});
  EXPECT_EQ(read.code, ENOENT) << read.describe();
  EXPECT_NE(read.err.find("ENOENT"), std::string::npos) << read.err;
  EXPECT_NE(read.err.find(secret()), std::string::npos) << read.err;
  RunResult write = audited(db, {policy()}, {"./escape_probe", "write", root_ / "ro/new.txt"});
  EXPECT_EQ(write.code, EROFS) << write.describe();

  auto runs = load_runs(db);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].mode, "audit");
  EXPECT_EQ(runs[0].exit_code, ENOENT);
  auto first = load_events(db, 1);
  const auto* r = find(first, secret());
  ASSERT_NE(r, nullptr) << "no event for the secret";
  EXPECT_EQ(r->op, "open");
  EXPECT_EQ(r->error, ENOENT);
  auto second = load_events(db, 2);
  const auto* w = find(second, root_ / "ro/new.txt");
  ASSERT_NE(w, nullptr) << "no event for the write";
  EXPECT_EQ(w->error, EROFS);
  // Only refusals: the probe's own loading (ld.so, libc) is not in there.
  for (const auto& e : first) EXPECT_TRUE(e.error.has_value()) << e.syscall;
  RunResult show = run({cordon_bin(), "show", db}, options());
  EXPECT_NE(show.out.find("run 1 (audit): complete, exit 2"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("denials:   1 (open 1)"), std::string::npos) << show.out;
}

TEST_F(Audit, BehavesLikeAPlainRun) {
  RunResult plain = run(
      {cordon_bin(), "run", "--policy", policy(), "--", "./escape_probe", "write", root_ / "ro/x"},
      options());
  RunResult audit =
      audited(root_ / "a.db", {policy()}, {"./escape_probe", "write", root_ / "ro/x"});
  EXPECT_EQ(plain.code, EROFS) << plain.describe();
  EXPECT_EQ(audit.code, plain.code) << audit.describe();
  RunResult ok = audited(root_ / "b.db", {policy()}, {"./escape_probe", "read", root_ / "ro"});
  EXPECT_EQ(ok.code, 21) << ok.describe();  // EISDIR: read(2) of a directory, as natively
  EXPECT_NE(ok.err.find("nothing was denied"), std::string::npos) << ok.err;
}

TEST_F(Audit, TheAmendmentMakesTheNextRunClean) {
  const std::string db = root_ / "audit.db";
  RunResult first = audited(db, {policy()}, both());
  ASSERT_NE(first.code, 0) << first.describe();
  RunResult again = audited(db, {policy()}, {"./escape_probe", "write", root_ / "ro/new.txt"});
  ASSERT_EQ(again.code, EROFS) << again.describe();

  const std::string amendment = root_ / "amend.sbx";
  RunResult draft =
      run({cordon_bin(), "draft", "--policy", policy(), "--output", amendment, db}, options());
  ASSERT_EQ(draft.code, 0) << draft.describe();
  RunResult clean = audited(root_ / "clean.db", {policy(), amendment}, both());
  EXPECT_EQ(clean.code, 0) << clean.describe() << "\namendment:\n" << read_file(amendment);
  EXPECT_NE(clean.err.find("nothing was denied"), std::string::npos) << clean.err;
  EXPECT_TRUE(load_events(root_ / "clean.db").empty());
}

// A denied file is an empty read-only stand-in: reading it fails nothing,
// so the audit says so explicitly (errno 0, "hidden").
TEST_F(Audit, ReadingADeniedFileIsReported) {
  write_file(root_ / "ro/token", "secret\n");
  write_file(root_ / "deny.sbx", "fs {\n  deny \"" + root_ / "ro/token" + "\"\n}\n");
  const std::string db = root_ / "hidden.db";
  RunResult r = audited(db, {policy(), root_ / "deny.sbx"},
                        {"/bin/sh", "-c", "test -z \"$(cat \"$1\")\"", "sh", root_ / "ro/token"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("hidden      open     " + root_ / "ro/token"), std::string::npos) << r.err;
  const auto events = load_events(db);
  const auto* e = find(events, root_ / "ro/token");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->error, 0);
}

// The supervisor's channel and listener stay out of the command's reach:
// nothing but 0-2 is open in it.
TEST_F(Audit, TheCommandHoldsNoDescriptorOfTheSupervisor) {
  RunResult r = audited(root_ / "fd.db", {policy()},
                        {"/bin/sh", "-c",
                         "for n in $(seq 3 64); do ./escape_probe fd $n && echo \"open $n\"; "
                         "done; true"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(r.out, "") << r.describe();
}

TEST_F(Audit, WithoutNetworkRulesAConnectIsRecordedUnreachable) {
  const std::string db = root_ / "net.db";
  // TEST-NET-1: never routed; without rules the sandbox has no route at all.
  RunResult r = audited(db, {policy()}, {"./escape_probe", "connect-tcp", "192.0.2.1", "9"});
  EXPECT_EQ(r.code, ENETUNREACH) << r.describe();
  auto events = load_events(db);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, "connect");
  EXPECT_EQ(events[0].net_addr, "192.0.2.1");
  EXPECT_EQ(events[0].error, ENETUNREACH);
}

TEST_F(Audit, ARefusedConnectionIsRecordedFromTheProxy) {
  nettest::EchoServer allowed, refused;
  write_file(root_ / "net.sbx",
             "net {\n  allow_tcp \"host.internal:" + std::to_string(allowed.port()) + "\"\n}\n");
  const std::string db = root_ / "net.db";
  RunResult r = audited(db, {policy(), root_ / "net.sbx"},
                        {"/usr/bin/python3", "-c",
                         "import socket, sys\n"
                         "try:\n"
                         "  socket.create_connection(('host.internal', int(sys.argv[1])), 10)"
                         ".recv(1)\n"
                         "except OSError: pass\n",
                         std::to_string(refused.port())});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("host.internal:" + std::to_string(refused.port())), std::string::npos)
      << r.err;
  cordon::schema::NetRecord found;
  bool seen = false;
  auto trace = schema::TraceDb::open_for_reading(db);
  ASSERT_TRUE(trace.ok());
  ASSERT_TRUE(trace
                  ->for_each_net(std::nullopt,
                                 [&](int64_t, const schema::NetRecord& rec) {
                                   if (rec.kind == "connect" && !rec.allowed) {
                                     found = rec;
                                     seen = true;
                                   }
                                 })
                  .ok());
  ASSERT_TRUE(seen) << "no refused connection in the audit trace";
  EXPECT_EQ(found.name, "host.internal");
  EXPECT_EQ(found.port, refused.port());
  RunResult show = run({cordon_bin(), "show", db}, options());
  EXPECT_NE(show.out.find("network:   refused connect tcp host.internal:" +
                          std::to_string(refused.port())),
            std::string::npos)
      << show.out;
}

}  // namespace
}  // namespace cordon::ittest
