#include "schema/policy/model.h"

#include <algorithm>

namespace cordon::schema {

std::string_view rule_kind_name(RuleKind kind) {
  switch (kind) {
    case RuleKind::kAllowRead:
      return "allow_read";
    case RuleKind::kAllowWrite:
      return "allow_write";
    case RuleKind::kDenyWrite:
      return "deny_write";
    case RuleKind::kDeny:
      return "deny";
    case RuleKind::kAllowTcp:
      return "allow_tcp";
    case RuleKind::kAllowUdp:
      return "allow_udp";
    case RuleKind::kExpose:
      return "expose";
    case RuleKind::kPass:
      return "pass";
  }
  return "?";
}

Block rule_block(RuleKind kind) {
  switch (kind) {
    case RuleKind::kAllowRead:
    case RuleKind::kAllowWrite:
    case RuleKind::kDenyWrite:
    case RuleKind::kDeny:
      return Block::kFs;
    case RuleKind::kAllowTcp:
    case RuleKind::kAllowUdp:
    case RuleKind::kExpose:
      return Block::kNet;
    case RuleKind::kPass:
      return Block::kEnv;
  }
  return Block::kFs;
}

std::string_view block_name(Block block) {
  switch (block) {
    case Block::kFs:
      return "fs";
    case Block::kNet:
      return "net";
    case Block::kEnv:
      return "env";
  }
  return "?";
}

bool is_fs_rule(RuleKind kind) {
  return rule_block(kind) == Block::kFs;
}

bool equivalent(const Policy& a, const Policy& b) {
  return std::equal(
      a.rules.begin(), a.rules.end(), b.rules.begin(), b.rules.end(),
      [](const Rule& x, const Rule& y) { return x.kind == y.kind && x.value == y.value; });
}

}  // namespace cordon::schema
