// run_checks on this host, and `cordon doctor` as a user runs it.
#include "enforcer/doctor.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/tracer/support.h"

namespace cordon::enforcer {
namespace {

using ittest::RunOptions;

// The doctor re-probes the grade and stores it; keep that out of $HOME.
class DoctorTest : public ::testing::Test {
 protected:
  RunOptions options() const {
    return {.env = {{"XDG_CACHE_HOME", scratch_ / "cache"}}, .unset_env = {"CORDON_BWRAP"}};
  }
  ittest::ScratchDir scratch_{"cordon-doctor"};
};

TEST_F(DoctorTest, EverythingRequiredIsPresentHere) {
  ::setenv("XDG_CACHE_HOME", (scratch_ / "cache").c_str(), 1);
  auto checks = run_checks();
  ::unsetenv("XDG_CACHE_HOME");
  std::set<std::string> names;
  for (const auto& c : checks) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
    EXPECT_FALSE(c.detail.empty()) << c.name;
    if (c.required) {
      EXPECT_TRUE(c.state == State::kOk || c.state == State::kDegraded)
          << c.name << ": " << c.detail;
    }
  }
  for (const char* expected :
       {"bwrap", "bwrap-grade", "userns", "apparmor-userns", "seccomp-notify",
        "seccomp-sync-wakeup", "bwrap-bind-fd", "bwrap-disable-userns", "ptrace-scope", "iptables",
        "ip6tables", "netns-routing", "netns-nat", "tproxy"}) {
    EXPECT_TRUE(names.count(expected)) << expected;
  }
  EXPECT_TRUE(ready(checks));
}

TEST_F(DoctorTest, ReadyIsFalseOnlyForARequiredGap) {
  std::vector<Check> checks = {{"a", State::kOk, true, "x", ""},
                               {"b", State::kMissing, false, "x", "y"}};
  EXPECT_TRUE(ready(checks));
  checks.push_back({"c", State::kDegraded, true, "x", "y"});
  EXPECT_TRUE(ready(checks));
  checks.push_back({"d", State::kUnknown, true, "x", ""});
  EXPECT_FALSE(ready(checks));
}

TEST_F(DoctorTest, TextExitsZeroWithOneLinePerItem) {
  auto r = ittest::run({ittest::cordon_bin(), "doctor"}, options());
  ASSERT_EQ(r.code, 0) << r.describe();
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    std::string state = line.substr(0, line.find(' '));
    EXPECT_TRUE(state == "ok" || state == "degraded" || state == "missing" || state == "unknown")
        << line;
  }
  EXPECT_GE(n, 14);
  EXPECT_NE(r.out.find("bwrap-grade"), std::string::npos);
}

TEST_F(DoctorTest, JsonIsValid) {
  auto r = ittest::run({ittest::cordon_bin(), "doctor", "--json"}, options());
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("\"ready\": true"), std::string::npos) << r.out;
  std::string file = scratch_ / "doctor.json";
  ittest::write_file(file, r.out);
  std::string python = ittest::find_program("python3");
  if (python.empty()) GTEST_SKIP() << "no python3 to validate the JSON with";
  auto check = ittest::run({python, "-m", "json.tool", file});
  EXPECT_EQ(check.code, 0) << check.describe();
}

TEST_F(DoctorTest, ExitsWithCordonFailedWhenBwrapIsMissing) {
  RunOptions o = options();
  o.unset_env.clear();
  o.env.push_back({"CORDON_BWRAP", scratch_ / "no-such-bwrap"});
  auto r = ittest::run({ittest::cordon_bin(), "doctor"}, o);
  EXPECT_EQ(r.code, 125) << r.describe();
  EXPECT_NE(r.out.find("missing   bwrap "), std::string::npos) << r.out;
}

TEST_F(DoctorTest, RejectsUnknownOptions) {
  auto r = ittest::run({ittest::cordon_bin(), "doctor", "--yaml"}, options());
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find("usage: cordon doctor"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cordon::enforcer
