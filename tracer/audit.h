// cordon::tracer, audited runs: the learn-mode supervisor inside an enforced
// sandbox (`cordon run --audit FILE.db`), recording only what the sandbox
// refused. The enforcer builds and runs the sandbox; this is the part of the
// tracer it may use (docs/architecture.md).
//
// Order of use: open() → put sandbox_end() in the sandbox and shim_argv()
// before the command → spawn → attach() → wait for the sandbox → finish().
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schema/trace_db.h"
#include "util/fd.h"
#include "util/result.h"

namespace cordon::tracer {

struct AuditOptions {
  std::string output;                // trace file; appended to as a new run
  std::vector<std::string> command;  // for the run's record
  // With a network proxy, refused connections come from the proxy's
  // records (finish()); without one, from the connect calls themselves.
  bool network_proxied = false;
  // Denied files the sandbox holds as empty read-only stand-ins: reads of
  // them are reported too, though they fail nothing.
  std::vector<std::string> stand_ins;
};

// One refusal, counted: a path with the operation and errno it got, or a
// network destination the proxy refused.
struct Denial {
  std::string op;
  std::string what;  // path, or name:port / address:port
  int error = 0;     // 0 for network refusals and stand-in reads, which carry `reason`
  std::string reason;
  int64_t count = 0;
};

class AuditSession {
 public:
  static util::Result<std::unique_ptr<AuditSession>> open(const AuditOptions& options);
  ~AuditSession();
  AuditSession(const AuditSession&) = delete;
  AuditSession& operator=(const AuditSession&) = delete;

  // The shim's end of the channel, for the sandbox to inherit; taken once.
  util::Fd take_sandbox_end();
  // What runs the command under the shim: {cordon, "__shim", FD, "--"},
  // with `cordon` the path of the cordon executable inside the sandbox.
  std::vector<std::string> shim_argv(const std::string& cordon) const;

  // Once the sandbox is spawned (and the parent's copy of sandbox_end()
  // closed): waits for the shim's listener and starts recording. Fails when
  // the sandbox ended before the shim ran.
  util::Status attach();

  // Once the sandbox has ended: stops recording, writes the proxy's
  // refusals, closes the run with the command's status. The denials come
  // back most frequent first.
  util::Result<std::vector<Denial>> finish(int exit_code, bool interrupted,
                                           const std::vector<schema::NetRecord>& net);

 private:
  struct State;
  explicit AuditSession(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

// One denial on one line: "ENOENT      open     /path  (2x)", or
// "refused     lookup   name  (2x): reason" for the network.
std::string describe_denial(const Denial& denial);

// The end-of-run report: a headline and at most `max_lines` denials.
std::vector<std::string> denial_report(const std::vector<Denial>& denials, const std::string& trace,
                                       size_t max_lines = 20);

}  // namespace cordon::tracer
