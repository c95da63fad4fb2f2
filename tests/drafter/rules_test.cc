// Learn rules 1-5 (docs/learn-rules.md), each from a small hand-built trace.
// The run's cwd is /work/proj (writable by the base layer) and its home
// /home/u; the directories used here are outside both.
#include <fcntl.h>
#include <unistd.h>

#include "tests/drafter/trace_builder.h"

namespace cordon::drafter::testing {
namespace {

// Rule 1: a new or removed name is granted by its directory.
TEST(Rule1, CreateThenRenameIntoPlaceGrantsTheDirectoryOnly) {
  TraceBuilder t;
  t.create("/srv/out/data.tmp").rename("/srv/out/data.tmp", "/srv/out/data");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  const Grant& g = d.grants[0];
  EXPECT_EQ(g.path, "/srv/out");
  EXPECT_EQ(g.access, Access::kWrite);
  EXPECT_TRUE(has_op(g.ops, "create", 1));
  EXPECT_TRUE(has_op(g.ops, "rename into place", 1));
  ASSERT_EQ(g.covers.size(), 2u);
  EXPECT_EQ(g.covers[0].path, "/srv/out/data");
}

TEST(Rule1, ANameReachingAGrantTwiceCountsOnce) {
  TraceBuilder t;
  t.read("/srv/out/data")
      .create("/srv/out/data.tmp")
      .rename("/srv/out/data.tmp", "/srv/out/data", true);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_TRUE(has_op(d.grants[0].ops, "open", 1));
  EXPECT_TRUE(has_op(d.grants[0].ops, "rename into place", 1));
}

TEST(Rule1, RemovingANameWritesItsDirectory) {
  TraceBuilder t;
  t.remove("/srv/cache/old");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv/cache");
  EXPECT_EQ(d.grants[0].access, Access::kWrite);
}

TEST(Rule1, MkdirOnAnExistingDirectoryIsNotANewName) {
  TraceBuilder t;
  t.mkdir("/srv/existing", true);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv/existing");
  EXPECT_EQ(d.grants[0].access, Access::kRead);
}

TEST(Rule1, CreatOnAnExistingFileWritesThatFileInPlace) {
  TraceBuilder t;
  t.open("/srv/config.ini", O_WRONLY | O_CREAT | O_TRUNC, true);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv/config.ini");
  EXPECT_EQ(d.grants[0].access, Access::kWrite);
}

TEST(Rule1, NamesInsideADirectoryTheRunMadeMoveUpToTheFirstThatExisted) {
  TraceBuilder t;
  t.stat("/srv/build", false)
      .mkdir("/srv/build")
      .mkdir("/srv/build/obj")
      .create("/srv/build/obj/a.o");
  t.open("/srv/build/obj/a.o", O_RDWR, true);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv");
  EXPECT_EQ(d.grants[0].access, Access::kWrite);
  EXPECT_TRUE(d.not_found.empty());
}

TEST(Rule1, NamesMadeDirectlyInTmpNeedNoGrant) {
  TraceBuilder t;
  t.stat("/tmp").create("/tmp/scratch.1").remove("/tmp/scratch.1");
  t.event("stat", "access", "/tmp", true, std::nullopt, W_OK);
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("/tmp of its own"), std::string::npos);
}

// Rule 2: a move between directories is granted by the directory holding both.
TEST(Rule2, RenameBetweenDirectoriesGrantsTheCommonDirectoryWithANote) {
  TraceBuilder t;
  t.rename("/srv/a/moved", "/srv/b/moved").link("/srv/a/file", "/srv/b/hardlink");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  const Grant& g = d.grants[0];
  EXPECT_EQ(g.path, "/srv");
  EXPECT_EQ(g.access, Access::kWrite);
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_NE(g.notes[0].find("broader than either"), std::string::npos);
}

TEST(Rule2, DirectoriesSharingOnlyTheRootAreFlaggedNotGranted) {
  TraceBuilder t;
  t.rename("/srv/a/f", "/opt2/b/f");
  Draft d = draft_of(t.write());
  EXPECT_EQ(find_grant(d, "/"), nullptr);
  bool flagged = false;
  for (const ReviewItem& r : d.review)
    flagged = flagged || r.reason.find("short of /") != std::string::npos;
  EXPECT_TRUE(flagged);
}

TEST(Rule2, RenameWithinOneWritableMountOfTheCurrentPolicyNeedsNothing) {
  TraceBuilder t;
  t.rename("/work/proj/a/x", "/work/proj/b/x");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
}

// Rule 3: nothing is granted inside another grant.
TEST(Rule3, AReadFoldsIntoACoveringWriteAndKeepsItsOperations) {
  TraceBuilder t;
  t.create("/srv/out/new").read("/srv/out/sub/input").read("/srv/out/sub/input");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  const Grant& g = d.grants[0];
  EXPECT_EQ(g.path, "/srv/out");
  EXPECT_TRUE(has_op(g.ops, "open", 2));
  ASSERT_EQ(g.covers.size(), 2u);
  EXPECT_EQ(g.covers[1].path, "/srv/out/sub/input");
}

TEST(Rule3, AWriteBelowAReadGrantStaysItsOwnMount) {
  TraceBuilder t;
  t.list("/srv/data").open("/srv/data/log/app.log", O_WRONLY | O_APPEND, true);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 2u);
  EXPECT_EQ(d.grants[0].access, Access::kRead);
  const Grant* w = find_grant(d, "/srv/data/log/app.log");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->access, Access::kWrite);
  ASSERT_EQ(w->notes.size(), 1u);
  EXPECT_NE(w->notes[0].find("inside the read-only grant"), std::string::npos);
}

// Rule 4: mounts the current policy already has are named.
TEST(Rule4, AGrantOfTheCurrentPolicyInsideADraftedWritableDirectoryIsAConflict) {
  TraceBuilder t;
  t.create("/srv/site/index.html.tmp")
      .rename("/srv/site/index.html.tmp", "/srv/site/index.html", true);
  Draft d = draft_of(t.write(), "fs {\n  allow_read \"/srv/site/index.html\"\n}\n");
  ASSERT_NE(find_grant(d, "/srv/site"), nullptr);
  // One rule, one conflict: it sits inside the drafted grant, and the trace
  // renamed over it.
  ASSERT_EQ(d.conflicts.size(), 1u);
  const Conflict& c = d.conflicts[0];
  EXPECT_EQ(c.path, "/srv/site/index.html");
  EXPECT_EQ(c.origin, "extra.sbx:2");
  EXPECT_EQ(c.layer, "extra");
  EXPECT_NE(c.what.find("the trace replaced"), std::string::npos) << c.what;
  EXPECT_NE(c.what.find("inside the writable \"/srv/site\""), std::string::npos) << c.what;
  EXPECT_NE(c.what.find("EBUSY"), std::string::npos);
  EXPECT_NE(c.what.find("EXDEV"), std::string::npos);
  EXPECT_NE(c.what.find("Removing the rule is part of applying the draft"), std::string::npos);
}

TEST(Rule4, APathADenyCoversIsAConflictNotAGrant) {
  TraceBuilder t;
  t.read("/home/u/.ssh/config").read("/home/u/.aws/credentials");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
  ASSERT_EQ(d.conflicts.size(), 2u);
  EXPECT_EQ(d.conflicts[0].origin.substr(0, 7), "<base>:");
  EXPECT_NE(d.conflicts[0].rule.find("deny"), std::string::npos);
}

TEST(Rule4, AWriteThatDenyWriteBlocksIsAConflict) {
  TraceBuilder t;
  t.open("/work/proj/.envrc", O_WRONLY | O_TRUNC, true);
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
  ASSERT_EQ(d.conflicts.size(), 1u);
  EXPECT_NE(d.conflicts[0].rule.find("deny_write"), std::string::npos);
  EXPECT_NE(d.conflicts[0].what.find("EROFS"), std::string::npos);
}

// Rule 5: probes, stats, listings, the way there, and what was never there.
TEST(Rule5, AWriteProbeIsAWrite) {
  TraceBuilder t;
  t.event("stat", "access", "/srv/data.txt", true, std::nullopt, W_OK);
  t.event("stat", "faccessat2", "/srv/other", true, 0, W_OK);
  t.event("stat", "access", "/srv/read-only", true, std::nullopt, R_OK);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 3u);
  EXPECT_EQ(find_grant(d, "/srv/data.txt")->access, Access::kWrite);
  EXPECT_EQ(find_grant(d, "/srv/other")->access, Access::kWrite);
  EXPECT_EQ(find_grant(d, "/srv/read-only")->access, Access::kRead);
  EXPECT_TRUE(has_op(find_grant(d, "/srv/data.txt")->ops, "write probe"));
}

TEST(Rule5, APathOnlyStatedIsGrantedAsARead) {
  TraceBuilder t;
  t.stat("/srv/data.txt");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].access, Access::kRead);
}

TEST(Rule5, ListingADirectoryGrantsIt) {
  TraceBuilder t;
  t.open("/srv/dir", O_RDONLY | O_DIRECTORY, true).list("/srv/dir").read("/srv/dir/f");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv/dir");
  EXPECT_TRUE(has_op(d.grants[0].ops, "list"));
  EXPECT_TRUE(d.passed_through.empty());
}

TEST(Rule5, DirectoriesOnlyPassedThroughAreListedNotGranted) {
  TraceBuilder t;
  t.stat("/srv").open("/srv/app", O_RDONLY | O_DIRECTORY, true).read("/srv/app/conf/x.ini");
  t.stat("/work");  // on the way to the base layer's "." grant
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/srv/app/conf/x.ini");
  EXPECT_EQ(d.passed_through, (std::vector<std::string>{"/srv", "/srv/app", "/work"}));
}

TEST(Rule5, DevAndProcAreNeverDrafted) {
  TraceBuilder t;
  t.read("/dev/null")
      .open("/dev/shm/x", O_RDWR | O_CREAT, false)
      .read("/proc/self/maps")
      .read("/proc");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("4 calls on /dev or /proc"), std::string::npos);
}

TEST(Rule5, PathsNeverThereAndNeverCreatedAreSummarisedNotGranted) {
  TraceBuilder t;
  t.exec("/usr/local/bin/tool", false).exec("/home/u/bin/tool", false).exec("/opt2/bin/tool");
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/opt2/bin/tool");
  // /usr/local/bin/tool is under the base layer's /usr, so it is no news.
  ASSERT_EQ(d.not_found.size(), 1u);
  EXPECT_EQ(d.not_found[0].path, "/home/u/bin/tool");
}

TEST(Rule5, WhatTheCurrentPolicyGrantsIsNotDrafted) {
  TraceBuilder t;
  t.read("/usr/lib/libc.so.6").read("/etc/passwd").create("/work/proj/out.o").exec("/bin/sh");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.grants.empty());
  EXPECT_TRUE(d.conflicts.empty());
  EXPECT_TRUE(d.review.empty());
}

}  // namespace
}  // namespace cordon::drafter::testing
