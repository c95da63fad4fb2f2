// cordon::tracer — learn mode: run a command under a seccomp user-notification
// supervisor and record every watched call into a trace.
//
// Public surface of the component; everything else in tracer/ is internal.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schema/trace_db.h"
#include "util/result.h"

namespace cordon::tracer {

// What the caller adds around the learn sandbox, which the tracer runs
// without knowing what it is (cli fills it in for network learning,
// docs/network.md).
class SandboxHook {
 public:
  virtual ~SandboxHook() = default;
  // bwrap arguments, placed before its `--`.
  virtual std::vector<std::string> bwrap_args() const = 0;
  // The descriptors those arguments and the prefix name, for bwrap to pass on.
  virtual std::vector<int> fds() const = 0;
  // A program run in the sandbox ahead of the shim; it execs the rest of
  // its command line (the shim's).
  virtual std::vector<std::string> prefix() const = 0;
  // Just before bwrap starts.
  virtual void start() = 0;
  // After the sandbox has ended and before the run is finished: adds what
  // it saw to the trace.
  virtual util::Status finish(schema::TraceDb& db, int64_t run_id) = 0;
};

struct TraceOptions {
  std::string output;                // trace file; appended to as a new run if it exists
  std::vector<std::string> command;  // argv; argv[0] is looked up in PATH inside the sandbox
  std::optional<double> timeout_seconds;
  // Applied over the host filesystem: a denied path stays unreadable while
  // learning, and the trace shows the attempt (directories become empty
  // read-only directories, other files empty read-only files).
  std::vector<std::string> deny;
  bool status_line = false;           // one live line on stderr (a terminal)
  std::shared_ptr<SandboxHook> hook;  // none: the host's network, as it is
};

struct TraceOutcome {
  std::string output;
  int64_t run_id = 0;
  schema::RunState state = schema::RunState::kComplete;
  int exit_code = 0;  // what `cordon trace` exits with
  // One line for stderr when the run did not end normally (command not
  // found, interrupted, trace write failed); the trace holds the same note.
  std::string message;
  uint64_t events = 0;
  uint64_t processes = 0;
};

// Fails (exit 125) only before the command starts: bwrap missing, output not
// writable, sandbox setup refused. Once the command runs, every ending is an
// outcome with the trace committed.
util::Result<TraceOutcome> run_trace(const TraceOptions& options);

// The default trace path: $XDG_STATE_HOME/cordon/traces/<UTC time>-<name>.db.
std::string default_trace_path(const std::string& command_name);

// Entry point of the in-sandbox shim (`cordon __shim FD -- CMD...`).
[[noreturn]] void shim_main(int sock_fd, char** command);

}  // namespace cordon::tracer
