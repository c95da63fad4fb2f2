// Base for the per-fixture tests: prepares DIR, runs `cordon trace -- NAME DIR`
// and loads what the trace recorded for run 1.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>

#include <algorithm>

#include <string>
#include <vector>

#include "tests/tracer/support.h"

namespace cordon::ittest {

class FixtureTest : public ::testing::Test {
 protected:
  // Traces `NAME DIR args...` and loads the run; fails the test (fatally) when
  // cordon does not exit with `expected_exit`.
  void trace_fixture(const std::string& name, const std::vector<std::string>& args = {},
                     int expected_exit = 0, RunOptions options = {}) {
    prepare_dir(dir_);
    std::vector<std::string> command = {fixture(name), dir_};
    command.insert(command.end(), args.begin(), args.end());
    if (options.cwd.empty()) options.cwd = scratch_.path();
    result_ = trace(db_, command, options);
    ASSERT_FALSE(result_.timed_out) << result_.describe();
    ASSERT_EQ(result_.code, expected_exit) << result_.describe();
    auto runs = load_runs(db_);
    ASSERT_EQ(runs.size(), 1u);
    run_ = runs[0];
    events_ = load_events(db_, run_.id);
    own_ = own_events(events_, dir_);
    processes_ = load_processes(db_, run_.id);
    // The first exec is the fixture's own, made by the process cordon started.
    auto first_exec = std::find_if(events_.begin(), events_.end(),
                                   [](const schema::EventRecord& e) { return e.op == "exec"; });
    ASSERT_NE(first_exec, events_.end()) << "no exec recorded";
    ASSERT_EQ(first_exec->abs_path, fixture(name)) << brief(*first_exec, dir_);
    root_pid_ = first_exec->pid;
  }

  // The events of one op under DIR, in order.
  std::vector<schema::EventRecord> of_op(const std::string& op) const {
    std::vector<schema::EventRecord> out;
    for (const auto& e : own_) {
      if (e.op == op) out.push_back(e);
    }
    return out;
  }

  const schema::ProcessRecord* process(int64_t pid) const {
    for (const auto& p : processes_) {
      if (p.pid == pid) return &p;
    }
    return nullptr;
  }

  std::string exec_brief(const std::string& name) const {
    return "execve exec " + fixture(name) + " existed";
  }

  ScratchDir scratch_{"cordon-it"};
  std::string dir_ = scratch_ / "d";
  std::string db_ = scratch_ / "trace.db";
  RunResult result_;
  schema::RunSummary run_;
  std::vector<schema::EventRecord> events_, own_;
  std::vector<schema::ProcessRecord> processes_;
  int64_t root_pid_ = 0;
};

inline int64_t accmode(const schema::EventRecord& e) {
  return e.flags.value_or(-1) & O_ACCMODE;
}

}  // namespace cordon::ittest
