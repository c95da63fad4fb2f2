#include "tracer/audit.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "tracer/auditor.h"
#include "tracer/run_info.h"
#include "tracer/supervisor.h"
#include "tracer/trace_writer.h"
#include "util/path.h"
#include "util/unix_socket.h"

namespace cordon::tracer {

using util::Error;
using util::Fd;

// Member order is destruction order reversed: the supervisor goes before the
// writer it pushes to, and the writer before the database it writes.
struct AuditSession::State {
  AuditOptions options;
  std::optional<schema::TraceDb> db;
  Fd ours, theirs;
  int theirs_number = -1;
  int64_t run_id = 0;
  Auditor auditor{AuditScope{}};
  std::unique_ptr<TraceWriter> writer;
  std::unique_ptr<Supervisor> supervisor;
};

AuditSession::AuditSession(std::unique_ptr<State> state) : s_(std::move(state)) {}
AuditSession::~AuditSession() {
  if (s_->supervisor) s_->supervisor->stop();
  if (s_->writer) s_->writer->finish();
}

util::Result<std::unique_ptr<AuditSession>> AuditSession::open(const AuditOptions& options) {
  auto s = std::make_unique<State>();
  s->options = options;
  s->auditor = Auditor(AuditScope{options.network_proxied, options.stand_ins});
  // An existing trace is opened now, so a foreign or corrupt file refuses
  // the run before it starts; a new one is created only by attach(), so
  // `run --dry-run --audit` leaves nothing behind.
  if (::access(options.output.c_str(), F_OK) == 0) {
    auto db = schema::TraceDb::open_for_writing(options.output, /*sync=*/false);
    if (!db) return db.error();
    s->db.emplace(std::move(*db));
  } else {
    std::string dir = util::parent_path(util::clean_path(options.output));
    if (::access(dir.c_str(), W_OK) != 0) {
      return util::sys_error("cannot create " + util::printable(options.output));
    }
  }
  auto pair = util::seqpacket_pair();
  if (!pair) return pair.error();
  s->ours = std::move(pair->first);
  s->theirs = std::move(pair->second);
  int on = 1;
  ::setsockopt(s->ours.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  s->theirs_number = s->theirs.get();
  return std::unique_ptr<AuditSession>(new AuditSession(std::move(s)));
}

Fd AuditSession::take_sandbox_end() {
  return std::move(s_->theirs);
}

std::vector<std::string> AuditSession::shim_argv(const std::string& cordon) const {
  return {cordon, "__shim", std::to_string(s_->theirs_number), "--"};
}

util::Status AuditSession::attach() {
  // The trace file and the run's facts first: the shim is still starting,
  // and once it has sent the listener every watched call of the command
  // waits for the supervisor.
  const bool created = !s_->db;
  if (created) {
    auto db = schema::TraceDb::open_for_writing(s_->options.output, /*sync=*/false);
    if (!db) return db.error();
    s_->db.emplace(std::move(*db));
  }
  schema::RunInfo info = collect_run_info(s_->options.command);
  info.mode = "audit";
  auto hello = util::receive_message(s_->ours.get());
  std::optional<Error> failed;
  if (!hello) {
    failed = Error{"audit: reading from the sandbox: " + hello.error().message};
  } else if (hello->data.rfind("error ", 0) == 0) {
    failed = Error{"audit filter: " + hello->data.substr(6)};
  } else if (hello->data != "listener" || !hello->fd) {
    failed = Error{"audit: the sandbox ended before its supervisor could attach"};
  }
  if (failed) {
    // A trace made for this run and left with no run in it helps nobody.
    if (created) {
      s_->db.reset();
      for (const char* suffix : {"", "-wal", "-shm"}) {
        ::unlink((s_->options.output + suffix).c_str());
      }
    }
    return *failed;
  }
  const auto start = std::chrono::steady_clock::now();
  info.sync_wakeup = enable_sync_wakeup(hello->fd.get());
  auto run_id = s_->db->begin_run(info);
  if (!run_id) return run_id.error();
  s_->run_id = *run_id;
  s_->writer = std::make_unique<TraceWriter>(*s_->db, *run_id);
  s_->supervisor = std::make_unique<Supervisor>(std::move(hello->fd), hello->sender, *s_->writer,
                                                start, &s_->auditor);
  s_->supervisor->start();
  return {};
}

util::Result<std::vector<Denial>> AuditSession::finish(int exit_code, bool interrupted,
                                                       const std::vector<schema::NetRecord>& net) {
  s_->supervisor->stop();
  s_->writer->finish();
  std::vector<schema::NetRecord> refused;
  for (const auto& r : net) {
    if (!r.allowed) refused.push_back(r);
  }
  if (!refused.empty()) {
    if (auto st = s_->db->write_net(s_->run_id, refused); !st) return st.error();
  }
  std::string note;
  if (auto failure = s_->writer->failure()) note = "writing the trace: " + *failure;
  auto state = !note.empty() ? schema::RunState::kFailed
               : interrupted ? schema::RunState::kInterrupted
                             : schema::RunState::kComplete;
  if (auto st = s_->db->finish_run(s_->run_id, state, exit_code, std::nullopt, unix_now_ns(), note);
      !st) {
    return st.error();
  }
  if (!note.empty()) return Error{note};

  std::map<std::tuple<std::string, std::string, int>, int64_t> counts;
  schema::EventFilter filter;
  filter.run_id = s_->run_id;
  auto st = s_->db->for_each_event(filter, [&](int64_t, const schema::EventRecord& e) {
    std::string what = e.abs_path ? *e.abs_path : e.net_addr.value_or("?");
    if (e.net_port && e.op == "connect") what += fmt::format(":{}", *e.net_port);
    ++counts[{e.op, what, static_cast<int>(e.error.value_or(0))}];
    return true;
  });
  if (!st) return st.error();
  std::vector<Denial> out;
  for (const auto& [key, n] : counts) {
    const int error = std::get<2>(key);
    out.push_back(Denial{std::get<0>(key), std::get<1>(key), error,
                         error ? "" : "read an empty stand-in (denied)", n});
  }
  for (const auto& r : refused) {
    std::string what = r.name.value_or(r.addr.value_or("?"));
    if (r.port) what += fmt::format(":{}", *r.port);
    out.push_back(
        Denial{r.kind == "lookup" ? "lookup" : r.proto, what, 0, r.reason.value_or(""), r.count});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Denial& a, const Denial& b) { return a.count > b.count; });
  return out;
}

std::string describe_denial(const Denial& d) {
  const char* what = d.error ? ::strerrorname_np(d.error) : d.op == "open" ? "hidden" : "refused";
  return fmt::format("{:<11} {:<8} {}{}{}", what, d.op, util::printable(d.what),
                     d.count > 1 ? fmt::format("  ({}x)", d.count) : "",
                     d.reason.empty() ? "" : ": " + d.reason);
}

std::vector<std::string> denial_report(const std::vector<Denial>& denials, const std::string& trace,
                                       size_t max_lines) {
  std::vector<std::string> lines;
  if (denials.empty()) {
    lines.push_back(fmt::format("audit: nothing was denied (trace: {})", util::printable(trace)));
    return lines;
  }
  int64_t total = 0;
  for (const auto& d : denials) total += d.count;
  lines.push_back(fmt::format("audit: {} denial{} of {} kind{} (trace: {}), most frequent first:",
                              total, total == 1 ? "" : "s", denials.size(),
                              denials.size() == 1 ? "" : "s", util::printable(trace)));
  for (size_t i = 0; i < denials.size() && i < max_lines; ++i) {
    lines.push_back("  " + describe_denial(denials[i]));
  }
  if (denials.size() > max_lines) {
    lines.push_back(fmt::format("  ... and {} more: cordon show --events {}",
                                denials.size() - max_lines, util::printable(trace)));
  }
  lines.push_back(fmt::format("draft an amendment: cordon draft {}", util::printable(trace)));
  return lines;
}

}  // namespace cordon::tracer
