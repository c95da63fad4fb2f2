#include "tracer/auditor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <string_view>

#include "util/fd.h"
#include "util/path.h"

namespace cordon::tracer {

namespace {

// The sandbox's own /proc and /dev are not policy grants: their names differ
// from the host's by design (pids, devices), so comparing them says nothing.
bool sandbox_own(const std::string& path) {
  return util::path_within(path, "/proc") || util::path_within(path, "/dev");
}

bool host_has(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

const char* relative(const std::string& abs) {
  return abs.size() > 1 ? abs.c_str() + 1 : ".";
}

enum class View { kAbsent, kWritable, kReadOnly, kUnknown };

View sandbox_view(int root, const std::string& path) {
  util::Fd fd(::openat(root, relative(path), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return errno == ENOENT || errno == ENOTDIR ? View::kAbsent : View::kUnknown;
  struct statvfs vfs;
  if (::fstatvfs(fd.get(), &vfs) != 0) return View::kUnknown;
  return (vfs.f_flag & ST_RDONLY) ? View::kReadOnly : View::kWritable;
}

bool host_read_only(const std::string& path) {
  struct statvfs vfs;
  return ::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

// The errno a write at `path` (the file itself, or the directory a name is
// made or removed in) got from the sandbox, or 0 when the sandbox did not
// stand in its way.
int write_refusal(int root, const std::string& path) {
  switch (sandbox_view(root, path)) {
    case View::kAbsent:
      return host_has(path) ? ENOENT : 0;
    case View::kReadOnly:
      return host_read_only(path) ? 0 : EROFS;
    case View::kWritable:
    case View::kUnknown:
      return 0;
  }
  return 0;
}

bool loopback(std::string_view addr) {
  return addr.starts_with("127.") || addr == "::1" || addr.starts_with("::ffff:127.");
}

bool opens_for_writing(const schema::EventRecord& e) {
  if (!e.flags) return false;
  const int64_t f = *e.flags;
  return (f & O_ACCMODE) != O_RDONLY || (f & (O_CREAT | O_TRUNC)) != 0;
}

}  // namespace

bool Auditor::judge(schema::EventRecord& e, int root) const {
  if (e.op == "connect") {
    if ((e.net_family == "inet" || e.net_family == "inet6") && !scope_.network_proxied &&
        e.net_addr && !loopback(*e.net_addr)) {
      e.error = ENETUNREACH;
    } else if (e.net_family == "unix" && e.abs_path && e.existed == false &&
               !sandbox_own(*e.abs_path) && host_has(*e.abs_path)) {
      e.error = ENOENT;
      e.existed = true;  // the host's view, as below
    }
    return e.error.has_value();
  }
  if (!e.abs_path || e.fault || sandbox_own(*e.abs_path)) return false;
  const std::string& path = *e.abs_path;
  const std::string parent = util::parent_path(path);
  int err = 0;
  if (e.op == "create") {
    // An existing name fails with EEXIST before the mount is asked.
    if (e.existed != true) err = write_refusal(root, parent);
  } else if (e.op == "remove" || e.op == "rename") {
    if (e.existed == false) {
      err = host_has(path) ? ENOENT : 0;
    } else {
      err = write_refusal(root, parent);
      if (!err && e.op == "rename" && e.abs_path2) {
        err = write_refusal(root, util::parent_path(*e.abs_path2));
      }
    }
  } else if (e.op == "link") {
    if (e.existed == false && host_has(path)) {
      err = ENOENT;
    } else if (e.abs_path2) {
      err = write_refusal(root, util::parent_path(*e.abs_path2));
    }
  } else if (e.op == "open" && e.existed == false && e.flags && (*e.flags & O_CREAT)) {
    // A new name: only the directory matters (a private /tmp may lack a
    // name the host has, and creating it there is no refusal).
    err = write_refusal(root, parent);
  } else if (e.op == "modify" || (e.op == "open" && opens_for_writing(e))) {
    if (e.existed == false) {
      err = host_has(path) ? ENOENT : 0;
    } else {
      err = write_refusal(root, path);
    }
  } else if (e.existed == false && host_has(path)) {
    err = ENOENT;  // open for reading, exec, stat, chdir: a name left out
  } else if (e.op == "open" && stand_ins_.count(path)) {
    e.error = 0;  // read an empty stand-in for a denied file
    return true;
  }
  if (err == ENOENT && e.existed == false && host_has(path)) {
    // In an audit trace `existed` is the host's view: the name is there, the
    // policy left it out, and the drafter should grant it rather than file
    // it under "never there".
    e.existed = true;
  }
  if (err) e.error = err;
  return err != 0;
}

}  // namespace cordon::tracer
