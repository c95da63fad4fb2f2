// Whether this kernel and libseccomp can do what learn mode needs: a filter
// that hands syscalls to a user-space listener, and (optionally) the
// synchronous wake-up that makes serving it cheap. Found by loading such a
// filter in a throwaway child, since an API level says what libseccomp
// knows, not what the running kernel will accept.
#pragma once

#include "util/result.h"

namespace cordon::enforcer {

struct SeccompSupport {
  unsigned api_level = 0;      // seccomp_api_get(); 5 or more knows user notification
  int notify_errno = 0;        // 0: a NOTIFY filter loaded and gave a listener fd
  int sync_wakeup_errno = -1;  // 0: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP accepted; -1: not tried
};

// Errors: the child could not be forked or died without reporting. The child
// runs libseccomp (which allocates) after fork, so call this before starting
// threads.
util::Result<SeccompSupport> probe_seccomp();

}  // namespace cordon::enforcer
