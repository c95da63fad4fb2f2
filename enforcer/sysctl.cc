#include "enforcer/sysctl.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "util/fd.h"

namespace cordon::enforcer {

std::optional<long> read_sysctl(const char* path) {
  util::Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[32] = {};
  if (::read(fd.get(), buf, sizeof buf - 1) <= 0) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(buf, &end, 10);
  if (end == buf) return std::nullopt;
  return v;
}

}  // namespace cordon::enforcer
