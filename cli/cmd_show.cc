#include <unistd.h>

#include <ctime>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/shell_quote.h"
#include "schema/trace_db.h"
#include "util/json.h"
#include "util/path.h"

namespace cordon::cli {

using util::json_string;

namespace {

std::string utc(int64_t unix_ns) {
  std::time_t t = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string state_text(const schema::RunSummary& r) {
  // A run still marked running in a file nobody writes is one whose cordon
  // died: its trace holds every batch committed before that.
  if (r.state == "running") return "incomplete (cordon ended before the run did)";
  return r.state;
}

template <typename T>
std::string json_opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "null";
}

std::string json_opt_str(const std::optional<std::string>& v) {
  return v ? json_string(*v) : "null";
}

std::string json_opt_bool(const std::optional<bool>& v) {
  return v ? (*v ? "true" : "false") : "null";
}

std::string event_json(int64_t run, const schema::EventRecord& e) {
  std::string argv = "null";
  if (e.argv) {
    argv = "[";
    for (size_t i = 0; i < e.argv->size(); ++i) argv += (i ? "," : "") + json_string((*e.argv)[i]);
    argv += "]";
  }
  return fmt::format(
      "{{\"run\":{},\"seq\":{},\"time_ns\":{},\"pid\":{},\"tid\":{},\"syscall\":{},\"op\":{},"
      "\"path\":{},\"abs_path\":{},\"existed\":{},\"path2\":{},\"abs_path2\":{},\"existed2\":{},"
      "\"flags\":{},\"mode\":{},\"fault\":{},\"net_family\":{},\"net_addr\":{},\"net_port\":{},"
      "\"argv\":{},\"errno\":{}}}",
      run, e.seq, e.time_ns, e.pid, e.tid, json_string(e.syscall), json_string(e.op),
      json_opt_str(e.path), json_opt_str(e.abs_path), json_opt_bool(e.existed),
      json_opt_str(e.path2), json_opt_str(e.abs_path2), json_opt_bool(e.existed2),
      json_opt(e.flags), json_opt(e.mode), json_opt_str(e.fault), json_opt_str(e.net_family),
      json_opt_str(e.net_addr), json_opt(e.net_port), argv, json_opt(e.error));
}

std::string event_text(int64_t run, const schema::EventRecord& e) {
  std::string what;
  if (e.abs_path) {
    what = util::printable(*e.abs_path);
  } else if (e.path) {
    what = util::printable(*e.path);
  }
  if (e.abs_path2 || e.path2)
    what += " -> " + util::printable(e.abs_path2 ? *e.abs_path2 : *e.path2);
  if (e.net_family && e.net_family != "unix") {
    what = fmt::format("{} {}{}", *e.net_family, util::printable(e.net_addr.value_or("")),
                       e.net_port ? fmt::format(" port {}", *e.net_port) : "");
  }
  std::string extra;
  if (e.flags) extra += fmt::format(" flags=0x{:x}", *e.flags);
  if (e.mode) extra += fmt::format(" mode=0{:o}", *e.mode);
  if (e.existed) extra += *e.existed ? " existed" : " new";
  if (e.fault) extra += " fault=" + *e.fault;
  if (e.error) extra += fmt::format(" errno={}", *e.error);
  return fmt::format("{}:{:<6} {:>10.6f} {:>7} {:<8} {:<11} {}{}", run, e.seq,
                     static_cast<double>(e.time_ns) / 1e9, e.pid, e.op, e.syscall, what, extra);
}

std::string net_what(const schema::NetRecord& n) {
  std::string what = n.name.value_or(n.addr.value_or("?"));
  if (n.name && n.addr) what += " (" + *n.addr + ")";
  if (n.port) what += fmt::format(":{}", *n.port);
  return util::printable(what);
}

void print_run_text(const schema::RunSummary& r, const std::vector<schema::NetRecord>& net) {
  double secs = r.ended_at ? static_cast<double>(*r.ended_at - r.started_at) / 1e9 : 0;
  std::string status = state_text(r);
  if (r.exit_code) status += fmt::format(", exit {}", *r.exit_code);
  fmt::print("run {}{}: {}{}\n", r.id, r.mode == "audit" ? " (audit)" : "", status,
             r.ended_at ? fmt::format(", {:.2f}s", secs) : "");
  fmt::print("  command:   {}\n", shell_join(r.argv));
  fmt::print("  cwd:       {}\n", util::printable(r.cwd));
  fmt::print("  started:   {} by {} ({}), kernel {} {}, cordon {}, sync wake-up {}\n",
             utc(r.started_at), r.user_name, util::printable(r.home), r.kernel, r.arch,
             r.cordon_version, r.sync_wakeup ? "on" : "off");
  if (r.note) fmt::print("  note:      {}\n", util::printable(*r.note));
  std::string ops;
  for (const auto& [op, n] : r.events_by_op)
    ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", op, n);
  fmt::print("  processes: {}\n  {}{}{}\n", r.process_count,
             r.mode == "audit" ? "denials:   " : "events:    ", r.event_count,
             ops.empty() ? "" : " (" + ops + ")");
  for (const auto& n : net) {
    fmt::print("  network:   {} {} {} {}{}{}\n", n.allowed ? "allowed" : "refused", n.kind, n.proto,
               net_what(n), n.count > 1 ? fmt::format(" ({}x)", n.count) : "",
               n.reason ? ": " + util::printable(*n.reason) : "");
  }
}

std::string net_json(const std::vector<schema::NetRecord>& net) {
  std::string out = "[";
  for (size_t i = 0; i < net.size(); ++i) {
    const auto& n = net[i];
    out += fmt::format(
        "{}{{\"kind\":{},\"proto\":{},\"name\":{},\"addr\":{},\"port\":{},\"verdict\":{},"
        "\"reason\":{},\"count\":{}}}",
        i ? "," : "", json_string(n.kind), json_string(n.proto), json_opt_str(n.name),
        json_opt_str(n.addr), json_opt(n.port), json_string(n.allowed ? "allowed" : "refused"),
        json_opt_str(n.reason), n.count);
  }
  return out + "]";
}

std::string run_json(const schema::RunSummary& r, const std::vector<schema::NetRecord>& net) {
  std::string argv = "[";
  for (size_t i = 0; i < r.argv.size(); ++i) argv += (i ? "," : "") + json_string(r.argv[i]);
  argv += "]";
  std::string ops = "{";
  for (size_t i = 0; i < r.events_by_op.size(); ++i) {
    ops += fmt::format("{}{}:{}", i ? "," : "", json_string(r.events_by_op[i].first),
                       r.events_by_op[i].second);
  }
  ops += "}";
  return fmt::format(
      "{{\"id\":{},\"argv\":{},\"cwd\":{},\"user\":{},\"home\":{},\"kernel\":{},\"arch\":{},"
      "\"cordon_version\":{},\"started_at_ns\":{},\"ended_at_ns\":{},\"state\":{},\"complete\":{},"
      "\"exit_code\":{},\"exit_signal\":{},\"sync_wakeup\":{},\"note\":{},\"processes\":{},"
      "\"events\":{},\"events_by_op\":{},\"mode\":{},\"net\":{}}}",
      r.id, argv, json_string(r.cwd), json_string(r.user_name), json_string(r.home),
      json_string(r.kernel), json_string(r.arch), json_string(r.cordon_version), r.started_at,
      json_opt(r.ended_at), json_string(r.state), r.state == "complete" ? "true" : "false",
      json_opt(r.exit_code), json_opt(r.exit_signal), r.sync_wakeup ? "true" : "false",
      json_opt_str(r.note), r.process_count, r.event_count, ops, json_string(r.mode),
      net_json(net));
}

}  // namespace

int cmd_show(const std::vector<std::string>& args) {
  cxxopts::Options options("cordon show", "Summarise a trace, or list its events");
  options.add_options()("json", "machine-readable output")("events", "list the events")(
      "path", "only events on this path or below", cxxopts::value<std::string>())(
      "op", "only events of this operation class", cxxopts::value<std::string>())(
      "run", "only this run", cxxopts::value<int64_t>())("trace", "trace file",
                                                         cxxopts::value<std::string>());
  options.parse_positional({"trace"});
  std::vector<const char*> argv{"cordon show"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.count("trace")) {
    report("show: missing TRACE.db");
    return kUsage;
  }
  std::string path = parsed["trace"].as<std::string>();
  auto db = schema::TraceDb::open_for_reading(path);
  if (!db) {
    report(db.error().message);
    return kCordonFailed;
  }
  const bool json = parsed.count("json") > 0;
  if (!parsed.count("events")) {
    auto runs = db->runs();
    if (!runs) {
      report(runs.error().message);
      return kCordonFailed;
    }
    std::map<int64_t, std::vector<schema::NetRecord>> net;
    if (auto st = db->for_each_net(
            std::nullopt, [&](int64_t run, const schema::NetRecord& n) { net[run].push_back(n); });
        !st) {
      report(st.error().message);
      return kCordonFailed;
    }
    if (json) fmt::print("{{\"trace\":{},\"runs\":[", util::json_string(path));
    bool first = true;
    for (const auto& r : *runs) {
      if (parsed.count("run") && r.id != parsed["run"].as<int64_t>()) continue;
      if (json) {
        fmt::print("{}{}", first ? "" : ",", run_json(r, net[r.id]));
      } else {
        print_run_text(r, net[r.id]);
      }
      first = false;
    }
    if (json) fmt::print("]}}\n");
    return kOk;
  }
  schema::EventFilter filter;
  if (parsed.count("run")) filter.run_id = parsed["run"].as<int64_t>();
  if (parsed.count("op")) filter.op = parsed["op"].as<std::string>();
  if (parsed.count("path")) {
    // Paths in a trace are absolute; a relative prefix means one below here.
    char cwd[4096];
    std::string prefix = parsed["path"].as<std::string>();
    filter.path_prefix = util::join_path(::getcwd(cwd, sizeof cwd) ? cwd : "/", prefix);
  }
  auto st = db->for_each_event(filter, [&](int64_t run, const schema::EventRecord& e) {
    fmt::print("{}\n", json ? event_json(run, e) : event_text(run, e));
    return true;
  });
  if (!st) {
    report(st.error().message);
    return kCordonFailed;
  }
  return kOk;
}

}  // namespace cordon::cli
