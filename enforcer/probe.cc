#include "enforcer/probe.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "enforcer/capture.h"
#include "enforcer/grade_cache.h"
#include "enforcer/userns.h"

namespace cordon::enforcer {

namespace {

constexpr std::chrono::seconds kProbeTimeout{30};

// Exit 0 only if the granted write lands and the ungranted one is refused:
// either alone could mean bwrap skipped a mount rather than made it. The
// refused write runs in a subshell because a failed redirection on `:` (a
// special builtin) ends a POSIX shell outright. No redirection to /dev/null:
// the reduced base has no /dev.
constexpr const char* kProbeScript =
    ": > /tmp/probe || { echo 'cordon probe: the granted write to /tmp failed' >&2; exit 1; }\n"
    "if (: > /cordon-probe); then echo 'cordon probe: a write outside every grant succeeded' >&2; "
    "exit 1; fi\n";

void add(std::vector<std::string>& v, std::initializer_list<std::string> more) {
  v.insert(v.end(), more);
}

// The full base, or (full = false) the reduced one. /usr is bound and the
// top-level /bin, /lib, /lib64 and /sbin are recreated as the host has them,
// symlinks into /usr on a merged-/usr system, bind mounts otherwise.
std::vector<std::string> probe_argv(const std::string& bwrap, bool full) {
  std::vector<std::string> argv = {bwrap, "--unshare-user"};
  if (full) add(argv, {"--unshare-pid"});
  add(argv, {"--die-with-parent"});
  if (full) add(argv, {"--dev", "/dev", "--proc", "/proc"});
  add(argv, {"--ro-bind", "/usr", "/usr"});
  for (std::string dir : {"/bin", "/lib", "/lib64", "/sbin"}) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) < 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char target[4096];
      ssize_t n = ::readlink(dir.c_str(), target, sizeof target);
      if (n > 0 && static_cast<size_t>(n) < sizeof target) {
        add(argv, {"--symlink", std::string(target, n), dir});
      }
    } else if (S_ISDIR(st.st_mode)) {
      add(argv, {"--ro-bind", dir, dir});
    }
  }
  // --remount-ro comes last: it makes the root tmpfs bwrap built read-only,
  // and every mount made before it keeps its own access.
  add(argv, {"--tmpfs", "/tmp", "--remount-ro", "/", "/bin/sh", "-c", kProbeScript});
  return argv;
}

// Empty on success, else what went wrong in bwrap's (or the script's) words.
util::Result<std::string> attempt(const std::string& bwrap, bool full) {
  auto run = run_captured(probe_argv(bwrap, full), kProbeTimeout);
  if (!run.ok()) return run.error();
  if (run->status.code == 0) return std::string();
  std::string err = one_line(run->err);
  if (err.empty()) {
    err = "bwrap exited with status " + std::to_string(run->status.code) + " and printed nothing";
  }
  return err;
}

util::Result<Grade> probe_uncached(const std::string& bwrap, std::string* why) {
  auto full = attempt(bwrap, true);
  if (!full.ok()) return full.error();
  if (full->empty()) return Grade::kFull;
  auto reduced = attempt(bwrap, false);
  if (!reduced.ok()) return reduced.error();
  if (reduced->empty()) {
    if (why) *why = *full;
    return Grade::kPartial;
  }
  if (why) {
    *why = *reduced;
    std::string hint = userns_hint(read_userns_settings(), *reduced);
    if (!hint.empty()) *why += " (" + hint + ")";
  }
  return Grade::kUnusable;
}

}  // namespace

std::string_view grade_name(Grade grade) {
  switch (grade) {
    case Grade::kFull:
      return "full";
    case Grade::kPartial:
      return "partial";
    case Grade::kUnusable:
      return "unusable";
  }
  return "unusable";
}

util::Result<Grade> reprobe_grade(const std::string& bwrap, std::string* why) {
  if (why) why->clear();
  auto key = grade_key(bwrap);
  if (!key.ok()) return key.error();
  auto grade = probe_uncached(bwrap, why);
  if (!grade.ok()) return grade.error();
  // The memo only saves the next run a few milliseconds; an unwritable cache
  // directory is no reason to refuse a grade just measured.
  (void)store_grade(*key, *grade);
  return grade;
}

util::Result<Grade> probe_grade(const std::string& bwrap, std::string* why) {
  if (why) why->clear();
  auto key = grade_key(bwrap);
  if (!key.ok()) return key.error();
  if (auto cached = load_grade(*key)) return *cached;
  return reprobe_grade(bwrap, why);
}

}  // namespace cordon::enforcer
