#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "schema/policy/policy.h"
#include "util/fd.h"
#include "util/path.h"

namespace cordon::schema {
namespace {

// Policies are a few hundred lines; a bigger file is a mistake (or a device
// someone pointed us at) and is not worth reading into memory.
constexpr off_t kMaxPolicySize = 1 << 20;

util::Error cannot_read(const std::string& path, std::string_view why, int err) {
  return util::Error{fmt::format("{}: cannot read: {}", util::printable(path), why), err};
}

util::Result<std::string> read_text(const std::string& path, bool refuse_symlink) {
  if (path.find('\0') != std::string::npos)
    return cannot_read(path, "name contains a NUL byte", EINVAL);
  // O_NONBLOCK so a FIFO planted at the path cannot hang us in open().
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (refuse_symlink ? O_NOFOLLOW : 0);
  util::Fd fd(::open(path.c_str(), flags));
  if (!fd) {
    if (refuse_symlink && errno == ELOOP) {
      return util::Error{
          fmt::format("{}: refusing a workspace policy that is a symlink", util::printable(path)),
          ELOOP};
    }
    return util::sys_error(util::printable(path) + ": cannot read");
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return util::sys_error(util::printable(path) + ": cannot read");
  if (!S_ISREG(st.st_mode)) return cannot_read(path, "not a regular file", EINVAL);
  if (st.st_size > kMaxPolicySize) return cannot_read(path, "larger than 1 MiB", EFBIG);

  std::string text;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return util::sys_error(util::printable(path) + ": cannot read");
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > static_cast<size_t>(kMaxPolicySize)) {
      return cannot_read(path, "larger than 1 MiB", EFBIG);
    }
  }
  return text;
}

util::Result<std::string> directory_of(const std::string& path) {
  if (!path.empty() && path.front() == '/') return util::parent_path(util::clean_path(path));
  std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  if (!cwd) return util::sys_error("getcwd");
  return util::parent_path(util::join_path(cwd.get(), path));
}

util::Result<Policy> load(const std::string& path, const std::string& home, bool refuse_symlink) {
  util::Result<std::string> text = read_text(path, refuse_symlink);
  if (!text) return text.error();
  util::Result<std::string> dir = directory_of(path);
  if (!dir) return dir.error();
  return parse_policy(*text, ParseContext{path, home, *dir});
}

}  // namespace

util::Result<Policy> load_policy_file(const std::string& path, const std::string& home) {
  return load(path, home, false);
}

util::Result<Policy> load_workspace_policy(const std::string& path, const std::string& home) {
  return load(path, home, true);
}

}  // namespace cordon::schema
