// cordon policy base | show: the built-in layer, and every layer in force
// with where each rule came from.
#include <optional>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::cli {
namespace {

constexpr const char* kPolicyUsage =
    "policy: usage: cordon policy base | cordon policy show [--json] [--policy FILE]...";

// Parseable text: each layer's rules in its own order, each with its origin
// in a trailing comment.
std::string show_text(const schema::EffectivePolicy& policy) {
  std::string out =
      "# The effective policy: every layer, lowest first. A deny in any layer wins over every "
      "grant;\n"
      "# otherwise the deepest grant decides (docs/policy-language.md).\n";
  for (const schema::Layer& layer : policy.layers()) {
    out += fmt::format("\n# layer {}\n", util::printable(layer.name));
    std::optional<schema::Block> open;
    for (const schema::Rule& rule : layer.policy.rules) {
      schema::Block block = schema::rule_block(rule.kind);
      if (open != block) {
        if (open) out += "}\n";
        out += fmt::format("{} {{\n", schema::block_name(block));
        open = block;
      }
      std::string value = rule.kind == schema::RuleKind::kExpose
                              ? rule.value
                              : schema::quote_policy_string(rule.value);
      out += fmt::format("  {} {}  # {}:{}\n", schema::rule_kind_name(rule.kind), value,
                         util::printable(rule.origin.file), rule.origin.line);
    }
    if (open) out += "}\n";
  }
  return out;
}

}  // namespace

int cmd_policy(const std::vector<std::string>& args) {
  if (args.empty()) {
    report(kPolicyUsage);
    return kUsage;
  }
  if (args[0] == "base") {
    if (args.size() != 1) {
      report(kPolicyUsage);
      return kUsage;
    }
    fmt::print("{}", schema::base_policy_text());
    return kOk;
  }
  if (args[0] != "show") {
    report(kPolicyUsage);
    return kUsage;
  }
  cxxopts::Options options("cordon policy show", "Print the effective policy");
  options.add_options()("json", "as data")("policy", "add this policy layer (repeatable)",
                                           cxxopts::value<std::vector<std::string>>());
  std::vector<const char*> argv{"cordon policy show"};
  for (size_t i = 1; i < args.size(); ++i) argv.push_back(args[i].c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.unmatched().empty()) {
    report(kPolicyUsage);
    return kUsage;
  }
  std::string cwd;
  auto policy = current_policy("policy", parsed, cwd);
  if (!policy) return kCordonFailed;
  fmt::print("{}", parsed.count("json") ? schema::to_json(*policy) : show_text(*policy));
  return kOk;
}

}  // namespace cordon::cli
