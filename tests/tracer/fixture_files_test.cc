// The file-activity fixtures under `cordon trace`: the exact events each
// records under its scratch DIR, with the flags and mode bits that matter.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tracer/fixture_test.h"

namespace cordon::ittest {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

class FileFixtures : public FixtureTest {};

TEST_F(FileFixtures, CreateWriteRename) {
  trace_fixture("create_write_rename");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("create_write_rename"), "openat open DIR/out.tmp new",
                          "rename rename DIR/out.tmp existed -> DIR/out.txt new"));
  ASSERT_EQ(own_.size(), 3u);
  const auto& open = own_[1];
  EXPECT_EQ(open.path, dir_ + "/out.tmp");
  EXPECT_EQ(accmode(open), O_WRONLY);
  EXPECT_TRUE(*open.flags & O_CREAT);
  EXPECT_TRUE(*open.flags & O_TRUNC);
  EXPECT_THAT(open.mode, Optional(0644));
  const auto& rename = own_[2];
  EXPECT_EQ(rename.path, dir_ + "/out.tmp");
  EXPECT_EQ(rename.path2, dir_ + "/out.txt");
  EXPECT_FALSE(rename.fault);
  EXPECT_EQ(read_file(dir_ + "/out.txt"), "hello\n");
}

TEST_F(FileFixtures, MkdirP) {
  trace_fixture("mkdir_p");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("mkdir_p"), "mkdir create DIR/existing existed",
                          "mkdir create DIR/new new", "mkdir create DIR/new/sub new"));
  for (const auto& e : of_op("create")) EXPECT_THAT(e.mode, Optional(0755)) << brief(e, dir_);
}

TEST_F(FileFixtures, LinkRenameAcross) {
  trace_fixture("link_rename_across");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("link_rename_across"),
                          "link link DIR/a/file existed -> DIR/b/hardlink new",
                          "rename rename DIR/a/moved existed -> DIR/b/moved new"));
  ASSERT_EQ(own_.size(), 3u);
  EXPECT_EQ(own_[1].path2, dir_ + "/b/hardlink");
  EXPECT_EQ(own_[2].path2, dir_ + "/b/moved");
}

TEST_F(FileFixtures, AccessProbeRecordsModeBits) {
  trace_fixture("access_probe");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("access_probe"), "access stat DIR/data.txt existed",
                          "faccessat2 stat DIR existed", "access stat DIR/data.txt existed"));
  ASSERT_EQ(own_.size(), 4u);
  EXPECT_THAT(own_[1].mode, Optional(W_OK));
  EXPECT_THAT(own_[2].mode, Optional(W_OK));
  EXPECT_THAT(own_[2].flags, Optional(0));
  EXPECT_THAT(own_[3].mode, Optional(R_OK));
}

TEST_F(FileFixtures, StatOnly) {
  trace_fixture("stat_only");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("stat_only"), "newfstatat stat DIR/data.txt existed",
                          "newfstatat stat DIR/existing existed", "statx stat DIR/a/file existed"));
  ASSERT_EQ(own_.size(), 4u);
  EXPECT_THAT(own_[1].flags, Optional(0));
  EXPECT_THAT(own_[2].flags, Optional(AT_SYMLINK_NOFOLLOW));
  EXPECT_THAT(own_[3].flags, Optional(0));
  for (const auto& e : own_) EXPECT_FALSE(e.mode) << brief(e, dir_);
}

TEST_F(FileFixtures, ListDirIsAListOnDir) {
  trace_fixture("list_dir");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("list_dir"), "openat open DIR existed",
                          "getdents64 list DIR existed", "getdents64 list DIR existed"));
  ASSERT_EQ(own_.size(), 4u);
  EXPECT_EQ(accmode(own_[1]), O_RDONLY);
  EXPECT_TRUE(*own_[1].flags & O_DIRECTORY);
  // open(2) ignores the mode unless it creates a file: none is recorded.
  EXPECT_FALSE(own_[1].mode) << "mode " << own_[1].mode.value_or(-1)
                             << " recorded for O_DIRECTORY open";
  EXPECT_FALSE(own_[2].path);  // named by fd
}

TEST_F(FileFixtures, Openat2BeneathResolvesAgainstDirfd) {
  trace_fixture("openat2_beneath");
  EXPECT_THAT(briefs(own_, dir_),
              ElementsAre(exec_brief("openat2_beneath"), "openat open DIR existed",
                          "openat2 open DIR/data.txt existed"));
  ASSERT_EQ(own_.size(), 3u);
  EXPECT_TRUE(*own_[1].flags & O_PATH);
  EXPECT_FALSE(own_[1].mode);
  EXPECT_EQ(own_[2].path, "data.txt");
  EXPECT_THAT(own_[2].flags, Optional(O_RDONLY));
  EXPECT_FALSE(own_[2].fault);
}

TEST_F(FileFixtures, AtCallsResolveThroughDirfdAndCwd) {
  trace_fixture("at_calls");
  EXPECT_THAT(
      briefs(own_, dir_),
      ElementsAre(exec_brief("at_calls"), "openat open DIR existed", "mkdirat create DIR/atdir new",
                  "openat open DIR/atdir/f new", "fchmodat modify DIR/atdir/f existed",
                  "utimensat modify DIR/atdir/f existed",
                  "symlinkat create DIR/atdir/l new -> DIR/atdir/f",
                  "readlinkat stat DIR/atdir/l existed",
                  "linkat link DIR/atdir/f existed -> DIR/atdir/h new",
                  "renameat rename DIR/atdir/h existed -> DIR/atdir/h2 new",
                  "unlinkat remove DIR/atdir/h2 existed", "openat open DIR/existing existed",
                  "fchdir chdir DIR/existing existed", "openat open DIR/existing/rel.txt new",
                  "unlinkat remove DIR/atdir/l existed", "unlinkat remove DIR/atdir/f existed",
                  "unlinkat remove DIR/atdir existed"));
  ASSERT_EQ(own_.size(), 17u);
  // The names as the program gave them.
  EXPECT_EQ(own_[2].path, "atdir");
  EXPECT_THAT(own_[2].mode, Optional(0755));
  EXPECT_EQ(own_[3].path, "atdir/f");
  EXPECT_EQ(accmode(own_[3]), O_WRONLY);
  EXPECT_TRUE(*own_[3].flags & O_CREAT);
  EXPECT_THAT(own_[3].mode, Optional(0644));
  EXPECT_THAT(own_[4].mode, Optional(0600));
  EXPECT_EQ(own_[6].path, "atdir/l");
  EXPECT_EQ(own_[6].path2, "f");  // the link text, as written
  EXPECT_EQ(own_[6].abs_path2, dir_ + "/atdir/f");
  EXPECT_EQ(own_[8].path2, "atdir/h");
  EXPECT_EQ(own_[9].path2, "atdir/h2");
  EXPECT_EQ(own_[13].path, "rel.txt");
  EXPECT_THAT(own_[16].flags, Optional(AT_REMOVEDIR));
  EXPECT_THAT(own_[14].flags, Optional(0));
  for (const auto& e : own_) EXPECT_FALSE(e.fault) << brief(e, dir_);
  // O_PATH / O_DIRECTORY opens create nothing: no mode.
  EXPECT_FALSE(own_[1].mode);
  EXPECT_FALSE(own_[11].mode);
  EXPECT_TRUE(exists(dir_ + "/existing/rel.txt"));
}

// The same construction as the fixture: DIR/deep/<200 x 'a'>/<200 x 'b'>/...
// then a name of 'z's making the whole path exactly 4095 bytes.
std::vector<std::string> deep_paths(const std::string& dir) {
  std::vector<std::string> out;
  std::string path = dir + "/deep";
  out.push_back(path);
  long rem = 4095 - static_cast<long>(path.size());
  long levels = (rem - 2) / 201;
  for (long k = 0; k < levels; ++k) {
    path += "/" + std::string(200, static_cast<char>('a' + k));
    out.push_back(path);
  }
  path += "/" + std::string(4095 - path.size() - 1, 'z');
  out.push_back(path);
  return out;
}

TEST_F(FileFixtures, WeirdNamesStoredByteExact) {
  trace_fixture("weird_names");
  std::vector<std::string> deep = deep_paths(dir_);
  ASSERT_EQ(deep.back().size(), 4095u);
  ASSERT_EQ(own_.size(), 3 + deep.size());

  const std::string newline = dir_ + "/new\nline", invalid = dir_ + "/bad\xff\xfe";
  EXPECT_EQ(own_[1].syscall, "openat");
  EXPECT_EQ(own_[1].path, newline);
  EXPECT_EQ(own_[1].abs_path, newline);
  EXPECT_EQ(own_[2].syscall, "openat");
  EXPECT_EQ(own_[2].path, invalid);
  EXPECT_EQ(own_[2].abs_path, invalid);
  for (size_t i = 0; i + 1 < deep.size(); ++i) {
    const auto& e = own_[3 + i];
    EXPECT_EQ(e.syscall, "mkdir");
    EXPECT_EQ(e.path, deep[i]) << "level " << i;
    EXPECT_EQ(e.abs_path, deep[i]) << "level " << i;
    EXPECT_THAT(e.existed, Optional(false));
  }
  const auto& last = own_.back();
  EXPECT_EQ(last.syscall, "openat");
  ASSERT_TRUE(last.path);
  EXPECT_EQ(last.path->size(), 4095u);
  EXPECT_EQ(last.path, deep.back());
  EXPECT_EQ(last.abs_path, deep.back());
  EXPECT_THAT(last.existed, Optional(false));
  for (const auto& e : own_) EXPECT_FALSE(e.fault) << e.fault.value_or("");
}

}  // namespace
}  // namespace cordon::ittest
