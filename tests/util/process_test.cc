#include "util/process.h"

#include <signal.h>

#include <gtest/gtest.h>

namespace cordon::util {
namespace {

TEST(Spawn, ReportsExitStatus) {
  auto child = spawn({"/bin/sh", "-c", "exit 7"});
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto st = child->wait();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->code, 7);
  EXPECT_EQ(st->signal, 0);
}

TEST(Spawn, ReportsDeathBySignalAs128PlusN) {
  auto child = spawn({"/bin/sh", "-c", "kill -TERM $$"});
  ASSERT_TRUE(child.ok());
  auto st = child->wait();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->code, 128 + SIGTERM);
  EXPECT_EQ(st->signal, SIGTERM);
}

TEST(Spawn, FailsWhenTheProgramIsMissing) {
  auto child = spawn({"/nonexistent/program"});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.error().errno_value, ENOENT);
  EXPECT_NE(child.error().message.find("/nonexistent/program"), std::string::npos);
}

TEST(Child, KillsAndReapsWhenDropped) {
  pid_t pid;
  {
    auto child = spawn({"/bin/sleep", "30"});
    ASSERT_TRUE(child.ok());
    pid = child->pid();
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // gone, and reaped (no zombie keeps the pid)
}

}  // namespace
}  // namespace cordon::util
