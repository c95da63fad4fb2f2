// Policies compared by what they cover. Grants, denies and read-only rules
// are compared separately, each by coverage: the access a kind of rule gives
// is constant between rule paths, so comparing at every rule path of either
// policy finds every change.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

#include "drafter/current_policy.h"
#include "drafter/drafter.h"
#include "schema/policy/destination.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

using schema::Policy;
using schema::Rule;
using schema::RuleKind;

bool is_grant(RuleKind k) {
  return k == RuleKind::kAllowRead || k == RuleKind::kAllowWrite;
}

// 0 absent, 1 readable, 2 writable, from grants alone; the deciding rule.
std::pair<int, const Rule*> grant_level(const Policy& p, const std::string& path) {
  const Rule* best = nullptr;
  for (const Rule& r : p.rules) {
    if (!is_grant(r.kind) || !util::path_within(path, r.value)) continue;
    bool deeper = !best || r.value.size() > best->value.size();
    bool same_stronger =
        best && r.value.size() == best->value.size() && r.kind == RuleKind::kAllowWrite;
    if (deeper || same_stronger) best = &r;
  }
  if (!best) return {0, nullptr};
  return {best->kind == RuleKind::kAllowWrite ? 2 : 1, best};
}

bool covered_by(const Policy& p, RuleKind kind, const std::string& path) {
  return std::any_of(p.rules.begin(), p.rules.end(), [&](const Rule& r) {
    return r.kind == kind && util::path_within(path, r.value);
  });
}

std::vector<std::string> grants_inside(const Policy& p, const std::string& path) {
  std::set<std::string> out;
  for (const Rule& r : p.rules) {
    if (is_grant(r.kind) && r.value != path && util::path_within(r.value, path)) {
      out.insert(fmt::format("{} ({})", schema::quote_policy_string(r.value),
                             r.kind == RuleKind::kAllowWrite ? "write" : "read"));
    }
  }
  return {out.begin(), out.end()};
}

std::string level_name(int level) {
  return level == 2 ? "writable" : level == 1 ? "read-only" : "absent";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Pending {
  std::string change;
  const Rule* rule = nullptr;
  std::vector<std::string> details;
};

void diff_grants(const Policy& old_p, const Policy& new_p, std::vector<DiffEntry>& out) {
  std::set<std::string> paths;
  for (const Policy* p : {&old_p, &new_p}) {
    for (const Rule& r : p->rules) {
      if (is_grant(r.kind)) paths.insert(r.value);
    }
  }
  std::map<const Rule*, Pending> entries;
  std::vector<const Rule*> order;
  for (const std::string& path : paths) {
    auto [o, old_rule] = grant_level(old_p, path);
    auto [n, new_rule] = grant_level(new_p, path);
    if (o == n) continue;
    const bool wider = n > o;
    const Rule* rule = wider ? new_rule : old_rule;
    auto [it, fresh] = entries.try_emplace(rule);
    Pending& e = it->second;
    if (fresh) {
      order.push_back(rule);
      e.rule = rule;
      const bool at_rule = path == rule->value;
      auto inside = grants_inside(wider ? old_p : new_p, rule->value);
      if (at_rule && (wider ? o : n) == 0 && inside.empty()) {
        e.change = wider ? "added" : "removed";
      } else {
        e.change = wider ? "widened" : "narrowed";
        if (wider && !inside.empty())
          e.details.push_back("takes in " + join(inside) + ", granted on their own before");
        if (!wider && at_rule && n == 0) e.details.push_back("now only " + join(inside));
      }
    }
    if (e.change == "added" || e.change == "removed") continue;
    std::string where = path == rule->value ? "here" : schema::quote_policy_string(path);
    if (wider) {
      e.details.push_back(fmt::format("{} {} (was {})", where, level_name(n), level_name(o)));
    } else if (!(path == rule->value && n == 0)) {
      e.details.push_back(fmt::format("{} now {} (was {})", where, level_name(n), level_name(o)));
    }
  }
  for (const Rule* r : order) {
    const Pending& e = entries[r];
    out.push_back(DiffEntry{e.change, rule_text(*r), origin_text(*r), join(e.details)});
  }
}

void diff_paths(const Policy& old_p, const Policy& new_p, RuleKind kind,
                std::vector<DiffEntry>& out) {
  std::set<std::string> seen;
  for (const Rule& r : new_p.rules) {
    if (r.kind == kind && !covered_by(old_p, kind, r.value) && seen.insert("+" + r.value).second) {
      out.push_back(DiffEntry{"added", rule_text(r), origin_text(r), ""});
    }
  }
  for (const Rule& r : old_p.rules) {
    if (r.kind == kind && !covered_by(new_p, kind, r.value) && seen.insert("-" + r.value).second) {
      out.push_back(DiffEntry{"removed", rule_text(r), origin_text(r), ""});
    }
  }
}

bool destination_covered(const Policy& p, const Rule& rule) {
  const auto& d = *rule.destination;
  return std::any_of(p.rules.begin(), p.rules.end(), [&](const Rule& r) {
    if (r.kind != rule.kind) return false;
    const auto& o = *r.destination;
    return o.host_kind == d.host_kind && o.host == d.host && o.port_first <= d.port_first &&
           d.port_last <= o.port_last;
  });
}

bool value_present(const Policy& p, const Rule& rule) {
  return std::any_of(p.rules.begin(), p.rules.end(),
                     [&](const Rule& r) { return r.kind == rule.kind && r.value == rule.value; });
}

void diff_values(const Policy& old_p, const Policy& new_p, schema::Block block,
                 std::vector<DiffEntry>& out) {
  std::set<std::string> seen;
  auto present = [](const Policy& p, const Rule& r) {
    return r.destination ? destination_covered(p, r) : value_present(p, r);
  };
  auto text = [](const Rule& r) {
    return r.kind == RuleKind::kExpose ? fmt::format("expose {}", r.value) : rule_text(r);
  };
  for (const Rule& r : new_p.rules) {
    if (schema::rule_block(r.kind) == block && !present(old_p, r) &&
        seen.insert("+" + text(r)).second) {
      out.push_back(DiffEntry{"added", text(r), origin_text(r), ""});
    }
  }
  for (const Rule& r : old_p.rules) {
    if (schema::rule_block(r.kind) == block && !present(new_p, r) &&
        seen.insert("-" + text(r)).second) {
      out.push_back(DiffEntry{"removed", text(r), origin_text(r), ""});
    }
  }
}

}  // namespace

PolicyDiff diff_policies(const Policy& old_policy, const Policy& new_policy) {
  PolicyDiff d;
  diff_grants(old_policy, new_policy, d.grants);
  diff_paths(old_policy, new_policy, RuleKind::kDeny, d.denies);
  diff_paths(old_policy, new_policy, RuleKind::kDenyWrite, d.denies);
  diff_values(old_policy, new_policy, schema::Block::kNet, d.net);
  diff_values(old_policy, new_policy, schema::Block::kEnv, d.env);
  return d;
}

}  // namespace cordon::drafter
