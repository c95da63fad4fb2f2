// Hand-built traces for the drafter tests: events are written through the
// real TraceDb writer into a temporary file, so the drafter reads them the
// way it reads a trace from `cordon trace`.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "drafter/drafter.h"
#include "schema/policy/policy.h"
#include "schema/trace_db.h"

namespace cordon::drafter::testing {

inline std::string temp_path(const std::string& name) {
  static int counter = 0;
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/cordon-drafter-test-" +
         std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + name;
}

class TraceBuilder {
 public:
  explicit TraceBuilder(std::string cwd = "/work/proj", std::string home = "/home/u")
      : cwd_(std::move(cwd)), home_(std::move(home)) {}

  TraceBuilder& event(const std::string& op, const std::string& syscall, const std::string& path,
                      std::optional<bool> existed, std::optional<int64_t> flags = std::nullopt,
                      std::optional<int64_t> mode = std::nullopt) {
    schema::EventRecord e = next(op, syscall);
    e.path = e.abs_path = path;
    e.existed = existed;
    e.flags = flags;
    e.mode = mode;
    events_.push_back(e);
    return *this;
  }
  TraceBuilder& open(const std::string& path, int64_t flags, bool existed) {
    return event("open", "openat", path, existed, flags,
                 (flags & O_CREAT) ? std::optional<int64_t>(0644) : std::nullopt);
  }
  TraceBuilder& read(const std::string& path) { return open(path, O_RDONLY, true); }
  TraceBuilder& create(const std::string& path) {
    return open(path, O_WRONLY | O_CREAT | O_TRUNC, false);
  }
  TraceBuilder& stat(const std::string& path, bool existed = true) {
    return event("stat", "newfstatat", path, existed, 0);
  }
  TraceBuilder& mkdir(const std::string& path, bool existed = false) {
    return event("create", "mkdir", path, existed, std::nullopt, 0755);
  }
  TraceBuilder& exec(const std::string& path, bool existed = true) {
    return event("exec", "execve", path, existed);
  }
  TraceBuilder& list(const std::string& path) { return event("list", "getdents64", path, true); }
  TraceBuilder& remove(const std::string& path) { return event("remove", "unlink", path, true); }
  TraceBuilder& move(const std::string& op, const std::string& from, const std::string& to,
                     bool to_existed) {
    schema::EventRecord e = next(op, op);
    e.path = e.abs_path = from;
    e.existed = true;
    e.path2 = e.abs_path2 = to;
    e.existed2 = to_existed;
    events_.push_back(e);
    return *this;
  }
  TraceBuilder& rename(const std::string& from, const std::string& to, bool to_existed = false) {
    return move("rename", from, to, to_existed);
  }
  TraceBuilder& link(const std::string& from, const std::string& to) {
    return move("link", from, to, false);
  }
  TraceBuilder& connect(const std::string& family, const std::string& addr,
                        std::optional<int64_t> port) {
    schema::EventRecord e = next("connect", "connect");
    e.net_family = family;
    e.net_addr = addr;
    e.net_port = port;
    if (family == "unix") e.path = e.abs_path = addr, e.existed = true;
    events_.push_back(e);
    return *this;
  }

  // Writes the trace (one run) and returns its file name.
  std::string write() {
    std::string file = temp_path("trace.db");
    auto db = schema::TraceDb::open_for_writing(file);
    EXPECT_TRUE(db.ok()) << (db.ok() ? "" : db.error().message);
    schema::RunInfo info;
    info.argv = {"tool", "arg"};
    info.cwd = cwd_;
    info.home = home_;
    info.user_name = "u";
    info.kernel = "test";
    info.arch = "x86_64";
    info.cordon_version = "test";
    auto run = db->begin_run(info);
    EXPECT_TRUE(run.ok());
    EXPECT_TRUE(db->write_batch(*run, events_, {}).ok());
    EXPECT_TRUE(db->finish_run(*run, schema::RunState::kComplete, 0, std::nullopt, 1, "").ok());
    files_.push_back(file);
    return file;
  }

  ~TraceBuilder() {
    for (const auto& f : files_) {
      ::unlink(f.c_str());
      ::unlink((f + "-wal").c_str());
      ::unlink((f + "-shm").c_str());
    }
  }

 private:
  schema::EventRecord next(const std::string& op, const std::string& syscall) {
    schema::EventRecord e;
    e.seq = static_cast<int64_t>(events_.size()) + 1;
    e.time_ns = e.seq * 1000;
    e.pid = e.tid = 100;
    e.op = op;
    e.syscall = syscall;
    return e;
  }

  std::string cwd_, home_;
  std::vector<schema::EventRecord> events_;
  std::vector<std::string> files_;
};

// The base layer for the run, plus `extra` policy text as a layer of its own
// (named "extra.sbx" in origins).
inline PolicyLoader policy_with(std::string extra = "") {
  return [extra](const std::string& cwd,
                 const std::string& home) -> util::Result<schema::EffectivePolicy> {
    std::vector<schema::Layer> layers;
    auto base = schema::base_policy(cwd, home);
    if (!base) return base.error();
    layers.push_back({"base", std::move(*base)});
    if (!extra.empty()) {
      auto p = schema::parse_policy(extra, schema::ParseContext{"extra.sbx", home, cwd});
      if (!p) return p.error();
      layers.push_back({"extra", std::move(*p)});
    }
    return schema::EffectivePolicy(std::move(layers));
  };
}

// Drafts `file`; every test also checks that the text parses as a policy.
inline Draft draft_of(const std::string& file, const std::string& extra = "") {
  auto d = draft_traces({file}, policy_with(extra));
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message);
  if (!d.ok()) return {};
  std::string text = format_text(*d);
  auto parsed = schema::parse_policy(text, schema::ParseContext{"draft", "/home/u", "/"});
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message) << "\n" << text;
  return *d;
}

inline const Grant* find_grant(const Draft& d, const std::string& path) {
  for (const Grant& g : d.grants) {
    if (g.path == path) return &g;
  }
  return nullptr;
}

inline bool has_op(const std::vector<OpCount>& ops, const std::string& op, int64_t count = -1) {
  for (const OpCount& o : ops) {
    if (o.op == op && (count < 0 || o.count == count)) return true;
  }
  return false;
}

}  // namespace cordon::drafter::testing
