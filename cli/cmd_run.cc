#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "cli/run_request.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_run(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report(
        "run: usage: cordon run [--policy FILE]... [--no-workspace-policy] [--dry-run] "
        "[--no-context] "
        "[--dns-upstream ADDR[:PORT]] [--audit FILE.db] [--context-for claude|opencode] -- "
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
                                     cxxopts::value<std::string>())(
      "context-for", "have this agent CLI load the context file (claude, opencode)",
      cxxopts::value<std::string>());
  std::vector<const char*> argv{"cordon run"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());

  std::string cwd;
  auto policy = current_policy("run", parsed, cwd, !parsed.count("no-workspace-policy"));
  if (!policy) return kCordonFailed;
  std::optional<std::string> upstream;
  if (parsed.count("dns-upstream")) upstream = parsed["dns-upstream"].as<std::string>();
  enforcer::RunRequest req = run_request(command, *policy, cwd, upstream);
  req.context = !parsed.count("no-context");
  if (parsed.count("context-for")) req.context_for = parsed["context-for"].as<std::string>();
  if (parsed.count("audit")) {
    req.audit_output = util::join_path(cwd, parsed["audit"].as<std::string>());
  }
  return run_confined(std::move(req), parsed.count("dry-run") > 0).exit_code;
}

}  // namespace cordon::cli
