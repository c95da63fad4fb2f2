#include "tracer/filter.h"

#include <seccomp.h>

#include <memory>
#include <string>

#include "tracer/syscall_table.h"

namespace cordon::tracer {

using util::Error;
using util::Result;

namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

Error seccomp_error(const std::string& call, int rc) {
  return util::sys_error(call, -rc);
}

}  // namespace

Result<util::Fd> install_notify_filter() {
  std::unique_ptr<void, CtxDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return Error{"seccomp_init: failed"};
  // A foreign ABI (i386 int 0x80, x32) would reach the kernel with argument
  // layouts the supervisor cannot decode: kill rather than run untraced.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
      rc < 0) {
    return seccomp_error("seccomp_attr_set(BADARCH)", rc);
  }
  // Every system call of the sandboxed program runs this filter: a binary
  // tree of syscall numbers instead of a linear list keeps that cheap.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc < 0) {
    return seccomp_error("seccomp_attr_set(OPTIMIZE)", rc);
  }
  for (const auto& spec : watched_syscalls()) {
    int nr = seccomp_syscall_resolve_name(std::string(spec.name).c_str());
    if (nr == __NR_SCMP_ERROR || nr < 0) continue;
    int rc;
    if (spec.skip_arg >= 0) {
      scmp_arg_cmp cmp =
          SCMP_CMP(static_cast<unsigned>(spec.skip_arg), SCMP_CMP_MASKED_EQ, spec.skip_mask, 0);
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_NOTIFY, nr, 1, &cmp);
    } else {
      rc = seccomp_rule_add(ctx.get(), SCMP_ACT_NOTIFY, nr, 0);
    }
    if (rc < 0) return seccomp_error("seccomp_rule_add(" + std::string(spec.name) + ")", rc);
  }
  if (int rc = seccomp_load(ctx.get()); rc < 0) return seccomp_error("seccomp_load", rc);
  int fd = seccomp_notify_fd(ctx.get());
  if (fd < 0) return seccomp_error("seccomp_notify_fd", fd);
  return util::Fd(fd);
}

}  // namespace cordon::tracer
