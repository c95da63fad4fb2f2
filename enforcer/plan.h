// MountPlan: the filesystem a sandbox will see, decided from the effective
// policy and the host's filesystem as it is now.
//
// Contract: only granted paths are mounted; everything between them is the
// sandbox's own root tmpfs, remounted read-only last, so a write to an
// ungranted path fails with EROFS. Operations come out in the order bwrap
// must apply them:
//   1. grants and the sandbox's own /dev, /proc, /tmp, /run, by depth, so a
//      deeper rule is never hidden by a broader one mounted after it;
//   2. deny_write (read-only binds), by depth;
//   3. deny (empty read-only directories or files), by depth;
//   4. the workspace policy file, read-only, when a grant would make it
//      writable, and the context file;
//   5. an ungranted $HOME, then the root, remounted read-only.
// The plan is also what the sandbox context describes, so it is the single
// source of truth about what was mounted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/policy/effective.h"
#include "util/result.h"

namespace cordon::enforcer {

enum class MountKind {
  kBind,       // source (a host path, resolved) read-write at dest
  kRoBind,     // source read-only at dest
  kDev,        // the sandbox's own minimal /dev
  kProc,       // the sandbox's own /proc (needs --unshare-pid)
  kTmpfs,      // a private writable tmpfs
  kEmptyDir,   // an empty read-only directory (a denied directory)
  kEmptyFile,  // an empty read-only file (a denied file or a placeholder)
  kDir,        // a directory created on the root tmpfs ($HOME, the cwd)
  kSymlink,    // dest is a symlink whose text is `source`
  kRemountRo,  // dest remounted read-only
  kContext,    // the sandbox context file (context.h), read-only
};

struct MountOp {
  MountKind kind;
  std::string dest;
  std::string source;  // host path for binds, link text for symlinks
  std::string why;     // the rule (file:line) or reason, for --dry-run and the context
};

struct PlanInput {
  std::string cwd;
  std::string home;
  // Where the workspace policy lives or would be written (cwd/.cordon.sbx).
  std::string workspace_policy;
  bool context = false;  // plan a mount point for the sandbox context file
};

struct MountPlan {
  std::vector<MountOp> ops;
  std::vector<std::string> warnings;  // printed on stderr before the run
  // Set when the plan mounts /dev/null over a workspace policy that does not
  // exist: bwrap creates an empty file there on the host, which the run
  // removes afterwards if it is still empty.
  std::optional<std::string> workspace_stub;
  std::vector<std::string> writable_roots;  // host paths the sandbox may write
  std::string context_file;                 // where the context file goes, if planned
};

// Fails (refusing the run) when a mount destination inside a writable grant
// is, or passes through, a symlink: bwrap 0.8 follows such links while it
// creates mount points, onto the host.
util::Result<MountPlan> plan_mounts(const schema::EffectivePolicy& policy, const PlanInput& input);

}  // namespace cordon::enforcer
