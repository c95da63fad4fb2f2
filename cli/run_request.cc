#include "cli/run_request.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "cli/shell_quote.h"
#include "schema/policy/policy.h"
#include "util/path.h"

extern char** environ;

namespace cordon::cli {
namespace {

// Why the policy refused `path`, in a few words: the rule and where it is
// written, or that nothing grants it.
std::string policy_reason(const schema::EffectivePolicy& policy, const std::string& path) {
  schema::Access a = policy.decide(path);
  if (!a.rule) return "no rule grants it";
  return fmt::format("{} by {} {} ({}:{})", schema::access_kind_name(a.kind),
                     schema::rule_kind_name(a.rule->kind),
                     schema::quote_policy_string(a.rule->written),
                     util::printable(a.rule->origin.file), a.rule->origin.line);
}

}  // namespace

enforcer::RunRequest run_request(const std::vector<std::string>& command,
                                 const schema::EffectivePolicy& policy, const std::string& cwd,
                                 const std::optional<std::string>& dns_upstream) {
  enforcer::RunRequest req;
  req.command = command;
  req.policy = &policy;
  req.cwd = cwd;
  req.home = invoking_home();
  req.workspace_policy = cwd + "/.cordon.sbx";
  for (char** e = environ; *e; ++e) req.environ.emplace_back(*e);
  if (dns_upstream) {
    req.dns_upstream = *dns_upstream;
  } else if (const char* up = std::getenv("CORDON_DNS_UPSTREAM"); up && *up) {
    req.dns_upstream = up;
  }
  return req;
}

RunResult run_confined(enforcer::RunRequest req, bool dry_run) {
  if (auto found = enforcer::check_command(req); !found) {
    report(found.error().message);
    return {found.error().errno_value == EACCES ? kNotExecutable : kNotFound, std::nullopt};
  }
  const std::string audit_output = req.audit_output;
  auto launch = enforcer::prepare(req);
  if (!launch) {
    report(launch.error().message);
    return {kCordonFailed, std::nullopt};
  }
  for (const auto& w : launch->plan.warnings) report(w);
  if (dry_run) {
    for (const auto& a : launch->argv) fmt::print("{}\n", shell_quote(a));
    if (!launch->context.empty()) {
      fmt::print("\n# {} (inside the sandbox)\n{}", launch->context_file, launch->context);
    }
    return {kOk, std::nullopt};
  }
  auto outcome = enforcer::execute(std::move(*launch));
  if (!outcome) {
    report(outcome.error().message);
    return {kCordonFailed, std::nullopt};
  }
  if (!outcome->message.empty()) report(outcome->message);
  if (outcome->denials) {
    for (auto& d : *outcome->denials) {
      if (d.error && !d.what.empty() && d.what.front() == '/') {
        d.reason = policy_reason(*req.policy, d.what);
      }
    }
    for (const auto& line : tracer::denial_report(*outcome->denials, audit_output)) report(line);
  }
  return {outcome->exit_code, std::move(outcome->denials)};
}

}  // namespace cordon::cli
