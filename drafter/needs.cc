#include "drafter/needs.h"

#include <fmt/core.h>

#include <optional>
#include <unordered_set>

#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

using schema::AccessKind;

// The directory part of a clean absolute path, as a view of it.
std::string_view parent_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? std::string_view("/")
                                                       : path.substr(0, slash);
}

// Deepest common directory of two clean absolute paths.
std::string common_dir(const std::string& a, const std::string& b) {
  std::string c = a;
  while (!util::path_within(b, c)) c = util::parent_path(c);
  return c;
}

std::string acts_of(const std::vector<Source>& sources) {
  std::vector<ActStat> all;
  for (const Source& s : sources) all.insert(all.end(), s.info->acts.begin(), s.info->acts.end());
  return acts_text(all);
}

class Deriver {
 public:
  Deriver(const Context& c, size_t index, Needs& out, ConflictSet& conflicts)
      : c_(c), index_(index), out_(out), conflicts_(conflicts) {
    for (const auto& [path, info] : c_.collector.paths) {
      if (info.created_in_run()) made_.insert(path);
    }
  }

  void run();

 private:
  std::optional<std::string_view> made_root(std::string_view path) const;
  // The directory that must be writable to add or drop names in `dir`.
  std::string anchor(const std::string& dir) const {
    auto root = made_root(dir);
    return root ? util::parent_path(*root) : dir;
  }
  void need(std::string_view path, Need access, bool look, const Source* source);
  void from_name(const std::string& path, const PathInfo& info);
  void cross_moves();
  void own_mounts(const std::string& path, const PathInfo& info);
  void settle(Candidate& candidate, bool cross);

  const Context& c_;
  size_t index_;
  Needs& out_;
  ConflictSet& conflicts_;
  std::unordered_set<std::string_view> made_;  // names the run created (views of collector keys)
  PathMap<Candidate> needs_;
  std::unordered_set<std::string> cross_;  // needs that exist for a move between directories
};

// The outermost name at or above `path` that the run made; nullopt when
// every directory on the way was there before. Prefixes are views of
// `path`, so this allocates nothing.
std::optional<std::string_view> Deriver::made_root(std::string_view path) const {
  if (made_.empty()) return std::nullopt;
  for (size_t slash = path.find('/', 1); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    if (made_.count(path.substr(0, slash))) return path.substr(0, slash);
  }
  if (made_.count(path)) return path;
  return std::nullopt;
}

void Deriver::need(std::string_view path, Need access, bool look, const Source* source) {
  auto it = needs_.find(path);
  if (it == needs_.end()) {
    it = needs_.emplace(std::string(path), Candidate{}).first;
    Candidate& c = it->second;
    c.path = it->first, c.context = index_, c.access = access, c.look_only = look;
  }
  Candidate& c = it->second;
  if (access > c.access) c.access = access;
  c.look_only = c.look_only && look && access == Need::kRead;
  // Each name reaches a given need once (from_name runs once per name).
  if (source) c.sources.push_back(*source);
}

void Deriver::from_name(const std::string& path, const PathInfo& info) {
  const Source source{&path, &info};
  if (auto root = made_root(path)) {
    need(parent_of(*root), Need::kWrite, false, &source);
    return;
  }
  if (!info.ever_existed && !info.created) {
    // Looked for and never there: a search, not a need. It only matters if
    // a deny is what hid it.
    auto access = c_.policy.decide(path);
    if (access.kind == AccessKind::kDenied) {
      conflicts_.denied(*access.rule, access.layer, path, acts_text(info.acts));
    } else if (access.kind == AccessKind::kAbsent) {
      out_.not_found.push_back(source);
    }
    return;
  }
  Need own = Need::kNone;
  bool look = true, names = false;
  for (const ActStat& a : info.acts) {
    Need n = own_need(a.act);
    if (n > own) own = n;
    if (n != Need::kNone && !is_look(a.act)) look = false;
    // A hard link's source keeps its name; the move between directories
    // (cross_moves) or the destination's directory covers it.
    if (is_name_act(a.act) && a.act != Act::kLinkFrom) names = true;
  }
  if (own != Need::kNone) need(path, own, look, &source);
  if (names) need(parent_of(path), Need::kWrite, false, &source);
  own_mounts(path, info);
}

void Deriver::own_mounts(const std::string& path, const PathInfo& info) {
  if (!info.has(Act::kRenameTo) && !info.has(Act::kRenameFrom) && !info.has(Act::kRemove) &&
      !info.has(Act::kLinkFrom)) {
    return;
  }
  for (const RuleRef& rule : rules_at(c_.policy, path)) {
    if (rule.rule->kind == schema::RuleKind::kDeny) continue;  // reported as denied
    conflicts_.own_mount(*rule.rule, rule.layer->name, path, acts_text(info.acts));
  }
}

void Deriver::cross_moves() {
  for (const auto& [dirs, move] : c_.collector.cross_moves) {
    std::string from = anchor(dirs.first), to = anchor(dirs.second);
    if (from == to || never_drafted(from) || never_drafted(to)) continue;
    auto a = c_.policy.decide(from), b = c_.policy.decide(to);
    if (a.kind == AccessKind::kWritable && b.kind == AccessKind::kWritable &&
        mount_of(c_.policy, from).rule == mount_of(c_.policy, to).rule) {
      continue;  // one writable mount holds both already
    }
    std::string what = move.example_is_link ? "hard link" : "rename";
    int64_t count = move.renames + move.links;
    std::string pair = fmt::format("{} -> {}", schema::quote_policy_string(move.example_from),
                                   schema::quote_policy_string(move.example_to));
    if (count > 1) pair += fmt::format(" (and {} more moves between these directories)", count - 1);
    std::string holder = common_dir(from, to);
    if (holder == "/") {
      out_.review.push_back(ReviewItem{
          move.example_from,
          fmt::format("{} {} crosses directories that share nothing short of /, so no grant lets "
                      "it work (each side is its own mount: EXDEV); not granted",
                      what, pair)});
      continue;
    }
    need(holder, Need::kWrite, false, nullptr);
    needs_.find(holder)->second.notes.push_back(
        fmt::format("holds both names of {} {}: a move cannot cross mounts, so this grant may be "
                    "broader than either directory",
                    what, pair));
    cross_.insert(holder);
  }
}

void Deriver::settle(Candidate& cand, bool cross) {
  // The sandbox has a /tmp of its own, writable: names the run adds or drops
  // directly in it, and looks or probes at /tmp itself, need no grant. A
  // move between two directories under /tmp still does, since the grants
  // below would be separate mounts.
  if (cand.path == "/tmp" && !cross) {
    out_.private_tmp += static_cast<int64_t>(cand.sources.size());
    return;
  }
  auto access = c_.policy.decide(cand.path);
  switch (access.kind) {
    case AccessKind::kDenied:
      conflicts_.denied(*access.rule, access.layer, cand.path, acts_of(cand.sources));
      return;
    case AccessKind::kWritable:
      return;
    case AccessKind::kReadable:
      if (cand.access == Need::kRead) return;
      if (access.rule->kind == schema::RuleKind::kDenyWrite) {
        conflicts_.read_only(*access.rule, access.layer, cand.path, acts_of(cand.sources));
        return;
      }
      break;
    case AccessKind::kAbsent:
      break;
  }
  out_.candidates.push_back(std::move(cand));
}

void Deriver::run() {
  for (const auto& [path, info] : c_.collector.paths) from_name(path, info);
  cross_moves();
  for (auto& [path, cand] : needs_) {
    if (never_drafted(path)) continue;
    settle(cand, cross_.count(path) > 0);
  }
}

}  // namespace

void derive_needs(const Context& context, size_t index, Needs& out, ConflictSet& conflicts) {
  Deriver(context, index, out, conflicts).run();
}

}  // namespace cordon::drafter
