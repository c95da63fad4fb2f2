#include "schema/policy/effective.h"

#include "util/path.h"

namespace cordon::schema {

std::string_view access_kind_name(AccessKind kind) {
  switch (kind) {
    case AccessKind::kAbsent:
      return "absent";
    case AccessKind::kReadable:
      return "readable";
    case AccessKind::kWritable:
      return "writable";
    case AccessKind::kDenied:
      return "denied";
  }
  return "?";
}

namespace {

struct Candidate {
  const Rule* rule = nullptr;
  const Layer* layer = nullptr;
};

// Rules covering the path are all prefixes of it, so a longer value is a
// deeper rule. Ties go to the later rule (later layer, or later in a file), so
// the reported origin is the one the user wrote last.
bool deeper_or_later(const Rule& rule, const Candidate& best) {
  return best.rule == nullptr || rule.value.size() >= best.rule->value.size();
}

Access make_access(AccessKind kind, const Candidate& c) {
  return Access{kind, *c.rule, c.layer->name};
}

}  // namespace

std::vector<const Rule*> EffectivePolicy::rules_of(RuleKind kind) const {
  std::vector<const Rule*> out;
  for (const Layer& layer : layers_) {
    for (const Rule& rule : layer.policy.rules) {
      if (rule.kind == kind) out.push_back(&rule);
    }
  }
  return out;
}

Access EffectivePolicy::decide(std::string_view abs_path) const {
  const std::string path = util::clean_path(abs_path);
  if (path.front() != '/') return Access{};

  Candidate deny;
  Candidate deny_write;
  Candidate grant;
  for (const Layer& layer : layers_) {
    for (const Rule& rule : layer.policy.rules) {
      if (!is_fs_rule(rule.kind) || !util::path_within(path, rule.value)) continue;
      switch (rule.kind) {
        case RuleKind::kDeny:
          if (deeper_or_later(rule, deny)) deny = {&rule, &layer};
          break;
        case RuleKind::kDenyWrite:
          if (deeper_or_later(rule, deny_write)) deny_write = {&rule, &layer};
          break;
        case RuleKind::kAllowRead:
        case RuleKind::kAllowWrite: {
          // At equal depth a read grant does not take back a write grant:
          // grants only add, and only deny_write removes writing.
          bool same_depth = grant.rule && rule.value.size() == grant.rule->value.size();
          bool weaker = same_depth && rule.kind == RuleKind::kAllowRead &&
                        grant.rule->kind == RuleKind::kAllowWrite;
          if (deeper_or_later(rule, grant) && !weaker) grant = {&rule, &layer};
          break;
        }
        default:
          break;
      }
    }
  }
  if (deny.rule) return make_access(AccessKind::kDenied, deny);
  if (!grant.rule) return Access{};
  if (grant.rule->kind == RuleKind::kAllowRead) return make_access(AccessKind::kReadable, grant);
  if (deny_write.rule) return make_access(AccessKind::kReadable, deny_write);
  return make_access(AccessKind::kWritable, grant);
}

}  // namespace cordon::schema
