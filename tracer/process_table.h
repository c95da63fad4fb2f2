// ProcessTable: what the supervisor knows about each traced process.
//
// A process enters on its first notification (there is no fork
// notification: seccomp reports calls, not process creation) and leaves when
// its pidfd reports that it ended. Notifications carry thread ids in the
// supervisor's pid namespace; the table maps them to their thread group.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "util/fd.h"
#include "util/result.h"

namespace cordon::tracer {

// An exec seen but not yet known to have worked: the call is let through,
// so only the process's next call shows whether it now runs the new image.
struct PendingExec {
  std::string path;
  std::vector<std::string> argv;
  dev_t dev = 0;
  ino_t ino = 0;
};

struct TracedProcess {
  pid_t tgid = 0;
  pid_t ppid = 0;
  util::Fd procdir;  // /proc/<tgid>, O_PATH: stays bound to this process
  util::Fd root;     // its root directory, for existence checks
  util::Fd pidfd;    // readable once the process has ended
  std::vector<pid_t> tids;
  std::optional<int> exit_group_code;
  std::optional<PendingExec> pending_exec;
};

class ProcessTable {
 public:
  // The process of thread `tid`, registering it on first sight (`is_new`).
  // Fails when the thread is already gone.
  util::Result<TracedProcess*> lookup(pid_t tid, bool& is_new);
  TracedProcess* find_by_tgid(pid_t tgid);
  // Forgets the process and its threads; returns it so the caller can read
  // its last facts.
  std::optional<TracedProcess> remove(pid_t tgid);
  size_t size() const { return by_tgid_.size(); }
  std::vector<pid_t> tgids() const;

 private:
  std::unordered_map<pid_t, pid_t> tgid_of_;
  std::unordered_map<pid_t, TracedProcess> by_tgid_;
};

// The working directory of thread `tid` of `p`.
util::Result<std::string> thread_cwd(const TracedProcess& p, pid_t tid);
// What descriptor `fd` of `p` refers to.
util::Result<std::string> fd_target(const TracedProcess& p, int fd);

}  // namespace cordon::tracer
