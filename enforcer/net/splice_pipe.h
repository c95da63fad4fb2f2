// SplicePipe: the kernel buffer one direction of a relayed connection
// splices through (socket -> pipe -> socket), so bytes never pass through
// user space.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>

#include "util/fd.h"

namespace cordon::enforcer::net {

// The most one splice moves, and the pipe's size: 512 KiB measured a third
// faster than 128 KiB in bench/net_bench.sh and no slower than 1 MiB, which
// is also the most an unprivileged user may ask for (fs.pipe-max-size). If
// the kernel refuses (the user's pipe quota spent), the pipe keeps its
// default size and splices just move less at a time.
inline constexpr size_t kRelayBuffer = 512 * 1024;

// The kernel buffer a relay direction splices through.
class SplicePipe {
 public:
  bool ready() const { return read_.valid(); }
  bool open() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    read_.reset(p[0]);
    write_.reset(p[1]);
    // As large as one splice moves, so a full read fits.
    ::fcntl(p[1], F_SETPIPE_SZ, static_cast<int>(kRelayBuffer));
    return true;
  }
  int read_end() const { return read_.get(); }
  int write_end() const { return write_.get(); }

 private:
  util::Fd read_, write_;
};

}  // namespace cordon::enforcer::net
