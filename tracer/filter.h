// The learn-mode seccomp filter, built with libseccomp.
#pragma once

#include "util/fd.h"
#include "util/result.h"

namespace cordon::tracer {

// Loads a filter on the calling thread that sends every watched syscall to a
// user-notification listener and allows everything else; returns the
// listener. Sets no_new_privs (libseccomp's default), so a setuid binary
// exec'd later runs with the caller's privileges.
//
// Ordering: after this returns, every watched call the caller makes blocks
// until a supervisor answers, so the caller must hand the listener out
// before making one.
util::Result<util::Fd> install_notify_filter();

}  // namespace cordon::tracer
