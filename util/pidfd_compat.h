// PIDFD_GET_INFO (Linux 6.15), newer than Debian 12's kernel headers. The
// layout is the kernel's ABI, version 0 (64 bytes): the ioctl's size field
// tells the kernel which version the caller knows.
#pragma once

#include <linux/types.h>
#include <sys/ioctl.h>

namespace cordon::util {

struct PidfdInfoV0 {
  __u64 mask;
  __u64 cgroupid;
  __u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  __s32 exit_code;  // a wait status; valid once the process has been reaped
};
static_assert(sizeof(PidfdInfoV0) == 64);

inline constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfoV0);
inline constexpr __u64 kPidfdInfoExit = 1ULL << 3;

}  // namespace cordon::util
