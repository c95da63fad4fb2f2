// cordon diff: two policy files compared by what they cover.
#include <unistd.h>

#include <fmt/format.h>
#include <cxxopts.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "drafter/drafter.h"
#include "schema/policy/policy.h"

namespace cordon::cli {

int cmd_diff(const std::vector<std::string>& args) {
  cxxopts::Options options("cordon diff", "Compare two policies by coverage");
  options.add_options()("json", "the differences as data")(
      "files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  std::vector<const char*> argv{"cordon diff"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto parsed = options.parse(static_cast<int>(argv.size()), argv.data());
  auto files = parsed.count("files") ? parsed["files"].as<std::vector<std::string>>()
                                     : std::vector<std::string>{};
  if (files.size() != 2) {
    report("diff: usage: cordon diff [--json] OLD.sbx NEW.sbx");
    return kUsage;
  }
  const std::string home = invoking_home();
  auto old_policy = schema::load_policy_file(files[0], home);
  if (!old_policy) {
    report(old_policy.error().message);
    return kCordonFailed;
  }
  auto new_policy = schema::load_policy_file(files[1], home);
  if (!new_policy) {
    report(new_policy.error().message);
    return kCordonFailed;
  }
  auto diff = drafter::diff_policies(*old_policy, *new_policy);
  if (parsed.count("json")) {
    fmt::print("{}", drafter::format_diff_json(diff));
  } else {
    fmt::print("{}", drafter::format_diff_text(diff, ::isatty(STDOUT_FILENO) == 1));
  }
  return diff.equivalent() ? kOk : kDiffers;
}

}  // namespace cordon::cli
