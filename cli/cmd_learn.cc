// cordon learn: trace a command, then draft the trace, in one step.
#include <unistd.h>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/draft_output.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "schema/policy/policy.h"
#include "tracer/tracer.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_learn(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report(
        "learn: usage: cordon learn [--trace FILE.db] [--policy FILE]... [--output FILE] [--json] "
        "[--timeout SECONDS] -- CMD [ARG...]");
    return kUsage;
  }
  cxxopts::Options options("cordon learn", "Trace a command and draft a policy fragment for it");
  options.add_options()("trace", "trace file (appended to as a new run if it exists)",
                        cxxopts::value<std::string>())(
      "policy", "add this policy layer (repeatable)", cxxopts::value<std::vector<std::string>>())(
      "o,output", "write the fragment here instead of stdout", cxxopts::value<std::string>())(
      "json", "the fragment as data")("timeout", "end the command after this many seconds",
                                      cxxopts::value<double>());
  std::vector<const char*> argv{"cordon learn"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.unmatched().empty()) {
    report("learn: unexpected argument '" + parsed.unmatched().front() +
           "' (the command goes after --)");
    return kUsage;
  }

  tracer::TraceOptions topt;
  topt.command = command;
  topt.output = parsed.count("trace") ? parsed["trace"].as<std::string>()
                                      : tracer::default_trace_path(command[0]);
  if (parsed.count("timeout")) {
    double t = parsed["timeout"].as<double>();
    if (!(t > 0)) {
      report("learn: --timeout must be a positive number of seconds");
      return kUsage;
    }
    topt.timeout_seconds = t;
  }
  std::vector<std::string> policies;
  if (parsed.count("policy")) policies = parsed["policy"].as<std::vector<std::string>>();

  // The layers are read before the command runs, so a policy error costs
  // nothing; their denies apply while learning, as they will when enforced,
  // and the draft reports what they hid.
  const std::string cwd = current_dir();
  if (cwd.empty()) {
    report(util::sys_error("learn: getcwd").message);
    return kCordonFailed;
  }
  auto layers = schema::load_layers(layer_sources(cwd, invoking_home(), policies));
  if (!layers) {
    report(layers.error().message);
    return kCordonFailed;
  }
  for (const schema::Rule* rule : layers->rules_of(schema::RuleKind::kDeny))
    topt.deny.push_back(rule->value);
  topt.status_line = ::isatty(STDERR_FILENO) == 1;

  auto outcome = tracer::run_trace(topt);
  if (!outcome) {
    report(outcome.error().message);
    return kCordonFailed;
  }
  if (!outcome->message.empty()) report(outcome->message);
  fmt::print(stderr, "cordon: trace: {} (run {}, {} events, {} processes)\n",
             util::printable(outcome->output), outcome->run_id, outcome->events,
             outcome->processes);

  int drafted = emit_draft({outcome->output}, policies, parsed.count("json") > 0,
                           parsed.count("output") ? parsed["output"].as<std::string>() : "");
  return drafted == kOk ? outcome->exit_code : drafted;
}

}  // namespace cordon::cli
