// check_command: "command not found" said by cordon, before bwrap, which
// would report it only as its own exit status 1.
#include <sys/stat.h>
#include <unistd.h>

#include "enforcer/enforcer.h"
#include "util/path.h"

namespace cordon::enforcer {

namespace {

bool visible(const schema::EffectivePolicy& policy, const std::string& path) {
  auto kind = policy.decide(path).kind;
  return kind == schema::AccessKind::kReadable || kind == schema::AccessKind::kWritable;
}

// 0 when `path` is an executable file the sandbox sees, else the errno.
int try_path(const RunRequest& req, const std::string& path) {
  struct stat st;
  if (!visible(*req.policy, path) || ::stat(path.c_str(), &st) != 0) return ENOENT;
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return EACCES;
  return 0;
}

}  // namespace

util::Status check_command(const RunRequest& req) {
  const std::string& name = req.command.front();
  if (name.find('/') != std::string::npos) {
    int err = try_path(req, util::join_path(req.cwd, name));
    if (err == ENOENT)
      return util::Error{util::printable(name) + ": not found in the sandbox", ENOENT};
    if (err == EACCES) return util::Error{util::printable(name) + ": not executable", EACCES};
    return {};
  }
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& entry : req.environ) {
    if (entry.rfind("PATH=", 0) == 0) path = entry.substr(5);
  }
  int result = ENOENT;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || dir.front() != '/') continue;
    int err = try_path(req, util::join_path(dir, name));
    if (err == 0) return {};
    if (err == EACCES) result = EACCES;
  }
  if (result == EACCES) return util::Error{util::printable(name) + ": not executable", EACCES};
  return util::Error{util::printable(name) + ": command not found", ENOENT};
}

}  // namespace cordon::enforcer
