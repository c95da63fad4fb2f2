#include "enforcer/context_loader.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/json.h"
#include "util/path.h"

namespace cordon::enforcer {

using util::Error;

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

const std::vector<std::string>& context_tools() {
  static const std::vector<std::string> tools = {"claude", "opencode"};
  return tools;
}

util::Result<ContextLoad> load_context_for(const std::string& tool,
                                           const std::vector<std::string>& command,
                                           const std::string& context_file,
                                           const std::vector<std::string>& passed_env) {
  if (std::find(context_tools().begin(), context_tools().end(), tool) == context_tools().end()) {
    return Error{
        fmt::format("--context-for: no loader for '{}' (supported: {}); see "
                    "docs/enforcement-model.md for pointing other tools at the file",
                    util::printable(tool), fmt::join(context_tools(), ", "))};
  }
  if (context_file.empty()) return Error{"--context-for needs the context file (not --no-context)"};
  if (base_name(command.at(0)) != tool) {
    return Error{fmt::format("--context-for {}: the command is '{}', not {}", tool,
                             util::printable(command[0]), tool)};
  }
  ContextLoad load;
  load.command = command;
  if (tool == "claude") {
    for (const auto& arg : command) {
      if (arg.starts_with("--append-system-prompt")) {
        return Error{fmt::format(
            "--context-for claude: the command already passes {}; add the context yourself "
            "(it is $CORDON_SANDBOX_CONTEXT inside) or drop --context-for",
            util::printable(arg))};
      }
    }
    // Right after argv[0], before any `--` the user's arguments may hold.
    load.command.insert(load.command.begin() + 1, {"--append-system-prompt-file", context_file});
  } else {
    if (std::find(passed_env.begin(), passed_env.end(), "OPENCODE_CONFIG_CONTENT") !=
        passed_env.end()) {
      return Error{
          "--context-for opencode: OPENCODE_CONFIG_CONTENT is passed into the sandbox and would "
          "be replaced; add the context to it yourself or drop --context-for"};
    }
    load.environ.emplace_back("OPENCODE_CONFIG_CONTENT",
                              "{\"instructions\":[" + util::json_string(context_file) + "]}");
  }
  return load;
}

}  // namespace cordon::enforcer
