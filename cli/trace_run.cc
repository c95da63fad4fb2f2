#include "cli/trace_run.h"

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::cli {

void add_trace_options(cxxopts::Options& options) {
  options.add_options()("policy", "add this policy layer; its denies apply while learning",
                        cxxopts::value<std::vector<std::string>>())(
      "timeout", "end the command after this many seconds", cxxopts::value<double>());
}

std::optional<int> trace_options(const cxxopts::ParseResult& parsed, const std::string& name,
                                 const std::vector<std::string>& command,
                                 const std::string& output_key, tracer::TraceOptions& out) {
  if (!parsed.unmatched().empty()) {
    report(name + ": unexpected argument '" + parsed.unmatched().front() +
           "' (the command goes after --)");
    return kUsage;
  }
  out.command = command;
  out.output = parsed.count(output_key) ? parsed[output_key].as<std::string>()
                                        : tracer::default_trace_path(command[0]);
  if (parsed.count("timeout")) {
    double t = parsed["timeout"].as<double>();
    if (!(t > 0)) {
      report(name + ": --timeout must be a positive number of seconds");
      return kUsage;
    }
    out.timeout_seconds = t;
  }
  // The layers are read before the command runs, so a policy error costs
  // nothing.
  std::string cwd;
  auto layers = current_policy(name, parsed, cwd);
  if (!layers) return kCordonFailed;
  for (const schema::Rule* rule : layers->rules_of(schema::RuleKind::kDeny)) {
    out.deny.push_back(rule->value);
  }
  out.status_line = ::isatty(STDERR_FILENO) == 1;
  return std::nullopt;
}

std::optional<tracer::TraceOutcome> run_and_report(const tracer::TraceOptions& options) {
  auto outcome = tracer::run_trace(options);
  if (!outcome) {
    report(outcome.error().message);
    return std::nullopt;
  }
  if (!outcome->message.empty()) report(outcome->message);
  fmt::print(stderr, "cordon: trace: {} (run {}, {} events, {} processes)\n",
             util::printable(outcome->output), outcome->run_id, outcome->events,
             outcome->processes);
  return std::move(*outcome);
}

}  // namespace cordon::cli
