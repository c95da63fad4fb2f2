#include "drafter/conflicts.h"

#include <fmt/core.h>

#include <algorithm>

#include "schema/policy/policy.h"

namespace cordon::drafter {
namespace {

constexpr size_t kExamples = 3;

std::string example(const std::string& path, const std::string& acts) {
  return acts.empty() ? schema::quote_policy_string(path)
                      : fmt::format("{} ({})", schema::quote_policy_string(path), acts);
}

std::string examples_text(const std::vector<std::pair<std::string, std::string>>& examples,
                          int64_t count) {
  std::string out;
  for (const auto& [path, text] : examples) out += (out.empty() ? "" : ", ") + text;
  if (count > static_cast<int64_t>(examples.size())) {
    out += fmt::format(" and {} more", count - static_cast<int64_t>(examples.size()));
  }
  return out;
}

}  // namespace

void ConflictSet::add(Kind kind, const schema::Rule& rule, const std::string& layer,
                      const std::string& path, const std::string& text) {
  auto key =
      std::make_tuple(rule.value, rule.origin.file, rule.origin.line, rule.origin.column, kind);
  Entry& e = entries_[key];
  e.rule = rule;
  e.layer = layer;
  auto at = std::lower_bound(e.examples.begin(), e.examples.end(), path,
                             [](const auto& ex, const std::string& p) { return ex.first < p; });
  if (at != e.examples.end() && at->first == path) return;
  ++e.count;
  if (at - e.examples.begin() >= static_cast<long>(kExamples)) return;
  e.examples.insert(at, {path, text});
  if (e.examples.size() > kExamples) e.examples.pop_back();
}

void ConflictSet::denied(const schema::Rule& rule, const std::string& layer,
                         const std::string& path, const std::string& acts) {
  add(Kind::kDenied, rule, layer, path, example(path, acts));
}

void ConflictSet::read_only(const schema::Rule& rule, const std::string& layer,
                            const std::string& path, const std::string& acts) {
  add(Kind::kReadOnly, rule, layer, path, example(path, acts));
}

void ConflictSet::own_mount(const schema::Rule& rule, const std::string& layer,
                            const std::string& path, const std::string& acts) {
  add(Kind::kOwnMount, rule, layer, path, example(path, acts));
}

void ConflictSet::inside_write(const schema::Rule& rule, const std::string& layer,
                               const std::string& draft_grant) {
  add(Kind::kInsideWrite, rule, layer, draft_grant, schema::quote_policy_string(draft_grant));
}

std::vector<Conflict> ConflictSet::take() const {
  std::vector<Conflict> out;
  // Entries of one rule are adjacent (the kind is the last part of the
  // key) and become one conflict: one rule, one thing to resolve.
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& first = it->second;
    const schema::Rule& r = first.rule;
    std::string what;
    bool removable = false;
    for (; it != entries_.end() && it->second.rule.value == r.value &&
           it->second.rule.origin == r.origin;
         ++it) {
      const Entry& e = it->second;
      const std::string ex = examples_text(e.examples, e.count);
      if (!what.empty()) what += ". ";
      switch (std::get<4>(it->first)) {
        case Kind::kDenied:
          what += fmt::format(
              "the trace used {} below it; no grant undoes a deny, so under this policy those "
              "calls find nothing. Keep the deny and the command goes without, or drop it on "
              "purpose",
              ex);
          break;
        case Kind::kReadOnly:
          what += fmt::format(
              "the trace wrote {}; no grant undoes deny_write, so those writes fail with EROFS "
              "while the rule stands",
              ex);
          break;
        case Kind::kOwnMount:
          what += fmt::format(
              "the trace replaced, removed or hard-linked {}, which this rule makes a mount of its "
              "own: renaming over it or removing it fails with EBUSY, hard-linking from it with "
              "EXDEV",
              ex);
          removable = true;
          break;
        case Kind::kInsideWrite:
          what += fmt::format(
              "it is granted on its own inside the writable {} this draft adds, so it stays a "
              "separate mount: saving over it fails with EBUSY and hard-linking from it with EXDEV",
              ex);
          removable = true;
          break;
      }
    }
    if (removable) {
      // The base layer is built in: nobody can remove its rules.
      what += first.layer == "base" ? ". The rule is in the built-in base layer and stays"
                                    : ". Removing the rule is part of applying the draft";
    }
    out.push_back(Conflict{r.value, rule_text(r), origin_text(r), first.layer, what});
  }
  return out;
}

}  // namespace cordon::drafter
