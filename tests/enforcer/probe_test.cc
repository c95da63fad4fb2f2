// probe_grade on this host, with fake bwraps, and its cache. Each test gets
// its own XDG_CACHE_HOME, so nothing here reads or writes the user's cache.
#include "enforcer/probe.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "enforcer/grade_cache.h"
#include "tests/tracer/support.h"
#include "util/bwrap.h"

namespace cordon::enforcer {
namespace {

using ittest::exists;
using ittest::read_file;
using ittest::write_file;

class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("XDG_CACHE_HOME", (scratch_ / "cache").c_str(), 1);
    ::unsetenv("CORDON_BWRAP");
    auto found = util::find_bwrap();
    ASSERT_TRUE(found.ok()) << found.error().message;
    bwrap_ = *found;
  }
  void TearDown() override {
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("CORDON_BWRAP");
  }
  std::string cache() const { return scratch_ / "cache/cordon/grade"; }
  // A bwrap stand-in: a shell script in the scratch directory.
  std::string fake_bwrap(const std::string& name, const std::string& body) {
    std::string path = scratch_ / name;
    write_file(path, "#!/bin/sh\n" + body, 0755);
    return path;
  }

  ittest::ScratchDir scratch_{"cordon-probe"};
  std::string bwrap_;
};

TEST_F(ProbeTest, FullOnThisHost) {
  std::string why = "stale";
  auto grade = probe_grade(bwrap_, &why);
  ASSERT_TRUE(grade.ok()) << grade.error().message;
  EXPECT_EQ(*grade, Grade::kFull) << why;
  EXPECT_EQ(why, "");
}

TEST_F(ProbeTest, WritesTheCacheAndReusesIt) {
  ASSERT_EQ(*probe_grade(bwrap_), Grade::kFull);
  ASSERT_TRUE(exists(cache()));
  std::string text = read_file(cache());
  EXPECT_NE(text.find("bwrap " + bwrap_ + "\n"), std::string::npos) << text;
  ASSERT_NE(text.find("grade full\n"), std::string::npos) << text;

  // A memo that says partial under the same key is believed: proof that the
  // second call read the file instead of probing.
  text.replace(text.find("grade full"), 10, "grade partial");
  write_file(cache(), text, 0600);
  EXPECT_EQ(*probe_grade(bwrap_), Grade::kPartial);

  // reprobe_grade ignores it and puts the truth back.
  EXPECT_EQ(*reprobe_grade(bwrap_), Grade::kFull);
  EXPECT_NE(read_file(cache()).find("grade full\n"), std::string::npos);
}

TEST_F(ProbeTest, IgnoresAndRewritesAGarbageCache) {
  ::mkdir((scratch_ / "cache").c_str(), 0700);
  ::mkdir((scratch_ / "cache/cordon").c_str(), 0700);
  write_file(cache(), "grade partial\n\x01\x02 not a cache file", 0600);
  EXPECT_EQ(*probe_grade(bwrap_), Grade::kFull);
  EXPECT_EQ(read_file(cache()).rfind("cordon grade cache 1\n", 0), 0u) << read_file(cache());
}

TEST_F(ProbeTest, IgnoresACacheWrittenForAnotherKernel) {
  auto key = grade_key(bwrap_);
  ASSERT_TRUE(key.ok()) << key.error().message;
  key->kernel = "1.0.0-elsewhere";
  ASSERT_TRUE(store_grade(*key, Grade::kPartial).ok());
  EXPECT_EQ(*probe_grade(bwrap_), Grade::kFull);
  EXPECT_EQ(read_file(cache()).find("1.0.0-elsewhere"), std::string::npos);
}

TEST_F(ProbeTest, UnusableWhenBwrapRefusesEverything) {
  std::string fake = fake_bwrap("bwrap", "echo 'bwrap: fake refusal' >&2\nexit 1\n");
  ::setenv("CORDON_BWRAP", fake.c_str(), 1);
  auto found = util::find_bwrap();
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(*found, fake);
  std::string why;
  auto grade = probe_grade(*found, &why);
  ASSERT_TRUE(grade.ok()) << grade.error().message;
  EXPECT_EQ(*grade, Grade::kUnusable);
  EXPECT_NE(why.find("bwrap: fake refusal"), std::string::npos) << why;
  // Never memoized: fixing the host must take effect at the next run.
  EXPECT_FALSE(exists(cache()));
}

TEST_F(ProbeTest, UnusableIsNotMemoizedOverAnEarlierGrade) {
  std::string fake = fake_bwrap("bwrap", "exit 1\n");
  auto key = grade_key(fake);
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(store_grade(*key, Grade::kFull).ok());
  std::string why;
  EXPECT_EQ(*reprobe_grade(fake, &why), Grade::kUnusable);
  EXPECT_NE(why.find("exited with status 1"), std::string::npos) << why;
  EXPECT_FALSE(exists(cache()));
}

TEST_F(ProbeTest, PartialWhenOnlyTheReducedBaseWorks) {
  // Refuses what an unprivileged container typically refuses: a new procfs.
  std::string fake = fake_bwrap(
      "bwrap",
      "case \" $* \" in *' --proc '*) echo 'bwrap: Can'\\''t mount proc' >&2; exit 1;; esac\n"
      "exec " +
          bwrap_ + " \"$@\"\n");
  std::string why;
  auto grade = probe_grade(fake, &why);
  ASSERT_TRUE(grade.ok()) << grade.error().message;
  EXPECT_EQ(*grade, Grade::kPartial);
  EXPECT_NE(why.find("Can't mount proc"), std::string::npos) << why;
  EXPECT_NE(read_file(cache()).find("grade partial\n"), std::string::npos);
}

TEST_F(ProbeTest, UnusableWhenTheRootStaysWritable) {
  // A bwrap that ignores --remount-ro: the ungranted write succeeds, and the
  // probe must not take the flags' acceptance for confinement.
  std::string fake = fake_bwrap("bwrap",
                                "skip=0\n"
                                "for a; do\n"
                                "  shift\n"
                                "  if [ $skip = 1 ]; then skip=0; continue; fi\n"
                                "  if [ \"$a\" = --remount-ro ]; then skip=1; continue; fi\n"
                                "  set -- \"$@\" \"$a\"\n"
                                "done\n"
                                "exec " +
                                    bwrap_ + " \"$@\"\n");
  std::string why;
  auto grade = probe_grade(fake, &why);
  ASSERT_TRUE(grade.ok()) << grade.error().message;
  EXPECT_EQ(*grade, Grade::kUnusable);
  EXPECT_NE(why.find("outside every grant succeeded"), std::string::npos) << why;
}

TEST_F(ProbeTest, MissingBwrapIsAnError) {
  auto grade = probe_grade(scratch_ / "no-such-bwrap");
  ASSERT_FALSE(grade.ok());
  EXPECT_EQ(grade.error().errno_value, ENOENT);
}

TEST_F(ProbeTest, RelativeXdgCacheHomeFallsBackToHome) {
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
  const char* home = std::getenv("HOME");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ(grade_cache_path(), std::string(home) + "/.cache/cordon/grade");
}

}  // namespace
}  // namespace cordon::enforcer
