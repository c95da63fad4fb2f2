#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "schema/policy/policy.h"
#include "tests/schema/policy/test_support.h"

namespace cordon::schema {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/cordon-policy-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& text) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::string path_;
};

TEST(BasePolicy, ParsesAndExpands) {
  util::Result<Policy> base = base_policy("/work/proj", "/home/u");
  ASSERT_TRUE(base.ok()) << base.error().message;
  EffectivePolicy p({Layer{"base", *base}});
  EXPECT_EQ(p.decide("/usr/bin/env").kind, AccessKind::kReadable);
  EXPECT_EQ(p.decide("/lib64/ld-linux-x86-64.so.2").kind, AccessKind::kReadable);
  EXPECT_EQ(p.decide("/etc/resolv.conf").kind, AccessKind::kReadable);
  EXPECT_EQ(p.decide("/work/proj/src/main.c").kind, AccessKind::kWritable);
  EXPECT_EQ(p.decide("/work/proj/.git/hooks/pre-commit").kind, AccessKind::kReadable);
  EXPECT_EQ(p.decide("/work/proj/.cordon.sbx").kind, AccessKind::kReadable);
  EXPECT_EQ(p.decide("/home/u/.ssh/id_ed25519").kind, AccessKind::kDenied);
  EXPECT_EQ(p.decide("/home/u/.bashrc").kind, AccessKind::kAbsent);
  EXPECT_EQ(p.decide("/var/lib/dpkg/status").kind, AccessKind::kAbsent);
  EXPECT_EQ(p.decide("/tmp").kind, AccessKind::kAbsent);
}

TEST(BasePolicy, WorkspaceInHomeStillHidesCredentials) {
  util::Result<Policy> base = base_policy("/home/u", "/home/u");
  ASSERT_TRUE(base.ok());
  EffectivePolicy p({Layer{"base", *base}});
  EXPECT_EQ(p.decide("/home/u/notes.txt").kind, AccessKind::kWritable);
  EXPECT_EQ(p.decide("/home/u/.aws/credentials").kind, AccessKind::kDenied);
  EXPECT_EQ(p.decide("/home/u/.config/cordon/policy.sbx").kind, AccessKind::kReadable);
}

TEST(BasePolicy, OriginsPointIntoTheText) {
  util::Result<Policy> base = base_policy("/w", "/h");
  ASSERT_TRUE(base.ok());
  std::string_view text = base_policy_text();
  for (const Rule& rule : base->rules) {
    EXPECT_EQ(rule.origin.file, "<base>");
    size_t start = 0;
    for (int line = 1; line < rule.origin.line; ++line) start = text.find('\n', start) + 1;
    EXPECT_EQ(text.substr(start + rule.origin.column - 1, rule.written.size() + 2),
              "\"" + rule.written + "\"");
  }
}

TEST(BasePolicy, TextRoundTrips) {
  util::Result<Policy> base = base_policy("/w", "/h");
  ASSERT_TRUE(base.ok());
  util::Result<Policy> again = parse_policy(print_policy(*base), testing::kCtx);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(equivalent(*base, *again));
}

TEST(BasePolicy, NeedsAbsoluteDirectories) {
  util::Result<Policy> no_home = base_policy("/w", "");
  ASSERT_FALSE(no_home.ok());
  EXPECT_TRUE(no_home.error().message.starts_with("<base>:")) << no_home.error().message;
  EXPECT_FALSE(base_policy("relative", "/h").ok());
}

TEST(LoadPolicy, RelativePathsAreRelativeToTheFile) {
  TempDir dir;
  std::string file = dir.write("p.sbx", "fs {\n  allow_read [\"data\", \"~/x\"]\n}\n");
  util::Result<Policy> p = load_policy_file(file, "/home/u");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(testing::values(*p), (std::vector<std::string>{dir.path() + "/data", "/home/u/x"}));
  EXPECT_EQ(p->rules[0].origin, (Origin{file, 2, 15}));
}

TEST(LoadPolicy, RelativeFileNameUsesTheCurrentDirectory) {
  TempDir dir;
  dir.write("p.sbx", "fs { allow_read \"sub\" }");
  char* old = ::getcwd(nullptr, 0);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  util::Result<Policy> p = load_policy_file("./p.sbx", "/home/u");
  ASSERT_EQ(::chdir(old), 0);
  std::free(old);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(testing::values(*p), (std::vector<std::string>{dir.path() + "/sub"}));
  EXPECT_EQ(p->rules[0].origin.file, "./p.sbx");
}

TEST(LoadPolicy, EmptyFileIsEmptyPolicy) {
  TempDir dir;
  util::Result<Policy> p = load_policy_file(dir.write("e.sbx", ""), "/h");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->rules.empty());
}

TEST(LoadPolicy, SyntaxErrorsNameTheFile) {
  TempDir dir;
  std::string file = dir.write("bad.sbx", "fs {\n  allow_read \"/x\n}\n");
  util::Result<Policy> p = load_policy_file(file, "/h");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, file + ":2:14: unterminated string");
}

TEST(LoadPolicy, MissingFile) {
  util::Result<Policy> p = load_policy_file("/nonexistent/cordon.sbx", "/h");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "/nonexistent/cordon.sbx: cannot read: No such file or directory");
  EXPECT_EQ(p.error().errno_value, ENOENT);
}

TEST(LoadPolicy, DirectoryAndFifoAreRefused) {
  TempDir dir;
  util::Result<Policy> d = load_policy_file(dir.path(), "/h");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, dir.path() + ": cannot read: not a regular file");
  std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  util::Result<Policy> f = load_policy_file(fifo, "/h");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, fifo + ": cannot read: not a regular file");
}

TEST(LoadPolicy, OversizedFileIsRefused) {
  TempDir dir;
  std::string file = dir.write("big.sbx", std::string((1 << 20) + 1, '#'));
  util::Result<Policy> p = load_policy_file(file, "/h");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, file + ": cannot read: larger than 1 MiB");
  EXPECT_EQ(p.error().errno_value, EFBIG);
}

TEST(LoadPolicy, FileNameInMessagesIsPrintable) {
  util::Result<Policy> p = load_policy_file("/nonexistent/a\nb", "/h");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "/nonexistent/a\\nb: cannot read: No such file or directory");
}

TEST(LoadWorkspacePolicy, RefusesASymlink) {
  TempDir dir;
  std::string target = dir.write("real.sbx", "fs { allow_read \"/x\" }");
  std::string link = dir.path() + "/.cordon.sbx";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  util::Result<Policy> refused = load_workspace_policy(link, "/h");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, link + ": refusing a workspace policy that is a symlink");
  EXPECT_EQ(refused.error().errno_value, ELOOP);
  EXPECT_TRUE(load_policy_file(link, "/h").ok());
  EXPECT_TRUE(load_workspace_policy(target, "/h").ok());
}

TEST(LoadWorkspacePolicy, MissingIsENOENT) {
  TempDir dir;
  util::Result<Policy> p = load_workspace_policy(dir.path() + "/.cordon.sbx", "/h");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().errno_value, ENOENT);
}

}  // namespace
}  // namespace cordon::schema
