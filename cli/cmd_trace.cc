#include <unistd.h>

#include <cstdlib>

#include <cxxopts.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "schema/policy/policy.h"
#include "schema/trace_db.h"
#include "tracer/tracer.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_trace(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report("trace: usage: cordon trace [--output FILE.db] [--policy FILE]... [--timeout SECONDS] -- CMD [ARG...]");
    return kUsage;
  }
  cxxopts::Options options("cordon trace", "Record what a command does");
  options.add_options()("o,output", "trace file (appended to as a new run if it exists)",
                        cxxopts::value<std::string>())(
      "policy", "apply this policy's denies while learning", cxxopts::value<std::vector<std::string>>())(
      "timeout", "end the command after this many seconds", cxxopts::value<double>());
  std::vector<const char*> argv{"cordon trace"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());

  tracer::TraceOptions topt;
  topt.command = command;
  topt.output = parsed.count("output") ? parsed["output"].as<std::string>()
                                       : tracer::default_trace_path(command[0]);
  if (parsed.count("timeout")) {
    double t = parsed["timeout"].as<double>();
    if (!(t > 0)) {
      report("trace: --timeout must be a positive number of seconds");
      return kUsage;
    }
    topt.timeout_seconds = t;
  }
  if (parsed.count("policy")) {
    // Only the denies matter while learning: everything else is let through
    // so the trace shows what the command reaches for.
    const char* home = std::getenv("HOME");
    for (const auto& file : parsed["policy"].as<std::vector<std::string>>()) {
      auto policy = schema::load_policy_file(file, home ? home : "/");
      if (!policy) {
        report(policy.error().message);
        return kCordonFailed;
      }
      for (const auto& rule : policy->rules) {
        if (rule.kind == schema::RuleKind::kDeny) topt.deny.push_back(rule.value);
      }
    }
  }
  topt.status_line = ::isatty(STDERR_FILENO) == 1;

  auto outcome = tracer::run_trace(topt);
  if (!outcome) {
    report(outcome.error().message);
    return kCordonFailed;
  }
  if (!outcome->message.empty()) report(outcome->message);
  fmt::print(stderr, "cordon: trace: {} (run {}, {} events, {} processes)\n",
             util::printable(outcome->output), outcome->run_id, outcome->events, outcome->processes);
  return outcome->exit_code;
}

int cmd_merge(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    report("merge: usage: cordon merge OUT.db IN.db [IN.db...]");
    return kUsage;
  }
  // Every input is checked before the output is created, so a bad input
  // leaves no empty trace behind.
  for (size_t i = 1; i < args.size(); ++i) {
    if (auto in = schema::TraceDb::open_for_reading(args[i]); !in) {
      report(in.error().message);
      return kCordonFailed;
    }
  }
  auto out = schema::TraceDb::open_for_writing(args[0]);
  if (!out) {
    report(out.error().message);
    return kCordonFailed;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    auto n = out->merge_from(args[i]);
    if (!n) {
      report(n.error().message);
      return kCordonFailed;
    }
    fmt::print(stderr, "cordon: merged {} run{} from {}\n", *n, *n == 1 ? "" : "s",
               util::printable(args[i]));
  }
  return kOk;
}

}  // namespace cordon::cli
