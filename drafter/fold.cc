#include "drafter/fold.h"

#include <algorithm>
#include <unordered_map>

#include "drafter/current_policy.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

// Runs with different working directories give one path several
// candidates. Duplicate sources (one name seen in several contexts) are
// summed when the grant is written out, so appending is enough here.
std::vector<Candidate> merge(std::vector<Candidate> candidates) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  std::vector<Candidate> out;
  for (Candidate& c : candidates) {
    if (out.empty() || out.back().path != c.path) {
      out.push_back(std::move(c));
      continue;
    }
    Candidate& m = out.back();
    m.access = std::max(m.access, c.access);
    m.look_only = m.look_only && c.look_only;
    m.sources.insert(m.sources.end(), c.sources.begin(), c.sources.end());
    for (std::string& n : c.notes) {
      if (std::find(m.notes.begin(), m.notes.end(), n) == m.notes.end())
        m.notes.push_back(std::move(n));
    }
  }
  return out;
}

// Every path below `sorted[i]` sorts after "path/"; the first such is enough.
bool candidate_below(const std::vector<Candidate>& sorted, size_t i) {
  const std::string& path = sorted[i].path;
  if (path == "/") return sorted.size() > 1;
  const std::string dir = path + "/";
  auto it = std::lower_bound(sorted.begin() + static_cast<long>(i) + 1, sorted.end(), dir,
                             [](const Candidate& c, const std::string& p) { return c.path < p; });
  return it != sorted.end() && it->path.starts_with(dir);
}

}  // namespace

FoldResult fold(std::vector<Candidate> candidates, const std::deque<Context>& contexts) {
  FoldResult out;
  std::vector<Candidate> sorted = merge(std::move(candidates));

  std::vector<bool> on_the_way(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Candidate& c = sorted[i];
    if (!c.look_only) continue;
    if (candidate_below(sorted, i) || !grants_below(contexts[c.context].policy, c.path).empty()) {
      on_the_way[i] = true;
      out.passed_through.push_back(c.path);
    }
  }

  // Ancestors sort before their descendants, so each candidate meets the
  // grants above it already settled. Keys are views of `sorted`'s paths.
  std::unordered_map<std::string_view, size_t> settled;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (on_the_way[i]) continue;
    Candidate& c = sorted[i];
    std::string_view path = c.path;
    Folded* into = nullptr;
    for (size_t slash = path.rfind('/');
         into == nullptr && slash != std::string_view::npos && path != "/";
         slash = slash == 0 ? std::string_view::npos : path.rfind('/', slash - 1)) {
      auto it = settled.find(slash == 0 ? std::string_view("/") : path.substr(0, slash));
      if (it == settled.end()) continue;
      Folded& g = out.grants[it->second];
      if (g.access == Need::kWrite || c.access == Need::kRead) into = &g;
    }
    if (into) {
      into->sources.insert(into->sources.end(), c.sources.begin(), c.sources.end());
      for (std::string& n : c.notes) {
        if (std::find(into->notes.begin(), into->notes.end(), n) == into->notes.end())
          into->notes.push_back(n);
      }
      continue;
    }
    settled.emplace(path, out.grants.size());
    out.grants.push_back(
        Folded{c.path, c.access, c.context, std::move(c.sources), std::move(c.notes)});
  }
  return out;
}

}  // namespace cordon::drafter
