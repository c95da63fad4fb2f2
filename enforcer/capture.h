// Running a short helper program (bwrap --version, a probe sandbox) to
// completion and keeping what it printed, so a probe can quote bwrap's own
// words when it refuses. Not for sandboxed commands: output is held in
// memory, stdin is /dev/null, and the helper is killed at the deadline.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "util/process.h"
#include "util/result.h"

namespace cordon::enforcer {

struct Captured {
  util::ExitStatus status;
  std::string out;  // stdout, cut at 64 KiB
  std::string err;  // stderr, cut at 64 KiB
};

// Runs argv (argv[0] an absolute path, never looked up in PATH) and waits for
// it and for both pipes to close. Errors: the exec failed, or the helper (or
// a descendant holding its pipes) outlived `timeout`, in which case the
// helper is killed. Between fork and exec the child makes only
// async-signal-safe calls, so this is safe from a threaded process.
util::Result<Captured> run_captured(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout);

// A helper's message for quoting in one line of ours: trailing newlines and
// spaces dropped, inner newlines turned into "; ".
std::string one_line(std::string text);

}  // namespace cordon::enforcer
