// The enforcer request `cordon run` makes, shared with `learn --verify`,
// which re-runs a learned command the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "enforcer/enforcer.h"

namespace cordon::cli {

// A request for `command` under `policy` from `cwd`, as the invoking user:
// their home, this process's environment, ./.cordon.sbx as the workspace
// policy, and the DNS upstream from `dns_upstream`, else
// $CORDON_DNS_UPSTREAM, else the host's resolv.conf.
enforcer::RunRequest run_request(const std::vector<std::string>& command,
                                 const schema::EffectivePolicy& policy, const std::string& cwd,
                                 const std::optional<std::string>& dns_upstream = std::nullopt);

// check_command, prepare and execute, reporting the way `cordon run` does
// (warnings, then the outcome, then the audit's denial report). Returns the
// exit code and, for an audited run, the denials.
struct RunResult {
  int exit_code = 0;
  std::optional<std::vector<tracer::Denial>> denials;
};
RunResult run_confined(enforcer::RunRequest request, bool dry_run = false);

}  // namespace cordon::cli
