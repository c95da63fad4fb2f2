// The `net` table: what cordon's network proxy saw during a run.
#include <SQLiteCpp/SQLiteCpp.h>

#include "schema/sqlite_values.h"
#include "schema/trace_db.h"
#include "schema/trace_db_errors.h"

namespace cordon::schema {

using util::Status;

Status TraceDb::write_net(int64_t run_id, const std::vector<NetRecord>& records) {
  try {
    SQLite::Transaction tx(*db_);
    // Appending: a run's records may arrive in more than one call.
    SQLite::Statement last(*db_, "SELECT coalesce(max(seq), 0) FROM net WHERE run_id = ?");
    last.bind(1, run_id);
    last.executeStep();
    int64_t seq = last.getColumn(0).getInt64();
    SQLite::Statement st(*db_,
                         "INSERT INTO net (run_id, seq, kind, proto, name, addr, port, verdict, "
                         "reason, count) VALUES (?,?,?,?,?,?,?,?,?,?)");
    for (const auto& r : records) {
      st.bind(1, run_id);
      st.bind(2, ++seq);
      st.bind(3, r.kind);
      st.bind(4, r.proto);
      bind_text(st, 5, r.name);
      bind_text(st, 6, r.addr);
      bind_opt(st, 7, r.port);
      st.bind(8, r.allowed ? "allowed" : "refused");
      bind_text(st, 9, r.reason);
      st.bind(10, r.count);
      st.exec();
      st.reset();
    }
    tx.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

Status TraceDb::for_each_net(std::optional<int64_t> run_id,
                             const std::function<void(int64_t, const NetRecord&)>& fn) const {
  try {
    SQLite::Statement q(*db_,
                        "SELECT run_id, kind, proto, name, addr, port, verdict, reason, count "
                        "FROM net WHERE ?1 IS NULL OR run_id = ?1 ORDER BY run_id, seq");
    if (run_id) {
      q.bind(1, *run_id);
    } else {
      q.bind(1);
    }
    while (q.executeStep()) {
      NetRecord r;
      r.kind = q.getColumn(1).getString();
      r.proto = q.getColumn(2).getString();
      r.name = col_text(q.getColumn(3));
      r.addr = col_text(q.getColumn(4));
      r.port = col_int(q.getColumn(5));
      r.allowed = q.getColumn(6).getString() == "allowed";
      r.reason = col_text(q.getColumn(7));
      r.count = q.getColumn(8).getInt64();
      fn(q.getColumn(0).getInt64(), r);
    }
    return {};
  } catch (const SQLite::Exception& e) {
    return db_error(path_, e);
  }
}

}  // namespace cordon::schema
