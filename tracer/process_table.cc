#include "tracer/process_table.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/remote.h"

namespace cordon::tracer {

using util::Result;

Result<TracedProcess*> ProcessTable::lookup(pid_t tid, bool& is_new) {
  is_new = false;
  if (auto it = tgid_of_.find(tid); it != tgid_of_.end()) {
    if (auto p = by_tgid_.find(it->second); p != by_tgid_.end()) return &p->second;
    tgid_of_.erase(it);
  }
  auto status = read_task_status(tid);
  if (!status) return status.error();
  auto it = by_tgid_.find(status->tgid);
  if (it == by_tgid_.end()) {
    TracedProcess p;
    p.tgid = status->tgid;
    p.ppid = status->ppid;
    std::string dir = "/proc/" + std::to_string(p.tgid);
    p.procdir.reset(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!p.procdir) return util::sys_error("open " + dir);
    p.root.reset(::openat(p.procdir.get(), "root", O_PATH | O_DIRECTORY | O_CLOEXEC));
    p.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, p.tgid, 0)));
    if (!p.pidfd) return util::sys_error("pidfd_open");
    it = by_tgid_.emplace(p.tgid, std::move(p)).first;
    is_new = true;
  }
  it->second.tids.push_back(tid);
  tgid_of_[tid] = status->tgid;
  return &it->second;
}

TracedProcess* ProcessTable::find_by_tgid(pid_t tgid) {
  auto it = by_tgid_.find(tgid);
  return it == by_tgid_.end() ? nullptr : &it->second;
}

std::optional<TracedProcess> ProcessTable::remove(pid_t tgid) {
  auto it = by_tgid_.find(tgid);
  if (it == by_tgid_.end()) return std::nullopt;
  for (pid_t tid : it->second.tids) tgid_of_.erase(tid);
  TracedProcess p = std::move(it->second);
  by_tgid_.erase(it);
  return p;
}

std::vector<pid_t> ProcessTable::tgids() const {
  std::vector<pid_t> out;
  for (const auto& [tgid, p] : by_tgid_) out.push_back(tgid);
  return out;
}

Result<std::string> thread_cwd(const TracedProcess& p, pid_t tid) {
  if (tid == p.tgid) return read_proc_link(p.procdir.get(), "cwd");
  return read_proc_link(p.procdir.get(), "task/" + std::to_string(tid) + "/cwd");
}

Result<std::string> fd_target(const TracedProcess& p, int fd) {
  return read_proc_link(p.procdir.get(), "fd/" + std::to_string(fd));
}

}  // namespace cordon::tracer
