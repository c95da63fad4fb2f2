// How much confinement this host's bwrap can actually apply, found by
// running it: a flag bwrap accepts is not a mount it made, so each base is
// judged by a script inside it that must be able to write where the base
// grants a write and must be refused everywhere else.
//
//   kFull      the full base works: new user, pid and mount namespaces, a
//              private /dev and /proc, a read-only root.
//   kPartial   only the reduced base works (no private /dev or /proc, no pid
//              namespace): typical of unprivileged containers that refuse new
//              procfs mounts. /proc without a pid namespace would let the
//              sandbox reach other processes' roots, so the two go together.
//   kUnusable  neither works; nothing can be confined.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace cordon::enforcer {

enum class Grade { kFull, kPartial, kUnusable };

// "full", "partial", "unusable".
std::string_view grade_name(Grade grade);

// The grade of `bwrap` (an absolute path), memoized in
// $XDG_CACHE_HOME/cordon/grade (default ~/.cache/cordon/grade) per bwrap
// path, size and mtime, kernel release, effective uid and user-namespace
// sysctls. kUnusable is never memoized, so fixing the host takes effect at
// once; `cordon doctor` re-probes for everything else a key cannot see.
//
// When the grade is not kFull and `why` is given, it receives what bwrap
// printed for the base that failed (for kUnusable, with a hint at the cause);
// a grade read from the cache leaves `why` empty.
// Errors: bwrap cannot be stat'ed or executed, or a probe hung (30 s).
util::Result<Grade> probe_grade(const std::string& bwrap, std::string* why = nullptr);

// probe_grade without reading the cache; rewrites it (or removes it when the
// grade is kUnusable).
util::Result<Grade> reprobe_grade(const std::string& bwrap, std::string* why = nullptr);

}  // namespace cordon::enforcer
