// The layer stack as the invoking user has it (docs/policy-language.md,
// "Layers"), for the commands that measure against the current policy:
// draft, why, policy show, learn.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "schema/policy/layers.h"

namespace cordon::cli {

// $HOME when it is an absolute path, else the passwd entry's home, else "/".
std::string invoking_home();

// The current directory; empty when it cannot be read (deleted, say).
std::string current_dir();

// base, user ($XDG_CONFIG_HOME/cordon/policy.sbx of the invoking user),
// workspace (cwd/.cordon.sbx) and `policy_files`, for a command run in `cwd`
// with `home` as "~".
schema::LayerSources layer_sources(const std::string& cwd, const std::string& home,
                                   const std::vector<std::string>& policy_files);

// The layers in force for a command run here: the current directory, the
// invoking user's home, the `--policy` values of `parsed` (if any) and the
// workspace policy unless `workspace` is false. On failure the cause has
// been reported (prefixed with `name` where cordon adds the words) and the
// caller exits with kCordonFailed. `cwd` receives the directory used.
std::optional<schema::EffectivePolicy> current_policy(const std::string& name,
                                                      const cxxopts::ParseResult& parsed,
                                                      std::string& cwd, bool workspace = true);

}  // namespace cordon::cli
