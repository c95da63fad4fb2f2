#include "tracer/trace_writer.h"

#include <chrono>

namespace cordon::tracer {

namespace {
constexpr size_t kBatch = 4096;
constexpr auto kInterval = std::chrono::milliseconds(100);
}  // namespace

TraceWriter::TraceWriter(schema::TraceDb& db, int64_t run_id)
    : db_(db), run_id_(run_id), thread_([this] { run(); }) {}

TraceWriter::~TraceWriter() {
  finish();
}

void TraceWriter::push(schema::EventRecord event) {
  std::lock_guard lock(mu_);
  if (failed()) return;
  events_.push_back(std::move(event));
  if (events_.size() == kBatch) cv_.notify_one();
}

void TraceWriter::push(schema::ProcessRecord process) {
  std::lock_guard lock(mu_);
  if (failed()) return;
  processes_.push_back(std::move(process));
}

void TraceWriter::finish() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> TraceWriter::failure() const {
  std::lock_guard lock(mu_);
  if (!failed()) return std::nullopt;
  return failure_;
}

void TraceWriter::run() {
  std::vector<schema::EventRecord> events;
  std::vector<schema::ProcessRecord> processes;
  for (;;) {
    bool last;
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, kInterval, [&] { return stopping_ || events_.size() >= kBatch; });
      events.swap(events_);
      processes.swap(processes_);
      last = stopping_;
    }
    if ((!events.empty() || !processes.empty()) && !failed()) {
      if (auto st = db_.write_batch(run_id_, events, processes); !st) {
        std::lock_guard lock(mu_);
        failure_ = st.error().message;
        failed_.store(true);
        events_.clear();
        processes_.clear();
      }
    }
    events.clear();
    processes.clear();
    if (last) return;
  }
}

}  // namespace cordon::tracer
