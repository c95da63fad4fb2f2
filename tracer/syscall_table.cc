#include "tracer/syscall_table.h"

#include <fcntl.h>
#include <seccomp.h>

#include <string>
#include <unordered_map>

namespace cordon::tracer {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kOpen:
      return "open";
    case Op::kExec:
      return "exec";
    case Op::kConnect:
      return "connect";
    case Op::kList:
      return "list";
    case Op::kCreate:
      return "create";
    case Op::kLink:
      return "link";
    case Op::kRemove:
      return "remove";
    case Op::kRename:
      return "rename";
    case Op::kModify:
      return "modify";
    case Op::kStat:
      return "stat";
    case Op::kChdir:
      return "chdir";
    case Op::kRefused:
      return "refused";
    case Op::kExit:
      return "exit";
  }
  return "?";
}

namespace {

SyscallSpec path_call(std::string_view name, Op op, int8_t path) {
  SyscallSpec s{name, op};
  s.path = path;
  return s;
}

SyscallSpec at_call(std::string_view name, Op op, int8_t dirfd, int8_t path) {
  SyscallSpec s{name, op};
  s.dirfd = dirfd;
  s.path = path;
  return s;
}

std::vector<SyscallSpec> build_table() {
  std::vector<SyscallSpec> t;
  auto add = [&](SyscallSpec s, auto&&... setters) {
    (setters(s), ...);
    t.push_back(s);
  };
  auto flags = [](int8_t i, FlagsKind k) {
    return [=](SyscallSpec& s) { s.flags = i, s.flags_kind = k; };
  };
  auto mode = [](int8_t i) { return [=](SyscallSpec& s) { s.mode = i; }; };
  auto second = [](int8_t dirfd2, int8_t path2) {
    return [=](SyscallSpec& s) { s.dirfd2 = dirfd2, s.path2 = path2; };
  };
  auto skip_empty_path = [](int8_t arg) {
    return [=](SyscallSpec& s) { s.skip_arg = arg, s.skip_mask = AT_EMPTY_PATH; };
  };

  // Opening and running.
  add(path_call("open", Op::kOpen, 0), flags(1, FlagsKind::kOpen), mode(2));
  add(at_call("openat", Op::kOpen, 0, 1), flags(2, FlagsKind::kOpen), mode(3));
  add(at_call("openat2", Op::kOpen, 0, 1), flags(2, FlagsKind::kOpenHow));
  add(path_call("creat", Op::kOpen, 0), flags(-1, FlagsKind::kCreat), mode(1));
  add(path_call("execve", Op::kExec, 0), [](SyscallSpec& s) { s.argv = 1; });
  add(at_call("execveat", Op::kExec, 0, 1), flags(4, FlagsKind::kAt),
      [](SyscallSpec& s) { s.argv = 2; });
  add(SyscallSpec{"connect", Op::kConnect}, [](SyscallSpec& s) { s.fd = 0; });
  // Listing.
  add(SyscallSpec{"getdents64", Op::kList}, [](SyscallSpec& s) { s.fd = 0; });
  add(SyscallSpec{"getdents", Op::kList}, [](SyscallSpec& s) { s.fd = 0; });
  // Creating a name.
  add(path_call("mkdir", Op::kCreate, 0), mode(1));
  add(at_call("mkdirat", Op::kCreate, 0, 1), mode(2));
  add(path_call("mknod", Op::kCreate, 0), mode(1));
  add(at_call("mknodat", Op::kCreate, 0, 1), mode(2));
  add(path_call("symlink", Op::kCreate, 1), second(-1, 0),
      [](SyscallSpec& s) { s.path2_is_link_text = true; });
  add(at_call("symlinkat", Op::kCreate, 1, 2), second(-1, 0),
      [](SyscallSpec& s) { s.path2_is_link_text = true; });
  add(path_call("link", Op::kLink, 0), second(-1, 1));
  add(at_call("linkat", Op::kLink, 0, 1), second(2, 3), flags(4, FlagsKind::kAt));
  // Removing one.
  add(path_call("unlink", Op::kRemove, 0));
  add(at_call("unlinkat", Op::kRemove, 0, 1), flags(2, FlagsKind::kAt));
  add(path_call("rmdir", Op::kRemove, 0));
  // Moving one.
  add(path_call("rename", Op::kRename, 0), second(-1, 1));
  add(at_call("renameat", Op::kRename, 0, 1), second(2, 3));
  add(at_call("renameat2", Op::kRename, 0, 1), second(2, 3), flags(4, FlagsKind::kRename));
  // Changing a file in place.
  add(path_call("truncate", Op::kModify, 0));
  add(path_call("chmod", Op::kModify, 0), mode(1));
  add(at_call("fchmodat", Op::kModify, 0, 1), mode(2));
  add(at_call("fchmodat2", Op::kModify, 0, 1), mode(2), flags(3, FlagsKind::kAt));
  add(path_call("chown", Op::kModify, 0));
  add(path_call("lchown", Op::kModify, 0));
  add(at_call("fchownat", Op::kModify, 0, 1), flags(4, FlagsKind::kAt), skip_empty_path(4));
  add(at_call("utimensat", Op::kModify, 0, 1), flags(3, FlagsKind::kAt));
  add(at_call("futimesat", Op::kModify, 0, 1));
  add(path_call("setxattr", Op::kModify, 0));
  add(path_call("lsetxattr", Op::kModify, 0));
  add(path_call("removexattr", Op::kModify, 0));
  add(path_call("lremovexattr", Op::kModify, 0));
  // Looking without reading.
  add(path_call("stat", Op::kStat, 0));
  add(path_call("lstat", Op::kStat, 0));
  add(at_call("newfstatat", Op::kStat, 0, 1), flags(3, FlagsKind::kAt), skip_empty_path(3));
  add(at_call("statx", Op::kStat, 0, 1), flags(2, FlagsKind::kAt), skip_empty_path(2));
  add(path_call("access", Op::kStat, 0), mode(1));
  add(at_call("faccessat", Op::kStat, 0, 1), mode(2));
  add(at_call("faccessat2", Op::kStat, 0, 1), mode(2), flags(3, FlagsKind::kAt));
  add(path_call("readlink", Op::kStat, 0));
  add(at_call("readlinkat", Op::kStat, 0, 1));
  add(path_call("getxattr", Op::kStat, 0));
  add(path_call("lgetxattr", Op::kStat, 0));
  add(path_call("listxattr", Op::kStat, 0));
  add(path_call("llistxattr", Op::kStat, 0));
  // The working directory, so later relative names resolve.
  add(path_call("chdir", Op::kChdir, 0));
  add(SyscallSpec{"fchdir", Op::kChdir}, [](SyscallSpec& s) { s.fd = 0; });
  add(SyscallSpec{"io_uring_setup", Op::kRefused});
  add(SyscallSpec{"exit_group", Op::kExit});
  return t;
}

}  // namespace

const std::vector<SyscallSpec>& watched_syscalls() {
  static const std::vector<SyscallSpec> table = build_table();
  return table;
}

const SyscallSpec* spec_for(int nr) {
  static const std::unordered_map<int, const SyscallSpec*> by_nr = [] {
    std::unordered_map<int, const SyscallSpec*> m;
    for (const auto& s : watched_syscalls()) {
      int n = seccomp_syscall_resolve_name(std::string(s.name).c_str());
      if (n != __NR_SCMP_ERROR && n >= 0) m.emplace(n, &s);
    }
    return m;
  }();
  auto it = by_nr.find(nr);
  return it == by_nr.end() ? nullptr : it->second;
}

}  // namespace cordon::tracer
