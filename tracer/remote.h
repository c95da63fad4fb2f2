// Reading another process's arguments: its memory (process_vm_readv) and
// what /proc says about it.
//
// Everything read here may change under us: a sibling thread can rewrite a
// path after we read it. The supervisor re-checks that the notification is
// still valid afterwards, which proves the task is still blocked in this
// call, but not that the memory is unchanged. Drafts are proposals for a
// person for this reason (docs/learn-rules.md).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace cordon::tracer {

inline constexpr size_t kMaxPath = 4096;  // PATH_MAX, counting the NUL

// A NUL-terminated string at `addr`. Errors: EFAULT for an unreadable
// pointer, ENAMETOOLONG when no NUL comes within `max` bytes.
util::Result<std::string> read_remote_string(pid_t tid, uint64_t addr, size_t max = kMaxPath);

// Exactly `len` bytes at `addr`.
util::Status read_remote_bytes(pid_t tid, uint64_t addr, void* out, size_t len);

// A NULL-terminated array of string pointers (argv), up to `max_items`.
util::Result<std::vector<std::string>> read_remote_argv(pid_t tid, uint64_t addr,
                                                        size_t max_items = 4096);

// Target of a symlink below a /proc/<pid> directory fd ("cwd", "fd/3").
util::Result<std::string> read_proc_link(int procdir, const std::string& name);

// Fields of /proc/<tid>/status that the process table needs.
struct TaskStatus {
  pid_t tgid = 0;
  pid_t ppid = 0;
};
util::Result<TaskStatus> read_task_status(pid_t tid);

// The wait status a zombie left in /proc/<pid>/stat, if it is still there.
std::optional<int> read_zombie_exit_status(int procdir);

// The wait status of a process already reaped (by its parent or the shim,
// before the zombie could be read), from its pidfd; Linux 6.15+.
std::optional<int> reaped_exit_status(int pidfd);

}  // namespace cordon::tracer
