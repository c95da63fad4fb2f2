// The memo behind probe_grade: one small text file whose content must match
// byte for byte what this host would write, so a file that is corrupt, from
// an older format or from another host, bwrap, kernel or user is simply not
// a hit (and is overwritten by the next store).
#pragma once

#include <optional>
#include <string>

#include "enforcer/probe.h"
#include "util/result.h"

namespace cordon::enforcer {

// Everything a grade depends on that can be seen without running bwrap.
struct GradeKey {
  std::string bwrap;
  std::string bwrap_stamp;  // "SIZE MTIME_SEC.NSEC" of the file bwrap resolves to
  std::string kernel;       // uname release
  unsigned euid = 0;        // root may mount what a user may not
  std::string userns;       // the user-namespace sysctls, "-" where absent
};

// Errors: bwrap cannot be stat'ed.
util::Result<GradeKey> grade_key(const std::string& bwrap);

// $XDG_CACHE_HOME/cordon/grade, else $HOME/.cache/cordon/grade; empty when
// neither is set to an absolute path.
std::string grade_cache_path();

std::optional<Grade> load_grade(const GradeKey& key);

// Replaces the file atomically (write then rename), creating the directories;
// for kUnusable removes it instead.
util::Status store_grade(const GradeKey& key, Grade grade);

}  // namespace cordon::enforcer
