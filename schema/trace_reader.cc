// The reading half of TraceDb: run summaries, processes, events, merging.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <memory>
#include <string_view>

#include "schema/sqlite_values.h"
#include "schema/trace_db.h"
#include "schema/trace_db_errors.h"
#include "util/path.h"

namespace cordon::schema {

using util::Error;
using util::Result;
using util::Status;

Result<std::vector<RunSummary>> TraceDb::runs(bool count_events) const {
  try {
    std::vector<RunSummary> out;
    SQLite::Statement q(*db_,
                        "SELECT id, argv, cwd, user_name, home, kernel, arch, cordon_version, "
                        "started_at, ended_at, state, exit_code, exit_signal, sync_wakeup, note, "
                        "(SELECT count(*) FROM processes p WHERE p.run_id = runs.id), mode "
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
      r.note = col_text(q.getColumn(14));
      r.process_count = q.getColumn(15).getInt64();
      r.mode = q.getColumn(16).getString();
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
  auto within = [&](int i) {
    if (sqlite3_column_type(raw, i) == SQLITE_NULL) return false;
    std::string_view path(static_cast<const char*>(sqlite3_column_blob(raw, i)),
                          static_cast<size_t>(sqlite3_column_bytes(raw, i)));
    return util::path_within(path, *filter.path_prefix);
  };
  int rc;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    // The prefix is checked on the raw columns, before an event is built,
    // so the events a filter drops cost no allocations.
    if (filter.path_prefix && !within(8) && !within(11)) continue;
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
            "exit_signal, sync_wakeup, note, mode) SELECT argv, cwd, env_names, "
            "user_name, uid, home, kernel, arch, cordon_version, started_at, "
            "ended_at, state, exit_code, exit_signal, sync_wakeup, note, mode "
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
        SQLite::Statement net(*db_,
                              "INSERT INTO net SELECT ?, seq, kind, proto, name, addr, port, "
                              "verdict, reason, count FROM other.net WHERE run_id = ?");
        net.bind(1, new_id);
        net.bind(2, old_id);
        net.exec();
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
