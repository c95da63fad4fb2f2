// The seccomp filter every enforced sandbox runs under, built with
// libseccomp and handed to bwrap (`--seccomp FD`), which loads it just before
// it execs the command. Each rule, with its reason, is listed in
// docs/enforcement-model.md.
#pragma once

#include "util/fd.h"
#include "util/result.h"

namespace cordon::enforcer {

// The compiled BPF program in a sealed-to-us memfd positioned at 0, ready to
// be inherited by bwrap.
util::Result<util::Fd> build_run_filter();

}  // namespace cordon::enforcer
