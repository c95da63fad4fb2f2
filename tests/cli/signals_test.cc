// Ending a trace from outside: SIGINT/SIGTERM and SIGKILL sent to cordon,
// --timeout, and a command that dies of a signal. Whatever the ending, no
// traced process may survive cordon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

off_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

std::string unique_token() {
  static int counter = 0;
  return "cordon-it-token-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

int64_t committed_events(const std::string& db) {
  try {
    auto runs = load_runs(db);
    return runs.empty() ? 0 : runs[0].event_count;
  } catch (const std::exception&) {
    return 0;  // not created yet, or caught mid-write
  }
}

class Signals : public ::testing::Test {
 protected:
  // A command that never ends by itself: each round appends to a marker file
  // and runs another traced process. `token` ($0) makes its processes findable.
  Process start_busy_loop() {
    std::string script =
        "while :; do echo x >> '" + marker_ + "'; cat /etc/hostname >/dev/null; done";
    return start({cordon_bin(), "trace", "-o", db_, "--", "/bin/sh", "-c", script, token_},
                 RunOptions{.cwd = scratch_.path()});
  }

  void wait_until_busy(Process& p, bool need_committed) {
    // Three lines: at least two rounds, each with a traced `cat`, are done.
    ASSERT_TRUE(eventually([&] { return file_size(marker_) >= 6 || p.poll(); }, 30))
        << "the traced loop never started";
    ASSERT_FALSE(p.poll()) << p.finish().describe();
    if (need_committed) {
      ASSERT_TRUE(eventually([&] { return committed_events(db_) > 0; }, 30)) << "nothing committed";
    }
  }

  // No traced process survives, and the marker stops growing.
  void expect_nothing_survives() {
    EXPECT_TRUE(eventually([&] { return pids_with_arg(token_).empty(); }, 10))
        << "processes still alive: " << ::testing::PrintToString(pids_with_arg(token_));
    off_t before = file_size(marker_);
    sleep_seconds(0.3);
    EXPECT_EQ(file_size(marker_), before) << "the traced loop is still writing";
  }

  ScratchDir scratch_{"cordon-sig"};
  std::string db_ = scratch_ / "trace.db";
  std::string marker_ = scratch_ / "marker";
  std::string token_ = unique_token();
};

TEST_F(Signals, SigintCommitsAndInterrupts) {
  Process p = start_busy_loop();
  wait_until_busy(p, false);
  ASSERT_EQ(::kill(p.pid(), SIGINT), 0);
  RunResult r = p.finish();
  EXPECT_EQ(r.code, 130) << r.describe();
  EXPECT_LT(r.seconds, 60);
  EXPECT_THAT(r.err, HasSubstr("cordon: interrupted by INT\n"));
  expect_nothing_survives();

  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "interrupted");
  EXPECT_TRUE(runs[0].ended_at);
  EXPECT_THAT(runs[0].note, Optional(HasSubstr("interrupted")));
  EXPECT_GT(runs[0].event_count, 0);
  EXPECT_GT(runs[0].process_count, 1);
}

TEST_F(Signals, SigtermInterruptsToo) {
  Process p = start_busy_loop();
  wait_until_busy(p, false);
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  RunResult r = p.finish();
  EXPECT_EQ(r.code, 143) << r.describe();
  expect_nothing_survives();
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "interrupted");
}

TEST_F(Signals, SigkillLeavesAValidIncompleteTrace) {
  Process p = start_busy_loop();
  wait_until_busy(p, true);
  int64_t before = committed_events(db_);
  ASSERT_EQ(::kill(p.pid(), SIGKILL), 0);
  RunResult r = p.finish();
  EXPECT_EQ(r.signal, SIGKILL) << r.describe();
  expect_nothing_survives();

  // Still a trace, holding every batch committed before the kill.
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "running");
  EXPECT_FALSE(runs[0].ended_at);
  EXPECT_GE(runs[0].event_count, before);
  auto events = load_events(db_);
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(
      std::any_of(events.begin(), events.end(), [](const auto& e) { return e.op == "exec"; }));
  for (size_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].seq, static_cast<int64_t>(i + 1));

  RunResult show = run({cordon_bin(), "show", db_});
  EXPECT_EQ(show.code, 0) << show.describe();
  EXPECT_THAT(show.out, HasSubstr("incomplete"));
  RunResult json = run({cordon_bin(), "show", "--json", db_});
  EXPECT_THAT(json.out, HasSubstr("\"state\":\"running\",\"complete\":false"));
}

TEST_F(Signals, CommandKilledBySignal) {
  ScratchDir dir("cordon-sig-cmd");
  for (int sig : {SIGKILL, SIGINT}) {
    std::string db = dir / ("t" + std::to_string(sig) + ".db");
    RunResult r = trace(db, {fixture("exit_code"), dir.path(), "sig:" + std::to_string(sig)});
    EXPECT_EQ(r.code, 128 + sig) << r.describe();
    auto runs = load_runs(db);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].state, "complete");
    EXPECT_THAT(runs[0].exit_code, Optional(128 + sig));
    EXPECT_THAT(runs[0].exit_signal, Optional(sig));
  }
}

TEST_F(Signals, TimeoutEndsTheRunFast) {
  // A fractional, test-unique duration to find the sleep by afterwards.
  const std::string duration = "30." + std::to_string(::getpid());
  RunResult r =
      trace(db_, {"sleep", duration}, RunOptions{.cwd = scratch_.path()}, {"--timeout", "0.5"});
  EXPECT_EQ(r.code, 124) << r.describe();
  EXPECT_LT(r.seconds, 10) << "cordon did not stop the command at the deadline";
  EXPECT_THAT(r.err, HasSubstr("cordon: timed out after 0.5s"));
  EXPECT_TRUE(eventually([&] { return pids_with_arg(duration).empty(); }, 10));
  auto runs = load_runs(db_);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "timeout");
  EXPECT_TRUE(runs[0].ended_at);
  EXPECT_FALSE(runs[0].exit_code);
}

TEST_F(Signals, TimeoutMustBePositive) {
  RunResult r = trace(db_, {"true"}, {}, {"--timeout", "0"});
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_FALSE(exists(db_));
}

}  // namespace
}  // namespace cordon::ittest
