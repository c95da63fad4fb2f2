#include "drafter/current_policy.h"

#include <fmt/core.h>

#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::drafter {

RuleRef mount_of(const schema::EffectivePolicy& policy, std::string_view path) {
  RuleRef best;
  for (const schema::Layer& layer : policy.layers()) {
    for (const schema::Rule& rule : layer.policy.rules) {
      if (!schema::is_fs_rule(rule.kind) || !util::path_within(path, rule.value)) continue;
      if (!best.rule || rule.value.size() > best.rule->value.size()) best = {&rule, &layer};
    }
  }
  return best;
}

std::vector<RuleRef> rules_at(const schema::EffectivePolicy& policy, std::string_view path) {
  std::vector<RuleRef> out;
  for (const schema::Layer& layer : policy.layers()) {
    for (const schema::Rule& rule : layer.policy.rules) {
      if (schema::is_fs_rule(rule.kind) && rule.value == path) out.push_back({&rule, &layer});
    }
  }
  return out;
}

std::vector<RuleRef> grants_below(const schema::EffectivePolicy& policy, std::string_view path) {
  std::vector<RuleRef> out;
  for (const schema::Layer& layer : policy.layers()) {
    for (const schema::Rule& rule : layer.policy.rules) {
      bool grant =
          rule.kind == schema::RuleKind::kAllowRead || rule.kind == schema::RuleKind::kAllowWrite;
      if (grant && rule.value != path && util::path_within(rule.value, path))
        out.push_back({&rule, &layer});
    }
  }
  return out;
}

std::string rule_text(const schema::Rule& rule) {
  return fmt::format("{} {}", schema::rule_kind_name(rule.kind),
                     schema::quote_policy_string(rule.value));
}

std::string origin_text(const schema::Rule& rule) {
  return fmt::format("{}:{}", util::printable(rule.origin.file), rule.origin.line);
}

}  // namespace cordon::drafter
