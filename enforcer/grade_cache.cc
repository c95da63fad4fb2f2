#include "enforcer/grade_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "enforcer/userns.h"
#include "util/fd.h"

namespace cordon::enforcer {

namespace {

constexpr size_t kMaxFile = 4096;

std::string setting_text(const std::optional<long>& v) {
  return v ? std::to_string(*v) : "-";
}

std::string render(const GradeKey& key, Grade grade) {
  return fmt::format(
      "cordon grade cache 1\nbwrap {}\nbwrap-stamp {}\nkernel {}\neuid {}\nuserns {}\ngrade {}\n",
      key.bwrap, key.bwrap_stamp, key.kernel, key.euid, key.userns, grade_name(grade));
}

// mkdir -p for the cache's own directories; private, as ~/.cache should be.
util::Status make_dirs(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0700) < 0 && errno != EEXIST) {
      return util::sys_error("mkdir " + prefix);
    }
  }
  return {};
}

}  // namespace

util::Result<GradeKey> grade_key(const std::string& bwrap) {
  struct stat st {};
  if (::stat(bwrap.c_str(), &st) < 0) return util::sys_error("stat " + bwrap);
  struct utsname uts {};
  if (::uname(&uts) < 0) return util::sys_error("uname");
  UsernsSettings s = read_userns_settings();
  GradeKey key;
  key.bwrap = bwrap;
  key.bwrap_stamp = fmt::format("{} {}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  key.kernel = uts.release;
  key.euid = ::geteuid();
  key.userns = setting_text(s.max_user_namespaces) + " " +
               setting_text(s.unprivileged_userns_clone) + " " +
               setting_text(s.apparmor_restrict_userns);
  return key;
}

std::string grade_cache_path() {
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/cordon/grade";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/cordon/grade";
  return "";
}

std::optional<Grade> load_grade(const GradeKey& key) {
  std::string path = grade_cache_path();
  if (path.empty()) return std::nullopt;
  util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return std::nullopt;
  std::string text;
  char buf[1024];
  ssize_t n;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) {
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxFile) return std::nullopt;
  }
  for (Grade g : {Grade::kFull, Grade::kPartial}) {
    if (text == render(key, g)) return g;
  }
  return std::nullopt;
}

util::Status store_grade(const GradeKey& key, Grade grade) {
  std::string path = grade_cache_path();
  if (path.empty()) {
    return util::Error{"no cache directory: neither XDG_CACHE_HOME nor HOME is set", ENOENT};
  }
  if (grade == Grade::kUnusable) {
    if (::unlink(path.c_str()) < 0 && errno != ENOENT) return util::sys_error("unlink " + path);
    return {};
  }
  auto made = make_dirs(path.substr(0, path.rfind('/')));
  if (!made.ok()) return made;
  // A private temporary name and a rename: a reader never sees half a file,
  // and two cordons storing at once both leave a whole one.
  std::string tmp = fmt::format("{}.{}.tmp", path, ::getpid());
  ::unlink(tmp.c_str());  // left by a crashed cordon that had our pid
  util::Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd) return util::sys_error("create " + tmp);
  std::string text = render(key, grade);
  ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    int err = n < 0 ? errno : ENOSPC;  // a short write to a regular file: out of space
    ::unlink(tmp.c_str());
    return util::sys_error("write " + tmp, err);
  }
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) < 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return util::sys_error("rename " + tmp, err);
  }
  return {};
}

}  // namespace cordon::enforcer
