// cordon learn: trace a command, then draft the trace, in one step.
#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/draft_output.h"
#include "cli/exit_codes.h"
#include "cli/trace_run.h"
#include "cli/verify.h"
#include "schema/policy/policy.h"
#include "tracer/tracer.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_learn(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report(
        "learn: usage: cordon learn [--trace FILE.db] [--policy FILE]... [--output FILE] [--json] "
        "[--timeout SECONDS] [--net proxy|host] [--dns-upstream ADDR[:PORT]] "
        "[--verify | --verify-cmd 'SHELL COMMAND'] -- CMD [ARG...]");
    return kUsage;
  }
  cxxopts::Options options("cordon learn", "Trace a command and draft a policy fragment for it");
  options.add_options()("trace", "trace file (appended to as a new run if it exists)",
                        cxxopts::value<std::string>())(
      "o,output", "write the fragment here instead of stdout", cxxopts::value<std::string>())(
      "json", "the fragment as data")("verify",
                                      "run CMD again under the policy plus the draft, audited")(
      "verify-cmd", "like --verify, but run this shell command instead",
      cxxopts::value<std::string>());
  add_trace_options(options);
  std::vector<const char*> argv{"cordon learn"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());

  const bool verify = parsed.count("verify") || parsed.count("verify-cmd");
  if (verify && parsed.count("json")) {
    report("learn: --verify needs the draft as policy text, not --json");
    return kUsage;
  }
  tracer::TraceOptions topt;
  if (auto stop = trace_options(parsed, "learn", command, "trace", topt)) return *stop;
  auto outcome = run_and_report(topt);
  if (!outcome) return kCordonFailed;

  std::vector<std::string> policies;
  if (parsed.count("policy")) policies = parsed["policy"].as<std::vector<std::string>>();
  std::string output = parsed.count("output") ? parsed["output"].as<std::string>() : "";
  int drafted = emit_draft({outcome->output}, policies, parsed.count("json") > 0, output);
  if (drafted != kOk) return drafted;
  if (!verify) return outcome->exit_code;

  // The verify run needs the draft as a policy file: the --output file, or
  // one beside the trace when the draft went to stdout.
  if (output.empty()) {
    output = beside_trace(outcome->output, ".draft.sbx");
    if (int code = emit_draft({outcome->output}, policies, false, output); code != kOk) {
      return code;
    }
  }
  VerifyInput in{outcome->output, outcome->run_id, outcome->exit_code, output,
                 policies,        command,         std::nullopt};
  if (parsed.count("dns-upstream")) in.dns_upstream = parsed["dns-upstream"].as<std::string>();
  if (parsed.count("verify-cmd"))
    in.command = {"/bin/sh", "-c", parsed["verify-cmd"].as<std::string>()};
  int verdict = verify_draft(in);
  return verdict == kOk ? outcome->exit_code : verdict;
}

}  // namespace cordon::cli
