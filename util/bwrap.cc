#include "util/bwrap.h"

#include <unistd.h>

#include <cstdlib>

namespace cordon::util {

Result<std::string> find_bwrap() {
  if (const char* env = std::getenv("CORDON_BWRAP"); env && *env) {
    std::string path(env);
    if (path.front() != '/')
      return Error{"CORDON_BWRAP must be an absolute path, not " + path, EINVAL};
    if (::access(path.c_str(), X_OK) != 0) return sys_error("bwrap " + path);
    return path;
  }
  for (const char* candidate : {"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"}) {
    if (::access(candidate, X_OK) == 0) return std::string(candidate);
  }
  return Error{
      "bwrap not found in /usr/bin, /usr/local/bin or /bin: install bubblewrap "
      "(apt-get install bubblewrap)",
      ENOENT};
}

}  // namespace cordon::util
