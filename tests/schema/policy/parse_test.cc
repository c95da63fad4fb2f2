#include <gtest/gtest.h>

#include "schema/policy/policy.h"
#include "tests/schema/policy/test_support.h"

namespace cordon::schema {
namespace {

using testing::kCtx;
using testing::parse_ok;
using testing::values;
using V = std::vector<std::string>;

TEST(ParsePolicy, ExampleFromTheIssue) {
  Policy p = parse_ok(R"(# a comment runs to the end of the line
fs {
  allow_read  "/usr/share/zoneinfo"            # one value
  allow_read  ["/etc/ssl/certs", "~/.gitconfig"] # or a list; trailing comma allowed
  allow_write ["."]
  deny_write  [".git/hooks", ".envrc"]          # visible, read-only
  deny        ["~/.ssh", "~/.aws"]              # absent
}
net {
  allow_tcp ["example.org:443", "host.internal:5432"]
  allow_udp ["192.0.2.1:53"]
  expose    [8080]
}
env {
  pass ["LANG", "TERM"]
}
)");
  EXPECT_EQ(values(p),
            (V{"/usr/share/zoneinfo", "/etc/ssl/certs", "/home/u/.gitconfig", "/work/proj",
               "/work/proj/.git/hooks", "/work/proj/.envrc", "/home/u/.ssh", "/home/u/.aws",
               "example.org:443", "host.internal:5432", "192.0.2.1:53", "8080", "LANG", "TERM"}));
  ASSERT_EQ(p.rules.size(), 14u);
  EXPECT_EQ(p.rules[0].kind, RuleKind::kAllowRead);
  EXPECT_EQ(p.rules[3].kind, RuleKind::kAllowWrite);
  EXPECT_EQ(p.rules[4].kind, RuleKind::kDenyWrite);
  EXPECT_EQ(p.rules[6].kind, RuleKind::kDeny);
  EXPECT_EQ(p.rules[8].kind, RuleKind::kAllowTcp);
  EXPECT_EQ(p.rules[10].kind, RuleKind::kAllowUdp);
  EXPECT_EQ(p.rules[11].kind, RuleKind::kExpose);
  EXPECT_EQ(p.rules[11].port, 8080);
  EXPECT_EQ(p.rules[12].kind, RuleKind::kPass);
  ASSERT_TRUE(p.rules[9].destination.has_value());
  EXPECT_EQ(p.rules[9].destination->host_kind, NetDestination::HostKind::kInternal);
}

TEST(ParsePolicy, OriginsPointAtEachValue) {
  Policy p = parse_ok("fs {\n  allow_read [\"/a\",\n\t\"/b\"]\n}\n");
  ASSERT_EQ(p.rules.size(), 2u);
  EXPECT_EQ(p.rules[0].origin, (Origin{"p.sbx", 2, 15}));
  EXPECT_EQ(p.rules[1].origin, (Origin{"p.sbx", 3, 2}));
}

TEST(ParsePolicy, KeepsTheValueAsWritten) {
  Policy p = parse_ok("fs { allow_read \"~/x/../y\" }\nnet { allow_tcp \"Example.ORG:0443\" }");
  ASSERT_EQ(p.rules.size(), 2u);
  EXPECT_EQ(p.rules[0].written, "~/x/../y");
  EXPECT_EQ(p.rules[0].value, "/home/u/y");
  EXPECT_EQ(p.rules[1].written, "Example.ORG:0443");
  EXPECT_EQ(p.rules[1].value, "example.org:443");
}

TEST(ParsePolicy, EmptyInputsAndBlocks) {
  EXPECT_TRUE(parse_ok("").rules.empty());
  EXPECT_TRUE(parse_ok("   \n\t\n").rules.empty());
  EXPECT_TRUE(parse_ok("# only a comment").rules.empty());
  EXPECT_TRUE(parse_ok("fs {}\nnet{ }\nenv {\n}\n").rules.empty());
  EXPECT_TRUE(parse_ok("fs { allow_read [] }").rules.empty());
}

TEST(ParsePolicy, BlocksRepeatAndKeepOrder) {
  Policy p = parse_ok("fs { allow_read \"/a\" }\nenv { pass \"A\" }\nfs { deny \"/b\" }\n");
  EXPECT_EQ(values(p), (V{"/a", "A", "/b"}));
}

TEST(ParsePolicy, TrailingCommasAndLayout) {
  EXPECT_EQ(values(parse_ok("fs { allow_read [\"/a\",] }")), (V{"/a"}));
  EXPECT_EQ(values(parse_ok("fs{allow_read[\"/a\",\"/b\",]deny\"/c\"}")), (V{"/a", "/b", "/c"}));
  EXPECT_EQ(values(parse_ok("fs {\n allow_read [\n  \"/a\",\n  \"/b\",\n ]\n}")), (V{"/a", "/b"}));
  EXPECT_EQ(values(parse_ok("net { expose [80, 443,] }")), (V{"80", "443"}));
}

TEST(ParsePolicy, CommentsAnywhereOutsideStrings) {
  Policy p =
      parse_ok("fs # here\n{ # and here\n allow_read # and\n [ # in\n \"/a#b\" # lists\n ] }");
  EXPECT_EQ(values(p), (V{"/a#b"}));
}

TEST(ParsePolicy, CarriageReturnsAreWhitespace) {
  EXPECT_EQ(values(parse_ok("fs {\r\n  allow_read \"/a\"\r\n}\r\n")), (V{"/a"}));
}

TEST(ParsePolicy, LeadingByteOrderMarkIsSkipped) {
  Policy p = parse_ok(
      "\xef\xbb\xbf"
      "fs { allow_read \"/a\" }");
  EXPECT_EQ(values(p), (V{"/a"}));
  EXPECT_EQ(p.rules[0].origin, (Origin{"p.sbx", 1, 20}));
}

TEST(ParsePolicy, Escapes) {
  Policy p =
      parse_ok(R"(fs { allow_read ["/a\\b", "/q\"q", "/n\nl", "/t\tb", "/\x41\xff\x0a\xFf"] })");
  EXPECT_EQ(values(p), (V{"/a\\b", "/q\"q", "/n\nl", "/t\tb", "/A\xff\n\xff"}));
}

TEST(ParsePolicy, RawBytesInStringsAreKept) {
  Policy p = parse_ok("fs { allow_read \"/caf\xc3\xa9/\xff\xfe\" }");
  EXPECT_EQ(values(p), (V{"/caf\xc3\xa9/\xff\xfe"}));
}

TEST(ParsePolicy, TildeExpansion) {
  Policy p = parse_ok(R"(fs { allow_read ["~", "~/", "~/.config//x/", "~/../v"] })");
  EXPECT_EQ(values(p), (V{"/home/u", "/home/u", "/home/u/.config/x", "/home/v"}));
}

TEST(ParsePolicy, TildeOnlyAtTheStart) {
  Policy p = parse_ok(R"(fs { allow_read ["./~", "a/~/b", "/~"] })");
  EXPECT_EQ(values(p), (V{"/work/proj/~", "/work/proj/a/~/b", "/~"}));
}

TEST(ParsePolicy, RelativePathsUseTheBaseDirectory) {
  Policy p = parse_ok(R"(fs { allow_write ["." , "sub/", "../sibling", "./a/./b/.."] })");
  EXPECT_EQ(values(p), (V{"/work/proj", "/work/proj/sub", "/work/sibling", "/work/proj/a"}));
}

TEST(ParsePolicy, AbsolutePathsAreCleaned) {
  Policy p = parse_ok(R"(fs { deny ["//etc///x/", "/../..", "/a/b/../c"] })");
  EXPECT_EQ(values(p), (V{"/etc/x", "/", "/a/c"}));
}

TEST(ParsePolicy, HomeIsNeverReadFromTheEnvironment) {
  ::setenv("HOME", "/somewhere/else", 1);
  Policy p = parse_ok(R"(fs { deny "~/.ssh" })", ParseContext{"f", "/h", "/"});
  EXPECT_EQ(values(p), (V{"/h/.ssh"}));
}

TEST(ParsePolicy, EnvNames) {
  EXPECT_EQ(values(parse_ok(R"(env { pass ["_", "a1", "LC_ALL", "_X_9"] })")),
            (V{"_", "a1", "LC_ALL", "_X_9"}));
}

TEST(ParsePolicy, ExposePorts) {
  Policy p = parse_ok("net { expose [1, 65535, 00080] }");
  EXPECT_EQ(values(p), (V{"1", "65535", "80"}));
  EXPECT_EQ(p.rules[2].written, "00080");
}

}  // namespace
}  // namespace cordon::schema
