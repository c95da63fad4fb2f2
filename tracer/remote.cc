#include "tracer/remote.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "util/fd.h"
#include "util/pidfd_compat.h"

namespace cordon::tracer {

using util::Error;
using util::Result;

namespace {

constexpr uint64_t kPage = 4096;

// Reads up to `len` bytes, stopping quietly at the first unreadable page.
// Remote iovecs are split at page boundaries because the kernel reports
// partial transfers only between iovec elements.
ssize_t read_upto(pid_t tid, uint64_t addr, char* out, size_t len) {
  iovec local{out, len};  // `out` holds `len` bytes; at most that is read
  iovec remote[3];
  int n = 0;
  uint64_t at = addr;
  size_t left = len;
  while (left > 0 && n < 3) {
    size_t chunk = std::min<uint64_t>(left, kPage - (at % kPage));
    remote[n++] = iovec{reinterpret_cast<void*>(at), chunk};
    at += chunk;
    left -= chunk;
  }
  return ::process_vm_readv(tid, &local, 1, remote, n, 0);
}

Result<std::string> read_file(int dirfd, const char* name) {
  util::Fd fd(::openat(dirfd, name, O_RDONLY | O_CLOEXEC));
  if (!fd) return util::sys_error(std::string("open ") + name);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  if (n < 0) return util::sys_error(std::string("read ") + name);
  return out;
}

}  // namespace

Result<std::string> read_remote_string(pid_t tid, uint64_t addr, size_t max) {
  if (addr == 0) return Error{"null pointer", EFAULT};
  std::string out;
  char buf[kMaxPath];
  // Most names are short: read a small first chunk, and the rest only if the
  // NUL was not in it, a buffer at a time (argv strings may be far longer
  // than the buffer).
  size_t want = std::min<size_t>(max, 256);
  while (out.size() < max) {
    const size_t len = std::min({want, max - out.size(), sizeof buf});
    ssize_t n = read_upto(tid, addr + out.size(), buf, len);
    if (n <= 0) return Error{"unreadable pointer", n < 0 ? errno : EFAULT};
    const char* nul = static_cast<const char*>(std::memchr(buf, 0, static_cast<size_t>(n)));
    if (nul) {
      out.append(buf, static_cast<size_t>(nul - buf));
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
    want = max;
  }
  return Error{"name longer than PATH_MAX", ENAMETOOLONG};
}

util::Status read_remote_bytes(pid_t tid, uint64_t addr, void* out, size_t len) {
  ssize_t n = read_upto(tid, addr, static_cast<char*>(out), len);
  if (n != static_cast<ssize_t>(len)) return Error{"unreadable pointer", n < 0 ? errno : EFAULT};
  return {};
}

Result<std::vector<std::string>> read_remote_argv(pid_t tid, uint64_t addr, size_t max_items) {
  std::vector<std::string> out;
  if (addr == 0) return out;
  for (size_t i = 0; i < max_items; ++i) {
    uint64_t ptr = 0;
    if (auto st = read_remote_bytes(tid, addr + i * sizeof(uint64_t), &ptr, sizeof ptr); !st) {
      return st.error();
    }
    if (ptr == 0) return out;
    auto s = read_remote_string(tid, ptr, 128 * 1024);
    if (!s) return s.error();
    out.push_back(std::move(*s));
  }
  return out;
}

Result<std::string> read_proc_link(int procdir, const std::string& name) {
  char buf[kMaxPath + 64];
  ssize_t n = ::readlinkat(procdir, name.c_str(), buf, sizeof buf);
  if (n < 0) return util::sys_error("readlink " + name);
  return std::string(buf, static_cast<size_t>(n));
}

Result<TaskStatus> read_task_status(pid_t tid) {
  std::string name = "/proc/" + std::to_string(tid) + "/status";
  auto text = read_file(AT_FDCWD, name.c_str());
  if (!text) return text.error();
  TaskStatus st;
  std::string_view v(*text);
  auto field = [&](std::string_view key) -> pid_t {
    size_t at = v.find(key);
    if (at == std::string_view::npos) return 0;
    return static_cast<pid_t>(std::strtol(v.data() + at + key.size(), nullptr, 10));
  };
  st.tgid = field("\nTgid:");
  st.ppid = field("\nPPid:");
  if (st.tgid == 0) return Error{"no Tgid in " + name, EINVAL};
  return st;
}

std::optional<int> read_zombie_exit_status(int procdir) {
  auto text = read_file(procdir, "stat");
  if (!text) return std::nullopt;
  // The command name can hold spaces and parentheses; fields resume after
  // the last ')'. Field 3 is the state, field 52 the exit status.
  size_t close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::string_view rest(*text);
  rest.remove_prefix(close + 2);
  int field = 3;
  while (!rest.empty()) {
    size_t sp = rest.find(' ');
    std::string_view tok = rest.substr(0, sp);
    if (field == 3 && tok != "Z") return std::nullopt;
    if (field == 52) return static_cast<int>(std::strtol(std::string(tok).c_str(), nullptr, 10));
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
    ++field;
  }
  return std::nullopt;
}

std::optional<int> reaped_exit_status(int pidfd) {
  util::PidfdInfoV0 info{};
  info.mask = util::kPidfdInfoExit;
  if (::ioctl(pidfd, util::kPidfdGetInfo, &info) != 0) return std::nullopt;
  if (!(info.mask & util::kPidfdInfoExit)) return std::nullopt;
  return info.exit_code;
}

}  // namespace cordon::tracer
