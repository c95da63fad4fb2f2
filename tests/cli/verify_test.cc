// `cordon learn --verify`: the learned command re-run under the policy plus
// its draft, audited. A complete draft passes; one that a deny layer makes
// incomplete fails with exit 3 and names the path.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

class Verify : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* d : {"cwd", "home", "data", "data/sub"}) {
      ::mkdir((root_ / d).c_str(), 0755);
    }
    write_file(root_ / "data/a.txt", "a\n");
    write_file(root_ / "data/sub/b.txt", "b\n");
  }
  RunOptions options() const {
    RunOptions o;
    o.cwd = root_ / "cwd";
    o.env = {
        {"HOME", root_ / "home"}, {"XDG_CONFIG_HOME", root_ / "config"}, {"PATH", "/usr/bin:/bin"}};
    o.timeout = 60;
    return o;
  }
  // Reads both files and writes a third; fails if any step does.
  std::string script() const {
    return "cat '" + root_ / "data/a.txt" + "' '" + root_ / "data/sub/b.txt" + "' && echo x > '" +
           root_ / "data/out.txt" + "'";
  }
  RunResult learn(const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {cordon_bin(),   "learn",    "--trace",
                                     root_ / "t.db", "--output", root_ / "draft.sbx"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script()});
    return run(argv, options());
  }

  ScratchOutsideTmp outside_tmp_;
  ScratchDir root_{"cordon-verify"};
};

TEST_F(Verify, ACompleteDraftPasses) {
  RunResult r = learn({"--verify"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("the draft is complete"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("learn run exit 0, verify run exit 0"), std::string::npos) << r.err;
  auto runs = load_runs(root_ / "t-verify.db");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].mode, "audit");
}

TEST_F(Verify, ADraftMadeIncompleteFailsAndNamesThePath) {
  // The deny layer takes data/sub away from the policy the draft is added
  // to: the learn run read b.txt (and was refused, as it will be), so the
  // draft cannot cover it.
  write_file(root_ / "deny.sbx", "fs {\n  deny \"" + root_ / "data/sub" + "\"\n}\n");
  RunResult r = learn({"--policy", root_ / "deny.sbx", "--verify"});
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_NE(r.err.find("INCOMPLETE"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ENOENT      open     " + root_ / "data/sub/b.txt"), std::string::npos)
      << r.err;
}

TEST_F(Verify, VerifyCmdRunsAnotherCommand) {
  RunResult r = learn({"--verify-cmd", "cat '" + root_ / "data/a.txt" + "' '/etc/hostname'"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("the draft is complete"), std::string::npos) << r.err;
}

TEST_F(Verify, JsonAndVerifyDoNotMix) {
  RunResult r = learn({"--verify", "--json"});
  EXPECT_EQ(r.code, 2) << r.describe();
}

}  // namespace
}  // namespace cordon::ittest
