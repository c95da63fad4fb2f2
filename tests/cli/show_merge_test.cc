// Traces as files: appending runs, `cordon merge`, and what `cordon show`
// prints (valid JSON whatever the path bytes; --path and --op filters), and
// `cordon upgrade` of an older trace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include "schema/migrations.h"
#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class ShowMerge : public ::testing::Test {
 protected:
  // Traces fixture NAME on a fresh DIR into `db`.
  RunResult trace_fixture(const std::string& db, const std::string& name,
                          const std::vector<std::string>& args = {}) {
    remove_tree(dir_);
    prepare_dir(dir_);
    std::vector<std::string> command = {fixture(name), dir_};
    command.insert(command.end(), args.begin(), args.end());
    return trace(db, command, RunOptions{.cwd = scratch_.path()});
  }

  std::string python() {
    std::string p = find_program("python3");
    return p;
  }

  ScratchDir scratch_{"cordon-show"};
  std::string dir_ = scratch_ / "d";
  std::string db_ = scratch_ / "trace.db";
};

TEST_F(ShowMerge, ExistingTraceGetsRun2) {
  ASSERT_EQ(trace_fixture(db_, "create_write_rename").code, 0);
  size_t first = load_events(db_, 1).size();
  RunResult r = trace_fixture(db_, "mkdir_p");
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("(run 2, "));
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, 1);
  EXPECT_EQ(runs[1].id, 2);
  EXPECT_EQ(runs[0].argv[0], fixture("create_write_rename"));
  EXPECT_EQ(runs[1].argv[0], fixture("mkdir_p"));
  EXPECT_EQ(runs[1].state, "complete");
  EXPECT_EQ(load_events(db_, 1).size(), first) << "run 1 changed when run 2 was added";
  auto second = load_events(db_, 2);
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(second.front().seq, 1);
  auto exec =
      std::find_if(second.begin(), second.end(), [](const auto& e) { return e.op == "exec"; });
  ASSERT_NE(exec, second.end());
  EXPECT_EQ(exec->abs_path, fixture("mkdir_p"));
}

TEST_F(ShowMerge, MergeCopiesRuns) {
  const std::string a = scratch_ / "a.db", b = scratch_ / "b.db", out = scratch_ / "out.db";
  ASSERT_EQ(trace_fixture(a, "exit_code", {"3"}).code, 3);
  ASSERT_EQ(trace_fixture(b, "fork_tree").code, 0);
  ASSERT_EQ(trace_fixture(b, "mkdir_p").code, 0);
  RunResult r = run({cordon_bin(), "merge", out, a, b});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("merged 1 run from " + a));
  EXPECT_THAT(r.err, HasSubstr("merged 2 runs from " + b));

  auto runs = load_runs(out);
  ASSERT_EQ(runs.size(), 3u);
  auto ra = load_runs(a), rb = load_runs(b);
  const std::vector<std::pair<std::string, int64_t>> sources = {{a, 1}, {b, 1}, {b, 2}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& src =
        sources[i].first == a ? ra[0] : rb[static_cast<size_t>(sources[i].second - 1)];
    EXPECT_EQ(runs[i].id, static_cast<int64_t>(i + 1));
    EXPECT_EQ(runs[i].argv, src.argv);
    EXPECT_EQ(runs[i].state, src.state);
    EXPECT_EQ(runs[i].exit_code, src.exit_code);
    EXPECT_EQ(runs[i].started_at, src.started_at);
    EXPECT_EQ(runs[i].event_count, src.event_count);
    EXPECT_EQ(runs[i].process_count, src.process_count);
    auto copied = load_events(out, runs[i].id);
    auto original = load_events(sources[i].first, sources[i].second);
    ASSERT_EQ(copied.size(), original.size());
    for (size_t k = 0; k < copied.size(); ++k) {
      EXPECT_EQ(copied[k].seq, original[k].seq);
      EXPECT_EQ(copied[k].abs_path, original[k].abs_path);
    }
  }
  EXPECT_THAT(runs[0].exit_code, Optional(3));
  EXPECT_EQ(load_processes(out, 2).size(), 5u);

  // Merging into an existing trace appends; a file that is not a trace is refused.
  ASSERT_EQ(run({cordon_bin(), "merge", out, a}).code, 0);
  EXPECT_EQ(load_runs(out).size(), 4u);
  const std::string junk = scratch_ / "junk.db";
  write_file(junk, std::string(4096, 'j'));
  RunResult bad = run({cordon_bin(), "merge", out, junk});
  EXPECT_EQ(bad.code, 125) << bad.describe();
  EXPECT_THAT(bad.err, HasSubstr("cordon: " + junk + ": "));
  EXPECT_EQ(load_runs(out).size(), 4u);
}

TEST_F(ShowMerge, JsonIsValidForAnyPathBytes) {
  std::string py = python();
  if (py.empty()) GTEST_SKIP() << "python3 is not installed";
  ASSERT_EQ(trace_fixture(db_, "weird_names").code, 0);
  ASSERT_EQ(trace_fixture(db_, "exit_code", {"sig:15"}).code, 143);

  RunResult summary = run({cordon_bin(), "show", "--json", db_});
  ASSERT_EQ(summary.code, 0) << summary.describe();
  RunResult tool = run({py, "-m", "json.tool"}, RunOptions{.stdin_data = summary.out});
  EXPECT_EQ(tool.code, 0) << tool.describe() << "\ninput: " << summary.out;
  // Checked through a JSON parser, not by text.
  const std::string check_summary =
      "import json,sys\n"
      "d=json.load(sys.stdin)\n"
      "r=d['runs']\n"
      "assert len(r)==2, r\n"
      "assert r[0]['state']=='complete' and r[0]['complete'] is True and r[0]['exit_code']==0, "
      "r[0]\n"
      "assert r[1]['exit_code']==143 and r[1]['exit_signal']==15, r[1]\n";
  RunResult s = run({py, "-c", check_summary}, RunOptions{.stdin_data = summary.out});
  EXPECT_EQ(s.code, 0) << s.describe();

  RunResult events = run({cordon_bin(), "show", "--json", "--events", db_});
  ASSERT_EQ(events.code, 0) << events.describe();
  // One JSON object per line; the newline and the invalid UTF-8 arrive as
  // printable escapes (\n, \xff) inside valid JSON strings.
  const std::string check_events =
      "import json,sys\n"
      "d=sys.argv[1]\n"
      "paths=set()\n"
      "n=0\n"
      "for line in sys.stdin.buffer.read().split(b'\\n'):\n"
      "    if not line: continue\n"
      "    e=json.loads(line.decode('utf-8'))\n"
      "    n+=1\n"
      "    paths.add(e['abs_path'])\n"
      "assert d+'/new\\\\nline' in paths, sorted(p for p in paths if p and p.startswith(d))\n"
      "assert d+'/bad\\\\xff\\\\xfe' in paths, sorted(p for p in paths if p and p.startswith(d))\n"
      "assert any(p and len(p)==4095 for p in paths)\n"
      "print(n)\n";
  RunResult e = run({py, "-c", check_events, dir_}, RunOptions{.stdin_data = events.out});
  EXPECT_EQ(e.code, 0) << e.describe();
  size_t total = load_events(db_, 1).size() + load_events(db_, 2).size();
  EXPECT_EQ(e.out, std::to_string(total) + "\n");

  // The text listing keeps one line per event too.
  RunResult text = run({cordon_bin(), "show", "--events", db_});
  ASSERT_EQ(text.code, 0);
  EXPECT_EQ(lines(text.out).size(), total);
  EXPECT_THAT(text.out, HasSubstr(dir_ + "/new\\nline"));
  EXPECT_THAT(text.out, HasSubstr(dir_ + "/bad\\xff\\xfe"));
}

TEST_F(ShowMerge, EventFiltersByPathAndOp) {
  ASSERT_EQ(trace_fixture(db_, "at_calls").code, 0);
  // A sibling whose name extends DIR's must not match DIR as a prefix.
  const std::string sibling = dir_ + "x";
  ::mkdir(sibling.c_str(), 0755);
  ASSERT_EQ(trace(db_, {"/bin/sh", "-c", "echo > '" + sibling + "/f'"}).code, 0);

  auto count = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {cordon_bin(), "show", "--events", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(db_);
    RunResult r = run(argv);
    EXPECT_EQ(r.code, 0) << r.describe();
    return lines(r.out);
  };
  auto opens = count({"--path", dir_, "--op", "open"});
  // DIR (O_PATH), DIR/atdir/f, DIR/existing, DIR/existing/rel.txt.
  ASSERT_EQ(opens.size(), 4u) << ::testing::PrintToString(opens);
  for (const auto& l : opens) {
    EXPECT_THAT(l, HasSubstr("\"op\":\"open\""));
    EXPECT_THAT(l, HasSubstr("\"abs_path\":\"" + dir_));
    EXPECT_THAT(l, HasSubstr("\"run\":1,"));
  }
  auto existing = count({"--path", dir_ + "/existing/"});
  EXPECT_EQ(existing.size(), 3u) << ::testing::PrintToString(
      existing);  // open, fchdir, open rel.txt
  auto renames = count({"--path", dir_, "--op", "rename"});
  ASSERT_EQ(renames.size(), 1u);
  EXPECT_THAT(renames[0], HasSubstr("\"abs_path2\":\"" + dir_ + "/atdir/h2\""));
  auto in_sibling = count({"--path", sibling});
  ASSERT_EQ(in_sibling.size(), 1u) << ::testing::PrintToString(in_sibling);
  EXPECT_THAT(in_sibling[0], HasSubstr("\"run\":2,"));
  EXPECT_TRUE(count({"--op", "no-such-op"}).empty());
  auto run2 = count({"--run", "2", "--op", "exec"});
  ASSERT_FALSE(run2.empty());
  for (const auto& l : run2) EXPECT_THAT(l, HasSubstr("\"run\":2,"));
}

// A trace written by a cordon with trace schema 1: readers ask for
// `cordon upgrade`, which migrates it in place and keeps its runs.
TEST_F(ShowMerge, UpgradeMigratesAnOlderTrace) {
  SQLite::Database old(db_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  old.exec(schema::schema_sql(1));
  old.exec(
      "PRAGMA user_version = 1;"
      "INSERT INTO runs (argv, cwd, env_names, user_name, uid, home, kernel, arch, "
      "cordon_version, started_at, state, sync_wakeup) VALUES "
      "(x'7400', '/', '', 'u', 0, '/h', 'k', 'a', 'v', 1, 'complete', 0);");
  RunResult before = run({cordon_bin(), "show", db_});
  EXPECT_EQ(before.code, 125) << before.describe();
  EXPECT_THAT(before.err, HasSubstr("run `cordon upgrade"));
  RunResult up = run({cordon_bin(), "upgrade", db_});
  EXPECT_EQ(up.code, 0) << up.describe();
  RunResult after = run({cordon_bin(), "show", db_});
  EXPECT_EQ(after.code, 0) << after.describe();
  EXPECT_THAT(after.out, HasSubstr("run 1: complete"));
  RunResult missing = run({cordon_bin(), "upgrade", scratch_ / "missing.db"});
  EXPECT_EQ(missing.code, 125) << missing.describe();
  EXPECT_FALSE(exists(scratch_ / "missing.db"));
}

}  // namespace
}  // namespace cordon::ittest
