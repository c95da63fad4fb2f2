#include "tracer/decoder.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>

#include "tracer/remote.h"
#include "util/path.h"

namespace cordon::tracer {

using schema::EventRecord;

namespace {

// Result of naming one path argument.
struct Named {
  std::optional<std::string> raw, abs;
  std::optional<bool> existed;
  std::optional<std::string> fault;
};

std::optional<bool> exists_in(const TracedProcess& p, const std::string& abs) {
  if (!p.root) return std::nullopt;
  struct stat st;
  const char* rel = abs.size() > 1 ? abs.c_str() + 1 : ".";
  if (::fstatat(p.root.get(), rel, &st, AT_SYMLINK_NOFOLLOW) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return std::nullopt;
}

// The directory a relative name is resolved against.
util::Result<std::string> base_dir(const TracedProcess& p, pid_t tid, int dirfd) {
  if (dirfd == AT_FDCWD) return thread_cwd(p, tid);
  auto target = fd_target(p, dirfd);
  if (!target) return target;
  if (target->empty() || target->front() != '/') {
    return util::Error{"dirfd " + std::to_string(dirfd) + " is not a directory (" + *target + ")"};
  }
  return target;
}

Named name_fd(const TracedProcess& p, int fd) {
  Named n;
  auto target = fd_target(p, fd);
  if (!target) {
    n.fault = "fd " + std::to_string(fd) + ": " + target.error().message;
  } else if (target->empty() || target->front() != '/') {
    n.raw = *target;  // socket:[..], pipe:[..], anon_inode:..
  } else {
    n.abs = *target;
    n.existed = true;
  }
  return n;
}

Named name_path(const TracedProcess& p, pid_t tid, uint64_t ptr, int dirfd, bool empty_means_fd) {
  Named n;
  auto raw = read_remote_string(tid, ptr);
  if (!raw) {
    n.fault = "path: " + raw.error().message;
    return n;
  }
  if (raw->empty()) {
    if (empty_means_fd && dirfd != AT_FDCWD) {
      Named f = name_fd(p, dirfd);
      f.raw = "";
      return f;
    }
    n.raw = "";
    n.existed = false;  // ENOENT without AT_EMPTY_PATH
    return n;
  }
  n.raw = *raw;
  if (raw->front() == '/') {
    n.abs = util::clean_path(*raw);
  } else {
    auto base = base_dir(p, tid, dirfd);
    if (!base) {
      n.fault = "base: " + base.error().message;
      return n;
    }
    n.abs = util::join_path(*base, *raw);
  }
  n.existed = exists_in(p, *n.abs);
  return n;
}

void decode_sockaddr(const TracedProcess& p, pid_t tid, uint64_t addr, uint64_t len,
                     EventRecord& ev) {
  sockaddr_storage ss{};
  len = std::min<uint64_t>(len, sizeof ss);
  if (len < sizeof(sa_family_t)) {
    ev.fault = "sockaddr: too short";
    return;
  }
  if (auto st = read_remote_bytes(tid, addr, &ss, len); !st) {
    ev.fault = "sockaddr: " + st.error().message;
    return;
  }
  char text[INET6_ADDRSTRLEN] = {};
  switch (ss.ss_family) {
    case AF_INET: {
      auto* in = reinterpret_cast<sockaddr_in*>(&ss);
      ev.net_family = "inet";
      ev.net_addr = inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
      ev.net_port = ntohs(in->sin_port);
      break;
    }
    case AF_INET6: {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
      ev.net_family = "inet6";
      ev.net_addr = inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      ev.net_port = ntohs(in6->sin6_port);
      break;
    }
    case AF_UNIX: {
      auto* un = reinterpret_cast<sockaddr_un*>(&ss);
      size_t n = len - offsetof(sockaddr_un, sun_path);
      if (n > 0 && un->sun_path[0] == '\0') {
        ev.net_family = "unix-abstract";
        ev.net_addr = std::string(un->sun_path + 1, n - 1);
        break;
      }
      std::string path(un->sun_path, strnlen(un->sun_path, n));
      ev.net_family = "unix";
      ev.net_addr = path;
      ev.path = path;
      if (!path.empty() && path.front() == '/') {
        ev.abs_path = util::clean_path(path);
      } else if (auto cwd = thread_cwd(p, tid)) {
        ev.abs_path = util::join_path(*cwd, path);
      }
      if (ev.abs_path) ev.existed = exists_in(p, *ev.abs_path);
      break;
    }
    default:
      ev.net_family = "family-" + std::to_string(ss.ss_family);
  }
}

void apply(const Named& n, std::optional<std::string>& raw, std::optional<std::string>& abs,
           std::optional<bool>& existed, std::optional<std::string>& fault) {
  raw = n.raw;
  abs = n.abs;
  existed = n.existed;
  if (n.fault && !fault) fault = n.fault;
}

}  // namespace

EventRecord decode_event(const seccomp_data& data, const SyscallSpec& spec, const TracedProcess& p,
                         pid_t tid) {
  EventRecord ev;
  ev.syscall = spec.name;
  ev.op = op_name(spec.op);
  const auto arg = [&](int i) { return data.args[i]; };
  const auto dirfd_of = [&](int i) { return i < 0 ? AT_FDCWD : static_cast<int>(arg(i)); };

  int64_t flags = 0;
  switch (spec.flags_kind) {
    case FlagsKind::kNone:
      break;
    case FlagsKind::kCreat:
      flags = O_CREAT | O_WRONLY | O_TRUNC;
      break;
    case FlagsKind::kOpenHow: {
      open_how how{};
      if (auto st = read_remote_bytes(tid, arg(spec.flags), &how, sizeof how.flags); st) {
        flags = static_cast<int64_t>(how.flags);
      } else {
        ev.fault = "open_how: " + st.error().message;
      }
      break;
    }
    default:
      flags = static_cast<int64_t>(static_cast<uint32_t>(arg(spec.flags)));
  }
  if (spec.flags_kind != FlagsKind::kNone) ev.flags = flags;
  // open's mode argument is garbage unless the call can create a file.
  const bool open_creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
  if (spec.mode >= 0 && (spec.op != Op::kOpen || open_creates)) {
    ev.mode = static_cast<int64_t>(static_cast<uint32_t>(arg(spec.mode)));
  }

  const bool at_empty = spec.flags_kind == FlagsKind::kAt && (flags & AT_EMPTY_PATH);
  if (spec.path >= 0) {
    int dirfd = dirfd_of(spec.dirfd);
    if (spec.name == "utimensat" && arg(spec.path) == 0) {
      apply(name_fd(p, dirfd), ev.path, ev.abs_path, ev.existed, ev.fault);  // futimens()
    } else {
      apply(name_path(p, tid, arg(spec.path), dirfd, at_empty), ev.path, ev.abs_path, ev.existed,
            ev.fault);
    }
  } else if (spec.fd >= 0 && spec.op != Op::kConnect) {
    apply(name_fd(p, static_cast<int>(arg(spec.fd))), ev.path, ev.abs_path, ev.existed, ev.fault);
  }

  if (spec.path2 >= 0) {
    if (spec.path2_is_link_text) {
      // The link's text is stored as written; relative text is resolved
      // against the directory of the new link, not the cwd.
      auto text = read_remote_string(tid, arg(spec.path2));
      if (!text) {
        if (!ev.fault) ev.fault = "target: " + text.error().message;
      } else {
        ev.path2 = *text;
        if (!text->empty() && ev.abs_path) {
          ev.abs_path2 = util::join_path(util::parent_path(*ev.abs_path), *text);
        }
      }
    } else {
      apply(name_path(p, tid, arg(spec.path2), dirfd_of(spec.dirfd2), false), ev.path2,
            ev.abs_path2, ev.existed2, ev.fault);
    }
  }

  if (spec.op == Op::kConnect) decode_sockaddr(p, tid, arg(1), arg(2), ev);
  if (spec.argv >= 0) {
    auto argv = read_remote_argv(tid, arg(spec.argv));
    if (argv) {
      ev.argv = std::move(*argv);
    } else if (!ev.fault) {
      ev.fault = "argv: " + argv.error().message;
    }
  }
  return ev;
}

}  // namespace cordon::tracer
