// Fixtures about processes: exec forms, threads, forks, outliving the root,
// exit statuses, and the `runs` / `processes` rows they leave.
#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>
#include <set>

#include "tests/tracer/fixture_test.h"

namespace cordon::ittest {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;
using ::testing::Optional;
using ::testing::UnorderedElementsAre;

class ProcessFixtures : public FixtureTest {};

const std::vector<std::string> kTrueArgv = {"true"};

TEST_F(ProcessFixtures, ExecAtResolvesFdAndDirfd) {
  trace_fixture("exec_at");
  std::vector<schema::EventRecord> execs = of_op("exec");
  ASSERT_EQ(execs.size(), 3u) << ::testing::PrintToString(briefs(execs, dir_));
  EXPECT_EQ(execs[0].syscall, "execve");
  EXPECT_EQ(execs[0].argv, (std::vector<std::string>{fixture("exec_at"), dir_}));

  // Child: execveat(fd of /bin/true, "", AT_EMPTY_PATH) resolves through the fd.
  const auto& by_fd = execs[1];
  EXPECT_EQ(by_fd.syscall, "execveat");
  EXPECT_EQ(by_fd.path, "");
  EXPECT_EQ(by_fd.abs_path, "/usr/bin/true");
  EXPECT_THAT(by_fd.existed, Optional(true));
  EXPECT_THAT(by_fd.flags, Optional(AT_EMPTY_PATH));
  EXPECT_EQ(by_fd.argv, kTrueArgv);
  EXPECT_NE(by_fd.pid, root_pid_);
  // The O_PATH open the child made just before.
  bool opened = false;
  for (const auto& e : events_) {
    if (e.pid == by_fd.pid && e.syscall == "openat" && e.path == "/bin/true") {
      opened = true;
      EXPECT_TRUE(*e.flags & O_PATH);
      EXPECT_FALSE(e.mode);
      EXPECT_LT(e.seq, by_fd.seq);
    }
  }
  EXPECT_TRUE(opened) << "openat(\"/bin/true\", O_PATH) not recorded";

  // Parent: execveat(dirfd of /usr/bin, "true", 0).
  const auto& by_dirfd = execs[2];
  EXPECT_EQ(by_dirfd.syscall, "execveat");
  EXPECT_EQ(by_dirfd.path, "true");
  EXPECT_EQ(by_dirfd.abs_path, "/usr/bin/true");
  EXPECT_THAT(by_dirfd.flags, Optional(0));
  EXPECT_EQ(by_dirfd.argv, kTrueArgv);
  EXPECT_EQ(by_dirfd.pid, root_pid_);

  ASSERT_EQ(processes_.size(), 2u);
  const auto* root = process(root_pid_);
  const auto* child = process(by_fd.pid);
  ASSERT_TRUE(root && child);
  EXPECT_EQ(root->exe, "/usr/bin/true");  // the last exec
  EXPECT_EQ(root->argv, kTrueArgv);
  EXPECT_EQ(child->exe, "/usr/bin/true");
  EXPECT_EQ(child->argv, kTrueArgv);
  EXPECT_THAT(child->ppid, Optional(root_pid_));
  EXPECT_THAT(child->exit_code, Optional(0));
}

TEST_F(ProcessFixtures, ThreadsAttributedToTheirTids) {
  trace_fixture("threads");
  std::vector<schema::EventRecord> opens = of_op("open");
  EXPECT_THAT(
      briefs(opens, dir_),
      UnorderedElementsAre("openat open DIR/thread_0.txt new", "openat open DIR/thread_1.txt new",
                           "openat open DIR/thread_2.txt new", "openat open DIR/thread_3.txt new"));
  std::set<int64_t> tids;
  for (const auto& e : opens) {
    EXPECT_EQ(e.pid, root_pid_);
    EXPECT_NE(e.tid, e.pid) << "open made by a worker thread attributed to the main thread";
    tids.insert(e.tid);
    EXPECT_THAT(e.mode, Optional(0644));
  }
  EXPECT_GE(tids.size(), 2u);
  // Threads are not processes.
  EXPECT_EQ(processes_.size(), 1u);
}

TEST_F(ProcessFixtures, ForkTreeParentsAndExitCodes) {
  trace_fixture("fork_tree");
  std::map<std::string, int64_t> opener;  // file name -> pid
  for (const auto& e : of_op("open")) {
    ASSERT_TRUE(e.abs_path);
    opener[e.abs_path->substr(dir_.size() + 1)] = e.pid;
    EXPECT_THAT(e.existed, Optional(false));
  }
  ASSERT_EQ(opener.size(), 5u);
  ASSERT_EQ(processes_.size(), 5u);
  EXPECT_EQ(opener["proc_0_0"], root_pid_);
  std::set<int64_t> pids;
  for (const auto& [name, pid] : opener) pids.insert(pid);
  EXPECT_EQ(pids.size(), 5u) << "each file is opened by its own process";

  const auto* root = process(root_pid_);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->exe, fixture("fork_tree"));
  EXPECT_THAT(root->exit_code, Optional(0));
  for (int i = 0; i < 2; ++i) {
    const auto* child = process(opener["proc_1_" + std::to_string(i)]);
    const auto* grandchild = process(opener["proc_2_" + std::to_string(i)]);
    ASSERT_TRUE(child && grandchild);
    EXPECT_THAT(child->ppid, Optional(root_pid_));
    EXPECT_THAT(grandchild->ppid, Optional(child->pid));
    EXPECT_THAT(child->exit_code, Optional(0)) << "child " << i;
    // The grandchild's end may be missed; when it was seen it is 3.
    if (grandchild->exit_code) {
      EXPECT_EQ(*grandchild->exit_code, 3);
    }
    EXPECT_FALSE(child->exe) << "forked without exec";
  }
}

TEST_F(ProcessFixtures, VforkExecFollowsTheChild) {
  trace_fixture("vfork_exec");
  std::vector<schema::EventRecord> execs = of_op("exec");
  ASSERT_EQ(execs.size(), 2u);
  const auto& e = execs[1];
  EXPECT_EQ(e.syscall, "execve");
  EXPECT_EQ(e.path, "/bin/true");
  EXPECT_EQ(e.abs_path, "/bin/true");
  EXPECT_EQ(e.argv, kTrueArgv);
  EXPECT_NE(e.pid, root_pid_);
  // The loader of `true` in the child ran after the exec.
  int after = 0;
  for (const auto& x : events_) after += x.pid == e.pid && x.seq > e.seq;
  EXPECT_GE(after, 3);
  const auto* child = process(e.pid);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->exe, "/bin/true");
  EXPECT_EQ(child->argv, kTrueArgv);
  EXPECT_THAT(child->ppid, Optional(root_pid_));
  EXPECT_THAT(child->exit_code, Optional(0));
}

TEST_F(ProcessFixtures, OutliveParentIsStillTraced) {
  trace_fixture("outlive_parent");
  // cordon returned only after the orphan did its work.
  EXPECT_TRUE(exists(dir_ + "/late.txt"));
  std::vector<schema::EventRecord> opens = of_op("open");
  ASSERT_THAT(briefs(opens, dir_), ElementsAre("openat open DIR/late.txt new"));
  EXPECT_NE(opens[0].pid, root_pid_);
  EXPECT_GE(opens[0].time_ns, 300'000'000);  // after the child's 300 ms sleep
  EXPECT_GE(result_.seconds, 0.3);
  EXPECT_EQ(run_.state, "complete");
  EXPECT_THAT(run_.exit_code, Optional(0));
  EXPECT_EQ(processes_.size(), 2u);
}

TEST_F(ProcessFixtures, ExitCodePassesThrough) {
  trace_fixture("exit_code", {"42"}, 42);
  EXPECT_EQ(run_.state, "complete");
  EXPECT_THAT(run_.exit_code, Optional(42));
  EXPECT_FALSE(run_.exit_signal);
  const auto* root = process(root_pid_);
  ASSERT_TRUE(root);
  EXPECT_THAT(root->exit_code, Optional(42));
}

TEST_F(ProcessFixtures, KilledBySignalIs128PlusN) {
  trace_fixture("exit_code", {"sig:15"}, 143);
  EXPECT_EQ(run_.state, "complete");
  EXPECT_THAT(run_.exit_code, Optional(143));
  EXPECT_THAT(run_.exit_signal, Optional(15));
}

// A process killed by a signal is reaped by its parent at once, before the
// supervisor can read its zombie: the status then comes from its pidfd
// (PIDFD_GET_INFO, Linux 6.15).
TEST_F(ProcessFixtures, ChildKilledBySignalKeepsItsStatus) {
  struct utsname u;
  ::uname(&u);
  int major = 0, minor = 0;
  std::sscanf(u.release, "%d.%d", &major, &minor);
  if (major < 6 || (major == 6 && minor < 15)) {
    GTEST_SKIP() << "kernel " << u.release << " lacks PIDFD_GET_INFO (6.15)";
  }
  const std::string db = scratch_ / "killed.db";
  for (int attempt = 0; attempt < 5; ++attempt) {
    remove_tree(db);
    RunResult r = trace(db, {"/bin/sh", "-c", "/bin/sh -c 'kill -9 $$'; exit 0"});
    ASSERT_EQ(r.code, 0) << r.describe();
    auto procs = load_processes(db);
    int killed = 0;
    for (const auto& p : procs) {
      if (p.exit_signal == 9) {
        EXPECT_THAT(p.exit_code, Optional(137));
        ++killed;
      }
    }
    EXPECT_EQ(killed, 1) << "attempt " << attempt;
  }
}

// Arguments longer than one read of the supervisor's buffer (a script passed
// with -c, a long list): recorded whole, and the supervisor survives them.
TEST_F(ProcessFixtures, LongArgumentsAreRecordedWhole) {
  const std::string medium(300, 'm');
  std::string long_arg;
  for (int i = 0; long_arg.size() < 20000; ++i) long_arg += std::to_string(i) + ",";
  const std::string db = scratch_ / "long.db";
  RunResult r = trace(db, {"/bin/sh", "-c", "exec /bin/true \"$@\"", "sh", medium, long_arg});
  ASSERT_EQ(r.code, 0) << r.describe();
  bool seen = false;
  for (const auto& e : load_events(db)) {
    if (e.op == "exec" && e.abs_path == "/bin/true" && e.argv) {
      EXPECT_THAT(*e.argv, ElementsAre("/bin/true", medium, long_arg));
      seen = true;
    }
  }
  EXPECT_TRUE(seen) << "no exec of /bin/true recorded";
}

TEST_F(ProcessFixtures, RunRow) {
  RunOptions opt;
  opt.env = {{"CORDON_IT_SECRET_NAME", "value-that-must-never-be-stored"}};
  trace_fixture("create_write_rename", {}, 0, opt);
  EXPECT_EQ(run_.argv, (std::vector<std::string>{fixture("create_write_rename"), dir_}));
  EXPECT_EQ(run_.cwd, scratch_.path());
  EXPECT_EQ(run_.state, "complete");
  EXPECT_THAT(run_.exit_code, Optional(0));
  ASSERT_TRUE(run_.ended_at);
  EXPECT_GE(*run_.ended_at, run_.started_at);
  EXPECT_GT(run_.started_at, 1'600'000'000'000'000'000);  // Unix ns, after 2020
  EXPECT_FALSE(run_.note);
  passwd* pw = ::getpwuid(::getuid());
  ASSERT_TRUE(pw);
  EXPECT_EQ(run_.user_name, pw->pw_name);
  utsname u;
  ASSERT_EQ(::uname(&u), 0);
  EXPECT_EQ(run_.kernel, u.release);
  EXPECT_EQ(run_.arch, u.machine);
  EXPECT_FALSE(run_.cordon_version.empty());
  if (const char* home = std::getenv("HOME")) {
    EXPECT_EQ(run_.home, home);
  }
  EXPECT_EQ(run_.process_count, 1);
  EXPECT_EQ(run_.event_count, static_cast<int64_t>(events_.size()));

  // Names of the environment, never values (checked in the file itself).
  {
    SQLite::Database db(db_, SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT env_names, uid FROM runs WHERE id = 1");
    ASSERT_TRUE(q.executeStep());
    std::string names = q.getColumn(0).getString();
    EXPECT_NE(names.find("CORDON_IT_SECRET_NAME\n"), std::string::npos) << names;
    EXPECT_NE(names.find("PATH\n"), std::string::npos) << names;
    EXPECT_EQ(names.find('='), std::string::npos) << names;
    EXPECT_EQ(q.getColumn(1).getInt64(), static_cast<int64_t>(::getuid()));
  }
  std::string bytes = read_file(db_);
  EXPECT_EQ(bytes.find("value-that-must-never-be-stored"), std::string::npos);
  // The WAL was folded back: one self-contained file.
  EXPECT_FALSE(exists(db_ + "-wal") && !read_file(db_ + "-wal").empty());

  // The processes row of the root: its exec.
  ASSERT_EQ(processes_.size(), 1u);
  EXPECT_EQ(processes_[0].pid, root_pid_);
  EXPECT_EQ(processes_[0].exe, fixture("create_write_rename"));
  EXPECT_EQ(processes_[0].argv, run_.argv);
  EXPECT_THAT(processes_[0].exit_code, Optional(0));
  EXPECT_TRUE(processes_[0].ppid);
  // The summary line on stderr.
  EXPECT_NE(result_.err.find("cordon: trace: " + db_ + " (run 1, "), std::string::npos)
      << result_.err;
}

}  // namespace
}  // namespace cordon::ittest
