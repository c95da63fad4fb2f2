// Learn rules 6-8 (docs/learn-rules.md): comments and stable output, review
// flags, network destinations; and the JSON form.
#include <fcntl.h>
#include <unistd.h>

#include "tests/drafter/trace_builder.h"

namespace cordon::drafter::testing {
namespace {

bool flagged(const Draft& d, const std::string& path, const std::string& words) {
  for (const ReviewItem& r : d.review) {
    if (r.path == path && r.reason.find(words) != std::string::npos) return true;
  }
  return false;
}

// Rule 6: comments with operations and counts; byte-identical output.
TEST(Rule6, EachGrantNamesItsOperationsWithCounts) {
  TraceBuilder t;
  for (int i = 0; i < 3; ++i)
    t.create("/srv/out/f.tmp").rename("/srv/out/f.tmp", "/srv/out/f", i > 0);
  Draft d = draft_of(t.write());
  std::string text = format_text(d);
  EXPECT_NE(text.find("# create \u00d73, rename away \u00d73, rename into place \u00d73\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  allow_write \"/srv/out\"\n"), std::string::npos) << text;
}

TEST(Rule6, TwoDraftsOfTheSameTraceAreByteIdentical) {
  TraceBuilder t;
  t.read("/srv/z")
      .read("/srv/a/b")
      .create("/srv/m/new")
      .list("/opt2/x")
      .connect("inet", "192.0.2.7", 443);
  std::string file = t.write();
  std::string first = format_text(draft_of(file)), json = format_json(draft_of(file));
  EXPECT_EQ(first, format_text(draft_of(file)));
  EXPECT_EQ(json, format_json(draft_of(file)));
  // Sorted by path.
  EXPECT_LT(first.find("\"/opt2/x\""), first.find("\"/srv/a/b\""));
  EXPECT_LT(first.find("\"/srv/a/b\""), first.find("\"/srv/m\""));
}

TEST(Rule6, PathsUnderTheRunsHomeAreWrittenWithTilde) {
  TraceBuilder t;
  t.read("/home/u/.gitconfig").read("/home/u2/file");
  Draft d = draft_of(t.write());
  EXPECT_EQ(find_grant(d, "/home/u/.gitconfig")->written, "~/.gitconfig");
  EXPECT_EQ(find_grant(d, "/home/u2/file")->written, "/home/u2/file");
}

TEST(Rule6, NamesWithNewlinesAndBadBytesStayOnTheirLine) {
  TraceBuilder t;
  t.read("/srv/new\nline")
      .read(std::string("/srv/bad\xff\xfe"))
      .create(
          "/srv/d/\xe2\x80\xae"
          "evil");
  Draft d = draft_of(t.write());  // draft_of checks that it parses
  std::string text = format_text(d);
  EXPECT_NE(text.find("\"/srv/new\\nline\""), std::string::npos);
  EXPECT_NE(text.find("\"/srv/bad\\xff\\xfe\""), std::string::npos);
  EXPECT_EQ(text.find("\xe2\x80\xae"),
            std::string::npos);  // bidi override escaped, even in comments
}

// Rule 7: review flags, and the broadest grants left disabled.
TEST(Rule7, AGrantOnRootIsFlaggedAndLeftDisabled) {
  TraceBuilder t;
  t.create("/newfile");
  Draft d = draft_of(t.write());
  const Grant* g = find_grant(d, "/");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->commented_out);
  EXPECT_TRUE(flagged(d, "/", "whole filesystem"));
  EXPECT_NE(format_text(d).find("  # allow_write \"/\""), std::string::npos);
}

TEST(Rule7, AGrantOnHomeIsFlaggedAndLeftDisabled) {
  TraceBuilder t;
  t.list("/home/u");
  Draft d = draft_of(t.write());
  const Grant* g = find_grant(d, "/home/u");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->commented_out);
  EXPECT_TRUE(flagged(d, "/home/u", "home directory"));
}

TEST(Rule7, CredentialAndShellStartupPathsAreFlagged) {
  TraceBuilder t("/work/proj", "/home/u");
  t.read("/home/u/.pgpass")
      .open("/home/u/.bashrc", O_WRONLY | O_APPEND, true)
      .list("/home/u/.config");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(find_grant(d, "/home/u/.pgpass")->commented_out);
  EXPECT_TRUE(find_grant(d, "/home/u/.bashrc")->commented_out);
  EXPECT_TRUE(flagged(d, "/home/u/.bashrc", "shell startup"));
  const Grant* config = find_grant(d, "/home/u/.config");
  EXPECT_FALSE(config->commented_out);
  EXPECT_TRUE(flagged(d, "/home/u/.config", "covers the credential store"));
}

TEST(Rule7, TopLevelDirectoriesAndWritesUnderEtcAndUsrAreFlagged) {
  TraceBuilder t;
  t.list("/srv").create("/etc/app/new.conf").open("/usr/share/app/db", O_RDWR, true);
  Draft d = draft_of(t.write());
  EXPECT_TRUE(flagged(d, "/srv", "top-level"));
  EXPECT_TRUE(flagged(d, "/etc/app", "a write under /etc"));
  EXPECT_TRUE(flagged(d, "/usr/share/app/db", "a write under /usr"));
}

TEST(Rule7, WritesToFilesThatRunCodeLaterAreFlaggedEvenInsideABroaderGrant) {
  TraceBuilder t;
  t.create("/srv/repo/.git/hooks/pre-commit")
      .create("/srv/repo/.envrc")
      .create("/srv/repo/.vscode/tasks.json");
  Draft d = draft_of(t.write());
  ASSERT_NE(find_grant(d, "/srv/repo"), nullptr);
  EXPECT_TRUE(flagged(d, "/srv/repo/.git/hooks/pre-commit", "git hook"));
  EXPECT_TRUE(flagged(d, "/srv/repo/.envrc", "direnv"));
  EXPECT_TRUE(flagged(d, "/srv/repo/.vscode/tasks.json", ".vscode"));
}

TEST(Rule7, OnlyWritesInsideABroaderGrantAreFlagged) {
  TraceBuilder t;
  t.create("/srv/repo/new")
      .read("/srv/repo/.git/config")
      .event("create", "mkdir", "/srv/repo/.vscode", true);
  Draft d = draft_of(t.write());
  ASSERT_NE(find_grant(d, "/srv/repo"), nullptr);
  EXPECT_TRUE(d.review.empty()) << d.review[0].path << ": " << d.review[0].reason;
}

TEST(Rule7, ExecOfSomethingWrittenDuringTheRunIsFlagged) {
  TraceBuilder t;
  t.create("/srv/bin/tool").exec("/srv/bin/tool");
  Draft d = draft_of(t.write());
  EXPECT_TRUE(flagged(d, "/srv/bin/tool", "runs a file this run wrote"));
}

// Rule 8: network.
TEST(Rule8, ANonLoopbackConnectBecomesAFlaggedTcpRule) {
  TraceBuilder t;
  t.connect("inet", "192.0.2.7", 443)
      .connect("inet", "192.0.2.7", 443)
      .connect("inet6", "2001:db8::1", 80);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.net.size(), 2u);
  EXPECT_EQ(d.net[0].value, "192.0.2.7:443");
  EXPECT_EQ(d.net[0].seen.count, 2);
  EXPECT_EQ(d.net[1].value, "[2001:db8::1]:80");
  EXPECT_TRUE(flagged(d, "192.0.2.7:443", "not a loopback"));
  EXPECT_NE(format_text(d).find("  allow_tcp \"192.0.2.7:443\"\n"), std::string::npos);
}

TEST(Rule8, LoopbackConnectsNeedNoRule) {
  TraceBuilder t;
  t.connect("inet", "127.0.0.1", 5432)
      .connect("inet6", "::1", 8080)
      .connect("inet6", "::ffff:127.0.0.2", 1);
  Draft d = draft_of(t.write());
  EXPECT_TRUE(d.net.empty());
  EXPECT_EQ(d.loopback.size(), 3u);
  EXPECT_NE(format_text(d).find("127.0.0.1:5432"), std::string::npos);
}

TEST(Rule8, AUnixSocketIsAFileGrantAndAnAbstractOneAComment) {
  TraceBuilder t;
  t.connect("unix", "/run/app/app.sock", std::nullopt)
      .connect("unix-abstract", "app-bus", std::nullopt);
  Draft d = draft_of(t.write());
  ASSERT_EQ(d.grants.size(), 1u);
  EXPECT_EQ(d.grants[0].path, "/run/app/app.sock");
  EXPECT_TRUE(has_op(d.grants[0].ops, "connect"));
  ASSERT_EQ(d.abstract_sockets.size(), 1u);
  EXPECT_NE(format_text(d).find("\"@app-bus\""), std::string::npos);
}

TEST(Rule8, ADestinationTheCurrentPolicyAllowsIsNotDrafted) {
  TraceBuilder t;
  t.connect("inet", "192.0.2.7", 443).connect("inet", "192.0.2.8", 443);
  Draft d = draft_of(t.write(), "net { allow_tcp \"192.0.2.7:1-1000\" }\n");
  ASSERT_EQ(d.net.size(), 1u);
  EXPECT_EQ(d.net[0].value, "192.0.2.8:443");
}

// Output forms.
TEST(Output, JsonCarriesOperationsCountsAndProvenance) {
  TraceBuilder t;
  t.read("/srv/a").read("/srv/a");
  Draft d = draft_of(t.write());
  std::string json = format_json(d);
  EXPECT_NE(json.find("\"kind\": \"allow_read\", \"path\": \"/srv/a\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"op\": \"open\", \"count\": 2, \"first\": {\"trace\": "),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"run\": 1, \"seq\": 1}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"conflicts\": []"), std::string::npos);
}

TEST(Output, AnEmptyDraftSaysSoAndParses) {
  TraceBuilder t;
  t.read("/usr/bin/env");
  Draft d = draft_of(t.write());
  EXPECT_NE(format_text(d).find("Nothing to add"), std::string::npos);
}

TEST(Output, SeveralTracesFoldIntoOneDraft) {
  TraceBuilder a("/work/proj"), b("/work/other");
  a.read("/srv/x/1");
  b.read("/srv/x/2").create("/srv/x/3");
  auto d = draft_traces({a.write(), b.write()}, policy_with());
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->runs.size(), 2u);
  ASSERT_EQ(d->grants.size(), 1u);
  EXPECT_EQ(d->grants[0].path, "/srv/x");
  EXPECT_EQ(d->grants[0].covers.size(), 3u);
}

TEST(Output, AMissingTraceIsAnError) {
  auto d = draft_traces({"/nonexistent/trace.db"}, policy_with());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("/nonexistent/trace.db"), std::string::npos);
}

}  // namespace
}  // namespace cordon::drafter::testing
