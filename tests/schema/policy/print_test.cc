#include <gtest/gtest.h>

#include "schema/policy/policy.h"
#include "tests/schema/policy/roundtrip_check.h"
#include "tests/schema/policy/test_support.h"

namespace cordon::schema {
namespace {

using testing::kCtx;
using testing::parse_ok;

// Builds a policy holding one allow_read of `path`, bypassing the parser.
Policy one_path(std::string path) {
  Policy p;
  p.rules.push_back(Rule{RuleKind::kAllowRead, std::move(path), {}, 0, "", {}});
  return p;
}

void expect_round_trip(const Policy& p) {
  std::string printed = print_policy(p);
  util::Result<Policy> again = parse_policy(printed, kCtx);
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << printed;
  EXPECT_TRUE(equivalent(p, *again)) << printed;
  EXPECT_EQ(print_policy(*again), printed);
}

TEST(PrintPolicy, CanonicalLayout) {
  Policy p = parse_ok(R"(
# comments are not kept
fs { allow_read ["/usr", "/etc",] allow_write "." deny_write ".git/hooks" }
env { pass "LANG" }
net { allow_tcp ["EXAMPLE.org:443", "[::1]:8000-8100", "host.internal:*"] expose [8080] }
fs { deny "~/.ssh" }
)");
  EXPECT_EQ(print_policy(p), R"(fs {
  allow_read [
    "/usr",
    "/etc",
  ]
  allow_write "/work/proj"
  deny_write "/work/proj/.git/hooks"
}

env {
  pass "LANG"
}

net {
  allow_tcp [
    "example.org:443",
    "[::1]:8000-8100",
    "host.internal:*",
  ]
  expose 8080
}

fs {
  deny "/home/u/.ssh"
}
)");
}

TEST(PrintPolicy, EmptyPolicyIsEmptyText) {
  EXPECT_EQ(print_policy(Policy{}), "");
}

TEST(PrintPolicy, EscapesWhatNeedsIt) {
  EXPECT_EQ(print_policy(one_path("/a\"b\\c\nd\te")),
            "fs {\n  allow_read \"/a\\\"b\\\\c\\nd\\te\"\n}\n");
  EXPECT_EQ(print_policy(one_path(std::string("/\x00\x01\x1f\x7f", 5))),
            "fs {\n  allow_read \"/\\x00\\x01\\x1f\\x7f\"\n}\n");
  EXPECT_EQ(print_policy(one_path("/\xff\xc3(\xe2\x82")),
            "fs {\n  allow_read \"/\\xff\\xc3(\\xe2\\x82\"\n}\n");
}

TEST(PrintPolicy, KeepsReadableUtf8Raw) {
  EXPECT_EQ(print_policy(one_path("/caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80")),
            "fs {\n  allow_read \"/caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80\"\n}\n");
}

TEST(PrintPolicy, EscapesInvisibleUtf8) {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+0085 NEXT LINE, U+200B ZERO WIDTH SPACE.
  EXPECT_EQ(print_policy(one_path("/a\xe2\x80\xae"
                                  "b\xc2\x85\xe2\x80\x8b")),
            "fs {\n  allow_read \"/a\\xe2\\x80\\xaeb\\xc2\\x85\\xe2\\x80\\x8b\"\n}\n");
}

TEST(PrintPolicy, OverlongAndSurrogateEncodingsAreEscaped) {
  EXPECT_EQ(print_policy(one_path("/\xc0\xaf\xed\xa0\x80")),
            "fs {\n  allow_read \"/\\xc0\\xaf\\xed\\xa0\\x80\"\n}\n");
}

TEST(PrintPolicy, RoundTripsAwkwardPaths) {
  for (std::string path :
       {std::string("/with\nnewline"), std::string("/q\"uote"), std::string("/back\\slash"),
        std::string("/\xff\xfe"), std::string("/\\x41"), std::string("/#not-a-comment"),
        std::string("/tab\there"), std::string("/\x01\x7f\x80"), std::string("/a\xe2\x80\xae"),
        std::string("/"), std::string("/~"), std::string("/ leading space")}) {
    SCOPED_TRACE(path);
    expect_round_trip(one_path(path));
  }
}

TEST(PrintPolicy, RoundTripsEveryByte) {
  std::string path = "/";
  for (int b = 1; b < 256; ++b) {
    if (b != '/') path += static_cast<char>(b);
  }
  expect_round_trip(one_path(path));
}

TEST(PrintPolicy, RoundTripsMixedPolicies) {
  expect_round_trip(parse_ok(R"(
net { allow_udp "192.0.2.1:53" }
fs { allow_read "a" allow_read "b" allow_write "c" allow_read "d" }
fs { allow_read "e" }
env { pass ["A", "B"] }
net { expose 1 expose 65535 allow_tcp "x.y:1-2" }
)"));
}

TEST(PrintPolicy, RoundTripHelperAcceptsGoodAndBadInput) {
  EXPECT_EQ(testing::check_round_trip("fs { allow_read [\"/a\\xff\", \"~\"] }"), "");
  EXPECT_EQ(testing::check_round_trip("fs {"), "");
  EXPECT_EQ(testing::check_round_trip(""), "");
}

}  // namespace
}  // namespace cordon::schema
