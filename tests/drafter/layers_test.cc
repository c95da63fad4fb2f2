// The layer stack loader (schema/policy/layers.h), as draft, why and
// policy show use it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "schema/policy/layers.h"
#include "tests/drafter/trace_builder.h"

namespace cordon::schema {
namespace {

class LayersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = drafter::testing::temp_path("layers");
    ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string file(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(LayersTest, MissingUserAndWorkspaceFilesAreSkipped) {
  auto p = load_layers(LayerSources{dir_, "/home/u", dir_ + "/no-such-user.sbx", true, {}});
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->layers().size(), 1u);
  EXPECT_EQ(p->layers()[0].name, "base");
}

TEST_F(LayersTest, LayersComeInOrder) {
  std::string user = file("user.sbx", "fs { allow_read \"/u\" }\n");
  file(".cordon.sbx", "fs { allow_read \"/w\" }\n");
  std::string extra = file("extra.sbx", "fs { deny \"/w\" }\n");
  auto p = load_layers(LayerSources{dir_, "/home/u", user, true, {extra}});
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->layers().size(), 4u);
  EXPECT_EQ(p->layers()[1].name, "user");
  EXPECT_EQ(p->layers()[2].name, "workspace");
  EXPECT_EQ(p->layers()[3].name, "--policy " + extra);
  EXPECT_EQ(p->decide("/w").kind, AccessKind::kDenied);
  EXPECT_EQ(p->decide(dir_ + "/x").kind, AccessKind::kWritable);  // base "." is cwd
}

TEST_F(LayersTest, AMissingPolicyFileIsAnError) {
  auto p = load_layers(LayerSources{dir_, "/home/u", std::nullopt, true, {dir_ + "/nope.sbx"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, dir_ + "/nope.sbx: cannot read: No such file or directory");
}

TEST_F(LayersTest, ASyntaxErrorNamesFileLineAndColumn) {
  std::string bad = file("bad.sbx", "fs {\n  allow_exec \"/x\"\n}\n");
  auto p = load_layers(LayerSources{dir_, "/home/u", std::nullopt, true, {bad}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind(bad + ":2:3: unknown rule", 0), 0u) << p.error().message;
}

TEST_F(LayersTest, AWorkspacePolicyThatIsASymlinkIsRefused) {
  std::string real = file("real.sbx", "fs { }\n");
  ASSERT_EQ(::symlink(real.c_str(), (dir_ + "/.cordon.sbx").c_str()), 0);
  auto p = load_layers(LayerSources{dir_, "/home/u", std::nullopt, true, {}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("symlink"), std::string::npos);
}

TEST(UserPolicyPath, FollowsXdgConfigHome) {
  EXPECT_EQ(user_policy_path("/x/config", "/home/u"), "/x/config/cordon/policy.sbx");
  EXPECT_EQ(user_policy_path(nullptr, "/home/u"), "/home/u/.config/cordon/policy.sbx");
  EXPECT_EQ(user_policy_path("relative", "/home/u"), "/home/u/.config/cordon/policy.sbx");
}

}  // namespace
}  // namespace cordon::schema
