// Every error names FILE:LINE:COLUMN exactly; these pin the message texts.
#include <gtest/gtest.h>

#include "schema/policy/policy.h"
#include "tests/schema/policy/test_support.h"

namespace cordon::schema {
namespace {

using testing::parse_error;

TEST(PolicyErrors, UnknownBlock) {
  EXPECT_EQ(parse_error("fs {}\n  files {}"),
            "p.sbx:2:3: unknown block \"files\" (expected fs, net or env)");
}

TEST(PolicyErrors, NotABlock) {
  EXPECT_EQ(parse_error("\"fs\" {}"),
            "p.sbx:1:1: expected a block (fs, net or env), found a string");
  EXPECT_EQ(parse_error("fs {}\n}"), "p.sbx:2:1: expected a block (fs, net or env), found \"}\"");
}

TEST(PolicyErrors, UnknownRule) {
  EXPECT_EQ(parse_error("fs {\n  allow_exec \"/x\"\n}"),
            "p.sbx:2:3: unknown rule \"allow_exec\" in fs block "
            "(expected allow_read, allow_write, deny_write or deny)");
  EXPECT_EQ(parse_error("net { allow \"x:1\" }"),
            "p.sbx:1:7: unknown rule \"allow\" in net block "
            "(expected allow_tcp, allow_udp or expose)");
  EXPECT_EQ(parse_error("env { set \"X\" }"),
            "p.sbx:1:7: unknown rule \"set\" in env block (expected pass)");
}

TEST(PolicyErrors, RuleInTheWrongBlock) {
  EXPECT_EQ(parse_error("fs { allow_tcp \"a:1\" }"),
            "p.sbx:1:6: allow_tcp goes in the net block, not fs");
  EXPECT_EQ(parse_error("net { pass \"A\" }"), "p.sbx:1:7: pass goes in the env block, not net");
}

TEST(PolicyErrors, BadEscape) {
  EXPECT_EQ(parse_error("fs { allow_read \"/a\\qb\" }"),
            "p.sbx:1:20: bad escape \"\\q\" (use \\\\, \\\", \\n, \\t or \\xHH)");
  EXPECT_EQ(
      parse_error("fs {\n allow_read \"/a\\x4g\" }"),
      "p.sbx:2:16: bad escape \"\\x\": needs two hex digits (use \\\\, \\\", \\n, \\t or \\xHH)");
  EXPECT_EQ(
      parse_error("fs { allow_read \"\\x\" }"),
      "p.sbx:1:18: bad escape \"\\x\": needs two hex digits (use \\\\, \\\", \\n, \\t or \\xHH)");
  EXPECT_EQ(parse_error("fs { allow_read \"\\\xc3\xa9\" }"),
            "p.sbx:1:18: bad escape after \"\\\" (use \\\\, \\\", \\n, \\t or \\xHH)");
  EXPECT_EQ(parse_error("fs { allow_read \"\\ \" }"),
            "p.sbx:1:18: bad escape after \"\\\" (use \\\\, \\\", \\n, \\t or \\xHH)");
}

TEST(PolicyErrors, UnterminatedString) {
  EXPECT_EQ(parse_error("fs {\n  allow_read \"/a\n\"}"), "p.sbx:2:14: unterminated string");
  EXPECT_EQ(parse_error("fs { allow_read \"/a"), "p.sbx:1:17: unterminated string");
  EXPECT_EQ(parse_error("fs { allow_read \"/a\\"), "p.sbx:1:17: unterminated string");
  EXPECT_EQ(parse_error("fs { allow_read \"/a\\\n\" }"), "p.sbx:1:17: unterminated string");
  EXPECT_EQ(parse_error("fs { allow_read \"/a\\\"}\n"), "p.sbx:1:17: unterminated string");
}

TEST(PolicyErrors, MissingBraces) {
  EXPECT_EQ(parse_error("fs\n  allow_read \"/a\""),
            "p.sbx:2:3: expected \"{\" after fs, found \"allow_read\"");
  EXPECT_EQ(parse_error("net"), "p.sbx:1:4: expected \"{\" after net, found end of file");
  EXPECT_EQ(parse_error("fs {\n  allow_read \"/a\"\n"),
            "p.sbx:3:1: missing \"}\" to close the fs block opened at line 1");
  EXPECT_EQ(parse_error("fs {\n  allow_read \"/a\"\nnet {\n}\n"),
            "p.sbx:3:1: missing \"}\" to close the fs block opened at line 1");
}

TEST(PolicyErrors, MalformedRules) {
  EXPECT_EQ(parse_error("fs { allow_read }"),
            "p.sbx:1:17: expected a value or \"[\" after allow_read, found \"}\"");
  EXPECT_EQ(parse_error("fs { \"/a\" }"), "p.sbx:1:6: expected a rule or \"}\", found a string");
  EXPECT_EQ(parse_error("fs { allow_read [\"/a\" \"/b\"] }"),
            "p.sbx:1:23: expected \",\" or \"]\", found a string");
  EXPECT_EQ(parse_error("fs { allow_read [\"/a\",, ] }"),
            "p.sbx:1:23: expected a value or \"]\", found \",\"");
  EXPECT_EQ(parse_error("fs { allow_read [\"/a\""),
            "p.sbx:1:22: expected \",\" or \"]\", found end of file");
  EXPECT_EQ(parse_error("fs { allow_read [ { ] }"),
            "p.sbx:1:19: expected a value or \"]\", found \"{\"");
}

TEST(PolicyErrors, WrongValueType) {
  EXPECT_EQ(parse_error("fs { allow_read 80 }"),
            "p.sbx:1:17: allow_read takes a quoted string, found a number");
  EXPECT_EQ(parse_error("net { expose \"80\" }"),
            "p.sbx:1:14: expose takes a port number, found a string");
  EXPECT_EQ(parse_error("net { allow_tcp [443] }"),
            "p.sbx:1:18: allow_tcp takes a quoted string, found a number");
}

TEST(PolicyErrors, UnexpectedCharacter) {
  EXPECT_EQ(parse_error("fs { allow_read '/a' }"), "p.sbx:1:17: unexpected character \"'\"");
  EXPECT_EQ(parse_error("net { expose -1 }"), "p.sbx:1:14: unexpected character \"-\"");
  EXPECT_EQ(parse_error("fs { allow_read \xe2\x80\x9c/a\xe2\x80\x9d }"),
            "p.sbx:1:17: unexpected character \"\xe2\x80\x9c\"");
  EXPECT_EQ(parse_error("\xff"), "p.sbx:1:1: unexpected character \"\\xff\"");
}

TEST(PolicyErrors, PortOutOfRange) {
  EXPECT_EQ(parse_error("net {\n  expose [8080, 0]\n}"),
            "p.sbx:2:17: port out of range: 0 (must be 1-65535)");
  EXPECT_EQ(parse_error("net { expose 65536 }"),
            "p.sbx:1:14: port out of range: 65536 (must be 1-65535)");
  EXPECT_EQ(parse_error("net { expose 99999999999999999999 }"),
            "p.sbx:1:14: port out of range: 99999999999999999999 (must be 1-65535)");
  EXPECT_EQ(parse_error("net { allow_tcp \"a.org:70000\" }"),
            "p.sbx:1:17: port out of range: 70000 (must be 1-65535)");
  EXPECT_EQ(parse_error("net { allow_udp \"a.org:0-10\" }"),
            "p.sbx:1:17: port out of range: 0 (must be 1-65535)");
}

TEST(PolicyErrors, BadDestination) {
  EXPECT_EQ(parse_error("net { allow_tcp \"example.org\" }"),
            "p.sbx:1:17: bad destination \"example.org\": expected HOST:PORT");
  EXPECT_EQ(parse_error("net {\n\n   allow_tcp [\"a:1\", \"ex ample:1\"] }"),
            "p.sbx:3:22: bad destination \"ex ample:1\": bad host name \"ex ample\"");
}

TEST(PolicyErrors, BadEnvName) {
  EXPECT_EQ(parse_error("env { pass [\"LANG\", \"1X\"] }"),
            "p.sbx:1:21: bad environment variable name \"1X\" (must match [A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(
      parse_error("env { pass \"A=B\" }"),
      "p.sbx:1:12: bad environment variable name \"A=B\" (must match [A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(parse_error("env { pass \"\" }"),
            "p.sbx:1:12: bad environment variable name \"\" (must match [A-Za-z_][A-Za-z0-9_]*)");
}

TEST(PolicyErrors, PathNotAbsoluteAfterExpansion) {
  ParseContext no_home{"p.sbx", "", "/work"};
  EXPECT_EQ(parse_error("fs { deny \"~/.ssh\" }", no_home),
            "p.sbx:1:11: path is not absolute after expansion: \"~/.ssh\" "
            "(home directory \"\" is not absolute)");
  ParseContext relative_base{"p.sbx", "/home/u", "work"};
  EXPECT_EQ(parse_error("fs {\n allow_read \"src\" }", relative_base),
            "p.sbx:2:13: path is not absolute after expansion: \"src\" "
            "(base directory \"work\" is not absolute)");
}

TEST(PolicyErrors, OtherBadPaths) {
  EXPECT_EQ(parse_error("fs { deny \"\" }"), "p.sbx:1:11: empty path");
  EXPECT_EQ(parse_error("fs { deny \"/a\\x00b\" }"), "p.sbx:1:11: path contains a NUL byte");
  EXPECT_EQ(parse_error("fs { deny \"~bob/x\" }"),
            "p.sbx:1:11: \"~user\" paths are not supported: \"~bob/x\" "
            "(write \"./~bob/x\" for a name that starts with ~)");
}

TEST(PolicyErrors, FileNameIsPrintable) {
  ParseContext ctx{"dir/we\nird\xff.sbx", "/h", "/"};
  EXPECT_EQ(parse_error("bogus {}", ctx),
            "dir/we\\nird\\xff.sbx:1:1: unknown block \"bogus\" "
            "(expected fs, net or env)");
}

TEST(PolicyErrors, ColumnsCountBytes) {
  EXPECT_EQ(parse_error("fs { allow_read \"/\xc3\xa9\" bad }"),
            "p.sbx:1:23: unknown rule \"bad\" in fs block "
            "(expected allow_read, allow_write, deny_write or deny)");
}

TEST(PolicyErrors, ErrorsCarryNoErrno) {
  util::Result<Policy> p = parse_policy("x", testing::kCtx);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().errno_value, 0);
}

}  // namespace
}  // namespace cordon::schema
