// The layer stack a sandbox runs under: base, user, workspace, then each
// --policy file (docs/policy-language.md, "Layers").
//
// Contract: the caller says where the command runs (`cwd`, which is "." of
// the base layer and holds the workspace file) and whose home "~" means; the
// loader reads no environment variable itself. A missing user or workspace
// file is skipped; a missing --policy file, and any file that does not parse,
// is an error ("FILE:LINE:COLUMN: message" for syntax errors).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/policy/effective.h"
#include "util/result.h"

namespace cordon::schema {

struct LayerSources {
  std::string cwd;
  std::string home;
  // Path of the user layer, or none to leave it out (see user_policy_path).
  std::optional<std::string> user_file;
  bool workspace = true;                  // read cwd/.cordon.sbx if it is there
  std::vector<std::string> policy_files;  // --policy, in the order given
};

util::Result<EffectivePolicy> load_layers(const LayerSources& sources);

// $XDG_CONFIG_HOME/cordon/policy.sbx, or ~/.config/cordon/policy.sbx when
// XDG_CONFIG_HOME is unset or empty (or not absolute, as the XDG spec says).
std::string user_policy_path(const char* xdg_config_home, const std::string& home);

}  // namespace cordon::schema
