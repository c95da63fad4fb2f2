// `cordon run --context-for TOOL`: make an agent CLI load the sandbox context
// file (context.h) in addition to the user's own instructions.
//
// Only tools whose loader can be driven without replacing anything the user
// set are supported, and a run that would replace something is refused:
//   claude    --append-system-prompt-file PATH after argv[0]; refused when
//             the command already passes --append-system-prompt[-file]
//   opencode  OPENCODE_CONFIG_CONTENT={"instructions":[PATH]}, which opencode
//             adds to the user's configured instructions; refused when the
//             sandbox would get the user's own OPENCODE_CONFIG_CONTENT
// Codex (developer_instructions overrides the user's config.toml) and others
// are left to the documented manual ways (docs/enforcement-model.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cordon::enforcer {

struct ContextLoad {
  std::vector<std::string> command;                          // rewritten
  std::vector<std::pair<std::string, std::string>> environ;  // to add
};

// The tools --context-for accepts, for usage text and errors.
const std::vector<std::string>& context_tools();

// How to run `command` so that `tool` loads the context at `context_file`;
// `passed_env` is the environment names the sandbox gets.
util::Result<ContextLoad> load_context_for(const std::string& tool,
                                           const std::vector<std::string>& command,
                                           const std::string& context_file,
                                           const std::vector<std::string>& passed_env);

}  // namespace cordon::enforcer
