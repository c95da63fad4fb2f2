// The sandbox context file against the sandbox it describes: for a policy
// with read-write, read-only, symlinked, denied and ungranted paths (one name
// holding a newline and a `|`), each row says what the command then finds
// when it tries; and --context-for makes an agent CLI load the file without
// replacing what the user passed.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

class Context : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& d :
         std::vector<std::string>{"cwd", "home", "home/rw", "home/ro", "home/.ssh",
                                  "home/ungranted", "target", "home/" + odd()}) {
      ASSERT_EQ(::mkdir((root_ / d).c_str(), 0755), 0) << d;
    }
    write_file(root_ / "home/.ssh/id_ed25519", "key\n", 0600);
    write_file(root_ / "home/ungranted/f", "f\n");
    write_file(root_ / "target/t", "t\n");
    ASSERT_EQ(::symlink((root_ / "target").c_str(), (root_ / "home/link").c_str()), 0);
    write_file(root_ / "p.sbx",
               "fs {\n"
               "  allow_write \"~/rw\"\n"
               "  allow_read [\"~/ro\", \"~/link\", \"~/we|ird\\nname\"]\n"
               "  deny \"~/.ssh\"\n"
               "}\n");
    write_file(root_ / "cwd/claude", "#!/bin/sh\nprintf '%s\\n' \"$@\"\n", 0755);
  }
  static std::string odd() { return "we|ird\nname"; }
  RunOptions options() const {
    RunOptions o;
    o.cwd = root_ / "cwd";
    o.env = {
        {"HOME", root_ / "home"}, {"XDG_CONFIG_HOME", root_ / "config"}, {"PATH", "/usr/bin:/bin"}};
    o.timeout = 60;
    return o;
  }
  RunResult in_sandbox(const std::string& script, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {cordon_bin(), "run", "--policy", root_ / "p.sbx"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script, "sh", root_ / "home"});
    return run(argv, options());
  }
  static bool has(const std::string& text, const std::string& line) {
    return text.find(line) != std::string::npos;
  }

  ScratchOutsideTmp outside_tmp_;
  ScratchDir root_{"cordon-context"};
};

TEST_F(Context, RowsMatchWhatTheSandboxDoes) {
  RunResult r = in_sandbox(
      "cat \"$CORDON_SANDBOX_CONTEXT\"; h=$1; "
      "touch \"$h/rw/new\" && echo RW-WRITABLE; "
      "touch \"$h/ro/new\" 2>/dev/null || echo RO-REFUSED; "
      "cat \"$h/link/t\" >/dev/null && echo LINK-READABLE; "
      "touch \"$h/link/new\" 2>/dev/null || echo LINK-REFUSED; "
      "test -e \"$h/.ssh/id_ed25519\" || echo SSH-ABSENT; "
      "test -e \"$h/ungranted\" || echo UNGRANTED-ABSENT; "
      "ls \"$h\" | grep -q ird && echo ODD-PRESENT");
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::string& out = r.out;
  EXPECT_TRUE(has(out, "| ~/rw | read-write |")) << out;
  EXPECT_TRUE(has(out, "RW-WRITABLE"));
  EXPECT_TRUE(has(out, "| ~/ro | read-only |")) << out;
  EXPECT_TRUE(has(out, "RO-REFUSED"));
  EXPECT_TRUE(has(out, "| ~/link | symlink to " + root_ / "target" + " |")) << out;
  EXPECT_TRUE(has(out, "| " + root_ / "target" + " | read-only |")) << out;
  EXPECT_TRUE(has(out, "LINK-READABLE"));
  EXPECT_TRUE(has(out, "LINK-REFUSED"));
  EXPECT_TRUE(has(out, "## Absent on purpose")) << out;
  EXPECT_TRUE(has(out, "- ~/.ssh\n")) << out;
  EXPECT_TRUE(has(out, "SSH-ABSENT"));
  EXPECT_FALSE(has(out, "ungranted")) << out;
  EXPECT_TRUE(has(out, "UNGRANTED-ABSENT"));
  // The newline is escaped and the pipe cannot end the table cell.
  EXPECT_TRUE(has(out, "| ~/we\\|ird\\nname | read-only |")) << out;
  EXPECT_TRUE(has(out, "ODD-PRESENT"));
  EXPECT_TRUE(has(out, "| " + root_ / "cwd" + " (working directory) | read-write |")) << out;
  EXPECT_TRUE(has(out, "`/tmp` is private")) << out;
  EXPECT_TRUE(has(out, "System paths, read-only: /bin, /etc")) << out;
  // Names of the passed variables, never values.
  EXPECT_TRUE(has(out, "HOME, ") || has(out, "HOME.")) << out;
  EXPECT_FALSE(has(out, "/usr/bin:/bin")) << out;
}

TEST_F(Context, DryRunPrintsItAndNoContextLeavesItOut) {
  RunResult dry =
      run({cordon_bin(), "run", "--policy", root_ / "p.sbx", "--dry-run", "--", "true"}, options());
  ASSERT_EQ(dry.code, 0) << dry.describe();
  EXPECT_TRUE(has(dry.out, "# You are inside a cordon sandbox")) << dry.out;
  RunResult none =
      in_sandbox("test -z \"$CORDON_SANDBOX_CONTEXT\" && ! test -e ~/.cordon", {"--no-context"});
  EXPECT_EQ(none.code, 0) << none.describe();
}

TEST_F(Context, ContextForClaudeAppendsToTheSystemPrompt) {
  RunResult r = run({cordon_bin(), "run", "--policy", root_ / "p.sbx", "--context-for", "claude",
                     "--", "./claude", "-p", "hi"},
                    options());
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(r.out,
            "--append-system-prompt-file\n" + root_ / "home/.cordon/CONTEXT.md" + "\n-p\nhi\n");
  // The user's own system-prompt addition is never replaced.
  RunResult mine = run({cordon_bin(), "run", "--policy", root_ / "p.sbx", "--context-for", "claude",
                        "--", "./claude", "--append-system-prompt", "mine"},
                       options());
  EXPECT_EQ(mine.code, 125) << mine.describe();
  EXPECT_TRUE(has(mine.err, "already passes --append-system-prompt")) << mine.err;
  RunResult other =
      run({cordon_bin(), "run", "--context-for", "codex", "--", "./claude"}, options());
  EXPECT_EQ(other.code, 125) << other.describe();
  EXPECT_TRUE(has(other.err, "no loader for 'codex'")) << other.err;
}

}  // namespace
}  // namespace cordon::ittest
