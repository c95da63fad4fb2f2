#include "enforcer/seccomp_probe.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "util/fd.h"
#include "util/process.h"
#include "util/seccomp_compat.h"

namespace cordon::enforcer {

namespace {

// In the child: the filter stays with it and dies with it. getppid is the
// watched call because nothing between here and _exit makes it; a watched
// call with nobody serving the listener would block forever.
SeccompSupport try_notify_filter() {
  SeccompSupport s;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    s.notify_errno = ENOMEM;
    return s;
  }
  int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(getppid), 0);
  if (rc == 0) rc = seccomp_load(ctx);
  if (rc == 0) rc = seccomp_notify_fd(ctx);
  if (rc < 0) {
    s.notify_errno = -rc;
    return s;
  }
  s.sync_wakeup_errno =
      ::ioctl(rc, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0 ? 0
                                                                                          : errno;
  return s;
}

}  // namespace

util::Result<SeccompSupport> probe_seccomp() {
  unsigned level = seccomp_api_get();
  if (level < 5) return SeccompSupport{level, ENOSYS, -1};
  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) return util::sys_error("pipe2");
  util::Fd rd(p[0]), wr(p[1]);
  pid_t pid = ::fork();
  if (pid < 0) return util::sys_error("fork");
  if (pid == 0) {
    SeccompSupport s = try_notify_filter();
    (void)!::write(wr.get(), &s, sizeof s);
    ::_exit(0);
  }
  util::Child child(pid);
  wr.reset();
  SeccompSupport s;
  ssize_t n;
  while ((n = ::read(rd.get(), &s, sizeof s)) < 0 && errno == EINTR) {
  }
  auto status = child.wait();
  if (!status.ok()) return status.error();
  if (n != sizeof s) return util::Error{"seccomp probe: the child ended without reporting", EIO};
  s.api_level = level;
  return s;
}

}  // namespace cordon::enforcer
