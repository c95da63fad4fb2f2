// The watched system calls and where each keeps its arguments.
//
// One table drives both sides: the shim builds its seccomp filter from the
// names, and the supervisor decodes a notification by looking up the number.
// Names this architecture lacks (aarch64 has only the *at forms) resolve to
// nothing and are skipped, never refused.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cordon::tracer {

// Operation classes recorded in the trace's `op` column.
enum class Op : uint8_t {
  kOpen,     // open, openat, openat2, creat
  kExec,     // execve, execveat
  kConnect,  // connect
  kList,     // getdents, getdents64
  kCreate,   // mkdir(at), mknod(at), symlink(at)
  kLink,     // link(at): a new name for an existing file
  kRemove,   // unlink(at), rmdir
  kRename,   // rename, renameat, renameat2
  kModify,   // truncate, chmod, chown, utimes, xattr writes: in place
  kStat,     // stat family, access, readlink, xattr reads: looking only
  kChdir,    // chdir, fchdir
  kRefused,  // io_uring_setup: answered ENOSYS, since its I/O is invisible here
  kExit,     // exit_group: feeds the process table, not an event
};
std::string_view op_name(Op op);

// How to read the `flags` argument.
enum class FlagsKind : uint8_t { kNone, kOpen, kOpenHow, kAt, kRename, kCreat };

// Argument indexes; -1 when the call has no such argument.
struct SyscallSpec {
  std::string_view name;
  Op op;
  int8_t dirfd = -1;  // directory of `path`; AT_FDCWD when absent
  int8_t path = -1;
  int8_t dirfd2 = -1;  // directory of `path2`
  int8_t path2 = -1;   // second path: rename/link destination, symlink target
  int8_t fd = -1;      // the object itself when the call names no path
  int8_t flags = -1;
  FlagsKind flags_kind = FlagsKind::kNone;
  int8_t mode = -1;  // creation mode, chmod mode or access() mode bits
  int8_t argv = -1;  // exec argv
  // seccomp filter: only notify when (arg[skip_arg] & skip_mask) == 0. Used to
  // pass fstat()-style calls (AT_EMPTY_PATH on an fd that was recorded when it
  // was opened) straight through: they are the most frequent call and name
  // nothing new.
  int8_t skip_arg = -1;
  uint64_t skip_mask = 0;
  // symlink(target, linkpath): path2 is the link's text, resolved against the
  // directory of the new link rather than the cwd.
  bool path2_is_link_text = false;
};

const std::vector<SyscallSpec>& watched_syscalls();

// The spec for a native syscall number, or nullptr when it is not watched.
// Built once from libseccomp's name resolution.
const SyscallSpec* spec_for(int nr);

}  // namespace cordon::tracer
