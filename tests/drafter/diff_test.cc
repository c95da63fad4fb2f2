// cordon diff semantics: by coverage, not text.
#include <gtest/gtest.h>

#include "drafter/drafter.h"
#include "schema/policy/policy.h"

namespace cordon::drafter {
namespace {

schema::Policy parse(const std::string& text, const std::string& file) {
  auto p = schema::parse_policy(text, schema::ParseContext{file, "/home/u", "/work"});
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? *p : schema::Policy{};
}

PolicyDiff diff(const std::string& a, const std::string& b) {
  return diff_policies(parse(a, "old.sbx"), parse(b, "new.sbx"));
}

TEST(Diff, RestatingWhatIsCoveredIsNoChange) {
  auto d = diff(
      "fs { allow_read [\"/a\", \"/a/b\"] allow_write \"/w\" }\nnet { allow_tcp \"x.org:1-100\" }",
      "fs { allow_write \"/w\" allow_read \"/a\" }\nnet { allow_tcp [\"x.org:1-100\", \"x.org:5\"] "
      "}");
  EXPECT_TRUE(d.equivalent()) << format_diff_text(d, false);
}

TEST(Diff, AddedAndRemovedGrants) {
  auto d = diff("fs { allow_read \"/old\" }", "fs { allow_write \"/new\" }");
  ASSERT_EQ(d.grants.size(), 2u);
  EXPECT_EQ(d.grants[0].change, "added");
  EXPECT_EQ(d.grants[0].rule, "allow_write \"/new\"");
  EXPECT_EQ(d.grants[0].origin, "new.sbx:1");
  EXPECT_EQ(d.grants[1].change, "removed");
  EXPECT_EQ(d.grants[1].rule, "allow_read \"/old\"");
}

TEST(Diff, ADirectoryNowCoveringWhatAFileDidIsWidened) {
  auto d = diff("fs { allow_read \"/a/f\" }", "fs { allow_read \"/a\" }");
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].change, "widened");
  EXPECT_EQ(d.grants[0].rule, "allow_read \"/a\"");
  EXPECT_NE(d.grants[0].detail.find("takes in \"/a/f\" (read)"), std::string::npos)
      << d.grants[0].detail;
}

TEST(Diff, ReadToWriteIsWidenedAndWriteToReadNarrowed) {
  auto w = diff("fs { allow_read \"/a\" }", "fs { allow_write \"/a\" }");
  ASSERT_EQ(w.grants.size(), 1u);
  EXPECT_EQ(w.grants[0].change, "widened");
  EXPECT_NE(w.grants[0].detail.find("writable (was read-only)"), std::string::npos);
  auto n = diff("fs { allow_write \"/a\" }", "fs { allow_write \"/a\" allow_read \"/a/vendor\" }");
  ASSERT_EQ(n.grants.size(), 1u);
  EXPECT_EQ(n.grants[0].change, "narrowed");
  EXPECT_NE(n.grants[0].detail.find("\"/a/vendor\" now read-only"), std::string::npos);
}

TEST(Diff, ADirectoryReplacedByFilesInsideItIsNarrowed) {
  auto d = diff("fs { allow_write \"/a\" }", "fs { allow_write [\"/a/x\", \"/a/y\"] }");
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].change, "narrowed");
  EXPECT_NE(d.grants[0].detail.find("now only \"/a/x\" (write), \"/a/y\" (write)"),
            std::string::npos);
}

TEST(Diff, DeniesAndNetRulesAddedAndRemoved) {
  auto d = diff(
      "fs { deny \"~/.aws\" deny_write \"/w/.git\" }\nnet { allow_tcp \"a.org:443\" expose [80] }",
      "fs { deny [\"~/.aws/x\", \"~/.kube\"] }\nnet { allow_udp \"a.org:53\" }\nenv { pass "
      "\"LANG\" }");
  ASSERT_EQ(d.denies.size(), 3u);
  EXPECT_EQ(d.denies[0].change, "added");
  EXPECT_EQ(d.denies[0].rule, "deny \"/home/u/.kube\"");
  EXPECT_EQ(d.denies[1].change, "removed");
  EXPECT_EQ(d.denies[1].rule, "deny \"/home/u/.aws\"");
  EXPECT_EQ(d.denies[2].rule, "deny_write \"/w/.git\"");
  ASSERT_EQ(d.net.size(), 3u);
  EXPECT_EQ(d.net[0].rule, "allow_udp \"a.org:53\"");
  EXPECT_EQ(d.net[2].rule, "expose 80");
  ASSERT_EQ(d.env.size(), 1u);
  EXPECT_FALSE(d.equivalent());
}

TEST(Diff, TextIsColouredOnlyWhenAsked) {
  auto d = diff("fs { allow_read \"/a\" }", "fs { }");
  EXPECT_EQ(format_diff_text(d, false).find("\033["), std::string::npos);
  EXPECT_NE(format_diff_text(d, true).find("\033[31m"), std::string::npos);
  EXPECT_NE(format_diff_json(d).find("\"equivalent\": false"), std::string::npos);
}

}  // namespace
}  // namespace cordon::drafter
