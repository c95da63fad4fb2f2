#include "schema/trace_db.h"

#include "schema/migrations.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace cordon::schema {
namespace {

class TraceDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cordon-tracedb-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  static RunInfo info() {
    RunInfo i;
    i.argv = {"sh", "-c", "true"};
    i.cwd = "/tmp";
    i.env_names = {"PATH", "HOME"};
    i.user_name = "u";
    i.home = "/home/u";
    i.kernel = "6.1";
    i.arch = "x86_64";
    i.cordon_version = "test";
    i.started_at = 1;
    return i;
  }

  static EventRecord event(int64_t seq, std::string abs) {
    EventRecord e;
    e.seq = seq;
    e.pid = 10;
    e.tid = 10;
    e.syscall = "openat";
    e.op = "open";
    e.path = abs;
    e.abs_path = abs;
    e.existed = true;
    return e;
  }

  std::string dir_;
};

TEST_F(TraceDbTest, RoundTripsRunsEventsAndProcesses) {
  auto db = TraceDb::open_for_writing(path("t.db"));
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto run = db->begin_run(info());
  ASSERT_TRUE(run.ok());
  static const char kOdd[] = "/d/new\nline\xff";
  std::string odd(kOdd, sizeof kOdd - 1);
  ProcessRecord p;
  p.pid = 10;
  p.ppid = 1;
  p.argv = std::vector<std::string>{"sh", "-c", "true"};
  ASSERT_TRUE(db->write_batch(*run, {event(1, "/etc/passwd"), event(2, odd)}, {p}).ok());
  ProcessRecord exit;
  exit.pid = 10;
  exit.exit_code = 3;
  ASSERT_TRUE(db->write_batch(*run, {}, {exit}).ok());
  ASSERT_TRUE(db->finish_run(*run, RunState::kComplete, 3, std::nullopt, 2, "").ok());

  auto reader = TraceDb::open_for_reading(path("t.db"));
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto runs = reader->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].state, "complete");
  EXPECT_EQ((*runs)[0].event_count, 2);
  EXPECT_EQ((*runs)[0].argv, info().argv);
  auto procs = reader->processes(*run);
  ASSERT_TRUE(procs.ok());
  ASSERT_EQ(procs->size(), 1u);
  EXPECT_EQ((*procs)[0].ppid, 1);  // kept from the first batch
  EXPECT_EQ((*procs)[0].exit_code, 3);
  std::vector<std::string> seen;
  EventFilter f;
  f.path_prefix = "/d";
  ASSERT_TRUE(reader
                  ->for_each_event(f,
                                   [&](int64_t, const EventRecord& e) {
                                     seen.push_back(*e.abs_path);
                                     return true;
                                   })
                  .ok());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], odd);
}

TEST_F(TraceDbTest, AppendsANewRunToAnExistingTrace) {
  for (int i = 0; i < 2; ++i) {
    auto db = TraceDb::open_for_writing(path("t.db"));
    ASSERT_TRUE(db.ok());
    auto run = db->begin_run(info());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(*run, i + 1);
  }
}

TEST_F(TraceDbTest, AnUnfinishedRunReadsAsRunning) {
  {
    auto db = TraceDb::open_for_writing(path("t.db"));
    ASSERT_TRUE(db->begin_run(info()).ok());
  }
  auto runs = TraceDb::open_for_reading(path("t.db"))->runs();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ((*runs)[0].state, "running");
  EXPECT_FALSE((*runs)[0].ended_at.has_value());
}

TEST_F(TraceDbTest, RefusesAFileThatIsNotSqlite) {
  std::ofstream(path("junk.db")) << std::string(8192, 'x');
  auto db = TraceDb::open_for_reading(path("junk.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("junk.db: not a cordon trace"), std::string::npos)
      << db.error().message;
  EXPECT_FALSE(TraceDb::open_for_writing(path("junk.db")).ok());
}

TEST_F(TraceDbTest, RefusesAForeignDatabase) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path("other.db").c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "CREATE TABLE songs (title TEXT)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  auto db = TraceDb::open_for_writing(path("other.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("not a cordon trace"), std::string::npos);
}

TEST_F(TraceDbTest, RefusesANewerSchema) {
  { ASSERT_TRUE(TraceDb::open_for_writing(path("t.db")).ok()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path("t.db").c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  auto db = TraceDb::open_for_reading(path("t.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("newer than this cordon"), std::string::npos);
}

TEST_F(TraceDbTest, MissingFileIsAClearError) {
  auto db = TraceDb::open_for_reading(path("absent.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("absent.db: cannot open"), std::string::npos);
}

TEST_F(TraceDbTest, MergeCopiesEveryRun) {
  for (const char* name : {"a.db", "b.db"}) {
    auto db = TraceDb::open_for_writing(path(name));
    auto run = db->begin_run(info());
    ASSERT_TRUE(db->write_batch(*run, {event(1, std::string("/") + name)}, {}).ok());
  }
  auto out = TraceDb::open_for_writing(path("a.db"));
  auto n = out->merge_from(path("b.db"));
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 1);
  auto runs = out->runs();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[1].event_count, 1);
}

// A trace written by a cordon with schema 1 is migrated in place when opened
// for writing, keeps its runs and events, and reads as a learn run.
TEST_F(TraceDbTest, MigratesAVersion1Trace) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path("old.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, schema_sql(1), nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "PRAGMA user_version = 1;"
                         "INSERT INTO runs (argv, cwd, env_names, user_name, uid, home, kernel, "
                         "arch, cordon_version, started_at, state, sync_wakeup) VALUES "
                         "(x'7400', '/', '', 'u', 0, '/h', 'k', 'a', 'v', 1, 'complete', 0);"
                         "INSERT INTO events (run_id, seq, time_ns, pid, tid, syscall, op, "
                         "abs_path) VALUES (1, 1, 0, 1, 1, 'openat', 'open', '/x');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);

  auto reading = TraceDb::open_for_reading(path("old.db"));
  ASSERT_FALSE(reading.ok());
  EXPECT_NE(reading.error().message.find("cordon upgrade"), std::string::npos);

  { ASSERT_TRUE(TraceDb::open_for_writing(path("old.db")).ok()); }
  auto db = TraceDb::open_for_reading(path("old.db"));
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto runs = db->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].mode, "learn");
  EXPECT_EQ((*runs)[0].event_count, 1);
}

TEST_F(TraceDbTest, RoundTripsNetRecordsAndAuditMode) {
  auto db = TraceDb::open_for_writing(path("t.db"));
  RunInfo i = info();
  i.mode = "audit";
  auto run = db->begin_run(i);
  ASSERT_TRUE(run.ok());
  NetRecord lookup{"lookup",     "dns", "example.test",      std::nullopt,
                   std::nullopt, false, "not in the policy", 3};
  NetRecord connect{"connect", "tcp", "api.test", "127.0.0.1", 443, true, std::nullopt, 1};
  ASSERT_TRUE(db->write_net(*run, {lookup}).ok());
  ASSERT_TRUE(db->write_net(*run, {connect}).ok());
  std::vector<NetRecord> got;
  ASSERT_TRUE(db->for_each_net(*run, [&](int64_t, const NetRecord& r) { got.push_back(r); }).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "example.test");
  EXPECT_FALSE(got[0].allowed);
  EXPECT_EQ(got[0].count, 3);
  EXPECT_EQ(got[1].port, 443);
  EXPECT_TRUE(got[1].allowed);
  EXPECT_EQ((*db->runs())[0].mode, "audit");

  auto out = TraceDb::open_for_writing(path("m.db"));
  ASSERT_TRUE(out->merge_from(path("t.db")).ok());
  int n = 0;
  ASSERT_TRUE(out->for_each_net(std::nullopt, [&](int64_t, const NetRecord&) { ++n; }).ok());
  EXPECT_EQ(n, 2);
  EXPECT_EQ((*out->runs())[0].mode, "audit");
}

}  // namespace
}  // namespace cordon::schema
