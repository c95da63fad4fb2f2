#include "enforcer/plan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "util/fd.h"
#include "util/path.h"

namespace cordon::enforcer {

using schema::AccessKind;
using schema::RuleKind;
using util::Error;
using util::path_within;

namespace {

enum Phase { kGrants = 0, kDenyWrite = 1, kDeny = 2, kWorkspace = 3, kLast = 4 };

struct Step {
  MountOp op;
  Phase phase;
};

size_t depth(const std::string& path) {
  return path == "/" ? 0 : static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

std::string origin_of(const schema::Rule& rule) {
  return fmt::format("{} {}:{}", schema::rule_kind_name(rule.kind),
                     util::printable(rule.origin.file), rule.origin.line);
}

// lstat that never opens the path, so a FIFO or device is only looked at.
std::optional<struct stat> inspect(const std::string& path) {
  util::Fd fd(::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  return st;
}

std::optional<std::string> resolve(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return std::nullopt;
  std::string out(real);
  std::free(real);
  return out;
}

bool is_sensitive(const std::string& path, const std::string& home) {
  for (const char* rel : {".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".bashrc", ".zshrc",
                          ".profile", ".bash_profile", ".bash_login", ".zprofile", ".zshenv"}) {
    if (path == home + "/" + rel) return true;
  }
  return false;
}

struct Grant {
  bool writable = false;
  const schema::Rule* rule = nullptr;
};

class Planner {
 public:
  Planner(const schema::EffectivePolicy& policy, const PlanInput& input)
      : policy_(policy), in_(input) {}

  util::Result<MountPlan> run();

 private:
  void collect();
  void plan_grants();
  void plan_base();
  void plan_deny_write();
  void expand_deny_write(const std::string& dir, const std::string& why);
  void plan_deny();
  void plan_workspace_policy();
  util::Status check_destinations() const;
  // The deepest granted path at or above `path` that this plan mounts.
  const std::pair<const std::string, Grant>* covering_grant(const std::string& path) const;
  std::vector<std::string> writable_grants_inside(const std::string& dir) const;
  void add(Phase phase, MountKind kind, std::string dest, std::string source, std::string why) {
    steps_.push_back({MountOp{kind, std::move(dest), std::move(source), std::move(why)}, phase});
  }

  const schema::EffectivePolicy& policy_;
  const PlanInput& in_;
  std::map<std::string, Grant> grants_;  // mounted grants, by host path
  std::vector<const schema::Rule*> deny_write_, deny_;
  std::vector<Step> steps_;
  MountPlan plan_;
};

void Planner::collect() {
  std::map<std::string, Grant> wanted;
  for (const auto& layer : policy_.layers()) {
    for (const auto& rule : layer.policy.rules) {
      switch (rule.kind) {
        case RuleKind::kAllowRead:
        case RuleKind::kAllowWrite: {
          Grant& g = wanted[rule.value];
          if (!g.rule || (rule.kind == RuleKind::kAllowWrite && !g.writable)) g.rule = &rule;
          g.writable = g.writable || rule.kind == RuleKind::kAllowWrite;
          break;
        }
        case RuleKind::kDenyWrite:
          deny_write_.push_back(&rule);
          break;
        case RuleKind::kDeny:
          deny_.push_back(&rule);
          break;
        default:
          break;
      }
    }
  }
  for (auto& [path, g] : wanted) {
    // The sandbox has its own /dev and /proc; a host grant there would be
    // mounted nodev and shadow the sandbox's own nodes.
    if (path_within(path, "/dev") || path_within(path, "/proc")) {
      plan_.warnings.push_back("ignoring " + origin_of(*g.rule) + ": the sandbox has its own " +
                               (path_within(path, "/dev") ? "/dev" : "/proc"));
      continue;
    }
    schema::Access a = policy_.decide(path);
    if (a.kind == AccessKind::kDenied) continue;
    // A deny_write at or above makes the grant read-only (decide says so).
    g.writable = a.kind == AccessKind::kWritable;
    grants_.emplace(path, g);
  }
}

const std::pair<const std::string, Grant>* Planner::covering_grant(const std::string& path) const {
  const std::pair<const std::string, Grant>* best = nullptr;
  for (const auto& entry : grants_) {
    if (path_within(path, entry.first) && (!best || entry.first.size() > best->first.size()))
      best = &entry;
  }
  return best;
}

std::vector<std::string> Planner::writable_grants_inside(const std::string& dir) const {
  std::vector<std::string> out;
  for (const auto& [path, g] : grants_) {
    if (g.writable && path != dir && path_within(path, dir)) out.push_back(path);
  }
  return out;
}

void Planner::plan_grants() {
  for (const auto& [path, g] : grants_) {
    auto st = inspect(path);
    if (!st) continue;  // nothing on this host to mount
    MountKind kind = g.writable ? MountKind::kBind : MountKind::kRoBind;
    std::string why = origin_of(*g.rule);
    std::string source = path;
    if (S_ISLNK(st->st_mode)) {
      // Mount the inode the link resolves to, at its own path, and recreate
      // the granted name as a link to it: both names work, and nothing else
      // beside the target comes in.
      auto real = resolve(path);
      if (!real) continue;
      std::string parent = util::parent_path(path);
      if (!covering_grant(parent)) add(kGrants, MountKind::kSymlink, path, *real, why);
      source = *real;
      auto cover = covering_grant(source);
      if (cover && cover->first != path && (cover->second.writable || !g.writable)) continue;
      add(kGrants, kind, source, source, why + " (target of " + util::printable(path) + ")");
      if (g.writable) plan_.writable_roots.push_back(source);
      continue;
    }
    add(kGrants, kind, path, source, why);
    if (g.writable) plan_.writable_roots.push_back(path);
  }
}

void Planner::plan_base() {
  add(kGrants, MountKind::kDev, "/dev", "", "the sandbox's own /dev");
  add(kGrants, MountKind::kProc, "/proc", "", "the sandbox's own /proc");
  if (!grants_.count("/tmp")) add(kGrants, MountKind::kTmpfs, "/tmp", "", "a private /tmp");
  if (!grants_.count("/run")) add(kGrants, MountKind::kTmpfs, "/run", "", "the sandbox's own /run");
  if (!covering_grant(in_.home)) {
    // A tmpfs of its own rather than a directory on the root, so it is
    // read-only even where it lies under a writable mount such as /tmp; it
    // turns read-only last, after grants inside it have their mount points.
    add(kGrants, MountKind::kTmpfs, in_.home, "", "an empty home");
    add(kLast, MountKind::kRemountRo, in_.home, "", "an empty home: read-only");
  }
  auto cwd = policy_.decide(in_.cwd).kind;
  if (cwd == AccessKind::kAbsent || cwd == AccessKind::kDenied) {
    add(kGrants, MountKind::kDir, in_.cwd, "", "the working directory, not granted: empty");
  }
}

void Planner::plan_deny_write() {
  for (const auto* rule : deny_write_) {
    const std::string& d = rule->value;
    if (d == in_.workspace_policy) continue;  // plan_workspace_policy covers it
    auto cover = covering_grant(d);
    if (!cover || !cover->second.writable || policy_.decide(d).kind == AccessKind::kDenied)
      continue;
    auto st = inspect(d);
    if (!st || S_ISLNK(st->st_mode)) continue;
    if (writable_grants_inside(d).empty()) {
      add(kDenyWrite, MountKind::kRoBind, d, d, origin_of(*rule));
    } else {
      expand_deny_write(d, origin_of(*rule));
    }
  }
}

// A read-only directory cannot hold a writable grant below it: bwrap must
// create that grant's mount point, and a read-only bind also hides it. So
// the directory becomes a bind mount of its own (it cannot be renamed or
// removed, and a grant's mount point can be made in it), and each existing
// child is made read-only instead, recursing into children that hold a
// writable grant.
void Planner::expand_deny_write(const std::string& dir, const std::string& why) {
  add(kGrants, MountKind::kBind, dir, dir, why + " (expanded: holds a writable grant)");
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return;
  std::vector<std::string> children;
  while (dirent* e = ::readdir(d.get())) {
    std::string name = e->d_name;
    if (name != "." && name != "..") children.push_back(util::join_path(dir, name));
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) {
    auto st = inspect(child);
    // Empty files are stubs earlier sandboxes left as mount points; links
    // cannot be mount points at all.
    if (!st || S_ISLNK(st->st_mode) || (S_ISREG(st->st_mode) && st->st_size == 0)) continue;
    if (grants_.count(child) && grants_.at(child).writable) continue;
    if (!writable_grants_inside(child).empty()) {
      expand_deny_write(child, why);
    } else {
      add(kDenyWrite, MountKind::kRoBind, child, child, why);
    }
  }
}

void Planner::plan_deny() {
  for (const auto* rule : deny_) {
    std::string x = rule->value;
    auto st = inspect(x);
    if (st && S_ISLNK(st->st_mode)) {
      // Hide what the link reaches; mounting over the link itself would
      // follow it anyway.
      auto real = resolve(x);
      if (!real) continue;
      x = *real;
      st = inspect(x);
    }
    auto cover = covering_grant(x);
    if (!st) {
      if (cover && cover->second.writable && is_sensitive(x, in_.home)) {
        plan_.warnings.push_back(fmt::format(
            "warning: {} does not exist, and this policy lets the sandbox write to {}, so a "
            "sandboxed process can create it: a deny cannot be mounted over a path that is not "
            "there. Create it yourself to close the gap: {}",
            util::printable(x), util::printable(cover->first),
            x.ends_with("rc") || x.ends_with("profile") || x.ends_with("zshenv") ||
                    x.ends_with("login")
                ? "touch " + util::printable(x)
                : "mkdir -m 700 " + util::printable(x)));
      }
      continue;
    }
    if (!cover) continue;  // nothing grants it: absent already
    add(kDeny, S_ISDIR(st->st_mode) ? MountKind::kEmptyDir : MountKind::kEmptyFile, x, "",
        origin_of(*rule));
  }
}

void Planner::plan_workspace_policy() {
  const std::string& wp = in_.workspace_policy;
  auto cover = covering_grant(wp);
  if (!cover || !cover->second.writable) return;  // nothing could write it anyway
  auto st = inspect(wp);
  if (st) {
    add(kWorkspace, MountKind::kRoBind, wp, wp, "the workspace policy, read-only");
  } else {
    add(kWorkspace, MountKind::kRoBind, wp, "/dev/null",
        "no workspace policy yet: /dev/null keeps one from being created");
    plan_.workspace_stub = wp;
  }
}

util::Status Planner::check_destinations() const {
  for (const auto& step : steps_) {
    const std::string& dest = step.op.dest;
    if (step.op.kind == MountKind::kSymlink || step.op.kind == MountKind::kRemountRo) continue;
    for (const auto& root : plan_.writable_roots) {
      if (dest == root || !path_within(dest, root)) continue;
      util::Fd at(::open(root.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!at) break;
      std::string rest = dest.substr(root.size() + 1);
      std::string walked = root;
      size_t pos = 0;
      while (pos <= rest.size()) {
        size_t slash = rest.find('/', pos);
        if (slash == std::string::npos) slash = rest.size();
        std::string part = rest.substr(pos, slash - pos);
        walked += "/" + part;
        util::Fd next(::openat(at.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
        if (!next) break;  // bwrap will create it
        struct stat st;
        if (::fstat(next.get(), &st) == 0 && S_ISLNK(st.st_mode)) {
          return Error{
              fmt::format("refusing to run: {} is a symlink inside the writable grant {} "
                          "(left by an earlier run?); bwrap would follow it while "
                          "mounting {}. Remove it and run again",
                          util::printable(walked), util::printable(root), util::printable(dest))};
        }
        at = std::move(next);
        pos = slash + 1;
      }
    }
  }
  return {};
}

util::Result<MountPlan> Planner::run() {
  collect();
  plan_grants();
  plan_base();
  plan_deny_write();
  plan_deny();
  plan_workspace_policy();
  if (in_.context) {
    // ~/.cordon can only be made where home is the sandbox's own tmpfs;
    // anywhere else bwrap would create it on the host, or fail on a
    // read-only bind.
    plan_.context_file =
        covering_grant(in_.home) ? "/run/cordon/CONTEXT.md" : in_.home + "/.cordon/CONTEXT.md";
    add(kWorkspace, MountKind::kContext, plan_.context_file, "", "the sandbox context");
  }
  add(kLast, MountKind::kRemountRo, "/", "", "the space between grants: read-only");
  std::stable_sort(steps_.begin(), steps_.end(), [](const Step& a, const Step& b) {
    if (a.phase != b.phase) return a.phase < b.phase;
    // The last phase runs deepest first: a read-only home before the root.
    if (depth(a.op.dest) != depth(b.op.dest)) {
      return (a.phase == kLast) != (depth(a.op.dest) < depth(b.op.dest));
    }
    return a.op.dest < b.op.dest;
  });
  if (auto st = check_destinations(); !st) return st.error();
  for (auto& s : steps_) plan_.ops.push_back(std::move(s.op));
  return std::move(plan_);
}

}  // namespace

util::Result<MountPlan> plan_mounts(const schema::EffectivePolicy& policy, const PlanInput& input) {
  return Planner(policy, input).run();
}

}  // namespace cordon::enforcer
