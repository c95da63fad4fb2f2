// The `cordon` executable: picks the subcommand and maps failures to exit
// codes. Everything else lives in the component libraries.
#include <cstdlib>
#include <string>
#include <vector>

#include <cxxopts.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "tracer/tracer.h"

namespace cordon::cli {

void report(const std::string& what) { fmt::print(stderr, "cordon: {}\n", what); }

namespace {

constexpr const char* kUsageText =
    "usage: cordon COMMAND [OPTIONS]\n"
    "\n"
    "  trace [--output FILE.db] [--timeout S] -- CMD [ARG...]   record what CMD does\n"
    "  show [--json] [--events [--path P] [--op OP]] TRACE.db    summarise or list a trace\n"
    "  merge OUT.db IN.db...                                     copy runs into one trace\n"
    "  run [--policy FILE]... [--dry-run] -- CMD [ARG...]       run CMD confined to the policy\n"
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
  if (cmd == "--version") {
    fmt::print("cordon {}\n", CORDON_VERSION);
    return kOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "trace") return cmd_trace(args);
  if (cmd == "show") return cmd_show(args);
  if (cmd == "merge") return cmd_merge(args);
  if (cmd == "run") return cmd_run(args);
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
