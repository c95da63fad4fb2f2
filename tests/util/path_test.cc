#include "util/path.h"

#include <gtest/gtest.h>

namespace cordon::util {
namespace {

TEST(CleanPath, CollapsesDotsAndSlashes) {
  EXPECT_EQ(clean_path("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(clean_path("/a/b/../c"), "/a/c");
  EXPECT_EQ(clean_path("/../x"), "/x");
  EXPECT_EQ(clean_path("/"), "/");
  EXPECT_EQ(clean_path("a/../../b"), "../b");
  EXPECT_EQ(clean_path(""), ".");
  EXPECT_EQ(clean_path("./"), ".");
}

TEST(CleanPath, KeepsBytesExactly) {
  static const char kOdd[] = "/d/new\nline/bad\xff\xfe";
  std::string odd(kOdd, sizeof kOdd - 1);
  EXPECT_EQ(clean_path(odd), odd);
}

TEST(JoinPath, RelativeAndAbsolute) {
  EXPECT_EQ(join_path("/home/u", "x/y"), "/home/u/x/y");
  EXPECT_EQ(join_path("/home/u", "/etc/x"), "/etc/x");
  EXPECT_EQ(join_path("/home/u", "../v"), "/home/v");
  EXPECT_EQ(join_path("/", "."), "/");
}

TEST(PathWithin, ComponentBoundaries) {
  EXPECT_TRUE(path_within("/a/b", "/a"));
  EXPECT_TRUE(path_within("/a", "/a"));
  EXPECT_FALSE(path_within("/ab", "/a"));
  EXPECT_TRUE(path_within("/x", "/"));
}

TEST(ParentPath, Basics) {
  EXPECT_EQ(parent_path("/a/b"), "/a");
  EXPECT_EQ(parent_path("/a"), "/");
  EXPECT_EQ(parent_path("/"), "/");
}

TEST(Printable, EscapesWhatATerminalWouldMangle) {
  EXPECT_EQ(printable("plain/ü"), "plain/ü");
  EXPECT_EQ(printable("a\nb\tc\\d"), "a\\nb\\tc\\\\d");
  EXPECT_EQ(printable(std::string("x\xff\x01", 3)), "x\\xff\\x01");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate is not UTF-8
}

TEST(IsCleanUtf8, RejectsControlAndInvalid) {
  EXPECT_TRUE(is_clean_utf8("héllo"));
  EXPECT_FALSE(is_clean_utf8("a\nb"));
  EXPECT_FALSE(is_clean_utf8("\xc3"));
}

}  // namespace
}  // namespace cordon::util
