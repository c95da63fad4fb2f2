// cordon why: what the effective policy does at a path, and which rule says so.
#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_why(const std::vector<std::string>& args) {
  cxxopts::Options options("cordon why", "Explain the effective policy at paths");
  options.add_options()("policy", "add this policy layer (repeatable)",
                        cxxopts::value<std::vector<std::string>>())(
      "paths", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"paths"});
  std::vector<const char*> argv{"cordon why"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.count("paths")) {
    report("why: usage: cordon why [--policy FILE]... PATH...");
    return kUsage;
  }
  std::string cwd;
  auto policy = current_policy("why", parsed, cwd);
  if (!policy) return kCordonFailed;
  for (const std::string& arg : parsed["paths"].as<std::vector<std::string>>()) {
    const std::string path = util::join_path(cwd, arg);
    schema::Access a = policy->decide(path);
    if (!a.rule) {
      fmt::print("{}: {} (no rule grants it)\n", util::printable(path),
                 schema::access_kind_name(a.kind));
      continue;
    }
    std::string rule = fmt::format("{} {}", schema::rule_kind_name(a.rule->kind),
                                   schema::quote_policy_string(a.rule->value));
    if (a.rule->written != a.rule->value) {
      rule += fmt::format(" (written {})", schema::quote_policy_string(a.rule->written));
    }
    fmt::print("{}: {}, decided by {} at {}:{} (layer {})\n", util::printable(path),
               schema::access_kind_name(a.kind), rule, util::printable(a.rule->origin.file),
               a.rule->origin.line, util::printable(a.layer));
  }
  return kOk;
}

}  // namespace cordon::cli
