#include <unistd.h>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/trace_run.h"
#include "schema/trace_db.h"
#include "util/path.h"

namespace cordon::cli {

int cmd_trace(const std::vector<std::string>& args) {
  std::vector<std::string> opts, command;
  if (!split_command(args, opts, command) || command.empty()) {
    report(
        "trace: usage: cordon trace [--output FILE.db] [--policy FILE]... [--timeout SECONDS] "
        "[--net proxy|host] [--dns-upstream ADDR[:PORT]] -- CMD [ARG...]");
    return kUsage;
  }
  cxxopts::Options options("cordon trace", "Record what a command does");
  options.add_options()("o,output", "trace file (appended to as a new run if it exists)",
                        cxxopts::value<std::string>());
  add_trace_options(options);
  std::vector<const char*> argv{"cordon trace"};
  for (const auto& a : opts) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());

  tracer::TraceOptions topt;
  if (auto stop = trace_options(parsed, "trace", command, "output", topt)) return *stop;
  auto outcome = run_and_report(topt);
  return outcome ? outcome->exit_code : kCordonFailed;
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

int cmd_upgrade(const std::vector<std::string>& args) {
  if (args.empty()) {
    report("upgrade: usage: cordon upgrade TRACE.db...");
    return kUsage;
  }
  for (const auto& path : args) {
    // open_for_writing would create a missing file; upgrading one is a typo.
    if (::access(path.c_str(), F_OK) != 0) {
      report(util::printable(path) + ": cannot open (no such file)");
      return kCordonFailed;
    }
    if (auto db = schema::TraceDb::open_for_writing(path); !db) {
      report(db.error().message);
      return kCordonFailed;
    }
  }
  return kOk;
}

}  // namespace cordon::cli
