#include "enforcer/seccomp_policy.h"

#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <string>

namespace cordon::enforcer {

using util::Error;

namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

// Refused outright, with the errno a program is best prepared for.
struct Refusal {
  const char* name;
  int err;
};

constexpr Refusal kRefused[] = {
    // Reshaping the filesystem view: a sandboxed process with a user
    // namespace of its own could otherwise unmount a deny and see beneath.
    {"mount", EPERM},
    {"umount", EPERM},
    {"umount2", EPERM},
    {"pivot_root", EPERM},
    {"chroot", EPERM},
    {"open_tree", EPERM},
    {"move_mount", EPERM},
    {"fsopen", EPERM},
    {"fsconfig", EPERM},
    {"fsmount", EPERM},
    {"fspick", EPERM},
    {"mount_setattr", EPERM},
    // New namespaces or joining others: the way to get the capabilities the
    // calls above would need.
    {"unshare", EPERM},
    {"setns", EPERM},
    // clone3 passes its flags in memory, where a filter cannot look; ENOSYS
    // makes libc fall back to clone, whose flags are checked below.
    {"clone3", ENOSYS},
    // The kernel keyring is not namespaced: keys would leak between
    // sandboxes and the host session.
    {"keyctl", EPERM},
    {"add_key", EPERM},
    {"request_key", EPERM},
    // Kernel-wide observation and other processes' memory.
    {"perf_event_open", EPERM},
    {"ptrace", EPERM},
    {"process_vm_writev", EPERM},
    // io_uring has a history of sandbox escapes and bypasses seccomp
    // argument checks; programs fall back to plain system calls on ENOSYS.
    {"io_uring_setup", ENOSYS},
    {"io_uring_enter", ENOSYS},
    {"io_uring_register", ENOSYS},
    // Kernel attack surface no sandboxed program needs.
    {"bpf", EPERM},
    {"userfaultfd", EPERM},
    {"kexec_load", EPERM},
    {"kexec_file_load", EPERM},
    {"init_module", EPERM},
    {"finit_module", EPERM},
    {"delete_module", EPERM},
    {"acct", EPERM},
    {"swapon", EPERM},
    {"swapoff", EPERM},
    {"reboot", EPERM},
    {"syslog", EPERM},
    {"quotactl", EPERM},
    {"lookup_dcookie", EPERM},
    {"name_to_handle_at", EPERM},
    {"open_by_handle_at", EPERM},
};

Error seccomp_error(const std::string& call, int rc) {
  return util::sys_error(call, -rc);
}

}  // namespace

util::Result<util::Fd> build_run_filter() {
  std::unique_ptr<void, CtxDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return Error{"seccomp_init: failed"};
  // A foreign ABI (i386 `int 0x80`, x32) reaches the kernel around every
  // rule below: kill the process instead.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
      rc < 0) {
    return seccomp_error("seccomp_attr_set", rc);
  }
  // Every system call of the sandboxed program runs this filter: a binary
  // tree of syscall numbers instead of a linear list keeps that cheap.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc < 0) {
    return seccomp_error("seccomp_attr_set(OPTIMIZE)", rc);
  }
  for (const auto& r : kRefused) {
    int nr = seccomp_syscall_resolve_name(r.name);
    if (nr == __NR_SCMP_ERROR || nr < 0) continue;
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(r.err), nr, 0); rc < 0) {
      return seccomp_error(std::string("seccomp_rule_add(") + r.name + ")", rc);
    }
  }
  // TIOCSTI pushes characters into the terminal's input queue, to be run by
  // the user's shell once the sandbox exits; TIOCLINUX can do the same on a
  // virtual console. The kernel compares only the low 32 bits of the request,
  // so the rule does too, or setting a high bit would slip past.
  for (unsigned long request :
       {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request);
    if (int rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &cmp);
        rc < 0) {
      return seccomp_error("seccomp_rule_add(ioctl)", rc);
    }
  }
  // clone creating a namespace: one rule per flag, since a masked compare
  // tests a single pattern.
  for (unsigned long flag : {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
                             CLONE_NEWUTS, CLONE_NEWCGROUP}) {
    scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
    if (int rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, &cmp);
        rc < 0) {
      return seccomp_error("seccomp_rule_add(clone)", rc);
    }
  }
  util::Fd fd(::memfd_create("cordon-seccomp", MFD_CLOEXEC));
  if (!fd) return util::sys_error("memfd_create");
  if (int rc = seccomp_export_bpf(ctx.get(), fd.get()); rc < 0)
    return seccomp_error("seccomp_export_bpf", rc);
  if (::lseek(fd.get(), 0, SEEK_SET) < 0) return util::sys_error("lseek");
  return fd;
}

}  // namespace cordon::enforcer
