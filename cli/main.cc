// The `cordon` executable: picks the subcommand and maps failures to exit
// codes. Everything else lives in the component libraries.
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "enforcer/net/setup.h"
#include "tracer/tracer.h"

namespace cordon::cli {

void report(const std::string& what) {
  fmt::print(stderr, "cordon: {}\n", what);
}

namespace {

constexpr const char* kUsageText =
    "usage: cordon COMMAND [OPTIONS]\n"
    "\n"
    "  trace [--output FILE.db] [--timeout S] [--net proxy|host] -- CMD [ARG...]\n"
    "                                                            record what CMD does\n"
    "  show [--json] [--events [--path P] [--op OP]] TRACE.db    summarise or list a trace\n"
    "  merge OUT.db IN.db...                                     copy runs into one trace\n"
    "  upgrade TRACE.db...                                       migrate traces to this schema\n"
    "  run [--policy FILE]... [--dry-run] [--audit FILE.db] -- CMD [ARG...]\n"
    "                                                            run CMD confined to the policy\n"
    "  doctor [--json]                                           check what this host gives "
    "cordon\n"
    "  learn [--trace FILE.db] [--policy FILE]... [--output FILE] [--verify] -- CMD [ARG...]\n"
    "                                                            trace CMD, then draft its policy\n"
    "  draft [--policy FILE]... [--output FILE] [--json] TRACE.db...\n"
    "                                                            fold traces into a policy "
    "fragment\n"
    "  diff [--json] OLD.sbx NEW.sbx                             compare two policies by coverage\n"
    "  why [--policy FILE]... PATH...                            which rule decides each path\n"
    "  policy base | policy show [--json] [--policy FILE]...     the base layer; the layers in "
    "force\n"
    "\n"
    "See docs/ for the trace schema, learn rules and exit codes.\n";

int dispatch(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    fmt::print(argc < 2 ? stderr : stdout, "{}", kUsageText);
    return argc < 2 ? kUsage : kOk;
  }
  std::string cmd = argv[1];
  if (cmd == "__shim") {
    // Internal: `cordon __shim FD -- CMD...`, run by bwrap inside the sandbox.
    if (argc < 5 || std::string(argv[3]) != "--") return kCordonFailed;
    tracer::shim_main(std::atoi(argv[2]), argv + 4);
  }
  if (cmd == "__netsetup") {
    // Internal: `cordon __netsetup FD IP IPTABLES IP6TABLES -- CMD...`, the
    // network setup run by bwrap inside a sandbox with allow_tcp rules.
    enforcer::net::netsetup_main(argc, argv);
  }
  if (cmd == "--version") {
    fmt::print("cordon {}\n", CORDON_VERSION);
    return kOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "trace") return cmd_trace(args);
  if (cmd == "show") return cmd_show(args);
  if (cmd == "merge") return cmd_merge(args);
  if (cmd == "upgrade") return cmd_upgrade(args);
  if (cmd == "run") return cmd_run(args);
  if (cmd == "doctor") return cmd_doctor(args);
  if (cmd == "learn") return cmd_learn(args);
  if (cmd == "draft") return cmd_draft(args);
  if (cmd == "diff") return cmd_diff(args);
  if (cmd == "why") return cmd_why(args);
  if (cmd == "policy") return cmd_policy(args);
  report("unknown command '" + cmd + "' (see cordon --help)");
  return kUsage;
}

}  // namespace
}  // namespace cordon::cli

int main(int argc, char** argv) {
  try {
    return cordon::cli::dispatch(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    // cxxopts reports bad command lines by exception; they are usage errors.
    cordon::cli::report(e.what());
    return cordon::cli::kUsage;
  }
}
