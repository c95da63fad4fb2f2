// cordon's own failures and the command's: an output it cannot write, a full
// disk, files that are not traces, a missing or non-executable command, a
// missing bwrap. Each is one `cordon: ...` line and the documented exit code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <random>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::StartsWith;

// Exactly one line, "cordon: ..." (ignoring the trailing newline).
void expect_one_line_error(const std::string& err, const std::string& must_name) {
  EXPECT_THAT(err, StartsWith("cordon: "));
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.back(), '\n') << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "more than one line:\n" << err;
  EXPECT_THAT(err, HasSubstr(must_name));
}

class Errors : public ::testing::Test {
 protected:
  ScratchDir scratch_{"cordon-err"};
  std::string db_ = scratch_ / "trace.db";
  std::string marker_ = scratch_ / "ran";
};

TEST_F(Errors, OutputUnderARegularFile) {
  const std::string file = scratch_ / "plainfile";
  write_file(file, "not a directory\n");
  const std::string out = file + "/x.db";
  RunResult r = trace(out, {"/bin/sh", "-c", "echo > '" + marker_ + "'"});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, out);
  EXPECT_FALSE(exists(marker_)) << "the command ran although the trace could not be written";
}

TEST_F(Errors, OutputInAnUnwritableDirectory) {
  // Root writes through directory permissions, but not into /proc.
  std::string dir = "/proc";
  if (::geteuid() != 0) {
    dir = scratch_ / "ro";
    ASSERT_EQ(::mkdir(dir.c_str(), 0555), 0);
  }
  const std::string out = dir + "/cordon-it.db";
  RunResult r = trace(out, {"/bin/sh", "-c", "echo > '" + marker_ + "'"});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, out);
  EXPECT_FALSE(exists(marker_));
  EXPECT_FALSE(exists(out));
}

TEST_F(Errors, FullDiskStopsWithEarlierBatchesKept) {
  std::string unshare = find_program("unshare");
  if (unshare.empty()) GTEST_SKIP() << "unshare (util-linux) is not installed";
  RunResult probe = run({unshare, "-rm", "/bin/sh", "-c", "mount -t tmpfs -o size=16k none /tmp"});
  if (probe.code != 0) GTEST_SKIP() << "cannot mount a tmpfs in a user namespace: " << probe.err;

  // A 200 KiB tmpfs in a private mount namespace; the command makes events
  // steadily, so a few batches fit before the disk is full. The trace is
  // copied out before the namespace (and its tmpfs) goes away.
  const std::string mnt = scratch_ / "mnt", saved = scratch_ / "saved";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(saved.c_str(), 0755), 0);
  const std::string loop = "while :; do cat /etc/hostname >/dev/null; sleep 0.02; done";
  const std::string script =
      "mount -t tmpfs -o size=200k none \"$1\" || exit 99\n"
      "\"$2\" trace -o \"$1/t.db\" -- /bin/sh -c \"$4\"\n"
      "rc=$?\n"
      "cp \"$1\"/t.db* \"$3\"/\n"
      "exit $rc\n";
  RunResult r = run({unshare, "-rm", "/bin/sh", "-c", script, "sh", mnt, cordon_bin(), saved, loop},
                    RunOptions{.timeout = 90});
  ASSERT_NE(r.code, 99) << r.describe();
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_LT(r.seconds, 60);
  EXPECT_THAT(r.err, HasSubstr("cordon: writing the trace: "));
  EXPECT_THAT(r.err, HasSubstr("full"));

  auto runs = load_runs(saved + "/t.db");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GT(runs[0].event_count, 0) << "no batch was committed before the disk filled";
  // finish_run may itself have failed on the full disk.
  EXPECT_THAT(runs[0].state, AnyOf("failed", "running"));
  if (runs[0].state == "failed") {
    EXPECT_THAT(runs[0].note, Optional(HasSubstr("full")));
  }
}

std::string random_bytes(size_t n) {
  std::mt19937 gen(12345);
  std::string out;
  for (size_t i = 0; i < n; ++i) out += static_cast<char>(gen() & 0xff);
  return out;
}

TEST_F(Errors, ShowRefusesRandomBytes) {
  const std::string f = scratch_ / "random.db";
  write_file(f, random_bytes(16384));
  RunResult r = run({cordon_bin(), "show", f});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, f);
  EXPECT_EQ(r.out, "");
  // Tracing into it is refused as well, and the file is left alone.
  RunResult t = trace(f, {"/bin/sh", "-c", "echo > '" + marker_ + "'"});
  EXPECT_EQ(t.code, 125) << t.describe();
  expect_one_line_error(t.err, f);
  EXPECT_EQ(read_file(f), random_bytes(16384));
  EXPECT_FALSE(exists(marker_));
}

TEST_F(Errors, ShowRefusesAForeignSqliteDatabase) {
  const std::string f = scratch_ / "foreign.db";
  {
    SQLite::Database db(f, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE recipes (name TEXT, minutes INTEGER)");
    db.exec("INSERT INTO recipes VALUES ('soup', 30)");
  }
  RunResult r = run({cordon_bin(), "show", f});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, f);
  EXPECT_THAT(r.err, HasSubstr("not a cordon trace"));

  RunResult t = trace(f, {"true"});
  EXPECT_EQ(t.code, 125) << t.describe();
  expect_one_line_error(t.err, f);
  SQLite::Database db(f, SQLite::OPEN_READONLY);
  EXPECT_FALSE(db.tableExists("runs")) << "cordon wrote into a foreign database";
}

TEST_F(Errors, ShowMissingFile) {
  const std::string f = scratch_ / "nope.db";
  RunResult r = run({cordon_bin(), "show", f});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, f);
  EXPECT_FALSE(exists(f)) << "show created the file";
}

TEST_F(Errors, MissingCommandIs127) {
  RunResult r = trace(db_, {"no-such-cmd-xyz"});
  EXPECT_EQ(r.code, 127) << r.describe();
  EXPECT_THAT(r.err, StartsWith("cordon: no-such-cmd-xyz: command not found\n"));
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "failed");
  EXPECT_THAT(runs[0].note, Optional(HasSubstr("command not found")));
  EXPECT_TRUE(runs[0].ended_at);
}

TEST_F(Errors, NonExecutableFileIs126) {
  const std::string f = scratch_ / "script.sh";
  write_file(f, "#!/bin/sh\necho > '" + marker_ + "'\n", 0644);
  RunResult r = trace(db_, {f});
  EXPECT_EQ(r.code, 126) << r.describe();
  EXPECT_THAT(r.err, StartsWith("cordon: " + f + ": "));
  EXPECT_FALSE(exists(marker_));
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "failed");
}

// Known tracer bug (see the report of the tests' author): the supervisor
// sets processes.exe/argv when it sees an exec of an existing file, before
// the kernel has tried it, so an exec that fails (EACCES here) is recorded as
// the process's image. Enable once exec success is confirmed.
TEST_F(Errors, FailedExecIsNotRecordedAsTheProcessImage) {
  const std::string f = scratch_ / "script.sh";
  write_file(f, "#!/bin/sh\nexit 0\n", 0644);
  ASSERT_EQ(trace(db_, {f}).code, 126);
  auto events = load_events(db_);
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(events[0].abs_path, f);
  for (const auto& p : load_processes(db_)) {
    EXPECT_NE(p.exe, f) << "pid " << p.pid << ": the exec of " << f << " failed, yet it is the exe";
  }
}

TEST_F(Errors, MissingBwrapIs125) {
  RunResult r = trace(db_, {"/bin/sh", "-c", "echo > '" + marker_ + "'"},
                      RunOptions{.env = {{"CORDON_BWRAP", "/nonexistent"}}});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, "/nonexistent");
  EXPECT_FALSE(exists(marker_));
}

TEST_F(Errors, RelativeBwrapIsRefused) {
  RunResult r = trace(db_, {"true"}, RunOptions{.env = {{"CORDON_BWRAP", "bwrap"}}});
  EXPECT_EQ(r.code, 125) << r.describe();
  expect_one_line_error(r.err, "CORDON_BWRAP");
}

}  // namespace
}  // namespace cordon::ittest
