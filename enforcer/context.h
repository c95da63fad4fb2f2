// The sandbox context: a short Markdown description of the sandbox, given to
// the confined program so it knows where it is (an agent that does not know
// otherwise takes a read-only bind mount for a hard link, or a missing ~/.ssh
// for a broken machine).
//
// Contract: generated from the final mount plan, never from the policy text
// alone, so it always matches what was mounted. Paths are cleaned of control
// characters and of what would break a Markdown table. Variable names appear,
// values never do.
#pragma once

#include <string>
#include <vector>

#include "enforcer/plan.h"

namespace cordon::enforcer {

struct ContextInput {
  const MountPlan* plan = nullptr;
  std::string cwd;
  std::string home;
  std::vector<std::string> denied;       // deny rules' paths
  std::vector<std::string> passed_env;   // names
  std::vector<std::string> net_allowed;  // allow_tcp/allow_udp destinations; empty: no network
  std::vector<int> exposed;              // `expose` ports
};

std::string render_context(const ContextInput& input);

}  // namespace cordon::enforcer
