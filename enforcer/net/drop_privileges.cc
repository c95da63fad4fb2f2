#include "enforcer/net/drop_privileges.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "util/fd.h"

namespace cordon::enforcer::net {

using util::Fd;

[[noreturn]] void setup_failed(const std::string& why) {
  fmt::print(stderr, "cordon: network setup failed: {}\n", why);
  std::fflush(stderr);
  ::_exit(125);
}

namespace {

void write_proc(const char* path, const std::string& text) {
  Fd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    setup_failed(fmt::format("write {}: {}", path, std::strerror(errno)));
  }
}

}  // namespace

// The command's own user namespace, nested in the one bwrap made (where
// this helper is uid 0 and holds CAP_NET_ADMIN over the network namespace),
// mapping the invoking user's uid and gid back in: the command runs as the
// user, and holds nothing over the network namespace even if it were to
// regain capabilities in its own.
//
// Then capabilities, gone for good: securebits locked so uid 0 regains
// nothing at exec, ambient set cleared, bounding set emptied (needs
// CAP_SETPCAP, so before the uid changes), permitted/effective/inheritable
// zeroed, no_new_privs. Checked after.
void enter_user_namespace_and_drop(uid_t uid, gid_t gid) {
  if (::unshare(CLONE_NEWUSER) != 0)
    setup_failed(fmt::format("unshare(CLONE_NEWUSER): {}", std::strerror(errno)));
  write_proc("/proc/self/setgroups", "deny");
  write_proc("/proc/self/uid_map", fmt::format("{} 0 1\n", uid));
  write_proc("/proc/self/gid_map", fmt::format("{} 0 1\n", gid));
  if (::prctl(PR_SET_SECUREBITS,
              SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
                  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                  SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
              0, 0, 0) != 0) {
    setup_failed(fmt::format("prctl(PR_SET_SECUREBITS): {}", std::strerror(errno)));
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
    setup_failed(fmt::format("prctl(PR_CAP_AMBIENT_CLEAR_ALL): {}", std::strerror(errno)));
  }
  for (int cap = 0; cap < 64; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;  // past the last capability this kernel has
      setup_failed(fmt::format("prctl(PR_CAPBSET_DROP, {}): {}", cap, std::strerror(errno)));
    }
  }
  if (::setresgid(gid, gid, gid) != 0)
    setup_failed(fmt::format("setresgid: {}", std::strerror(errno)));
  if (::setresuid(uid, uid, uid) != 0)
    setup_failed(fmt::format("setresuid: {}", std::strerror(errno)));
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &hdr, data) != 0)
    setup_failed(fmt::format("capset: {}", std::strerror(errno)));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    setup_failed(fmt::format("no_new_privs: {}", std::strerror(errno)));
  std::ifstream status("/proc/self/status");
  std::string line;
  int checked = 0;
  while (std::getline(status, line)) {
    for (const char* field : {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"}) {
      if (line.rfind(field, 0) != 0) continue;
      ++checked;
      if (line.find_first_not_of("0 \t", std::strlen(field)) != std::string::npos) {
        setup_failed("capabilities remain after dropping them: " + line);
      }
    }
  }
  if (checked != 5)
    setup_failed("cannot verify that capabilities were dropped (/proc/self/status)");
}

}  // namespace cordon::enforcer::net
