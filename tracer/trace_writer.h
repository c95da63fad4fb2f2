// TraceWriter: moves events from the supervisor to SQLite on its own thread.
//
// The supervisor must never wait on the disk (a blocked supervisor blocks
// every traced process), so `push` only appends to a queue. The writer
// commits a batch every 100 ms or every 4096 events; a batch is one
// transaction, so a kill at any moment leaves every earlier batch intact.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "schema/trace_db.h"

namespace cordon::tracer {

class TraceWriter {
 public:
  TraceWriter(schema::TraceDb& db, int64_t run_id);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void push(schema::EventRecord event);
  void push(schema::ProcessRecord process);
  // Writes everything queued and stops the thread. Idempotent.
  void finish();
  // The first write error, once one happened; later events are dropped.
  std::optional<std::string> failure() const;
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  void run();

  schema::TraceDb& db_;
  int64_t run_id_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<schema::EventRecord> events_;
  std::vector<schema::ProcessRecord> processes_;
  bool stopping_ = false;
  std::atomic<bool> failed_{false};
  std::string failure_;
  std::thread thread_;
};

}  // namespace cordon::tracer
