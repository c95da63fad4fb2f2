// cordon::enforcer — `cordon run`: confine a command to the effective policy
// through bubblewrap.
//
// Public surface of the component. prepare() decides everything (the mount
// plan, the environment, the seccomp filter, the exact bwrap argv) without
// starting anything, so --dry-run shows precisely what execute() runs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "enforcer/plan.h"
#include "schema/policy/effective.h"
#include "tracer/audit.h"
#include "util/fd.h"
#include "util/result.h"

namespace cordon::enforcer {

namespace net {
class Session;
}

struct RunRequest {
  std::vector<std::string> command;
  const schema::EffectivePolicy* policy = nullptr;
  std::string cwd;
  std::string home;
  std::string workspace_policy;  // cwd/.cordon.sbx
  // The environment the sandbox starts from; only names the policy passes
  // (`env { pass [...] }`) get in.
  std::vector<std::string> environ;
  bool context = true;  // mount the sandbox context file (context.h)
  // `--context-for TOOL`: have that agent CLI load the context file
  // (context_loader.h); "" for none.
  std::string context_for;
  // The resolver cordon's network proxy asks for allowed names ("ADDR[:PORT]");
  // "" for the host's /etc/resolv.conf. See docs/network.md.
  std::string dns_upstream;
  // The cordon executable, run inside the sandbox as the network setup
  // helper and the audit shim; "" for this process's own (/proc/self/exe).
  std::string cordon_exe;
  // `--audit FILE.db`: record every refusal into this trace (absolute path);
  // "" for a plain run.
  std::string audit_output;
};

struct Launch {
  std::string bwrap;
  MountPlan plan;
  std::vector<std::string> argv;  // bwrap's, ending with the command
  std::vector<util::Fd> fds;      // inherited by bwrap: mount sources, data, the filter
  std::string context;            // the context file's text, empty with context off
  std::string context_file;       // where it appears inside the sandbox
  // The host proxy for a policy with allow_tcp rules (docs/network.md);
  // execute() runs it for the sandbox's lifetime.
  std::shared_ptr<net::Session> net;
  // The audit supervisor for `--audit` (tracer/audit.h); execute() attaches
  // it once the sandbox is spawned.
  std::unique_ptr<tracer::AuditSession> audit;
};

// Finds the command as the sandbox will: a name with a slash relative to the
// cwd, others along the passed PATH; only where the policy makes it visible.
// Errors carry ENOENT (not found: exit 127) or EACCES (not executable: 126).
util::Status check_command(const RunRequest& request);

// Fails (refusing the run) on a policy it cannot enforce, a symlink planted
// in a writable grant, or a missing bwrap.
util::Result<Launch> prepare(const RunRequest& request);

struct RunOutcome {
  int exit_code = 0;    // the command's own status, or 128+N when cordon was signalled
  std::string message;  // one line for stderr when the run did not end normally
  // With --audit: the refusals recorded, most frequent first.
  std::optional<std::vector<tracer::Denial>> denials;
};

// Runs the launch and waits for it; a terminal's Ctrl-C reaches the command,
// a signal sent to cordon alone ends the sandbox.
util::Result<RunOutcome> execute(Launch launch);

}  // namespace cordon::enforcer
