// Supervisor: answers every notification from the learn-mode filter.
//
// Contract: every notification received is answered, on every path (an
// unanswered one would leave a traced thread blocked for good), and every
// call is let through (SECCOMP_USER_NOTIF_FLAG_CONTINUE) after it has been
// recorded, except io_uring_setup, which is refused with ENOSYS because the
// I/O it would carry never passes through the filter.
//
// Two threads: the receiver blocks in SECCOMP_IOCTL_NOTIF_RECV and nothing
// else, because the sync wake-up hands the CPU straight from the traced
// thread to a thread blocked there (an epoll waiter in between would lose
// that hint); the reaper waits on the pidfds of traced processes to record
// their ends. The process table is shared under a mutex.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "tracer/auditor.h"
#include "tracer/process_table.h"
#include "tracer/trace_writer.h"
#include "util/fd.h"

struct seccomp_notif;
struct seccomp_notif_resp;

namespace cordon::tracer {

// Turns on SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP where the kernel has it (6.6+:
// the traced thread and the supervisor then hand the CPU to each other
// instead of waking through the scheduler); returns whether it is on.
bool enable_sync_wakeup(int listener);

class Supervisor {
 public:
  // `ignore_pid` is the shim, whose own calls are not the command's. With an
  // `auditor` (audited runs), only the calls it judges refused are recorded;
  // processes are recorded either way.
  Supervisor(util::Fd listener, pid_t ignore_pid, TraceWriter& writer,
             std::chrono::steady_clock::time_point start, const Auditor* auditor = nullptr);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  void start();
  // Call once every traced process has ended: records their ends and joins.
  void stop();

  uint64_t events() const { return events_.load(std::memory_order_relaxed); }
  uint64_t processes() const { return processes_.load(std::memory_order_relaxed); }

 private:
  void receive_loop();
  void reap_loop();
  void handle_notification();
  void process_ended(pid_t tgid);
  void confirm_exec(TracedProcess& p);
  int64_t now_ns() const;

  util::Fd listener_;
  pid_t ignore_pid_;
  TraceWriter& writer_;
  std::chrono::steady_clock::time_point start_;
  const Auditor* auditor_;
  util::Fd epoll_;  // the reaper's: pidfds and the stop event
  util::Fd stop_event_;
  std::mutex table_mu_;
  ProcessTable table_;
  seccomp_notif* req_ = nullptr;
  seccomp_notif_resp* resp_ = nullptr;
  size_t notif_size_ = 0;
  int64_t seq_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> receiver_done_{false};
  std::atomic<uint64_t> events_{0};
  std::atomic<uint64_t> processes_{0};
  std::thread receiver_;
  std::thread reaper_;
};

}  // namespace cordon::tracer
