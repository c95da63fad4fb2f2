#include "schema/trace_db.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <fmt/format.h>

#include "schema/migrations.h"
#include "util/path.h"

namespace cordon::schema {

using util::Error;
using util::Result;
using util::Status;

namespace {

Error db_error(const std::string& path, const SQLite::Exception& e) {
  std::string why = e.what();
  if (e.getErrorCode() == SQLITE_NOTADB) why = "not a cordon trace (not an SQLite database)";
  if (e.getErrorCode() == SQLITE_CORRUPT) why = "the trace is corrupt (" + why + ")";
  return Error{util::printable(path) + ": " + why, 0};
}

void bind_blob(SQLite::Statement& st, int idx, const std::optional<std::string>& v) {
  if (v) {
    st.bind(idx, v->data(), static_cast<int>(v->size()));
  } else {
    st.bind(idx);
  }
}

template <typename T>
void bind_opt(SQLite::Statement& st, int idx, const std::optional<T>& v) {
  if (v) {
    st.bind(idx, static_cast<int64_t>(*v));
  } else {
    st.bind(idx);
  }
}

void bind_text(SQLite::Statement& st, int idx, const std::optional<std::string>& v) {
  if (v) {
    st.bind(idx, *v);
  } else {
    st.bind(idx);
  }
}

std::optional<std::string> col_blob(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return std::string(static_cast<const char*>(c.getBlob()), c.getBytes());
}

std::optional<int64_t> col_int(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt64();
}

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

Result<TraceDb> TraceDb::open_for_writing(const std::string& path) {
  try {
    auto db =
        std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db->exec("PRAGMA busy_timeout = 5000");
    int version = trace_version(*db);
    if (auto st = check_version(path, version); !st) return st.error();
    // WAL keeps every committed batch intact if cordon is killed mid-write;
    // synchronous=NORMAL is durable against a process crash, which is the
    // failure that matters here (a power cut may lose the last batches).
    db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");
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
        "cordon_version, started_at, state, sync_wakeup) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,'running',?)");
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

Result<std::vector<RunSummary>> TraceDb::runs(bool count_events) const {
  try {
    std::vector<RunSummary> out;
    SQLite::Statement q(*db_,
                        "SELECT id, argv, cwd, user_name, home, kernel, arch, cordon_version, "
                        "started_at, ended_at, state, exit_code, exit_signal, sync_wakeup, note, "
                        "(SELECT count(*) FROM processes p WHERE p.run_id = runs.id) "
                        "FROM runs ORDER BY id");
    while (q.executeStep()) {
      RunSummary r;
      r.id = q.getColumn(0).getInt64();
      r.argv = unpack_strings(col_blob(q.getColumn(1)).value_or(""));
      r.cwd = col_blob(q.getColumn(2)).value_or("");
      r.user_name = q.getColumn(3).getString();
      r.home = col_blob(q.getColumn(4)).value_or("");
      r.kernel = q.getColumn(5).getString();
      r.arch = q.getColumn(6).getString();
      r.cordon_version = q.getColumn(7).getString();
      r.started_at = q.getColumn(8).getInt64();
      r.ended_at = col_int(q.getColumn(9));
      r.state = q.getColumn(10).getString();
      r.exit_code = col_int(q.getColumn(11));
      r.exit_signal = col_int(q.getColumn(12));
      r.sync_wakeup = q.getColumn(13).getInt() != 0;
      if (!q.getColumn(14).isNull()) r.note = q.getColumn(14).getString();
      r.process_count = q.getColumn(15).getInt64();
      if (!count_events) {
        out.push_back(std::move(r));
        continue;
      }
      SQLite::Statement ops(
          *db_, "SELECT op, count(*) FROM events WHERE run_id = ? GROUP BY op ORDER BY op");
      ops.bind(1, r.id);
      while (ops.executeStep()) {
        r.events_by_op.emplace_back(ops.getColumn(0).getString(), ops.getColumn(1).getInt64());
        r.event_count += ops.getColumn(1).getInt64();
      }
      out.push_back(std::move(r));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

Result<std::vector<ProcessRecord>> TraceDb::processes(int64_t run_id) const {
  try {
    std::vector<ProcessRecord> out;
    SQLite::Statement q(*db_,
                        "SELECT pid, ppid, exe, argv, first_seen, exit_code, exit_signal "
                        "FROM processes WHERE run_id = ? ORDER BY first_seen, pid");
    q.bind(1, run_id);
    while (q.executeStep()) {
      ProcessRecord p;
      p.pid = q.getColumn(0).getInt64();
      p.ppid = col_int(q.getColumn(1));
      p.exe = col_blob(q.getColumn(2));
      if (auto a = col_blob(q.getColumn(3))) p.argv = unpack_strings(*a);
      p.first_seen = q.getColumn(4).getInt64();
      p.exit_code = col_int(q.getColumn(5));
      p.exit_signal = col_int(q.getColumn(6));
      out.push_back(std::move(p));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

Status TraceDb::for_each_event(const EventFilter& filter,
                               const std::function<bool(int64_t, const EventRecord&)>& fn) const {
  // The raw SQLite API here, not SQLiteCpp: a million events through its
  // Column objects cost a reference-count round trip per column.
  std::string sql =
      "SELECT run_id, seq, time_ns, pid, tid, syscall, op, path, abs_path, existed, path2, "
      "abs_path2, existed2, flags, mode, fault, net_family, net_addr, net_port, argv, errno "
      "FROM events WHERE 1";
  if (filter.run_id) sql += " AND run_id = ?1";
  if (filter.op) sql += " AND op = ?2";
  sql += " ORDER BY run_id, seq";
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_->getHandle(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    return Error{util::printable(path_) + ": " + sqlite3_errmsg(db_->getHandle())};
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
  if (filter.run_id) sqlite3_bind_int64(raw, 1, *filter.run_id);
  if (filter.op) sqlite3_bind_text(raw, 2, filter.op->c_str(), -1, SQLITE_TRANSIENT);
  auto blob = [raw](int i) -> std::optional<std::string> {
    if (sqlite3_column_type(raw, i) == SQLITE_NULL) return std::nullopt;
    const void* p = sqlite3_column_blob(raw, i);
    return std::string(static_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(raw, i)));
  };
  auto integer = [raw](int i) -> std::optional<int64_t> {
    if (sqlite3_column_type(raw, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(raw, i);
  };
  auto boolean = [&](int i) -> std::optional<bool> {
    auto v = integer(i);
    if (!v) return std::nullopt;
    return *v != 0;
  };
  int rc;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    EventRecord e;
    int64_t run_id = sqlite3_column_int64(raw, 0);
    e.seq = sqlite3_column_int64(raw, 1);
    e.time_ns = sqlite3_column_int64(raw, 2);
    e.pid = sqlite3_column_int64(raw, 3);
    e.tid = sqlite3_column_int64(raw, 4);
    e.syscall = blob(5).value_or("");
    e.op = blob(6).value_or("");
    e.path = blob(7);
    e.abs_path = blob(8);
    e.existed = boolean(9);
    e.path2 = blob(10);
    e.abs_path2 = blob(11);
    e.existed2 = boolean(12);
    e.flags = integer(13);
    e.mode = integer(14);
    e.fault = blob(15);
    e.net_family = blob(16);
    e.net_addr = blob(17);
    e.net_port = integer(18);
    if (auto a = blob(19)) e.argv = unpack_strings(*a);
    e.error = integer(20);
    if (filter.path_prefix) {
      bool hit = (e.abs_path && util::path_within(*e.abs_path, *filter.path_prefix)) ||
                 (e.abs_path2 && util::path_within(*e.abs_path2, *filter.path_prefix));
      if (!hit) continue;
    }
    if (!fn(run_id, e)) return {};
  }
  if (rc != SQLITE_DONE) {
    std::string why = sqlite3_errmsg(db_->getHandle());
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) why = "the trace is corrupt (" + why + ")";
    return Error{util::printable(path_) + ": " + why};
  }
  return {};
}

Result<int> TraceDb::merge_from(const std::string& other_path) {
  // Validate through the normal reader first so a foreign or newer file gets
  // the same one-line refusal as everywhere else.
  auto other = open_for_reading(other_path);
  if (!other) return other.error();
  try {
    SQLite::Statement attach(*db_, "ATTACH DATABASE ? AS other");
    attach.bind(1, other_path);
    attach.exec();
    int merged = 0;
    {
      SQLite::Transaction tx(*db_);
      SQLite::Statement ids(*db_, "SELECT id FROM other.runs ORDER BY id");
      std::vector<int64_t> old_ids;
      while (ids.executeStep()) old_ids.push_back(ids.getColumn(0).getInt64());
      for (int64_t old_id : old_ids) {
        SQLite::Statement run(
            *db_,
            "INSERT INTO runs (argv, cwd, env_names, user_name, uid, home, kernel, "
            "arch, cordon_version, started_at, ended_at, state, exit_code, "
            "exit_signal, sync_wakeup, note) SELECT argv, cwd, env_names, "
            "user_name, uid, home, kernel, arch, cordon_version, started_at, "
            "ended_at, state, exit_code, exit_signal, sync_wakeup, note "
            "FROM other.runs WHERE id = ?");
        run.bind(1, old_id);
        run.exec();
        int64_t new_id = db_->getLastInsertRowid();
        SQLite::Statement ev(
            *db_,
            "INSERT INTO events SELECT ?, seq, time_ns, pid, tid, syscall, op, path, "
            "abs_path, existed, path2, abs_path2, existed2, flags, mode, fault, "
            "net_family, net_addr, net_port, argv, errno FROM other.events "
            "WHERE run_id = ?");
        ev.bind(1, new_id);
        ev.bind(2, old_id);
        ev.exec();
        SQLite::Statement pr(*db_,
                             "INSERT INTO processes SELECT ?, pid, ppid, exe, argv, first_seen, "
                             "exit_code, exit_signal FROM other.processes WHERE run_id = ?");
        pr.bind(1, new_id);
        pr.bind(2, old_id);
        pr.exec();
        ++merged;
      }
      tx.commit();
    }
    db_->exec("DETACH DATABASE other");
    return merged;
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

}  // namespace cordon::schema
