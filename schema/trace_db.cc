#include "schema/trace_db.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <fmt/format.h>

#include "schema/migrations.h"
#include "schema/sqlite_values.h"
#include "schema/trace_db_errors.h"
#include "util/path.h"

namespace cordon::schema {

using util::Error;
using util::Result;
using util::Status;

namespace {

// Classifies an open database: 0 = empty, -1 = not ours, else its version.
int trace_version(SQLite::Database& db) {
  int version = db.execAndGet("PRAGMA user_version").getInt();
  int tables = db.execAndGet("SELECT count(*) FROM sqlite_master").getInt();
  if (tables == 0) return 0;
  if (!db.tableExists("meta")) return -1;
  SQLite::Statement q(db, "SELECT value FROM meta WHERE key = 'format'");
  if (!q.executeStep() || q.getColumn(0).getString() != "cordon-trace") return -1;
  return version;
}

Status check_version(const std::string& path, int version) {
  if (version < 0)
    return Error{util::printable(path) +
                 ": not a cordon trace (an SQLite database of something else)"};
  if (version > kTraceSchemaVersion) {
    return Error{
        fmt::format("{}: trace schema version {} is newer than this cordon understands ({}); "
                    "use a newer cordon",
                    util::printable(path), version, kTraceSchemaVersion)};
  }
  return {};
}

}  // namespace

Error db_error(const std::string& path, const SQLite::Exception& e) {
  std::string why = e.what();
  if (e.getErrorCode() == SQLITE_NOTADB) why = "not a cordon trace (not an SQLite database)";
  if (e.getErrorCode() == SQLITE_CORRUPT) why = "the trace is corrupt (" + why + ")";
  return Error{util::printable(path) + ": " + why, 0};
}

const char* run_state_name(RunState state) {
  switch (state) {
    case RunState::kRunning:
      return "running";
    case RunState::kComplete:
      return "complete";
    case RunState::kInterrupted:
      return "interrupted";
    case RunState::kTimeout:
      return "timeout";
    case RunState::kFailed:
      return "failed";
  }
  return "failed";
}

std::string pack_strings(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    out += s;
    out += '\0';
  }
  return out;
}

std::vector<std::string> unpack_strings(const std::string& packed) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < packed.size()) {
    size_t end = packed.find('\0', start);
    if (end == std::string::npos) end = packed.size();
    out.emplace_back(packed, start, end - start);
    start = end + 1;
  }
  return out;
}

TraceDb::TraceDb(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}
TraceDb::TraceDb(TraceDb&&) noexcept = default;
TraceDb& TraceDb::operator=(TraceDb&&) noexcept = default;
TraceDb::~TraceDb() = default;

Result<TraceDb> TraceDb::open_for_writing(const std::string& path, bool sync) {
  try {
    auto db =
        std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db->exec("PRAGMA busy_timeout = 5000");
    int version = trace_version(*db);
    if (auto st = check_version(path, version); !st) return st.error();
    // WAL keeps every committed batch intact if cordon is killed mid-write;
    // synchronous=NORMAL is durable against a process crash, which is the
    // failure that matters here (a power cut may lose the last batches).
    db->exec(sync ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = OFF");
    db->exec("PRAGMA journal_mode = WAL");
    if (version == 0) {
      SQLite::Transaction tx(*db);
      db->exec(schema_sql(kTraceSchemaVersion));
      db->exec(fmt::format("PRAGMA user_version = {}", kTraceSchemaVersion));
      tx.commit();
    } else if (version < kTraceSchemaVersion) {
      SQLite::Transaction tx(*db);
      for (int v = version; v < kTraceSchemaVersion; ++v) db->exec(migration_sql(v));
      db->exec(fmt::format("PRAGMA user_version = {}", kTraceSchemaVersion));
      tx.commit();
    }
    return TraceDb(path, std::move(db));
  } catch (const SQLite::Exception& e) {
    return db_error(path, e);
  }
}

Result<TraceDb> TraceDb::open_for_reading(const std::string& path) {
  try {
    // Each TraceDb is used from one thread: SQLite's own locking is waste.
    auto db =
        std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY | SQLite::OPEN_NOMUTEX);
    int version = trace_version(*db);
    if (version == 0) return Error{util::printable(path) + ": not a cordon trace (empty database)"};
    if (auto st = check_version(path, version); !st) return st.error();
    if (version < kTraceSchemaVersion) {
      return Error{
          fmt::format("{}: trace schema version {} is older than {}; run `cordon upgrade {}` "
                      "to migrate it",
                      util::printable(path), version, kTraceSchemaVersion, util::printable(path))};
    }
    return TraceDb(path, std::move(db));
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_CANTOPEN) {
      return Error{util::printable(path) + ": cannot open (no such file, or not readable)", ENOENT};
    }
    return db_error(path, e);
  }
}

Result<int64_t> TraceDb::begin_run(const RunInfo& info) {
  try {
    SQLite::Statement st(
        *db_,
        "INSERT INTO runs (argv, cwd, env_names, user_name, uid, home, kernel, arch, "
        "cordon_version, started_at, state, sync_wakeup, mode) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,'running',?,?)");
    std::string argv = pack_strings(info.argv);
    std::string env;
    for (const auto& n : info.env_names) env += n + "\n";
    bind_blob(st, 1, argv);
    bind_blob(st, 2, info.cwd);
    st.bind(3, env);
    st.bind(4, info.user_name);
    st.bind(5, info.uid);
    bind_blob(st, 6, info.home);
    st.bind(7, info.kernel);
    st.bind(8, info.arch);
    st.bind(9, info.cordon_version);
    st.bind(10, info.started_at);
    st.bind(11, info.sync_wakeup ? 1 : 0);
    st.bind(12, info.mode);
    st.exec();
    return db_->getLastInsertRowid();
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

Status TraceDb::write_batch(int64_t run_id, const std::vector<EventRecord>& events,
                            const std::vector<ProcessRecord>& processes) {
  try {
    SQLite::Transaction tx(*db_);
    SQLite::Statement ev(*db_,
                         "INSERT INTO events (run_id, seq, time_ns, pid, tid, syscall, op, path, "
                         "abs_path, existed, path2, abs_path2, existed2, flags, mode, fault, "
                         "net_family, net_addr, net_port, argv, errno) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const auto& e : events) {
      ev.bind(1, run_id);
      ev.bind(2, e.seq);
      ev.bind(3, e.time_ns);
      ev.bind(4, e.pid);
      ev.bind(5, e.tid);
      ev.bind(6, e.syscall);
      ev.bind(7, e.op);
      bind_blob(ev, 8, e.path);
      bind_blob(ev, 9, e.abs_path);
      bind_opt(ev, 10, e.existed);
      bind_blob(ev, 11, e.path2);
      bind_blob(ev, 12, e.abs_path2);
      bind_opt(ev, 13, e.existed2);
      bind_opt(ev, 14, e.flags);
      bind_opt(ev, 15, e.mode);
      bind_text(ev, 16, e.fault);
      bind_text(ev, 17, e.net_family);
      bind_blob(ev, 18, e.net_addr);
      bind_opt(ev, 19, e.net_port);
      if (e.argv) {
        bind_blob(ev, 20, pack_strings(*e.argv));
      } else {
        ev.bind(20);
      }
      bind_opt(ev, 21, e.error);
      ev.exec();
      ev.reset();
    }
    // A process row is created on first sight and then only gains facts:
    // COALESCE keeps what an earlier batch recorded when this one lacks it.
    SQLite::Statement pr(
        *db_,
        "INSERT INTO processes (run_id, pid, ppid, exe, argv, first_seen, exit_code, "
        "exit_signal) VALUES (?,?,?,?,?,?,?,?) "
        "ON CONFLICT (run_id, pid) DO UPDATE SET "
        "ppid = COALESCE(excluded.ppid, ppid), exe = COALESCE(excluded.exe, exe), "
        "argv = COALESCE(excluded.argv, argv), "
        "exit_code = COALESCE(excluded.exit_code, exit_code), "
        "exit_signal = COALESCE(excluded.exit_signal, exit_signal)");
    for (const auto& p : processes) {
      pr.bind(1, run_id);
      pr.bind(2, p.pid);
      bind_opt(pr, 3, p.ppid);
      bind_blob(pr, 4, p.exe);
      if (p.argv) {
        bind_blob(pr, 5, pack_strings(*p.argv));
      } else {
        pr.bind(5);
      }
      pr.bind(6, p.first_seen);
      bind_opt(pr, 7, p.exit_code);
      bind_opt(pr, 8, p.exit_signal);
      pr.exec();
      pr.reset();
    }
    tx.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

Status TraceDb::finish_run(int64_t run_id, RunState state, std::optional<int64_t> exit_code,
                           std::optional<int64_t> exit_signal, int64_t ended_at,
                           const std::string& note) {
  try {
    SQLite::Statement st(*db_,
                         "UPDATE runs SET state = ?, exit_code = ?, exit_signal = ?, ended_at = ?, "
                         "note = ? WHERE id = ?");
    st.bind(1, run_state_name(state));
    bind_opt(st, 2, exit_code);
    bind_opt(st, 3, exit_signal);
    st.bind(4, ended_at);
    if (note.empty()) {
      st.bind(5);
    } else {
      st.bind(5, note);
    }
    st.bind(6, run_id);
    st.exec();
    // Fold the WAL back so the trace is one self-contained file afterwards.
    db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return {};
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

}  // namespace cordon::schema
