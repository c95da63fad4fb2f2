// cordon draft: traces to a policy fragment (docs/learn-rules.md).
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/draft_output.h"
#include "cli/exit_codes.h"

namespace cordon::cli {

int cmd_draft(const std::vector<std::string>& args) {
  cxxopts::Options options("cordon draft", "Fold traces into a policy fragment");
  options.add_options()("policy", "measure against this policy layer too (repeatable)",
                        cxxopts::value<std::vector<std::string>>())(
      "o,output", "write the fragment here instead of stdout", cxxopts::value<std::string>())(
      "json", "the fragment as data")("traces", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"traces"});
  std::vector<const char*> argv{"cordon draft"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.count("traces")) {
    report(
        "draft: usage: cordon draft [--policy FILE]... [--output FILE] [--json] TRACE.db "
        "[TRACE.db...]");
    return kUsage;
  }
  std::vector<std::string> policies;
  if (parsed.count("policy")) policies = parsed["policy"].as<std::vector<std::string>>();
  return emit_draft(parsed["traces"].as<std::vector<std::string>>(), policies,
                    parsed.count("json") > 0,
                    parsed.count("output") ? parsed["output"].as<std::string>() : "");
}

}  // namespace cordon::cli
