// Escapes attempted from inside `cordon run`, one per test, with the
// escape_probe fixture: its exit status is the errno its one attempt got.
// Security claims are proven by trying, not by reading bwrap's argv.
#include <signal.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon::ittest {
namespace {

class RunEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir((home_ / "h").c_str(), 0755);
    ::mkdir(home().c_str(), 0755);
    ::mkdir((home() + "/.ssh").c_str(), 0700);
    write_file(home() + "/.ssh/id_ed25519", "secret\n", 0600);
    ::mkdir(ws().c_str(), 0755);
    write_file(ws() + "/data.txt", "data\n");
    // The probe must be inside a grant to be run at all: the workspace is.
    write_file(ws() + "/escape_probe", read_file(fixture("escape_probe")), 0755);
  }

  std::string home() const { return home_ / "h/user"; }
  std::string ws() const { return home_ / "ws"; }

  RunOptions options(const std::string& cwd = "") const {
    RunOptions o;
    o.cwd = cwd.empty() ? ws() : cwd;
    o.env = {
        {"HOME", home()}, {"XDG_CONFIG_HOME", home_ / "config"}, {"SSH_AUTH_SOCK", "/tmp/agent"}};
    o.timeout = 60;
    return o;
  }

  RunResult cordon_run(const std::vector<std::string>& command,
                       const std::vector<std::string>& extra = {},
                       const std::string& cwd = "") const {
    std::vector<std::string> argv = {cordon_bin(), "run"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return run(argv, options(cwd));
  }

  int probe(const std::vector<std::string>& args,
            const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> command = {ws() + "/escape_probe"};
    command.insert(command.end(), args.begin(), args.end());
    return cordon_run(command, extra).code;
  }

  ScratchDir home_{"cordon-escape"};
};

TEST_F(RunEscape, WritesOutsideGrantsFailWithErofs) {
  EXPECT_EQ(probe({"write", "/etc/cordon-escape"}), EROFS);
  EXPECT_EQ(probe({"write", "/cordon-escape"}), EROFS);
  EXPECT_EQ(probe({"write", home() + "/new-file"}), EROFS);
  EXPECT_EQ(probe({"write", "/usr/cordon-escape"}), EROFS);
  EXPECT_FALSE(exists(home() + "/new-file"));
  EXPECT_EQ(probe({"write", ws() + "/inside"}), 0);  // the working directory is granted
  EXPECT_TRUE(exists(ws() + "/inside"));
}

TEST_F(RunEscape, CredentialsAreAbsent) {
  EXPECT_EQ(probe({"read", home() + "/.ssh/id_ed25519"}), ENOENT);
  // Even when the working directory is the home directory, so home is
  // writable: the deny still hides ~/.ssh.
  write_file(home() + "/escape_probe", read_file(fixture("escape_probe")), 0755);
  std::vector<std::string> command = {home() + "/escape_probe", "read",
                                      home() + "/.ssh/id_ed25519"};
  EXPECT_EQ(cordon_run(command, {}, home()).code, ENOENT);
  EXPECT_EQ(read_file(home() + "/.ssh/id_ed25519"), "secret\n");
}

TEST_F(RunEscape, TheWorkspacePolicyCannotBeChanged) {
  write_file(ws() + "/.cordon.sbx", "# workspace policy\n");
  const std::string p = ws() + "/.cordon.sbx";
  EXPECT_EQ(probe({"write", p}), EROFS);
  EXPECT_EQ(probe({"truncate", p}), EROFS);
  EXPECT_EQ(probe({"chmod", p}), EROFS);
  EXPECT_EQ(probe({"rename", p, ws() + "/moved"}), EBUSY);
  EXPECT_EQ(probe({"unlink", p}), EBUSY);
  EXPECT_EQ(probe({"link", p, ws() + "/hard"}), EXDEV);
  EXPECT_EQ(probe({"rename", ws() + "/data.txt", p}), EBUSY);
  EXPECT_EQ(read_file(p), "# workspace policy\n");
}

TEST_F(RunEscape, AWorkspacePolicyCannotBeCreatedAndNoStubIsLeft) {
  const std::string p = ws() + "/.cordon.sbx";
  int err = probe({"write", p});
  EXPECT_TRUE(err == EROFS || err == EACCES) << err;
  EXPECT_FALSE(exists(p)) << "the mount-point stub must be removed after the run";
}

TEST_F(RunEscape, TheWorkspaceCannotBeRenamedAway) {
  EXPECT_NE(probe({"rename", ws(), home_ / "elsewhere"}), 0);
  EXPECT_TRUE(exists(ws() + "/data.txt"));
}

TEST_F(RunEscape, APlantedSymlinkMakesTheNextRunRefuse) {
  ASSERT_EQ(probe({"symlink", "/etc", ws() + "/sub"}), 0);
  write_file(home_ / "p.sbx", "fs {\n  allow_read \"" + ws() + "/sub/hostname\"\n}\n");
  RunResult r = cordon_run({"/bin/true"}, {"--policy", home_ / "p.sbx"});
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.err.find("symlink"), std::string::npos) << r.err;
}

TEST_F(RunEscape, HostProcessesAreOutOfReach) {
  Process sleeper = start({"/bin/sleep", "60"});
  std::string pid = std::to_string(sleeper.pid());
  EXPECT_EQ(probe({"kill", pid}), ESRCH);
  EXPECT_EQ(probe({"open-proc-root", pid}), ENOENT);
  ::kill(sleeper.pid(), SIGKILL);
}

TEST_F(RunEscape, NamespacesAndMountsAreRefused) {
  EXPECT_EQ(probe({"unshare-user"}), EPERM);
  EXPECT_EQ(probe({"unshare-mount"}), EPERM);
  EXPECT_EQ(probe({"mount-tmpfs", ws()}), EPERM);
  EXPECT_EQ(probe({"umount", home() + "/.ssh"}), EPERM);
  EXPECT_EQ(probe({"chroot", "/"}), EPERM);
  EXPECT_EQ(probe({"clone3"}), ENOSYS);
}

TEST_F(RunEscape, KernelSurfaceIsRefused) {
  EXPECT_EQ(probe({"ptrace-me"}), EPERM);
  EXPECT_EQ(probe({"perf-event-open"}), EPERM);
  EXPECT_EQ(probe({"io-uring-setup"}), ENOSYS);
  EXPECT_EQ(probe({"keyctl"}), EPERM);
}

#if defined(__x86_64__)
TEST_F(RunEscape, TheI386AbiKillsTheProcess) {
  EXPECT_EQ(probe({"int80"}), 128 + SIGSYS);
}
#endif

TEST_F(RunEscape, HostSysvSharedMemoryIsNotVisible) {
  key_t key = 0x434f5244;  // "CORD"
  int id = ::shmget(key, 4096, IPC_CREAT | 0666);
  ASSERT_GE(id, 0);
  EXPECT_EQ(probe({"shmget-attach", std::to_string(key)}), ENOENT);
  ::shmctl(id, IPC_RMID, nullptr);
}

TEST_F(RunEscape, NoInheritedDescriptorLeaksIn) {
  std::string cmd =
      "exec 7</etc/hostname; exec '" + cordon_bin() + "' run -- '" + ws() + "/escape_probe' fd 7";
  RunResult r = run({"/bin/sh", "-c", cmd}, options());
  EXPECT_EQ(r.code, EBADF) << r.describe();
  EXPECT_EQ(probe({"fd", "3"}), EBADF);
}

TEST_F(RunEscape, NothingOutlivesTheRun) {
  EXPECT_EQ(probe({"background-sleep", "37"}), 0);
  EXPECT_TRUE(eventually([] { return pids_with_arg("background-sleep").empty(); }, 5));
}

TEST_F(RunEscape, ADeniedFifoIsNeverOpenedAndReadsEmpty) {
  ASSERT_EQ(::mkfifo((ws() + "/fifo").c_str(), 0644), 0);
  write_file(home_ / "p.sbx", "fs {\n  deny \"" + ws() + "/fifo\"\n}\n");
  RunResult r =
      cordon_run({ws() + "/escape_probe", "read", ws() + "/fifo"}, {"--policy", home_ / "p.sbx"});
  EXPECT_EQ(r.code, 0) << r.describe();  // an empty file, not a FIFO that blocks
  EXPECT_LT(r.seconds, 30);
}

TEST_F(RunEscape, OnlyPassedVariablesGetIn) {
  RunResult r = cordon_run({"/bin/sh", "-c",
                            "test -z \"$SSH_AUTH_SOCK\" && test -n \"$HOME\" && "
                            "test \"$CORDON_SANDBOX\" = 1"});
  EXPECT_EQ(r.code, 0) << r.describe();
}

TEST_F(RunEscape, ExitStatusPassesThrough) {
  EXPECT_EQ(cordon_run({"/bin/sh", "-c", "exit 7"}).code, 7);
  EXPECT_EQ(cordon_run({"/bin/sh", "-c", "kill -TERM $$"}).code, 128 + SIGTERM);
  EXPECT_EQ(cordon_run({"no-such-command-cordon"}).code, 127);
  write_file(ws() + "/not-executable", "#!/bin/sh\n", 0644);
  EXPECT_EQ(cordon_run({"./not-executable"}).code, 126);
  // On the host, but not visible in the sandbox: not found there.
  write_file(home_ / "outside", "#!/bin/sh\n", 0755);
  EXPECT_EQ(cordon_run({home_ / "outside"}).code, 127);
}

TEST_F(RunEscape, OddWorkingDirectoryNamesWork) {
  std::string odd = home_ / "--bind\nodd";
  ASSERT_EQ(::mkdir(odd.c_str(), 0755), 0);
  RunResult r = cordon_run({"/bin/sh", "-c", "echo ok > out"}, {}, odd);
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(read_file(odd + "/out"), "ok\n");
}

TEST_F(RunEscape, TheContextFileIsReadOnlyAndLeavesNoTrace) {
  RunResult r =
      cordon_run({"/bin/sh", "-c",
                  "cat \"$CORDON_SANDBOX_CONTEXT\" && ! echo x >> \"$CORDON_SANDBOX_CONTEXT\""});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("cordon sandbox"), std::string::npos);
  EXPECT_FALSE(exists(home() + "/.cordon"));
}

}  // namespace
}  // namespace cordon::ittest
