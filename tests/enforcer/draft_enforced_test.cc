// The loop the product promises: a fixture learned and drafted, then run
// under its draft, succeeds the first time; and the draft is no broader than
// needed: a write just outside what it grants fails.
#include <cerrno>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

class DraftEnforced : public ::testing::TestWithParam<const char*> {
 protected:
  // The fixture works in `dir`; cordon runs from `cwd`, a sibling, so the
  // base layer's grant of the working directory does not cover `dir`.
  RunOptions options() const {
    RunOptions o;
    o.cwd = root_ / "cwd";
    o.env = {{"HOME", root_ / "home"}, {"XDG_CONFIG_HOME", root_ / "config"}};
    return o;
  }
  ScratchOutsideTmp outside_tmp_;
  ScratchDir root_{"cordon-loop"};
};

TEST_P(DraftEnforced, TheDraftWorksFirstTimeAndNoWider) {
  const std::string name = GetParam();
  const std::string dir = root_ / "work";
  run({"/bin/mkdir", "-p", root_ / "cwd", root_ / "home"});
  prepare_dir(dir);
  // The fixture binary itself must be visible in the sandbox: it sits in the
  // working directory, which the base layer grants.
  write_file(root_ / "cwd/fixture", read_file(fixture(name)), 0755);
  write_file(root_ / "cwd/escape_probe", read_file(fixture("escape_probe")), 0755);

  const std::string draft = root_ / "draft.sbx";
  RunResult learned = run(
      {cordon_bin(), "learn", "--trace", root_ / "t.db", "--output", draft, "--", "./fixture", dir},
      options());
  ASSERT_EQ(learned.code, 0) << learned.describe();

  // Undo what the learn run did, so the enforced run does it all again.
  remove_tree(dir);
  prepare_dir(dir);
  RunResult enforced =
      run({cordon_bin(), "run", "--policy", draft, "--", "./fixture", dir}, options());
  EXPECT_EQ(enforced.code, 0) << enforced.describe() << "\ndraft:\n" << read_file(draft);

  // Next to the granted directory, not in it.
  RunResult outside = run({cordon_bin(), "run", "--policy", draft, "--", "./escape_probe", "write",
                           root_ / "beside-work"},
                          options());
  EXPECT_EQ(outside.code, EROFS) << outside.describe();
  EXPECT_FALSE(exists(root_ / "beside-work"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DraftEnforced,
                         ::testing::Values("create_write_rename", "mkdir_p", "link_rename_across",
                                           "access_probe", "stat_only", "list_dir", "at_calls",
                                           "threads", "fork_tree", "weird_names",
                                           "openat2_beneath"));

}  // namespace
}  // namespace cordon::ittest
