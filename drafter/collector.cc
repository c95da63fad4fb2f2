#include "drafter/collector.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "util/path.h"

namespace cordon::drafter {
namespace {

Act open_act(int64_t flags, std::optional<bool> existed) {
  const bool writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
  if ((flags & O_TMPFILE) == O_TMPFILE) return Act::kTmpfile;
  if (flags & O_CREAT) {
    // An unknown existence counts as a new name: the directory grant that
    // then follows works whether or not the file was there.
    if (existed != true) return Act::kCreate;
    if (flags & O_EXCL) return Act::kExisting;
  }
  return writing ? Act::kOpenWrite : Act::kOpen;
}

Act modify_act(const std::string& syscall) {
  if (syscall == "truncate") return Act::kTruncate;
  if (syscall.find("chmod") != std::string::npos) return Act::kChmod;
  if (syscall.find("chown") != std::string::npos) return Act::kChown;
  if (syscall.find("xattr") != std::string::npos) return Act::kSetXattr;
  return Act::kSetTimes;
}

Act create_act(const std::string& syscall) {
  if (syscall.starts_with("mkdir")) return Act::kMkdir;
  if (syscall.starts_with("mknod")) return Act::kMknod;
  return Act::kSymlink;
}

bool is_access_probe(const std::string& syscall) {
  return syscall == "access" || syscall == "faccessat" || syscall == "faccessat2";
}

// 127.0.0.0/8, ::1, and the unspecified address (which connects to this
// host), also in their IPv4-mapped IPv6 spellings.
bool is_loopback(const std::string& family, const std::string& addr) {
  unsigned char b[16];
  if (family == "inet") {
    if (::inet_pton(AF_INET, addr.c_str(), b) != 1) return false;
    return b[0] == 127 || (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0);
  }
  if (::inet_pton(AF_INET6, addr.c_str(), b) != 1) return false;
  static const unsigned char zero[16] = {};
  static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b, zero, 15) == 0) return b[15] <= 1;
  if (std::memcmp(b, mapped, 12) == 0) return b[12] == 127 || (b[12] | b[13] | b[14] | b[15]) == 0;
  return false;
}

// The fake addresses cordon's resolver hands out while the proxy carries a
// run's network (198.18.0.0/15, fd00:c0d0::/96; docs/network.md): what a
// connect to one reached is in the proxy's records, under its name.
bool is_fake(const std::string& family, const std::string& addr) {
  unsigned char b[16];
  if (family == "inet")
    return ::inet_pton(AF_INET, addr.c_str(), b) == 1 && b[0] == 198 && (b[1] & 0xfe) == 18;
  static const unsigned char prefix[12] = {0xfd, 0, 0xc0, 0xd0};
  return ::inet_pton(AF_INET6, addr.c_str(), b) == 1 && std::memcmp(b, prefix, 12) == 0;
}

void sight(std::map<std::string, Sighting>& where, const std::string& key, uint32_t run,
           int64_t seq) {
  auto [it, fresh] = where.try_emplace(key);
  if (fresh) it->second.run = run, it->second.first_seq = seq;
  ++it->second.count;
}

bool makes_name(Act act) {
  return act == Act::kCreate || act == Act::kMkdir || act == Act::kMknod || act == Act::kSymlink ||
         act == Act::kLinkTo || act == Act::kRenameTo;
}

}  // namespace

bool PathInfo::has(Act act) const {
  for (const ActStat& a : acts) {
    if (a.act == act) return true;
  }
  return false;
}

bool never_drafted(const std::string& path) {
  return util::path_within(path, "/dev") || util::path_within(path, "/proc");
}

void Collector::act(const std::string& path, Act act, std::optional<bool> existed, uint32_t run,
                    int64_t seq) {
  auto it = paths.find(path);
  if (it == paths.end()) it = paths.emplace(path, PathInfo{}).first;
  PathInfo& info = it->second;
  if (existed) {
    if (info.first_existed < 0) info.first_existed = *existed ? 1 : 0;
    info.ever_existed |= *existed;
  }
  if (makes_name(act) && existed != true) info.created = true;
  if (act == Act::kExec && info.written) sight(exec_of_written, path, run, seq);
  if (writes_content(act)) info.written = true;
  for (ActStat& a : info.acts) {
    if (a.act == act) {
      ++a.count;
      return;
    }
  }
  info.acts.push_back(ActStat{act, run, 1, seq});
}

void Collector::connect(const schema::EventRecord& e, uint32_t run) {
  const std::string family = e.net_family.value_or("");
  const std::string addr = e.net_addr.value_or("");
  if (family == "unix") {
    const std::string& path = e.abs_path ? *e.abs_path : addr;
    if (!path.empty() && path.front() == '/' && !never_drafted(path)) {
      act(util::clean_path(path), Act::kConnect, e.existed, run, e.seq);
    }
  } else if (family == "unix-abstract") {
    sight(abstract_sockets, addr, run, e.seq);
  } else if (family == "inet" || family == "inet6") {
    std::string host = family == "inet6" ? "[" + addr + "]" : addr;
    std::string dest = host + ":" + std::to_string(e.net_port.value_or(0));
    if (is_loopback(family, addr)) {
      sight(loopback, dest, run, e.seq);
    } else if (!proxied_runs.count(run) && !is_fake(family, addr)) {
      sight(tcp, dest, run, e.seq);
    }
  } else {
    ++other_connects;
  }
}

void Collector::add_net(const schema::NetRecord& r, uint32_t run) {
  proxied_runs.insert(run);
  if (r.kind != "connect" || (r.proto != "tcp" && r.proto != "udp")) return;
  std::string host = r.name.value_or(r.addr.value_or(""));
  if (!r.name && host.find(':') != std::string::npos) host = "[" + host + "]";
  auto [it, fresh] =
      proxied.try_emplace(std::pair{r.proto, host + ":" + std::to_string(r.port.value_or(0))});
  Proxied& p = it->second;
  if (fresh) p.seen.run = run, p.named = r.name.has_value();
  p.seen.count += r.count;
  if (r.addr && p.dialled.size() < 4 &&
      std::find(p.dialled.begin(), p.dialled.end(), *r.addr) == p.dialled.end()) {
    p.dialled.push_back(*r.addr);
  }
}

void Collector::add(const schema::EventRecord& e, uint32_t run) {
  if (e.op == "refused") {
    ++refused[e.syscall];
    return;
  }
  if (e.op == "connect") {
    connect(e, run);
    return;
  }
  if (!e.abs_path || e.abs_path->empty() || e.abs_path->front() != '/') {
    ++faults;
    return;
  }
  const std::string& path = *e.abs_path;
  if (never_drafted(path)) {
    ++device_or_proc;
    return;
  }
  const std::string& op = e.op;
  if (op == "open") {
    act(path, open_act(e.flags.value_or(0), e.existed), e.existed, run, e.seq);
  } else if (op == "exec") {
    act(path, Act::kExec, e.existed, run, e.seq);
  } else if (op == "list") {
    act(path, Act::kList, e.existed, run, e.seq);
  } else if (op == "create") {
    act(path, e.existed == true ? Act::kExisting : create_act(e.syscall), e.existed, run, e.seq);
  } else if (op == "remove") {
    act(path, Act::kRemove, e.existed, run, e.seq);
  } else if (op == "modify") {
    act(path, modify_act(e.syscall), e.existed, run, e.seq);
  } else if (op == "stat") {
    Act a = Act::kStat;
    if (is_access_probe(e.syscall) && (e.mode.value_or(0) & W_OK)) a = Act::kWriteProbe;
    if (e.syscall.starts_with("readlink")) a = Act::kReadlink;
    act(path, a, e.existed, run, e.seq);
  } else if (op == "chdir") {
    act(path, Act::kChdir, e.existed, run, e.seq);
  } else if (op == "rename" || op == "link") {
    if (!e.abs_path2 || e.abs_path2->empty() || e.abs_path2->front() != '/') {
      ++faults;
      return;
    }
    const std::string& to = *e.abs_path2;
    if (never_drafted(to)) {
      ++device_or_proc;
      return;
    }
    const bool rename = op == "rename";
    act(path, rename ? Act::kRenameFrom : Act::kLinkFrom, e.existed, run, e.seq);
    // A link onto an existing name fails with EEXIST: it only looked.
    Act to_act = rename ? Act::kRenameTo : (e.existed2 == true ? Act::kExisting : Act::kLinkTo);
    act(to, to_act, e.existed2, run, e.seq);
    std::string from_dir = util::parent_path(path), to_dir = util::parent_path(to);
    if (from_dir != to_dir) {
      auto [it, fresh] = cross_moves.try_emplace({from_dir, to_dir});
      if (fresh)
        it->second.example_from = path, it->second.example_to = to,
        it->second.example_is_link = !rename;
      ++(rename ? it->second.renames : it->second.links);
    }
  }
}

}  // namespace cordon::drafter
