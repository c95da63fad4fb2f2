// EffectivePolicy: the layers a sandbox runs under, merged, and the question
// "what does the sandbox see at this path?".
//
// Layers are given lowest first: base, user, workspace, then each --policy.
// Filesystem semantics do not depend on that order except for which rule is
// reported when several decide equally:
//   - a `deny` at or above a path makes it absent, whatever grants exist, at
//     any depth and in any layer;
//   - otherwise the deepest allow_read/allow_write at or above the path
//     decides readable vs writable (at equal depth allow_write wins);
//   - a `deny_write` at or above a granted path makes it read-only;
//   - nothing at or above the path: absent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/policy/model.h"

namespace cordon::schema {

struct Layer {
  std::string name;  // "base", "user", "workspace", "--policy FILE" ...
  Policy policy;
};

enum class AccessKind {
  kAbsent,    // no grant covers the path
  kReadable,  // visible, read-only
  kWritable,  // visible, writable
  kDenied,    // a deny covers it: absent, and no grant can bring it back
};
std::string_view access_kind_name(AccessKind kind);

struct Access {
  AccessKind kind = AccessKind::kAbsent;
  // The rule that decided, and the name of its layer; for kAbsent there is
  // none and both stay empty.
  std::optional<Rule> rule;
  std::string layer;
};

class EffectivePolicy {
 public:
  explicit EffectivePolicy(std::vector<Layer> layers) : layers_(std::move(layers)) {}

  const std::vector<Layer>& layers() const { return layers_; }

  // Every rule of `kind` in layer order: for net and env rules, which simply
  // add up across layers, this is the effective set. Pointers are into this
  // object.
  std::vector<const Rule*> rules_of(RuleKind kind) const;

  // `abs_path` is cleaned lexically first; a path that is not absolute is
  // absent. Linear in the number of fs rules.
  Access decide(std::string_view abs_path) const;

 private:
  std::vector<Layer> layers_;
};

// The layers and every rule with kind, expanded value, value as written and
// origin, as indented JSON. Strings are emitted in util::printable form
// (backslash escapes for control bytes and bytes that are not UTF-8, "\\" for
// a backslash) before JSON escaping, so the output is always valid JSON.
std::string to_json(const EffectivePolicy& policy);

}  // namespace cordon::schema
