#include "util/memfd.h"

#include <sys/mman.h>
#include <unistd.h>

namespace cordon::util {

Result<Fd> memfd_with(const char* name, const std::string& contents) {
  Fd fd(::memfd_create(name, MFD_CLOEXEC));
  if (!fd) return sys_error("memfd_create");
  if (::write(fd.get(), contents.data(), contents.size()) !=
          static_cast<ssize_t>(contents.size()) ||
      ::lseek(fd.get(), 0, SEEK_SET) != 0) {
    return sys_error("memfd write");
  }
  return fd;
}

}  // namespace cordon::util
