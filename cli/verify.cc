#include "cli/verify.h"

#include <set>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "cli/run_request.h"
#include "schema/policy/layers.h"
#include "schema/trace_db.h"
#include "util/path.h"

namespace cordon::cli {
namespace {

// Which of `wanted` (paths, and host:port for the network) the learn run
// touched: any event naming it, any connection or lookup reaching it.
util::Result<std::set<std::string>> seen_while_learning(const std::string& trace, int64_t run,
                                                        const std::set<std::string>& wanted) {
  auto db = schema::TraceDb::open_for_reading(trace);
  if (!db) return db.error();
  std::set<std::string> seen;
  auto note = [&](const std::string& what) {
    if (wanted.count(what)) seen.insert(what);
  };
  schema::EventFilter filter;
  filter.run_id = run;
  auto st = db->for_each_event(filter, [&](int64_t, const schema::EventRecord& e) {
    if (e.abs_path) note(*e.abs_path);
    if (e.abs_path2) note(*e.abs_path2);
    if (e.net_addr && e.net_port) note(fmt::format("{}:{}", *e.net_addr, *e.net_port));
    return true;
  });
  if (!st) return st.error();
  st = db->for_each_net(run, [&](int64_t, const schema::NetRecord& r) {
    if (!r.port) return;
    if (r.name) note(fmt::format("{}:{}", *r.name, *r.port));
    if (r.addr) note(fmt::format("{}:{}", *r.addr, *r.port));
  });
  if (!st) return st.error();
  return seen;
}

}  // namespace

std::string beside_trace(const std::string& trace, const std::string& suffix) {
  std::string stem = trace;
  if (stem.size() > 3 && stem.ends_with(".db")) stem.resize(stem.size() - 3);
  return stem + suffix;
}

int verify_draft(const VerifyInput& in) {
  const std::string cwd = current_dir();
  if (cwd.empty()) {
    report(util::sys_error("learn --verify: getcwd").message);
    return kCordonFailed;
  }
  std::vector<std::string> layers = in.policies;
  layers.push_back(in.draft);
  auto policy = schema::load_layers(layer_sources(cwd, invoking_home(), layers));
  if (!policy) {
    report(policy.error().message);
    return kCordonFailed;
  }
  enforcer::RunRequest req = run_request(in.command, *policy, cwd, in.dns_upstream);
  req.audit_output = beside_trace(in.learn_trace, "-verify.db");
  fmt::print(stderr, "cordon: verify: running it again under the policy plus the draft\n");
  RunResult verified = run_confined(std::move(req));
  if (!verified.denials) return kCordonFailed;  // reported by run_confined

  std::set<std::string> wanted;
  for (const auto& d : *verified.denials) wanted.insert(d.what);
  auto seen = seen_while_learning(in.learn_trace, in.learn_run, wanted);
  if (!seen) {
    report(seen.error().message);
    return kCordonFailed;
  }
  std::vector<std::string> missing, other, hidden;
  for (const auto& d : *verified.denials) {
    // A denied file read as empty: the learn run read the same stand-in
    // (denies apply while learning), and no draft can grant it.
    auto& list = d.error == 0 && d.op == "open" ? hidden : seen->count(d.what) ? missing : other;
    list.push_back("  " + tracer::describe_denial(d));
  }
  report(fmt::format("verify: learn run exit {}, verify run exit {}{}", in.learn_exit,
                     verified.exit_code,
                     in.learn_exit == verified.exit_code ? "" : " (they differ)"));
  if (!other.empty()) {
    report(
        fmt::format("verify: {} denial{} of what the learn run never did (the command took "
                    "another path this time):",
                    other.size(), other.size() == 1 ? "" : "s"));
    for (const auto& line : other) report(line);
  }
  if (!hidden.empty()) {
    report(fmt::format("verify: {} denied file{} read as empty, as while learning:", hidden.size(),
                       hidden.size() == 1 ? "" : "s"));
    for (const auto& line : hidden) report(line);
  }
  if (missing.empty()) {
    report("verify: the draft is complete: nothing the learn run did was denied");
    return kOk;
  }
  report(fmt::format("verify: the draft is INCOMPLETE: {} denial{} of what the learn run did:",
                     missing.size(), missing.size() == 1 ? "" : "s"));
  for (const auto& line : missing) report(line);
  return kIncompleteDraft;
}

}  // namespace cordon::cli
