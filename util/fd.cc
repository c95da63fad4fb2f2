#include "util/fd.h"

#include <unistd.h>

namespace cordon::util {

void Fd::reset(int fd) {
  // close() is not retried on EINTR: on Linux the descriptor is released
  // either way, and a retry could close a descriptor another thread just got.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace cordon::util
