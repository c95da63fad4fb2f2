// Questions the drafter asks of the current policy beyond "what is the
// access here": where its mounts are. Every fs rule names a mount (a grant
// binds the path in, deny_write binds it read-only, deny covers it), so the
// mount a path lives in is the deepest fs rule at or above it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/policy/effective.h"

namespace cordon::drafter {

struct RuleRef {
  const schema::Rule* rule = nullptr;
  const schema::Layer* layer = nullptr;
};

// The deepest fs rule at or above `path`; none when no rule covers it.
RuleRef mount_of(const schema::EffectivePolicy& policy, std::string_view path);

// Every fs rule whose path is exactly `path`.
std::vector<RuleRef> rules_at(const schema::EffectivePolicy& policy, std::string_view path);

// allow_read / allow_write rules strictly below `path`.
std::vector<RuleRef> grants_below(const schema::EffectivePolicy& policy, std::string_view path);

// `allow_read "/x"`, as a person would find it in the file.
std::string rule_text(const schema::Rule& rule);
// FILE:LINE
std::string origin_text(const schema::Rule& rule);

}  // namespace cordon::drafter
