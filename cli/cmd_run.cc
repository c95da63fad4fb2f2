#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "cli/shell_quote.h"
#include "enforcer/enforcer.h"
#include "schema/policy/policy.h"
#include "util/path.h"

extern char** environ;

namespace cordon::cli {

int cmd_run(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report(
        "run: usage: cordon run [--policy FILE]... [--no-workspace-policy] [--dry-run] "
        "[--no-context] "
        "[--dns-upstream ADDR[:PORT]] [--audit FILE.db] -- "
        "CMD [ARG...]");
    return kUsage;
  }
  cxxopts::Options options("cordon run", "Run a command confined to the effective policy");
  options.add_options()("policy", "add this policy layer",
                        cxxopts::value<std::vector<std::string>>())("no-workspace-policy",
                                                                    "ignore ./.cordon.sbx")(
      "dry-run", "print the bwrap command line and the context file, and run nothing")(
      "no-context", "do not give the sandbox its context file")(
      "dns-upstream", "resolver the network proxy asks for allowed names (ADDR[:PORT])",
      cxxopts::value<std::string>())("audit", "record every refusal into this trace",
                                     cxxopts::value<std::string>());
  std::vector<const char*> argv{"cordon run"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());

  std::string cwd;
  auto policy = current_policy("run", parsed, cwd, !parsed.count("no-workspace-policy"));
  if (!policy) return kCordonFailed;
  const std::string home = invoking_home();
  enforcer::RunRequest req;
  req.command = command;
  req.policy = &*policy;
  req.cwd = cwd;
  req.home = home;
  req.workspace_policy = req.cwd + "/.cordon.sbx";
  for (char** e = environ; *e; ++e) req.environ.emplace_back(*e);
  req.context = !parsed.count("no-context");
  if (parsed.count("audit")) {
    req.audit_output = util::join_path(cwd, parsed["audit"].as<std::string>());
  }
  // --dns-upstream, else $CORDON_DNS_UPSTREAM, else the host's resolv.conf.
  if (parsed.count("dns-upstream")) {
    req.dns_upstream = parsed["dns-upstream"].as<std::string>();
  } else if (const char* up = std::getenv("CORDON_DNS_UPSTREAM"); up && *up) {
    req.dns_upstream = up;
  }
  if (auto found = enforcer::check_command(req); !found) {
    report(found.error().message);
    return found.error().errno_value == EACCES ? kNotExecutable : kNotFound;
  }
  auto launch = enforcer::prepare(req);
  if (!launch) {
    report(launch.error().message);
    return kCordonFailed;
  }
  for (const auto& w : launch->plan.warnings) report(w);
  if (parsed.count("dry-run")) {
    for (const auto& a : launch->argv) fmt::print("{}\n", shell_quote(a));
    if (!launch->context.empty()) {
      fmt::print("\n# {} (inside the sandbox)\n{}", launch->context_file, launch->context);
    }
    return kOk;
  }
  auto outcome = enforcer::execute(std::move(*launch));
  if (!outcome) {
    report(outcome.error().message);
    return kCordonFailed;
  }
  if (!outcome->message.empty()) report(outcome->message);
  if (outcome->denials) {
    for (const auto& line : tracer::denial_report(*outcome->denials, req.audit_output)) {
      report(line);
    }
  }
  return outcome->exit_code;
}

}  // namespace cordon::cli
