#include "schema/policy/effective.h"

#include <gtest/gtest.h>

#include "schema/policy/policy.h"
#include "tests/schema/policy/test_support.h"

namespace cordon::schema {
namespace {

Layer layer(std::string name, std::string_view text) {
  return Layer{name, testing::parse_ok(text, ParseContext{name + ".sbx", "/home/u", "/work/proj"})};
}

struct Decided {
  AccessKind kind;
  std::string where;  // "layer file:line:column", empty when absent
};

Decided decide(const EffectivePolicy& p, std::string_view path) {
  Access a = p.decide(path);
  std::string where;
  if (a.rule) {
    where = a.layer + " " + a.rule->origin.file + ":" + std::to_string(a.rule->origin.line) + ":" +
            std::to_string(a.rule->origin.column);
  }
  return {a.kind, where};
}

#define EXPECT_DECIDES(policy, path, kind_, where_) \
  do {                                              \
    Decided d = decide(policy, path);               \
    EXPECT_EQ(d.kind, kind_) << path;               \
    EXPECT_EQ(d.where, where_) << path;             \
  } while (0)

using enum AccessKind;

TEST(Decide, NothingCoveringIsAbsent) {
  EffectivePolicy p({layer("a", "fs { allow_read \"/usr\" }")});
  EXPECT_DECIDES(p, "/home", kAbsent, "");
  EXPECT_DECIDES(p, "/usrx", kAbsent, "");
  EXPECT_DECIDES(p, "/", kAbsent, "");
  EffectivePolicy empty({});
  EXPECT_DECIDES(empty, "/usr", kAbsent, "");
}

TEST(Decide, GrantsCoverThemselvesAndBelow) {
  EffectivePolicy p({layer("a", "fs {\n allow_read \"/usr\"\n allow_write \"/work/proj\"\n}")});
  EXPECT_DECIDES(p, "/usr", kReadable, "a a.sbx:2:13");
  EXPECT_DECIDES(p, "/usr/bin/sh", kReadable, "a a.sbx:2:13");
  EXPECT_DECIDES(p, "/work/proj/src/x.c", kWritable, "a a.sbx:3:14");
}

TEST(Decide, DeepestGrantDecides) {
  EffectivePolicy p({layer("a", "fs {\n allow_write \".\"\n allow_read \"vendor\"\n}"),
                     layer("b", "fs { allow_write \"vendor/scratch\" }")});
  EXPECT_DECIDES(p, "/work/proj/a", kWritable, "a a.sbx:2:14");
  EXPECT_DECIDES(p, "/work/proj/vendor/lib", kReadable, "a a.sbx:3:13");
  EXPECT_DECIDES(p, "/work/proj/vendor/scratch/t", kWritable, "b b.sbx:1:18");
}

TEST(Decide, GrantAtExactlyThePathBeatsABroaderOne) {
  EffectivePolicy p({layer("a", "fs { allow_read \"/work/proj/out\" }"),
                     layer("b", "fs { allow_write \"/work\" }")});
  EXPECT_DECIDES(p, "/work/proj/out", kReadable, "a a.sbx:1:17");
  EXPECT_DECIDES(p, "/work/proj", kWritable, "b b.sbx:1:18");
}

TEST(Decide, AtEqualDepthWriteWinsAndLaterIsReported) {
  EffectivePolicy p(
      {layer("a", "fs { allow_write \"/d\" }"), layer("b", "fs { allow_read \"/d\" }")});
  EXPECT_DECIDES(p, "/d/x", kWritable, "a a.sbx:1:18");
  EffectivePolicy q({layer("a", "fs { allow_read \"/d\" }"),
                     layer("b", "fs { allow_read \"/d\" allow_read \"/d/\" }")});
  EXPECT_DECIDES(q, "/d/x", kReadable, "b b.sbx:1:33");
}

TEST(Decide, DenyWinsOverEveryGrantAtOrBelowIt) {
  EffectivePolicy p({layer("base", "fs {\n deny \"~/.ssh\"\n}"),
                     layer("ws", "fs {\n allow_write [\"~\", \"~/.ssh\", \"~/.ssh/config\"]\n}")});
  EXPECT_DECIDES(p, "/home/u/.ssh", kDenied, "base base.sbx:2:7");
  EXPECT_DECIDES(p, "/home/u/.ssh/config", kDenied, "base base.sbx:2:7");
  EXPECT_DECIDES(p, "/home/u/.sshx", kWritable, "ws ws.sbx:2:15");
  EXPECT_DECIDES(p, "/home/u", kWritable, "ws ws.sbx:2:15");
}

TEST(Decide, DenyFromALaterLayerStillWins) {
  EffectivePolicy p(
      {layer("base", "fs { allow_write \"/w\" }"), layer("cli", "fs { deny \"/w/secret\" }")});
  EXPECT_DECIDES(p, "/w/secret/k", kDenied, "cli cli.sbx:1:11");
  EXPECT_DECIDES(p, "/w/public", kWritable, "base base.sbx:1:18");
}

TEST(Decide, DeepestDenyIsReported) {
  EffectivePolicy p({layer("a", "fs { deny \"/s/t\" }"), layer("b", "fs { deny \"/s\" }")});
  EXPECT_DECIDES(p, "/s/t/u", kDenied, "a a.sbx:1:11");
  EXPECT_DECIDES(p, "/s/x", kDenied, "b b.sbx:1:11");
}

TEST(Decide, DenyWithoutGrantIsStillDenied) {
  EffectivePolicy p({layer("a", "fs { deny \"/x\" }")});
  EXPECT_DECIDES(p, "/x/y", kDenied, "a a.sbx:1:11");
}

TEST(Decide, DenyWriteMakesGrantsReadOnly) {
  EffectivePolicy p(
      {layer("base", "fs {\n allow_write \".\"\n deny_write [\".git/hooks\", \".envrc\"]\n}"),
       layer("ws", "fs { allow_write \".git/hooks/pre-commit\" }")});
  EXPECT_DECIDES(p, "/work/proj/.git/hooks", kReadable, "base base.sbx:3:14");
  EXPECT_DECIDES(p, "/work/proj/.git/hooks/pre-commit", kReadable, "base base.sbx:3:14");
  EXPECT_DECIDES(p, "/work/proj/.envrc", kReadable, "base base.sbx:3:28");
  EXPECT_DECIDES(p, "/work/proj/.git/config", kWritable, "base base.sbx:2:14");
}

TEST(Decide, DenyWriteDoesNotGrant) {
  EffectivePolicy p({layer("a", "fs { deny_write \"/x\" allow_read \"/y\" }")});
  EXPECT_DECIDES(p, "/x", kAbsent, "");
  EffectivePolicy q({layer("a", "fs { deny_write \"/y\" allow_read \"/y\" }")});
  EXPECT_DECIDES(q, "/y/z", kReadable, "a a.sbx:1:33");
}

TEST(Decide, DenyBeatsDenyWrite) {
  EffectivePolicy p({layer("a", "fs { allow_write \"/w\" deny_write \"/w\" deny \"/w/k\" }")});
  EXPECT_DECIDES(p, "/w/k", kDenied, "a a.sbx:1:44");
  EXPECT_DECIDES(p, "/w/j", kReadable, "a a.sbx:1:34");
}

TEST(Decide, PathIsCleanedAndMustBeAbsolute) {
  EffectivePolicy p({layer("a", "fs { allow_read \"/usr\" deny \"/usr/secret\" }")});
  EXPECT_DECIDES(p, "//usr/./bin/", kReadable, "a a.sbx:1:17");
  EXPECT_DECIDES(p, "/usr/bin/../secret", kDenied, "a a.sbx:1:29");
  EXPECT_DECIDES(p, "usr/bin", kAbsent, "");
  EXPECT_DECIDES(p, "", kAbsent, "");
}

TEST(Decide, RootGrantCoversEverything) {
  EffectivePolicy p({layer("a", "fs { allow_read \"/\" }")});
  EXPECT_DECIDES(p, "/anything/at/all", kReadable, "a a.sbx:1:17");
}

TEST(Decide, NetAndEnvRulesAreIgnored) {
  EffectivePolicy p({layer("a", "net { allow_tcp \"a.b:1\" } env { pass \"X\" }")});
  EXPECT_DECIDES(p, "/a.b:1", kAbsent, "");
}

TEST(RulesOf, CollectsAcrossLayersInOrder) {
  EffectivePolicy p({layer("a", "env { pass [\"A\", \"B\"] } net { expose 1 }"),
                     layer("b", "env { pass \"C\" }")});
  std::vector<std::string> names;
  for (const Rule* r : p.rules_of(RuleKind::kPass)) names.push_back(r->value);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(p.rules_of(RuleKind::kExpose).size(), 1u);
  EXPECT_TRUE(p.rules_of(RuleKind::kAllowTcp).empty());
}

TEST(Decide, AccessKindNames) {
  EXPECT_EQ(access_kind_name(kAbsent), "absent");
  EXPECT_EQ(access_kind_name(kReadable), "readable");
  EXPECT_EQ(access_kind_name(kWritable), "writable");
  EXPECT_EQ(access_kind_name(kDenied), "denied");
}

TEST(ToJson, LayersAndOrigins) {
  EffectivePolicy p({layer("base", "fs {\n allow_read \"/usr\"\n}\nnet { expose 80 }"),
                     Layer{"empty", {}}, layer("ws", "fs { deny \"s\\\"q\\\\b\\x01\\xff\" }")});
  EXPECT_EQ(to_json(p), R"({
  "layers": [
    {
      "name": "base",
      "rules": [
        {"kind": "allow_read", "value": "/usr", "written": "/usr", "file": "base.sbx", "line": 2, "column": 13},
        {"kind": "expose", "value": "80", "written": "80", "file": "base.sbx", "line": 4, "column": 14}
      ]
    },
    {
      "name": "empty",
      "rules": []
    },
    {
      "name": "ws",
      "rules": [
        {"kind": "deny", "value": "/work/proj/s\"q\\\\b\\x01\\xff", "written": "s\"q\\\\b\\x01\\xff", "file": "ws.sbx", "line": 1, "column": 11}
      ]
    }
  ]
}
)");
}

TEST(ToJson, NoLayers) {
  EXPECT_EQ(to_json(EffectivePolicy({})), "{\n  \"layers\": []\n}\n");
}

}  // namespace
}  // namespace cordon::schema
