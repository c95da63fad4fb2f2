// TraceDb: the one way into a cordon trace file (SQLite).
//
// Contract: a file opened here is either a cordon trace at the current schema
// version (migrated forward in place if older) or refused with an Error that
// names the file and the cause. The tracer writes through it and the drafter
// and `cordon show` read through it; neither touches SQL directly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace SQLite {
class Database;
}

namespace cordon::schema {

inline constexpr int kTraceSchemaVersion = 2;

struct RunInfo {
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::string> env_names;
  std::string user_name;
  int64_t uid = 0;
  std::string home;
  std::string kernel;
  std::string arch;
  std::string cordon_version;
  int64_t started_at = 0;  // Unix ns
  bool sync_wakeup = false;
  // "learn" records every watched call; "audit" (`cordon run --audit`) only
  // the calls the enforced sandbox refused.
  std::string mode = "learn";
};

enum class RunState { kRunning, kComplete, kInterrupted, kTimeout, kFailed };
const char* run_state_name(RunState state);

struct ProcessRecord {
  int64_t pid = 0;
  std::optional<int64_t> ppid;
  std::optional<std::string> exe;
  std::optional<std::vector<std::string>> argv;
  int64_t first_seen = 0;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> exit_signal;
};

struct EventRecord {
  int64_t seq = 0;
  int64_t time_ns = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  std::string syscall;
  std::string op;
  std::optional<std::string> path, abs_path;
  std::optional<bool> existed;
  std::optional<std::string> path2, abs_path2;
  std::optional<bool> existed2;
  std::optional<int64_t> flags, mode;
  std::optional<std::string> fault;
  std::optional<std::string> net_family, net_addr;
  std::optional<int64_t> net_port;
  std::optional<std::vector<std::string>> argv;
  // learn: the errno the supervisor answered with; audit: the one the
  // sandbox gave the call.
  std::optional<int64_t> error;
};

// One row of the `net` table: what the network proxy saw, counted.
struct NetRecord {
  std::string kind;   // "lookup" or "connect"
  std::string proto;  // "tcp", "udp" or "dns"
  std::optional<std::string> name, addr;
  std::optional<int64_t> port;
  bool allowed = true;
  std::optional<std::string> reason;  // why it was refused
  int64_t count = 1;
};

struct RunSummary {
  int64_t id = 0;
  std::vector<std::string> argv;
  std::string cwd;
  std::string user_name;
  std::string home;
  std::string kernel, arch, cordon_version;
  int64_t started_at = 0;
  std::optional<int64_t> ended_at;
  std::string state;
  std::optional<int64_t> exit_code, exit_signal;
  bool sync_wakeup = false;
  std::string mode = "learn";
  std::optional<std::string> note;
  int64_t process_count = 0;
  int64_t event_count = 0;
  std::vector<std::pair<std::string, int64_t>> events_by_op;  // sorted by op
};

struct EventFilter {
  std::optional<int64_t> run_id;
  std::optional<std::string> path_prefix;  // matches abs_path or abs_path2
  std::optional<std::string> op;
};

class TraceDb {
 public:
  // Creates the file if missing; migrates an older trace; refuses a newer
  // one, a foreign database and a file that is not SQLite.
  //
  // With `sync` false SQLite never syncs to disk: commits still reach the
  // file (a killed cordon loses nothing), but a power cut may lose or damage
  // the last run. Audited runs use it: the syncs of creating the file, of
  // starting the WAL and of the checkpoint at close cost more than many a
  // sandboxed command.
  static util::Result<TraceDb> open_for_writing(const std::string& path, bool sync = true);
  // Never creates or migrates: an older trace is read only after
  // `open_for_writing` (or `cordon show`, which says so) has upgraded it.
  static util::Result<TraceDb> open_for_reading(const std::string& path);

  TraceDb(TraceDb&&) noexcept;
  TraceDb& operator=(TraceDb&&) noexcept;
  ~TraceDb();

  const std::string& path() const { return path_; }

  util::Result<int64_t> begin_run(const RunInfo& info);
  // Writes events and process updates in one transaction: either the whole
  // batch is in the file afterwards or none of it is.
  util::Status write_batch(int64_t run_id, const std::vector<EventRecord>& events,
                           const std::vector<ProcessRecord>& processes);
  util::Status finish_run(int64_t run_id, RunState state, std::optional<int64_t> exit_code,
                          std::optional<int64_t> exit_signal, int64_t ended_at,
                          const std::string& note);

  // With `count_events`, each summary's event counts come from a scan of
  // the events; without, they stay zero (the drafter needs no counts).
  util::Result<std::vector<RunSummary>> runs(bool count_events = true) const;
  util::Result<std::vector<ProcessRecord>> processes(int64_t run_id) const;
  // Calls `fn` for each matching event in (run, seq) order; stops early when
  // `fn` returns false.
  util::Status for_each_event(
      const EventFilter& filter,
      const std::function<bool(int64_t run_id, const EventRecord&)>& fn) const;
  // Appends the network proxy's records for a run (one transaction).
  util::Status write_net(int64_t run_id, const std::vector<NetRecord>& records);
  // The run's network records in the order they were written; every run
  // when `run_id` is empty.
  util::Status for_each_net(std::optional<int64_t> run_id,
                            const std::function<void(int64_t run_id, const NetRecord&)>& fn) const;
  // Copies every run of `other` into this trace as new runs.
  util::Result<int> merge_from(const std::string& other_path);

 private:
  TraceDb(std::string path, std::unique_ptr<SQLite::Database> db);
  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

// NUL-separated packing used for argv columns.
std::string pack_strings(const std::vector<std::string>& items);
std::vector<std::string> unpack_strings(const std::string& packed);

}  // namespace cordon::schema
