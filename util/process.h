// Child: sole owner of a child process. A Child that still runs when its
// owner goes away is killed and reaped, so no error path leaks a process.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/result.h"

namespace cordon::util {

// Decoded wait status in the shell's convention.
struct ExitStatus {
  int code = 0;    // exit code, or 128+signal
  int signal = 0;  // terminating signal, 0 when it exited
};
ExitStatus decode_wait_status(int status);

class Child {
 public:
  Child() = default;
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // Blocks until the child ends; retries EINTR.
  Result<ExitStatus> wait();
  // Non-blocking: the status once it has ended, nothing while it runs.
  Result<bool> try_wait(ExitStatus& out);
  void kill(int sig) const;

 private:
  pid_t pid_ = -1;
};

// In a forked child before exec: empty signal mask, default dispositions, so
// the exec'd program starts as if from a shell.
void reset_signals_for_exec();

// Starts `argv[0]` (an absolute path, never looked up in PATH) with every
// signal disposition and the signal mask reset. Fails if the exec itself
// fails. Without `keep_fds`, descriptors reach the child if they lack
// O_CLOEXEC; with it, exactly 0, 1, 2 and `keep_fds` do, whatever the caller
// inherited.
Result<Child> spawn(const std::vector<std::string>& argv);
Result<Child> spawn(const std::vector<std::string>& argv, const std::vector<int>& keep_fds);

}  // namespace cordon::util
